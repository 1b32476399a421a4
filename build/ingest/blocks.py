"""Turn one BOE <version> element into paragraph-level blocks and notes.

Regulation text becomes Blocks (paragraphs, tables, figures); modification notes become the unit's
history; "Téngase en cuenta…" and "Redacción anterior" blockquotes become editorial notes — never
regulation text. ``blockquote.sangrado`` (ANEXO I §5's indented catalogue) IS regulation text.
"""

from __future__ import annotations

from datetime import date

from lxml import etree

from citavial.build.ingest.versions import parse_date
from citavial.build.models import Block, Cell, Image, Note, Table
from citavial.build.patterns import HTML_WHITESPACE, NO_DESDE, REF_POST

BOE_SITE = "https://www.boe.es"
BOE_ACT = "https://www.boe.es/buscar/act.php?id="

# The one declared whitespace normalisation between XML text and rendered text: runs of ASCII
# whitespace become one space (what HTML rendering does); U+00A0 is kept.
_WS = HTML_WHITESPACE

HEADING_CLASSES = frozenset({
    "articulo", "titulo", "titulo_num", "titulo_tit", "capitulo", "capitulo_num", "capitulo_tit",
    "seccion", "subseccion", "anexo", "anexo_num", "anexo_tit", "libro", "centro_redonda",
    "centro_negrita", "centro_cursiva", "centro",
})
NOTE_CLASSES = frozenset({"nota_pie", "nota_pie_2", "siempreSeVe"})


