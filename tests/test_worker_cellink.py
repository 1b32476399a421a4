"""A table answer of one cell links to that cell (issue 25): on the real built site, the gate's
matcher must prove that the span link's first match is exactly the cell's own block — also when
the same value stands in other cells of the table ("90", "151 170") — and an unprovable cell
keeps the row's link. The same cells are opened in Chromium by tests/browser/test_cell_links.py."""

from __future__ import annotations

from dataclasses import replace

import pytest
from cell_cases import CELLS, SPEED, UNPROVEN

from citavial.build.gate.fragments import match_directive, parse_fragment, read_page
from citavial.build.gate.fragments.match import source_text
from citavial.build.text import fold
from citavial.worker.answer.cite import cell_at, citations_event
from citavial.worker.answer.span import Cell, Piece, Span
from citavial.worker.answer.spanlink import cell_block


@pytest.fixture(scope="module")
def real(built_site):
    from citavial.worker.http.serve import load_deps
    deps, why, _ = load_deps(built_site, load_llm=False)
    assert deps is not None, why
    return deps


def _selected(built_site, url: str) -> tuple[str, int]:
    """What the gate's matcher selects for ``url``: its words and the block they are in."""
    name, _, fragment = url.partition("#")
    _, directives = parse_fragment(fragment)
    assert len(directives) == 1 and directives[0] is not None, url
    model = read_page((built_site / name).read_bytes())
    hit = match_directive(model, directives[0])
    assert hit is not None, url
    return source_text(model, hit.pos, hit.end_pos), model.block_at(hit.pos)


@pytest.mark.parametrize("ref,row,column,text", CELLS)
def test_cell_link_is_proven_and_lands_on_the_cell(real, built_site, ref, row, column, text):
    entry = real.allowlist.get(ref)
    rows = real.reader.table(ref)
    assert rows[row][column][0] == text
    url = real.reader.linker.cell_link(entry, rows, row, column)
    assert url is not None and url.startswith(f"{entry.page}#{entry.anchor}:~:text="), url
    words, block = _selected(built_site, url)
    assert fold(words) == fold(text), url
    model = read_page((built_site / entry.page).read_bytes())
    assert block == cell_block(model, entry.anchor, rows, row, column), url


@pytest.mark.parametrize("ref,row,column", UNPROVEN)
def test_a_cell_the_matcher_cannot_single_out_gets_no_link(real, ref, row, column):
    entry = real.allowlist.get(ref)
    assert real.reader.linker.cell_link(entry, real.reader.table(ref), row, column) is None


def test_a_table_that_does_not_read_as_the_page_is_never_guessed(real):
    entry = real.allowlist.get(SPEED)
    rows = [list(r) for r in real.reader.table(SPEED)]
    rows[2][2] = ("85", False)      # the page says 80: the cells no longer are its blocks
    assert real.reader.linker.cell_link(entry, rows, 1, 1) is None
    assert real.reader.linker.cell_link(entry, rows[:2], 1, 1) is None       # a row missing
    assert real.reader.linker.cell_link(entry, real.reader.table(SPEED), 1, 1) is not None


def _one_cell(real, ref: str, row: int, column: int) -> Span:
    rows = real.reader.table(ref)
    entry = real.allowlist.get(ref)
    cell = Cell(rows[row][0][0], rows[0][column][0], rows[row][column][0], "")
    assert cell_at(rows, cell) == (row, column)
    return Span(Piece(ref, entry.text, 0, len(entry.text)), 1.0, 0, cells=(cell,))


@pytest.mark.parametrize("row,column", [(1, 1), (2, 2), (2, 3)], ids=["120", "80", "90"])
def test_one_cell_answer_cites_the_cell_with_its_link(real, built_site, row, column):
    span = _one_cell(real, SPEED, row, column)
    entry = real.allowlist.get(SPEED)
    first = citations_event(span, [entry], real.reader).citations[0]
    assert first.span == span.cells[0].value and first.span in first.quote
    assert first.span_url == real.reader.linker.cell_link(
        entry, real.reader.table(SPEED), row, column)


def test_unproven_cell_keeps_the_row_link(real, monkeypatch):
    span = _one_cell(real, SPEED, 1, 1)
    entry = real.allowlist.get(SPEED)
    monkeypatch.setattr(type(real.reader.linker), "cell_link", lambda *a: None)
    first = citations_event(span, [entry], real.reader).citations[0]
    assert first.span == "Autopista y autovía"
    assert first.span_url == real.reader.span_url(entry, "Autopista y autovía")


def test_several_cells_keep_the_row_link(real):
    one = _one_cell(real, SPEED, 1, 1)
    two = replace(one, cells=(*one.cells, _one_cell(real, SPEED, 1, 2).cells[0]))
    entry = real.allowlist.get(SPEED)
    first = citations_event(two, [entry], real.reader).citations[0]
    assert first.span == "Autopista y autovía"


def test_the_speed_question_links_its_cell(real, built_site):
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    r = collect(answer("¿A qué velocidad máxima puede circular un turismo por autopista?", real))
    assert r["outcome"] == "answer" and r["kind"] == "table", r["text"]
    first = r["citations"][0]
    assert first["ref"] == SPEED and first["span"] == "120"
    words, _ = _selected(built_site, first["span_url"])
    assert words == "120"
