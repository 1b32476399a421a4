"""Slow: the Markdown ingest's passages against the BOE's own consolidated PDF (pdftotext).

Prints the measured agreement per norm: n paragraph passages, how many occur verbatim in the PDF
text, and the known differences — changes newer than the PDF (RD 518/2026 and Ley 9/2025 for the
Ley, whose PDF is of 2025-12-04), dotted form fields the PDF lays out differently, spaces lost
at an emphasis boundary by the Markdown renderer ("interface*normalizada*"), and the PDF's own
layout (line-end hyphens, "D +E", a floating table cutting a paragraph). Anything else fails.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest
from support import CORPUS

from citavial.build.corpus.norms import verify_norms
from citavial.build.ingest.markdown import ingest_norm
from citavial.build.models import Block, Unit

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils")]

_FURNITURE = re.compile(r"Página \d+|BOLETÍN OFICIAL DEL ESTADO|LEGISLACIÓN CONSOLIDADA")
NEWER = ("518/2026", "9/2025")   # amending norms newer than the Ley's PDF (2025-12-04)


def pdf_text(path: Path) -> str:
    """The PDF's running text: page furniture dropped, lines joined, spaces collapsed."""
    raw = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True,
                         check=True, text=True).stdout
    return pdf_text_of(raw)


def pdf_text_of(raw: str) -> str:
    """pdftotext's output with page furniture dropped, lines joined, spaces collapsed."""
    text = ""
    for line in raw.split("\n"):
        s = line.strip()
        if _FURNITURE.fullmatch(s):
            continue
        text += s if text.endswith("-") or not s else " " + s
    return _norm(text)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()


def _kind_of_miss(unit: Unit, block: Block, pdf: str) -> str:
    notes = " ".join(p for n in unit.history + unit.notes for p in n.paragraphs)
    if any(norm in notes for norm in NEWER):
        return "newer than the PDF"
    if "……" in block.text or "....." in block.text:
        return "dotted form field"
    spaced = "".join(f" {t} " if style else t for style, t in block.runs)
    if block.runs and _norm(spaced) != _norm(block.text) and _norm(spaced) in pdf:
        return "emphasis-boundary space"
    if _loose(block.text) in _loose(pdf):
        return "PDF spacing or line-end hyphen"   # "D +E"; "contencioso-\nadministrativa"
    if _split_once(_norm(block.text), pdf):
        return "split by the PDF layout"          # a floating table inside the paragraph
    return "unexplained"


def _split_once(text: str, pdf: str) -> bool:
    """True when the text is two verbatim pieces of the PDF, cut at a word boundary."""
    words = text.split(" ")
    k = max((i for i in range(1, len(words)) if " ".join(words[:i]) in pdf), default=0)
    return 0 < k < len(words) and " ".join(words[k:]) in pdf


def _loose(text: str) -> str:
    return re.sub(r"[\s\-\u00ad]+", "", text)


@pytest.mark.parametrize("norm,floor", [("RDL-6/2015", 0.97), ("RD-818/2009", 0.99)])
def test_passages_agree_with_the_boe_pdf(norm: str, floor: float) -> None:
    copy = verify_norms(CORPUS)[norm]
    assert copy.pdf is not None
    reg = ingest_norm(copy, date(2026, 12, 1))
    pdf = pdf_text(copy.pdf)
    n = matches = 0
    misses: dict[str, list[str]] = {}
    for unit in reg.units:
        for block in unit.passages:
            if block.kind != "paragraph":
                continue
            n += 1
            if _norm(block.text) in pdf:
                matches += 1
            else:
                misses.setdefault(_kind_of_miss(unit, block, pdf), []).append(block.ref or "")
    print(f"\n{norm} vs BOE PDF: n={n} verbatim={matches} ({matches / n:.3f}); "
          + "; ".join(f"{k}: {len(v)} ({', '.join(v[:4])}{'…' if len(v) > 4 else ''})"
                      for k, v in sorted(misses.items())))
    assert misses.get("unexplained", []) == []
    assert matches / n >= floor


def test_points_rows_agree_with_the_boe_pdf() -> None:
    copy = verify_norms(CORPUS)["RDL-6/2015"]
    assert copy.pdf is not None
    reg = ingest_norm(copy, date(2026, 12, 1))
    pdf = pdf_text(copy.pdf)
    rows = [b for b in reg.unit("RDL-6/2015#anexoII").passages if b.table is not None]
    found = [b.ref for b in rows if all(_norm(r[0].text) in pdf for r in b.table.rows if r[0].text)]
    print(f"\nanexo II rows whose infraction text is verbatim in the PDF: {len(found)}/{len(rows)}")
    assert len(found) == len(rows) == 21
    # The PDF lays the points out as one column after "Puntos": the same numbers, in order.
    points = " ".join(r[-1].text for b in rows for r in b.table.rows if r[-1].text)
    assert f"Puntos {points}" in pdf


