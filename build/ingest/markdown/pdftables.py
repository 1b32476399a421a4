"""Tables recovered from a BOE PDF, for the Markdown copy that lost them (RD 818/2009).

Poppler draws the BOE's ruled tables as thin filled rectangles (``pdftocairo -svg``) and gives
every word its box (``pdftotext -bbox``). The rules make a grid; a boundary that is not drawn
joins two grid cells (colspan/rowspan); a cell's text is its words in reading order. Nothing is
guessed: a table whose rules do not form a grid is an error, and every cell's text is checked
against the PDF's own text by tests/test_ingest_markdown_pdf.py. Hand-written (not pdfplumber):
forty lines on top of poppler, which the fidelity tests need anyway.
"""

from __future__ import annotations

import html
import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from citavial.build.errors import BuildError
from citavial.build.models import Cell, Table

_RECT = re.compile(r'<path d="M ([\d.]+) ([\d.]+) L ([\d.]+) ([\d.]+) L ([\d.]+) ([\d.]+) '
                   r'L ([\d.]+) ([\d.]+) Z M [\d. ]+"/>')
_WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">'
                   r'(.*?)</word>')
_TOL = 2.0           # points: rules this close are one line
_PAGE_HEADER = 75.0  # points from the top: the BOE's running header and its rule
_TIGHT = 0.8         # a gap narrower than this joins words ("cm" + superscript "3")


@dataclass(frozen=True)
class TableSpec:
    """Where a lost table is: its unit, the block it follows, and its parts in the PDF as
    (page, n-th ruled table on that page), both 1-based and 0-based; a part after the first
    repeats the header, which is dropped."""

    unit: str          # fragment, "art4"
    after: str         # text of the block (paragraph or heading) it follows
    parts: tuple[tuple[int, int], ...]
    header_rows: int = 1

    def __repr__(self) -> str:
        return f"TableSpec({self.unit} {self.parts})"


_EU_CODES = "Códigos de la Unión Europea armonizados"
TABLES: dict[str, tuple[TableSpec, ...]] = {
    "RD-818/2009": (
        TableSpec("art4", "2. El permiso de conducción será de las siguientes clases:",
                  ((12, 0), (13, 0))),
        TableSpec("anexoI", _EU_CODES, ((47, 0),)),            # conductor (causas médicas)
        TableSpec("anexoI", _EU_CODES, ((47, 1), (48, 0))),    # adaptaciones de los vehículos
        TableSpec("anexoI", _EU_CODES, ((48, 1),)),            # limitaciones
        TableSpec("anexoI", _EU_CODES, ((49, 0),)),            # aspectos administrativos
        TableSpec("anexoI", "Códigos nacionales", ((49, 1),)),
    ),
}


def _poppler(args: list[str], pdf: Path) -> str:
    try:
        done = subprocess.run(args + [str(pdf), "-"], capture_output=True, check=True, timeout=60)
    except FileNotFoundError:
        raise BuildError(args[0], "is not installed; RD 818/2009's tables are read from its PDF",
                         "install poppler-utils (apt-get install poppler-utils)") from None
    except subprocess.CalledProcessError as exc:
        raise BuildError(str(pdf), f"{args[0]} failed: {exc.stderr.decode(errors='replace')[:200]}",
                         "restore the PDF (corpus/norms/PROVENANCE.md)") from None
    return done.stdout.decode("utf-8")


def _rules(pdf: Path, page: int) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """(horizontal (y, x0, x1), vertical (x, y0, y1)) rules below the running header."""
    svg = _poppler(["pdftocairo", "-svg", "-f", str(page), "-l", str(page)], pdf)
    horizontal, vertical = [], []
    for m in _RECT.finditer(svg):
        x1, y1, x2, _, _, y2, _, _ = map(float, m.groups())
        (x1, x2), (y1, y2) = sorted((x1, x2)), sorted((y1, y2))
        if y1 < _PAGE_HEADER:
            continue
        if y2 - y1 <= _TOL and x2 - x1 > 3:
            horizontal.append(((y1 + y2) / 2, x1, x2))
        elif x2 - x1 <= _TOL and y2 - y1 > 3:
            vertical.append(((x1 + x2) / 2, y1, y2))
    return horizontal, vertical


def _words(pdf: Path, page: int) -> list[tuple[float, float, float, float, str]]:
    out = _poppler(["pdftotext", "-enc", "UTF-8", "-bbox", "-f", str(page), "-l", str(page)], pdf)
    return [(float(a), float(b), float(c), float(d), html.unescape(t)) for a, b, c, d, t in _WORD.findall(out)]


def _lines(values: list[float]) -> list[float]:
    out: list[list[float]] = []
    for v in sorted(values):
        if out and v - out[-1][-1] <= _TOL:
            out[-1].append(v)
        else:
            out.append([v])
    return [sum(c) / len(c) for c in out]


def _drawn(segments: list[tuple[float, float, float]], at: float, lo: float, hi: float) -> bool:
    mid = (lo + hi) / 2
    return any(abs(p - at) <= _TOL and a <= mid <= b for p, a, b in segments)


