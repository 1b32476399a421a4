"""Split a legalize Markdown file into typed items, with expired wording set aside.

The renderer turned every BOE ``<blockquote>`` into ``> `` lines, whatever its kind, so kinds are
told apart here by their text: ``> <small>…`` is a modification note, ``> Téngase en cuenta…`` an
editorial note, ``> Redacción anterior:`` opens the previous wording — which runs from its opening
quotation mark to the closing one, **including headings and tables that lost their ``> ``**
(corpus/norms/PROVENANCE.md). Any other ``> `` line is regulation text (table footnotes, "(1)
Táchese lo que no proceda."). Everything from "Información relacionada" on is the BOE's page
furniture, not the norm.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citavial.build.errors import BuildError

HEADING = re.compile(r"^(#{1,6}) (.*)$")
TABLE_ROW = re.compile(r"^\|.*\|?\s*$")
TABLE_RULE = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+\s*$")
NOTE = re.compile(r"^> <small>(.*?)(?:</small>)?\s*$")
PREVIOUS = re.compile(r"^> Redacción anterior:?\s*$")
# The closing quotation mark of a previous wording: a line ending in '"' (possibly '".' or '" |').
QUOTE_CLOSE = re.compile(r'"\s*\.?\s*(?:\|\s*)?$')
END_OF_NORM = "Información relacionada"


@dataclass(frozen=True)
class Item:
    """One item of the file. kind: "heading" (``level`` 1–6), "para", "table" (``rows``),
    "note" (``note_kind`` history/editorial), "expired" (``lines``: the whole previous wording)."""

    kind: str
    line: int                        # 1-based line of the item's first line
    text: str = ""                   # raw Markdown (heading text without the #'s)
    level: int = 0
    quoted: bool = False             # the paragraph was a "> " line
    rows: tuple[tuple[str, ...], ...] = ()
    note_kind: str = ""
    lines: tuple[int, ...] = ()      # expired: every line number it spans
    texts: tuple[str, ...] = ()      # expired: its lines without "> " / "#" / "|" markers

    def __repr__(self) -> str:
        return f"Item({self.kind}@{self.line} {self.text[:30]!r})"


def body_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the norm: front matter and "Información relacionada" cut."""
    lines = text.split("\n")
    start = 0
    if lines and lines[0] == "---":
        start = lines.index("---", 1) + 1
    out = []
    for n, line in enumerate(lines[start:], start + 1):
        if line.strip() == END_OF_NORM:
            break
        out.append((n, line))
    return out


def scan(text: str, where: str) -> list[Item]:
    """Every item of the file in document order (see module doc)."""
    lines = body_lines(text)
    items: list[Item] = []
    i = 0
    while i < len(lines):
        n, line = lines[i]
        if not line.strip():
            i += 1
        elif PREVIOUS.match(line):
            i = _expired(lines, i, items, where)
        elif TABLE_ROW.match(line):
            i = _table(lines, i, items)
        else:
            items.append(_single(n, line))
            i += 1
    return items


def _single(n: int, line: str) -> Item:
    m = NOTE.match(line)
    if m:
        kind = "editorial" if m.group(1).startswith("Téngase en cuenta") else "history"
        return Item("note", n, m.group(1), note_kind=kind)
    if line.startswith("> Téngase en cuenta"):
        return Item("note", n, line[2:], note_kind="editorial")
    h = HEADING.match(line)
    if h:
        return Item("heading", n, h.group(2).strip(), level=len(h.group(1)))
    if line.startswith("> "):
        return Item("para", n, line[2:], quoted=True)
    return Item("para", n, line)


def _table(lines: list[tuple[int, str]], i: int, items: list[Item]) -> int:
    first = lines[i][0]
    rows: list[tuple[str, ...]] = []
    while i < len(lines) and TABLE_ROW.match(lines[i][1]):
        if not TABLE_RULE.match(lines[i][1]):
            rows.append(split_row(lines[i][1]))
        i += 1
    items.append(Item("table", first, rows=tuple(rows)))
    return i


def split_row(line: str) -> tuple[str, ...]:
    """``| a | b |`` → ("a", "b"); a last cell may lack its closing pipe (long rows)."""
    body = line.strip()[1:]
    if body.endswith("|"):
        body = body[:-1]
    return tuple(cell.strip() for cell in body.split("|"))


def _expired(lines: list[tuple[int, str]], i: int, items: list[Item], where: str) -> int:
    """Consume a previous wording from its "Redacción anterior:" line to its closing quote."""
    start = lines[i][0]
    spanned = [start]
    texts: list[str] = []
    j = i + 1
    opened = False
    while j < len(lines):
        n, line = lines[j]
        j += 1
        if not line.strip():
            continue
        spanned.append(n)
        content = re.sub(r"^(?:> |#{1,6} |\| )", "", line).lstrip("*")
        if not opened and not content.startswith('"'):
            raise BuildError(f"{where}:{n}", "a 'Redacción anterior:' is not followed by a quoted "
                             f"wording (line starts {content[:30]!r})",
                             "extend build/ingest/markdown/lines.py for this form")
        opened = True
        texts.append(content)
        if QUOTE_CLOSE.search(line.rstrip()) and not (len(spanned) == 2 and content == '"'):
            items.append(Item("expired", start, lines=tuple(spanned), texts=tuple(texts)))
            return j
    raise BuildError(f"{where}:{start}", "a 'Redacción anterior:' wording never closes with '\"'",
                     "extend build/ingest/markdown/lines.py for this form")
