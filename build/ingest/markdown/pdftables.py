"""Tables recovered from a BOE PDF, for the Markdown copy that lost them (RD 818/2009).

Poppler draws the BOE's ruled tables as thin filled rectangles (``pdftocairo -svg``) and gives
every word its box (``pdftotext -bbox``). The rules make a grid; a boundary that is not drawn
joins two grid cells (colspan/rowspan); a cell's text is its words in reading order. Nothing is
guessed: a table whose rules do not form a grid is an error, and every cell's text is checked
against the PDF's own text by tests/test_ingest_markdown_pdf.py. Hand-written (not pdfplumber):
forty lines on top of poppler, which the fidelity tests need anyway. What it reads is committed
beside the PDF (``committed_tables``), so a build runs no poppler.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from citavial.build.atomic import write_text
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
    after: str         # text of the block (paragraph or heading) it follows, or its start
    parts: tuple[tuple[int, int], ...]
    header_rows: int = 1

    def __repr__(self) -> str:
        return f"TableSpec({self.unit} {self.parts})"


# Anexo IV: a table per section, after the section's last paragraph (the words it begins with)
# or its heading; two header rows (column groups, then grupos 1 and 2), repeated on every page.
_ANEXO_IV = tuple(TableSpec("anexoIV", after, parts, header_rows=2) for after, parts in (
    ("Si para alcanzar la agudeza visual requerida", ((57, 0), (58, 0), (59, 0))),
    ("Cuando para alcanzar la agudeza auditiva", ((59, 1),)),
    ("3. Sistema locomotor", ((59, 2),)),
    ("A efectos de valorar la capacidad funcional", ((60, 0), (61, 0), (62, 0), (63, 0))),
    ("5. Trastornos hematológicos", ((63, 1),)),
    ("6. Sistema renal", ((64, 0),)),
    ("A los efectos del apartado 7.2", ((64, 1),)),
    ("A los efectos de este Reglamento se entenderá por hipoglucemia grave", ((65, 0),)),
    ("Se define la epilepsia como", ((65, 1), (66, 0), (67, 0))),
    ("10. Trastornos mentales y de conducta", ((67, 1), (68, 0))),
    ("Serán objeto de atención especial", ((68, 1), (69, 0))),
    ("Con carácter general, el psicólogo", ((69, 1),)),
    ("Cuando se dictamine la incapacidad", ((70, 0),)),
    ("14. Otros procesos oncológicos no hematológicos", ((70, 1),)),
))

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
        *_ANEXO_IV,
    ),
}


class PopplerMissing(BuildError):
    """A poppler tool is not installed."""


def _poppler(args: list[str], pdf: Path | None, stderr: bool = False) -> str:
    """A poppler tool's output on ``pdf`` (None: no file, e.g. ``-v``; ``stderr``: that one's)."""
    files = [] if pdf is None else [str(pdf), "-"]
    try:
        done = subprocess.run(args + files, capture_output=True, check=True, timeout=60)
    except FileNotFoundError:
        raise PopplerMissing(args[0], "is not installed; RD 818/2009's tables are read from its PDF",
                             "install poppler-utils (apt-get install poppler-utils)") from None
    except subprocess.CalledProcessError as exc:
        raise BuildError(str(pdf), f"{args[0]} failed: {exc.stderr.decode(errors='replace')[:200]}",
                         "restore the PDF (corpus/norms/PROVENANCE.md)") from None
    return (done.stderr if stderr else done.stdout).decode("utf-8")


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


_Grid = list[tuple[int, int, int, int, str]]   # one table: (row, col, rowspan, colspan, text)
_CACHE_PREFIX = "pdftables-"


def read_tables(pdf: Path, pages: list[int], cache_dir: Path | None = None) -> dict[int, list[_Grid]]:
    """``page_tables`` of each page: the committed ones (``committed_tables``) when they were
    read from these bytes by this code; else from ``cache_dir`` when it holds them for this
    PDF's bytes, this poppler and this module's code; else read with poppler (``extract``) and
    cached. A missing or unreadable file is ignored."""
    found = committed_tables(pdf, pages)
    if found is not None:
        return found
    path = None if cache_dir is None else Path(cache_dir) / f"{_CACHE_PREFIX}{_cache_key(pdf)}.json"
    if path is not None:
        try:
            return _grids(json.loads(path.read_text("utf-8")), pages)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    try:
        out = extract(pdf, pages)
    except PopplerMissing as missing:
        committed = committed_path(pdf)
        if not committed.is_file():
            raise
        raise BuildError(str(committed), "was not written from this PDF by this reader's code "
                         f"(changed since), and {missing.where} is not installed to read the PDF "
                         "again", "install poppler-utils and run `citavial fetch <BOE id> "
                         "--tables` (then commit the file), or undo the change") from None
    if path is not None:
        write_text(path, json.dumps({str(p): t for p, t in out.items()}, ensure_ascii=False,
                                    sort_keys=True))
        for old in path.parent.glob(f"{_CACHE_PREFIX}*.json"):
            if old != path:   # one PDF's tables per cache, as the index keeps one key
                old.unlink(missing_ok=True)
    return out


def extract(pdf: Path, pages: list[int]) -> dict[int, list[_Grid]]:
    """``page_tables`` of each page, read with poppler side by side (each page is two poppler
    runs, mostly spent waiting on them: ~1 s of CPU in all for RD 818/2009's 19 pages)."""
    with ThreadPoolExecutor(max_workers=min(4, max(len(pages), 1))) as pool:
        # the words of each run of consecutive pages in one pdftotext (one process per page
        # cost ~0.2 s more CPU, each loading the PDF); the rules still one page per pdftocairo
        # (a multi-page SVG writes its rules another way)
        runs = list(pool.map(lambda run: _run_words(pdf, run[0], run[-1]), _runs(pages)))
        words = {page: w for run in runs for page, w in run.items()}
        return dict(zip(pages, pool.map(lambda p: _tables(pdf, p, _rules(pdf, p), words[p]),
                                        pages), strict=True))


# The tables this module reads from a PDF, committed beside it (``<pdf stem>.tables.json``): a
# build or `citavial check` takes them instead of running poppler (a cold build's largest single
# cost after the gate, and poppler-utils need not be installed to build). They are taken only
# when they record the sha256 of the PDF's bytes and of this module's source: after a change to
# either, the build reads the PDF again until `citavial fetch <BOE id> --tables` rewrites them.
# tests/test_pdf_tables_committed.py reads the PDF with poppler and compares.
TABLES_SCHEMA = "citavial-pdf-tables/1"


def _grids(by_page: dict, pages: list[int]) -> dict[int, list[_Grid]]:
    """The tables of ``pages`` from their JSON form ({"page": [[cell, …], …]}: the cache's
    file and the committed one)."""
    return {p: [[tuple(c) for c in t] for t in by_page[str(p)]] for p in pages}


def committed_path(pdf: Path) -> Path:
    return Path(pdf).with_name(f"{Path(pdf).stem}.tables.json")


def _extractor_digest() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def committed_tables(pdf: Path, pages: list[int]) -> dict[int, list[_Grid]] | None:
    """The committed tables of ``pages``, if read from this PDF's bytes by this module's code
    (every cell a (row, col, rowspan, colspan, text)); None otherwise."""
    try:
        doc = json.loads(committed_path(pdf).read_text("utf-8"))
        if doc["schema"] != TABLES_SCHEMA or doc["extractor_sha256"] != _extractor_digest() \
                or doc["pdf_sha256"] != hashlib.sha256(Path(pdf).read_bytes()).hexdigest():
            return None
        out = _grids(doc["pages"], pages)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    cells = (c for grids in out.values() for grid in grids for c in grid)
    if all(len(c) == 5 and all(type(v) is int for v in c[:4]) and isinstance(c[4], str)
           for c in cells):
        return out
    return None


def _tables_json(head: dict[str, str], pages: dict[int, list[_Grid]]) -> str:
    """The committed file's JSON: a cell per line (a diff shows the cells that changed)."""
    def table(grid: _Grid) -> str:
        return "[\n" + ",\n".join("    " + json.dumps(list(c), ensure_ascii=False)
                                    for c in grid) + "\n   ]"
    lines = [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in
             sorted(head.items())]
    body = ",\n".join(f"  {json.dumps(str(p))}: [\n   " + ",\n   ".join(map(table, grids))
                      + "\n  ]" for p, grids in sorted(pages.items()))
    return "{\n" + "\n".join(lines) + '\n "pages": {\n' + body + "\n }\n}\n"


def write_committed(pdf: Path, pages: list[int]) -> str:
    """Read ``pages``' tables from ``pdf`` with poppler and write them beside it (atomically,
    sorted keys: the same bytes for the same PDF, code and poppler); a one-line report."""
    out = extract(pdf, pages)
    version = _poppler(["pdftotext", "-v"], None, stderr=True).splitlines()[0]
    head = {"schema": TABLES_SCHEMA,
            "$comment": "The ruled tables of the PDF beside this file, read by "
                        "build/ingest/markdown/pdftables.py with poppler: per page, its tables, "
                        "each a list of cells [row, column, rowspan, colspan, text]. Do not edit "
                        "by hand: `citavial fetch <BOE id> --tables` rewrites it.",
            "pdf": Path(pdf).name,
            "pdf_sha256": hashlib.sha256(Path(pdf).read_bytes()).hexdigest(),
            "extractor_sha256": _extractor_digest(), "poppler": version}
    path = committed_path(pdf)
    write_text(path, _tables_json(head, out))
    n = sum(len(grids) for grids in out.values())
    return f"{path}: {n} tables on {len(out)} pages of {Path(pdf).name} ({version})"


def _cache_key(pdf: Path) -> str:
    h = hashlib.sha256(Path(pdf).read_bytes())
    h.update(Path(__file__).read_bytes())
    h.update(_poppler(["pdftotext", "-v"], None, stderr=True).encode("utf-8"))
    return h.hexdigest()[:20]


def _runs(pages: list[int]) -> list[list[int]]:
    """``pages`` (sorted) as runs of consecutive numbers: [12, 13, 47] → [[12, 13], [47]]."""
    runs: list[list[int]] = []
    for page in pages:
        if runs and page == runs[-1][-1] + 1:
            runs[-1].append(page)
        else:
            runs.append([page])
    return runs


def _run_words(pdf: Path, first: int, last: int) -> dict[int, list[tuple[float, float, float, float, str]]]:
    """``_words`` of pages ``first``..``last`` from one pdftotext run (a <page> per page)."""
    out = _poppler(["pdftotext", "-enc", "UTF-8", "-bbox", "-f", str(first), "-l", str(last)], pdf)
    chunks = out.split("<page ")[1:]
    if len(chunks) != last - first + 1:
        raise BuildError(str(pdf), f"pdftotext gave {len(chunks)} pages for {first}-{last}",
                         "restore the PDF (corpus/norms/PROVENANCE.md)")
    return {first + i: [(float(a), float(b), float(c), float(d), html.unescape(t))
                        for a, b, c, d, t in _WORD.findall(chunk)]
            for i, chunk in enumerate(chunks)}


@lru_cache(maxsize=16)   # a page holding two tables is read once (the PDF is pinned by sha256)
def page_tables(pdf: Path, page: int) -> list[_Grid]:
    """Each ruled table of one page, top to bottom, as (row, col, rowspan, colspan, text)."""
    with ThreadPoolExecutor(max_workers=2) as pool:   # two processes, mostly waited on
        rules, texts = pool.submit(_rules, pdf, page), pool.submit(_words, pdf, page)
        return _tables(pdf, page, rules.result(), texts.result())


def _tables(pdf: Path, page: int,
            rules: tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]],
            words: list[tuple[float, float, float, float, str]]) -> list[_Grid]:
    horizontal, vertical = rules
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
            # a line ending in "-" ends a compound's first half ("espacio-\ntemporales"): the
            # BOE does not hyphenate words at line ends
            joined = tight or (prev is None and text.endswith("-"))
            text += w[4] if joined or not text else " " + w[4]
            prev = w
    return text


def recover(spec: TableSpec, pdf: Path, read: dict[int, list[_Grid]] | None = None) -> Table:
    """One table from its pages; the header rows repeated on later pages are dropped.
    ``read``: the pages' tables already read (see read_tables), else they are read now."""
    rows: list[tuple[Cell, ...]] = []
    for k, (page, index) in enumerate(spec.parts):
        tables = read[page] if read is not None and page in read else page_tables(pdf, page)
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