def _bands(vertical: list[tuple[float, float, float]]) -> list[tuple[float, float]]:
    """The y-extents of the page's tables: overlapping vertical rules belong to one table."""
    bands: list[list[float]] = []
    for _, y0, y1 in sorted(vertical, key=lambda v: v[1]):
        if bands and y0 <= bands[-1][1] + _TOL:
            bands[-1][1] = max(bands[-1][1], y1)
        else:
            bands.append([y0, y1])
    return [(a, b) for a, b in bands]


@lru_cache(maxsize=16)   # a page holding two tables is read once (the PDF is pinned by sha256)
def page_tables(pdf: Path, page: int) -> list[list[tuple[int, int, int, int, str]]]:
    """Each ruled table of one page, top to bottom, as (row, col, rowspan, colspan, text)."""
    horizontal, vertical = _rules(pdf, page)
    words = _words(pdf, page)
    out = []
    for top, bottom in _bands(vertical):
        h = [r for r in horizontal if top - _TOL <= r[0] <= bottom + _TOL]
        v = [r for r in vertical if r[1] >= top - _TOL and r[2] <= bottom + _TOL]
        out.append(_grid(h, v, words, f"{pdf}:page {page}"))
    return out


def _grid(horizontal: list[tuple[float, float, float]], vertical: list[tuple[float, float, float]],
          words: list[tuple[float, float, float, float, str]], where: str
          ) -> list[tuple[int, int, int, int, str]]:
    ys, xs = _lines([h[0] for h in horizontal]), _lines([v[0] for v in vertical])
    if len(ys) < 2 or len(xs) < 2:
        raise BuildError(where, "has no ruled table", "check pdftables.TABLES")
    root = {(i, j): (i, j) for i in range(len(ys) - 1) for j in range(len(xs) - 1)}

    def find(a: tuple[int, int]) -> tuple[int, int]:
        while root[a] != a:
            a = root[a]
        return a

    for (i, j) in list(root):
        if j + 1 < len(xs) - 1 and not _drawn(vertical, xs[j + 1], ys[i], ys[i + 1]):
            root[find((i, j + 1))] = find((i, j))
        if i + 1 < len(ys) - 1 and not _drawn(horizontal, ys[i + 1], xs[j], xs[j + 1]):
            root[find((i + 1, j))] = find((i, j))
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for key in root:
        groups.setdefault(find(key), []).append(key)
    cells = []
    for members in groups.values():
        i0, i1 = min(i for i, _ in members), max(i for i, _ in members)
        j0, j1 = min(j for _, j in members), max(j for _, j in members)
        if len(members) != (i1 - i0 + 1) * (j1 - j0 + 1):
            raise BuildError(where, f"a merged cell at grid row {i0}, column {j0} is not a "
                             "rectangle", "this table cannot be read from its rules")
        box = (xs[j0], ys[i0], xs[j1 + 1], ys[i1 + 1])
        cells.append((i0, j0, i1 - i0 + 1, j1 - j0 + 1, _cell_text(words, box)))
    return sorted(cells)


def _cell_text(words: list[tuple[float, float, float, float, str]],
               box: tuple[float, float, float, float]) -> str:
    """Words whose centre is in ``box``, by lines (a superscript joins the line it overlaps)."""
    x0, y0, x1, y1 = box
    inside = [w for w in words if x0 < (w[0] + w[2]) / 2 < x1 and y0 < (w[1] + w[3]) / 2 < y1]
    lines: list[list[tuple[float, float, float, float, str]]] = []
    for w in sorted(inside, key=lambda w: (w[3], w[0])):
        centre = (w[1] + w[3]) / 2
        line = next((ln for ln in lines if ln[0][1] <= centre <= ln[0][3]), None)
        if line is None:
            lines.append([w])
        else:
            line.append(w)
    lines.sort(key=lambda ln: ln[0][1])
    text = ""
    for line in lines:
        prev = None
        for w in sorted(line, key=lambda w: w[0]):
            tight = prev is not None and w[0] - prev[2] < _TIGHT
            text += w[4] if tight or not text else " " + w[4]
            prev = w
    return text


def recover(spec: TableSpec, pdf: Path) -> Table:
    """One table from its pages; the header rows repeated on later pages are dropped."""
    rows: list[tuple[Cell, ...]] = []
    for k, (page, index) in enumerate(spec.parts):
        tables = page_tables(pdf, page)
        if index >= len(tables):
            raise BuildError(f"{pdf}:page {page}", f"has {len(tables)} ruled tables, {spec} "
                             f"wants table {index}", "check pdftables.TABLES against the PDF")
        grid = tables[index]
        by_row: dict[int, list[Cell]] = {}
        for i, _, rowspan, colspan, text in grid:
            if k > 0 and i < spec.header_rows:
                continue
            by_row.setdefault(i, []).append(Cell(text=text, header=i < spec.header_rows,
                                                 colspan=colspan, rowspan=rowspan))
        rows.extend(tuple(by_row[i]) for i in sorted(by_row))
    return Table(rows=tuple(rows))
