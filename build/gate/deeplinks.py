"""Per-page deep links for the "Copiar enlace" control, written after the gate has run.

A unit page cannot carry its own allowlisted links (they are proven on the rendered page), so each
page gets a small script ``deeplinks/<page>.js`` (a script, not JSON, because file:// forbids
fetch) with the allowlist's link of every passage on it and, for tables, a link per row proven by
the gate's own row check — or, for a row that check refuses (too short to quote, repeated on
the page), found by its place in the table and proven by the same matcher (fragments/cells.py).
A row no text fragment can single out (its cells recur with the same neighbours earlier on the
page) gets ``""``: the control says so and copies the table's link. A row with no text at all
gets ``null`` and no control.
"""

from __future__ import annotations

import json
from pathlib import Path

from citavial.build.atomic import write_staged
from citavial.build.gate.fragments.cells import cell_blocks, row_fragment
from citavial.build.gate.verify import ROW_SEPARATOR, Pages, Reason, check_quote, gc_paused
from citavial.build.models import AllowlistEntry, Citation, Regulation
from citavial.build.refs import anchor
from citavial.build.render.pages import DEEPLINKS_DIR
from citavial.build.render.pages import deeplinks_script as script_name


def page_links(reg: Regulation, site_dir: Path, allowlist: list[AllowlistEntry],
               pages: Pages | None = None) -> dict[str, dict[str, dict]]:
    """{page: {"passages": {anchor: url}, "rows": {table anchor: [url, "" or None per row]}}}.
    ``pages``: the pages the gate already read (else they are read from ``site_dir``)."""
    out: dict[str, dict[str, dict]] = {u.page: {"passages": {}, "rows": {}} for u in reg.units}
    for e in allowlist:
        out[e.page]["passages"][e.anchor] = e.url
    pages = Pages(site_dir) if pages is None else pages
    for unit in reg.units:
        for block in unit.passages:
            if block.kind != "table" or block.table is None or block.ref is None:
                continue
            texts = [[c.text.replace("\n", " ") for c in row] for row in block.table.rows]
            out[unit.page]["rows"][anchor(block.ref)] = _row_links(reg, pages, unit.page,
                                                                    block.ref, texts)
    return out


# The row check's refusals that say only "these words cannot single the row out": the row's
# place in the table still can. Any other refusal (a repealed or unknown ref) stands.
BY_PLACE = frozenset({Reason.TOO_SHORT, Reason.AMBIGUOUS, Reason.ROW_AMBIGUOUS,
                      Reason.ROW_NOT_SELECTABLE})


def _row_links(reg: Regulation, pages: Pages, page: str, ref: str,
               rows: list[list[str]]) -> list[str | None]:
    """A link per row: the gate's own row check when it passes; else (a row too short to be
    quoted, or whose cells recur elsewhere on the page) the row found by its place in the
    table, proven by the matcher (fragments.cells); else "" — and None for a row with no
    text."""
    grid = cell_blocks(pages[page], anchor(ref), rows)
    urls: list[str | None] = []
    for i, row in enumerate(rows):
        if not any(text.strip() for text in row):
            urls.append(None)
            continue
        # An empty cell (the corner of a header row) is no block of the page's text:
        # quoting it made the header row unlinkable.
        quote = ROW_SEPARATOR.join(text for text in row if text.strip())
        check = check_quote(reg, pages, Citation("<row>", 0, ref, quote))
        blocks = [] if grid is None else [b for b in grid[i] if b is not None]
        fragment = row_fragment(pages[page], anchor(ref), blocks) \
            if check.code in BY_PLACE else None
        urls.append(check.url if not check.reason else
                    f"{page}#{fragment}" if fragment is not None else "")
    return urls


@gc_paused
def write_page_links(reg: Regulation, site_dir: Path, allowlist: list[AllowlistEntry],
                     read: Pages | None = None) -> None:
    """Write every page's script into the staging directory (``row_counts`` reads them back).
    ``read``: the pages the gate already read (else they are read from ``site_dir``)."""
    pages = {u.page for u in reg.units}
    mine = [e for e in allowlist if e.page in pages]
    for page, links in sorted(page_links(reg, site_dir, mine, read).items()):
        links = _from_page(page, links)
        write_staged(Path(site_dir) / script_name(page), "window.CITAVIAL_LINKS = " + json.dumps(
            links, ensure_ascii=False, sort_keys=True) + ";\n")


def row_counts(site_dir: Path) -> dict[str, int]:
    """The table rows of the page scripts in ``site_dir``: ``linked`` (a link of their own),
    ``table`` (no text fragment singles them out: their table's link) and ``rows`` (both;
    rows with no text are not counted). Read back from the scripts, so a build whose links
    came from the stage cache reports them too."""
    out = {"rows": 0, "linked": 0, "table": 0}
    prefix = "window.CITAVIAL_LINKS = "
    for path in sorted((Path(site_dir) / DEEPLINKS_DIR).rglob("*.js")):
        data = json.loads(path.read_text("utf-8").removeprefix(prefix).rstrip().rstrip(";"))
        for urls in data["rows"].values():
            for url in urls:
                if url is not None:
                    out["rows"] += 1
                    out["linked" if url else "table"] += 1
    return out


def _from_page(page: str, links: dict[str, dict]) -> dict[str, dict]:
    """The links as the page itself resolves them: a page in a norm's folder
    (``ley-trafico/art76.html``) links its own passages as ``art76.html#…``; the site-root
    pages' links are unchanged."""
    folder = page.rpartition("/")[0]
    if not folder:
        return links
    cut = len(folder) + 1

    def rel(url: str | None) -> str | None:
        return url[cut:] if url is not None and url.startswith(folder + "/") else url

    return {"passages": {k: rel(v) for k, v in links["passages"].items()},
            "rows": {k: [rel(u) for u in urls] for k, urls in links["rows"].items()}}
