"""Markdown pipe tables → Table values, with the merged cells the renderer flattened restored.

The renderer writes a BOE cell spanning n columns as n copies of its text, and one spanning n
rows as n copies down its column. Restored here, conservatively:

- **colspan**: equal adjacent cells of one row that contain a letter ("Límite | Límite",
  RGV anexo X's "Descripción" row ×4). Equal numbers side by side are real values ("171 180 |
  171 180" in the Ley's anexo IV), so cells without a letter are never merged.
- **rowspan**: equal cells down the first column, and down a later column only inside a span
  of the column before it (row headers: "Exceso velocidad" › "Grave"). A repeated value in a
  data column ("Obligatorio") stays repeated: nothing shows it was one cell.

Spans are recorded on the first cell; the covered copies are dropped (HTML table model).
"""

from __future__ import annotations

import re

from citavial.build.ingest.markdown.inline import images, plain
from citavial.build.models import Cell, Table

_LETTER = re.compile(r"[^\W\d_]")


def table(rows: tuple[tuple[str, ...], ...], header_rows: int = 1) -> Table:
    texts = [[plain(c) for c in row] for row in rows]
    width = max((len(r) for r in texts), default=0)
    texts = [r + [""] * (width - len(r)) for r in texts]
    raw = [list(r) + [""] * (width - len(r)) for r in rows]
    rowspan = _rowspans(texts)
    out: list[tuple[Cell, ...]] = []
    for i, row in enumerate(texts):
        cells: list[Cell] = []
        j = 0
        while j < width:
            if rowspan[i][j] == 0:      # covered by a cell above
                j += 1
                continue
            span = 1
            while (j + span < width and row[j + span] == row[j] and _LETTER.search(row[j])
                   and rowspan[i][j + span] == rowspan[i][j]):
                span += 1
            cells.append(Cell(text=row[j], header=i < header_rows, images=images(raw[i][j]),
                              colspan=span, rowspan=rowspan[i][j]))
            j += span
        out.append(tuple(cells))
    return Table(rows=tuple(out))


def _rowspans(texts: list[list[str]]) -> list[list[int]]:
    """rowspan per cell: n on the first of n equal cells down a row-header column, 0 on the rest."""
    spans = [[1] * len(r) for r in texts]
    width = len(texts[0]) if texts else 0
    parent: list[tuple[int, int]] = [(0, len(texts))]   # row ranges the previous column spans
    for j in range(width):
        groups: list[tuple[int, int]] = []
        for lo, hi in parent:
            i = max(lo, 1)                                 # the header row is never merged down
            while i < hi:
                k = i + 1
                while k < hi and texts[k][j] == texts[i][j] and _LETTER.search(texts[i][j]):
                    k += 1
                if k - i > 1:
                    spans[i][j] = k - i
                    for r in range(i + 1, k):
                        spans[r][j] = 0
                    groups.append((i, k))
                i = k
        if not groups:
            break
        parent = groups
    return spans


def table_text(t: Table) -> str:
    """Plain text of a table, cell by cell in document order (as the XML ingest's)."""
    return " ".join(c.text for row in t.rows for c in row if c.text)
