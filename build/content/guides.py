"""Authored study guides: Markdown with literal quotes bound to refs.

Citation syntax (documented in site_src/content/README.md)::

    [«literal words of the passage»](cita:art48.1.a)

The quote is found, with file:line, before Markdown runs; the gate (verify.py) judges it on the
rendered regulation page, and the guide shows it with a chip that deep-links to those words.
Author HTML is escaped (markdown-it with html disabled).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from citavial.build.errors import BuildError
from citavial.build.gate.verify import ROW_SEPARATOR
from citavial.build.models import Citation
from citavial.build.patterns import (
    CITATION,
    FRONT_MATTER,
    LOOSE_CITATION,
    PLACEHOLDER_NUMBER,
)
from citavial.build.refs import RefError, human_label, parse_ref
from citavial.build.render.changes import latest_change

PLACEHOLDER = "CITAVIALCITE{}X"


@dataclass(frozen=True)
class Guide:
    slug: str
    title: str
    summary: str
    order: int
    source: str          # the Markdown body with citations replaced by placeholders
    citations: tuple[Citation, ...]
    body_line: int = 1   # the file line of the body's first line
    path: str = ""

    def __repr__(self) -> str:
        return f"Guide({self.slug}, {len(self.citations)} citations)"


def read_guides(content_dir: Path) -> list[Guide]:
    """Parse every ``*.md`` guide (README.md excluded), sorted by (order, slug)."""
    guides = [read_guide(p) for p in sorted(Path(content_dir).glob("*.md"))
              if p.name != "README.md"]
    return sorted(guides, key=lambda g: (g.order, g.slug))


def read_guide(path: Path) -> Guide:
    text = read_utf8(path)
    meta, body, body_line = _front_matter(text, path)
    citations: list[Citation] = []

    def take(m: re.Match) -> str:
        line = body_line + body.count("\n", 0, m.start())
        raw_ref = m.group("ref")
        try:
            ref, err = parse_ref(raw_ref), ""
        except RefError as exc:
            ref, err = raw_ref, str(exc)
        citations.append(Citation(str(path), line, ref, m.group("quote"), err))
        return PLACEHOLDER.format(len(citations) - 1)

    replaced = CITATION.sub(take, body)
    for m in LOOSE_CITATION.finditer(replaced):
        line = body_line + replaced.count("\n", 0, m.start())
        raise BuildError(f"{path}:{line}", f"malformed citation near {replaced[m.start():m.start() + 40]!r}",
                         "write [«exact words»](cita:art48.1.a) — no « » [ ] inside the quote")
    order = meta.get("order", "99")
    if not order.isdigit():
        raise BuildError(f"{path}:1", f"front-matter order {order!r} is not a whole number",
                         "write e.g. 'order: 3' (guides are listed by it)")
    return Guide(slug=path.stem, title=meta["title"], summary=meta.get("summary", ""),
                 order=int(order), source=replaced, citations=tuple(citations),
                 body_line=body_line, path=str(path))


def read_utf8(path: Path) -> str:
    """A text file of authored content, or a BuildError naming the first bad byte."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise BuildError(f"{path}:{line}", f"byte {data[exc.start]:#04x} at offset {exc.start} "
                         "is not UTF-8", "save the file as UTF-8") from None


def _front_matter(text: str, path: Path) -> tuple[dict, str, int]:
    m = FRONT_MATTER.match(text)
    if not m:
        raise BuildError(f"{path}:1", "has no front matter",
                         "start the file with ---, title: …, summary: …, order: N, ---")
    meta = {}
    for i, line in enumerate(m.group("body").splitlines(), start=2):
        key, sep, value = line.partition(":")
        if not sep:
            raise BuildError(f"{path}:{i}", f"front-matter line {line!r} is not 'key: value'",
                             "write one 'key: value' per line")
        meta[key.strip()] = value.strip()
    if not meta.get("title"):
        raise BuildError(f"{path}:1", "front matter has no title", "add 'title: …'")
    return meta, text[m.end():], m.group(0).count("\n") + 1