def collapse(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _runs(p: etree._Element) -> tuple[tuple[str, str], ...]:
    """Inline text as (style, text) pairs; <strong>/<b> → "strong", <em>/<i> → "em"."""
    out: list[tuple[str, str]] = []

    def walk(el: etree._Element, style: str) -> None:
        if el.text:
            out.append((style, el.text))
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            child_style = {"strong": "strong", "b": "strong", "em": "em", "i": "em"}.get(tag, style)
            if tag == "br":
                out.append((style, " "))
            elif tag != "img":
                walk(child, child_style)
            if child.tail:
                out.append((style, child.tail))

    walk(p, "")
    merged: list[tuple[str, str]] = []
    for style, text in out:
        if merged and merged[-1][0] == style:
            merged[-1] = (style, merged[-1][1] + text)
        else:
            merged.append((style, text))
    return _collapse_runs(merged)


def _collapse_runs(runs: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Collapse whitespace across run borders exactly as ``collapse`` does on the joined text."""
    joined = "".join(t for _, t in runs)
    target = collapse(joined)
    result: list[tuple[str, str]] = []
    pos = 0  # position in target
    for style, text in runs:
        piece = _WS.sub(" ", text)
        if pos == 0:
            piece = piece.lstrip(" ")
        if result and result[-1][1].endswith(" ") and piece.startswith(" "):
            piece = piece[1:]
        piece = piece[: max(0, len(target) - pos)]
        if piece:
            result.append((style, piece))
            pos += len(piece)
    assert "".join(t for _, t in result) == target, (runs, target)
    return tuple(result)


def images_in(el: etree._Element) -> tuple[Image, ...]:
    out = []
    for img in el.iter("img"):
        src = img.get("src", "")
        url = src if src.startswith("http") else BOE_SITE + src
        out.append(Image(src=url, alt=collapse(img.get("alt", ""))))
    return tuple(out)


def _table(el: etree._Element) -> Table:
    rows = []
    for tr in el.iter("tr"):
        cells = []
        for cell in tr:
            if cell.tag not in ("td", "th"):
                continue
            text = "\n".join(_cell_lines(cell))
            cells.append(Cell(text=text, header=cell.tag == "th" or "cabeza" in _classes(cell),
                              images=images_in(cell), colspan=int(cell.get("colspan", "1") or 1),
                              rowspan=int(cell.get("rowspan", "1") or 1)))
        if cells:
            rows.append(tuple(cells))
    caption = el.find("caption")
    return Table(rows=tuple(rows),
                 caption=collapse("".join(caption.itertext())) if caption is not None else "")


def _cell_lines(cell: etree._Element) -> list[str]:
    """A cell's text split at <br> and paragraph borders (rendered as line breaks)."""
    lines: list[str] = []
    current: list[str] = []

    def flush() -> None:
        text = collapse("".join(current))
        if text:
            lines.append(text)
        current.clear()

    def walk(el: etree._Element) -> None:
        if el.text:
            current.append(el.text)
        for child in el:
            if child.tag == "br":
                flush()
            elif child.tag == "p":
                flush()
                walk(child)
                flush()
            elif child.tag != "img":
                walk(child)
            if child.tail:
                current.append(child.tail)

    walk(cell)
    flush()
    return lines


def _classes(el: etree._Element) -> str:
    return " ".join(filter(None, [el.get("class", "")] + [p.get("class", "") for p in el.iter("p")]))


def table_text(table: Table) -> str:
    """The plain text of a table: its caption, then cell by cell in document order."""
    return collapse(" ".join([table.caption] + [c.text.replace("\n", " ")
                                                for row in table.rows for c in row]))


def links_in(el: etree._Element) -> tuple[tuple[str, str], ...]:
    out = []
    for a in el.iter("a"):
        m = REF_POST.search("".join(a.itertext()))
        if m:
            url = BOE_ACT + m.group(1) + (f"#{m.group(2)}" if m.group(2) else "")
            out.append((collapse("".join(a.itertext())), url))
    return tuple(out)


def _note_kind(text: str, default: str) -> str:
    if text.startswith("Téngase en cuenta"):
        return "editorial"
    if text.startswith("Redacción anterior"):
        return "previous"
    return default


def _blockquote_notes(bq: etree._Element, as_of: date) -> list[Note]:
    caduca = bq.get("caduca")
    if caduca and parse_date(caduca, "blockquote@caduca") <= as_of:
        return []  # an editorial note that the BOE itself retires on that date
    hidden_from = NO_DESDE.fullmatch(bq.get("class") or "")
    if hidden_from and parse_date(hidden_from.group(1), "blockquote@class") <= as_of:
        # "noDesdeYYYYMMDD": the BOE shows this block only before that date (art. 117's
        # pre-2015 wording, announced as a future change); after it, it is neither current
        # text nor a useful note.
        return []
    paras = [collapse("".join(p.itertext())) for p in bq.iter("p")]
    paras = [p for p in paras if p]
    if not paras:
        return []
    if bq.get("class") is None:
        # Modification notes; a "Téngase en cuenta" paragraph among them is editorial.
        history = [p for p in paras if _note_kind(p, "history") == "history"]
        editorial = [p for p in paras if _note_kind(p, "history") == "editorial"]
        notes = [Note("history", tuple(history), links_in(bq))] if history else []
        return notes + ([Note("editorial", tuple(editorial))] if editorial else [])
    return [Note(_note_kind(paras[0], "editorial"), tuple(paras), links_in(bq))]


def read_version(version: etree._Element, as_of: date) -> tuple[list[Block], list[Note]]:
    """Blocks of regulation text and the notes of one <version>, in document order."""
    blocks: list[Block] = []
    notes: list[Note] = []
    _read_children(version, as_of, blocks, notes)
    return blocks, notes


def _read_children(parent: etree._Element, as_of: date, blocks: list[Block],
                   notes: list[Note]) -> None:
    for el in parent:
        tag = el.tag if isinstance(el.tag, str) else ""
        cls = el.get("class") or ""
        if tag == "blockquote" and cls == "sangrado":
            _read_children(el, as_of, blocks, notes)  # indented regulation text
        elif tag == "blockquote" and cls == "" and not el.findall("p[@class='nota_pie']") \
                and el.getparent().tag == "blockquote":
            _read_children(el, as_of, blocks, notes)  # nested indentation inside the catalogue
        elif tag == "blockquote":
            notes.extend(_blockquote_notes(el, as_of))
        elif tag == "table":
            table = _table(el)
            blocks.append(Block(kind="table", text=table_text(table), source_class=cls or "table",
                                table=table, images=images_in(el)))
        elif tag == "p":
            blocks.extend(_paragraph(el, cls))


def _paragraph(p: etree._Element, cls: str) -> list[Block]:
    images = images_in(p)
    runs = _runs(p)
    text = "".join(t for _, t in runs)
    if cls == "imagen" or (images and not text):
        return [Block(kind="figure", text=text, source_class=cls, images=images, runs=runs)]
    if not text:
        return []
    kind = "heading" if cls in HEADING_CLASSES else "paragraph"
    return [Block(kind=kind, text=text, source_class=cls, runs=runs, images=images)]
