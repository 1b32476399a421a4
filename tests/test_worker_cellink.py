"""A table answer links to its cells (issue 25): on the real built site, the gate's matcher must
prove that the span link's first match is exactly the cell's own block — also when the same value
stands in other cells of the table ("90", "151 170") — and, for an answer of several cells (a row,
a column, the whole table), that each of the link's directives lands on its own cell; unproven,
the link goes to the header the question named. The same links are opened in Chromium by
tests/browser/test_cell_links.py."""

from __future__ import annotations

import pytest
from cell_cases import CELLS, SEVERAL, SPEED, UNPROVEN

from citavial.build.gate.fragments import match_directive, parse_fragment, read_page
from citavial.build.gate.fragments.match import source_text
from citavial.build.text import fold
from citavial.worker.answer.cite import cell_at, cells_words, citations_event
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


def _cells(real, ref: str, at) -> Span:
    """A table answer of the cells ``at`` ((row, column) pairs) of the table ``ref``."""
    rows = real.reader.table(ref)
    entry = real.allowlist.get(ref)
    cells = tuple(Cell(rows[r][0][0], rows[0][c][0], rows[r][c][0], "") for r, c in at)
    assert [cell_at(rows, cell) for cell in cells] == list(at)
    return Span(Piece(ref, entry.text, 0, len(entry.text)), 1.0, 0, cells=cells)


@pytest.mark.parametrize("row,column", [(1, 1), (2, 2), (2, 3)], ids=["120", "80", "90"])
def test_one_cell_answer_cites_the_cell_with_its_link(real, built_site, row, column):
    span = _cells(real, SPEED, [(row, column)])
    entry = real.allowlist.get(SPEED)
    first = citations_event(span, [entry], real.reader).citations[0]
    assert first.span == span.cells[0].value and first.span in first.quote
    assert first.span_url == real.reader.linker.cell_link(
        entry, real.reader.table(SPEED), row, column)


def test_unproven_cell_keeps_the_row_link(real, monkeypatch):
    span = _cells(real, SPEED, [(1, 1)])
    entry = real.allowlist.get(SPEED)
    monkeypatch.setattr(type(real.reader.linker), "cells_link", lambda *a: None)
    first = citations_event(span, [entry], real.reader).citations[0]
    assert first.span == "Autopista y autovía"
    assert first.span_url == real.reader.span_url(entry, "Autopista y autovía")


@pytest.mark.parametrize("at,words,fallback", SEVERAL)
def test_several_cells_link_every_cell(real, built_site, at, words, fallback):
    """Each directive of the link, matched on its own as Chromium does, selects its own cell's
    block; ``span`` is the cells' run of the quote (a row) or the first cell."""
    entry = real.allowlist.get(SPEED)
    rows = real.reader.table(SPEED)
    first = citations_event(_cells(real, SPEED, at), [entry], real.reader).citations[0]
    assert first.span == words and words in first.quote
    name, _, fragment = first.span_url.partition("#")
    anchor, directives = parse_fragment(fragment)
    assert (name, anchor, len(directives)) == (entry.page, entry.anchor, len(at)), first.span_url
    model = read_page((built_site / name).read_bytes())
    for directive, (r, c) in zip(directives, at, strict=True):
        hit = match_directive(model, directive)
        assert hit is not None and model.block_at(hit.pos) == cell_block(
            model, entry.anchor, rows, r, c), (first.span_url, r, c)
        assert fold(source_text(model, hit.pos, hit.end_pos)) == fold(rows[r][c][0])


@pytest.mark.parametrize("at,words,fallback", SEVERAL)
def test_unproven_cells_link_the_header_the_question_named(real, monkeypatch, at, words, fallback):
    span = _cells(real, SPEED, at)
    entry = real.allowlist.get(SPEED)
    monkeypatch.setattr(type(real.reader.linker), "cells_link", lambda *a: None)
    first = citations_event(span, [entry], real.reader).citations[0]
    expected = entry.text if fallback is None else fallback
    assert first.span == expected
    assert first.span_url == (entry.url if fallback is None
                              else real.reader.span_url(entry, fallback))


# (the table's rows, the cells asked for, ``span``): a row's cells are one run of the quote;
# a column's, or cells out of reading order, are not — then the first cell
_T = [[("", False), ("Coches", True), ("Motos", True)],
      [("Autopista", False), ("120", False), ("100", False)],
      [("Ciudad", False), ("50", False), ("50", False)]]
_Q = "Coches Motos Autopista 120 100 Ciudad 50 50"
WORDS = [
    pytest.param([(1, 1), (1, 2)], "120 100", id="row"),
    pytest.param([(2, 2)], "50", id="one-cell-repeated-value"),
    pytest.param([(1, 1), (2, 1)], "120", id="column"),
    pytest.param([(1, 2), (2, 1)], "100", id="header-between"),
    pytest.param([(1, 2), (1, 1)], "120 100", id="row-in-any-order"),
]


@pytest.mark.parametrize("at,words", WORDS)
def test_cells_words(at, words):
    cells = [Cell(_T[r][0][0], _T[0][c][0], _T[r][c][0], "") for r, c in at]
    got = cells_words(_Q, _T, cells)
    assert got == words and got in _Q


def test_the_speed_question_links_its_cell(real, built_site):
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    r = collect(answer("¿A qué velocidad máxima puede circular un turismo por autopista?", real))
    assert r["outcome"] == "answer" and r["kind"] == "table", r["text"]
    first = r["citations"][0]
    assert first["ref"] == SPEED and first["span"] == "120"
    words, _ = _selected(built_site, first["span_url"])
    assert words == "120"