CLASSES = ["AM", "A1", "A2", "A", "B", "B + E", "C1", "C1 + E", "C", "C + E", "D1", "D1 + E", "D",
           "D + E"]
AGES = ["15", "16", "18", "20", "18", "18", "18", "18", "21", "21", "21", "21", "24", "24"]


def pdf_raw_text(path: Path) -> str:
    """The PDF's text in content-stream order (``pdftotext -raw``): a ruled table's cell is
    written whole there, where the running text interleaves the lines of cells side by side."""
    raw = subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", str(path), "-"],
                         capture_output=True, check=True, text=True).stdout
    return pdf_text_of(raw)


def test_recovered_table_cells_are_in_the_pdf_text() -> None:
    """RD 818/2009's tables read from the PDF's ruled grid (art. 4.2 classes and ages, anexo I
    codes, anexo IV medical criteria): every cell's text, header rows included, occurs in the
    PDF's running text or its content-stream text (pdftotext), and the classes and ages are
    the BOE's."""
    copy = verify_norms(CORPUS)["RD-818/2009"]
    assert copy.pdf is not None
    reg = ingest_norm(copy, date(2026, 12, 1))
    pdf, raw = pdf_text(copy.pdf), pdf_raw_text(copy.pdf)
    tables = [(b.ref, b.table) for u in reg.units for b in u.blocks
              if b.table is not None and b.source_class == "pdf-table"]
    cells = [c.text for _, t in tables for row in t.rows for c in row if c.text]
    verbatim = [c for c in cells if _norm(c) in pdf]
    # The running text interleaves the lines of cells side by side (a vertically centred code
    # "20.07" between the two lines of its description; anexo IV's five columns): such a cell
    # is whole in the content-stream text.
    in_stream = [c for c in cells if c not in verbatim and _norm(c) in raw]
    absent = [c[:50] for c in cells if c not in verbatim + in_stream]
    print(f"\nRD 818/2009 tables from the PDF: {len(tables)} table blocks "
          f"({sum(r is not None for r, _ in tables)} passages), "
          f"{sum(len(t.rows) for _, t in tables)} rows, {len(cells)} non-empty cells: "
          f"{len(verbatim)} verbatim in the PDF's running text, {len(in_stream)} more in its "
          f"content-stream text, {len(absent)} absent")
    assert absent == []
    art4 = dict(tables)["RD-818/2009#art4.2.p2"]
    assert [r[0].text for r in art4.rows[1:]] == CLASSES
    assert [r[2].text for r in art4.rows[1:]] == AGES
    codes = [c.text for _, t in tables for row in t.rows for c in row]
    assert {"01.01", "Gafas.", "78", "Limitado a vehículos con transmisión automática."} <= set(codes)


_EXPLORATION = re.compile(r"(\d+(?:\.\d+)+) \S")


def test_anexo_iv_medical_criteria_from_the_pdf() -> None:
    """Anexo IV: 14 sections' tables (header block each, not citable), 89 exploraciones as
    passages r1…r89 in the BOE's numbering order (1.1 … 14.1), 106 rows of five cells; the
    paragraphs keep refs p1…p19; every cell is checked by the test above."""
    copy = verify_norms(CORPUS)["RD-818/2009"]
    reg = ingest_norm(copy, date(2026, 12, 1))
    unit = reg.unit("RD-818/2009#anexoIV")
    headers = [b for b in unit.blocks if b.table is not None and b.ref is None]
    rows = [b for b in unit.passages if b.table is not None]
    print(f"\nanexo IV from the PDF: {len(headers)} tables, {len(rows)} exploraciones, "
          f"{sum(len(b.table.rows) for b in rows)} rows, "
          f"{sum(1 for b in rows for r in b.table.rows for c in r if c.text)} non-empty cells")
    assert len(headers) == 14
    assert all(h.table.rows[0][0].text == "Exploración (1)" for h in headers)
    assert [b.ref for b in rows] == [f"RD-818/2009#anexoIV.r{k}" for k in range(1, 90)]
    assert sum(len(b.table.rows) for b in rows) == 106
    assert all(len(r) == 5 for b in rows for r in b.table.rows)
    numbers = [_EXPLORATION.match(b.table.rows[0][0].text) for b in rows]
    keys = [tuple(int(x) for x in m.group(1).split(".")) for m in numbers if m]
    assert len(keys) == 89 and keys == sorted(keys) and keys[0] == (1, 1) and keys[-1] == (14, 1)
    paragraphs = [b.ref for b in unit.passages if b.kind == "paragraph"]
    assert paragraphs == [f"RD-818/2009#anexoIV.p{k}" for k in range(1, 20)]
    first = rows[0].table
    assert first.rows[0][0].text == "1.1 Agudeza visual."
    assert "una agudeza visual binocular de, al menos, 0,5." in first.rows[0][1].text