def render_guide_html(guide: Guide, links: dict[int, str],
                      recent: dict | None = None) -> Markup:
    """Markdown → HTML; each citation becomes the quote plus a chip linking to ``links[i]``;
    a quote whose passage changed recently (``recent``: {ref: date}) is flagged."""
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    html = md.render(guide.source)
    # Wide tables scroll inside their box instead of widening a phone's page.
    html = (html.replace("<table>", '<div class="table-wrap"><table aria-label="Tabla resumen">')
            .replace("</table>", "</table></div>").replace("<th>", '<th scope="col">'))
    for i, cit in enumerate(guide.citations):
        chip = (f'{_quote_html(cit.quote)} '
                f'<a class="chip" href="{escape(links[i])}" '
                f'title="Abrir el texto citado ({escape(human_label(cit.ref))})">'
                f'{escape(human_label(cit.ref))}</a>')
        changed = latest_change(cit.ref, recent or {})
        if changed:
            chip += (f' <a class="changed-flag" href="cambios.html#d-{changed.strftime("%Y%m%d")}">'
                     f'(este texto cambió el {escape(_fecha(changed))}: ver qué cambió)</a>')
        html = html.replace(PLACEHOLDER.format(i), chip, 1)
    return Markup(html)


def prose_items(guide: Guide) -> list:
    """The guide's prose for the prose check (build/content/prose.py): one item per paragraph, list
    item, table row or heading, with the citations it makes; an item that cites nothing relies on
    its section's citations, and a section that cites nothing (a summary) on the whole guide's."""
    from citavial.build.content.prose import ProseItem

    tokens = MarkdownIt("commonmark").enable("table").parse(guide.source)
    blocks: list[tuple[int, str, int, str]] = []   # (body line, text, section, context)
    section, opened, heading, depth, lead = 0, 1, "", 0, ""
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag == "h2":
            section += 1
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
            if depth == 1:   # the paragraph before a list is its lead-in
                lead = blocks[-1][1] if blocks else ""
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        if tok.type in ("tr_open", "paragraph_open", "heading_open") and tok.map:
            opened = tok.map[0]
        if tok.type != "inline":
            continue
        if tokens[i - 1].type == "heading_open":
            heading = tok.content
        context = f"{heading} {lead}" if depth else heading
        if tokens[i - 1].type in ("td_open", "th_open") and blocks and blocks[-1][0] == opened:
            blocks[-1] = (opened, blocks[-1][1] + " | " + tok.content, section, blocks[-1][3])
        else:
            blocks.append((opened, tok.content, section, context))
    cites = {n: [int(k) for k in PLACEHOLDER_NUMBER.findall(b[1])] for n, b in enumerate(blocks)}
    by_section: dict[int, list[int]] = {}
    for n, b in enumerate(blocks):
        by_section.setdefault(b[2], []).extend(cites[n])
    items = []
    for n, (line, text, sec, context) in enumerate(blocks):
        own = cites[n] or by_section[sec] or list(range(len(guide.citations)))
        items.append(ProseItem(guide.path or guide.slug, guide.body_line + line,
                               _prose(text), tuple(guide.citations[k] for k in own),
                               inherited=not cites[n], context=_prose(context)))
    return items


def _prose(markdown: str) -> str:
    return PLACEHOLDER_NUMBER.sub(" ", markdown).replace("**", "")


def _quote_html(quote: str) -> str:
    """A quote in «»; a table-row quote ("cell | cell | …") as a one-row table of its cells."""
    if ROW_SEPARATOR not in quote:
        return f'<q class="cita">{escape(quote)}</q>'
    cells = "".join(f'<span class="cita-cell" role="cell">{escape(c)}</span>'
                    for c in quote.split(ROW_SEPARATOR))
    return (f'<span class="cita-row" role="table" aria-label="Fila citada de la tabla">'
            f'<span role="row">{cells}</span></span>')


def _fecha(day) -> str:
    from citavial.build.render.pages import spanish_date  # render imports nothing from here
    return spanish_date(day)


def guide_pages(guides: list[Guide], links: dict[tuple[str, int, str], str],
                recent: dict | None = None) -> list:
    """The guides' index page and one page per guide; ``links`` maps (file, line, quote) to the
    deep link the gate proved for that citation."""
    from citavial.build.render.pages import (
        ExtraPage,  # render imports nothing from here; avoid a cycle at load
    )

    pages = []
    for g in guides:
        urls = {i: links[(c.file, c.line, c.quote)] for i, c in enumerate(g.citations)}
        pages.append(ExtraPage(f"guia-{g.slug}.html", "guide.html", {
            "guide_title": g.title, "guide_summary": g.summary,
            "guide_html": render_guide_html(g, urls, recent)}))
    index = [{"filename": f"guia-{g.slug}.html", "title": g.title, "summary": g.summary,
              "n_citations": len(g.citations)} for g in guides]
    pages.append(ExtraPage("guias.html", "guides.html", {"guides": index}))
    return pages
