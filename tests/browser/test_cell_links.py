"""A one-cell table answer's span link, opened in Debian's Chromium (issue 25): the browser must
land on exactly that cell — the cell of the right row and column of the right table, not another
cell with the same value — for every cell the gate's matcher proves (tests/cell_cases.py).

The directive's only term is the cell's whole text (prefix/suffix, which are never highlighted,
single it out), so ``:target`` being that cell is the cell's text highlighted, and nothing else.
Completion is detected without sleeping (tests/link_check.py: a sentinel second directive)."""

from __future__ import annotations

import pytest
from cell_cases import CELLS
from link_check import open_link

from citavial.build.gate.fragments import parse_fragment
from citavial.build.text import fold

pytestmark = pytest.mark.browser

_READ_CELL = """() => {
  const t = document.querySelector(':target');
  const cell = t && t.closest('td, th');
  if (!cell) return null;
  const r = cell.getBoundingClientRect();
  return {table: cell.closest('table').id, row: cell.parentElement.rowIndex,
          column: cell.cellIndex, text: cell.textContent,
          inView: r.bottom > 0 && r.top < innerHeight};
}"""


@pytest.fixture(scope="module")
def real(served_site):
    from citavial.worker.http.serve import load_deps
    deps, why, _ = load_deps(served_site[0], load_llm=False)
    assert deps is not None, why
    return deps


@pytest.mark.parametrize("ref,row,column,text", CELLS)
def test_chromium_lands_on_exactly_the_cell(page, served_site, real, ref, row, column, text):
    _, base = served_site
    entry = real.allowlist.get(ref)
    url = real.reader.linker.cell_link(entry, real.reader.table(ref), row, column)
    assert url is not None, f"{ref} [{row}][{column}] has no proven link"
    _, (directive,) = parse_fragment(url.partition("#")[2])
    assert directive is not None and directive.end is None
    assert fold(directive.start) == fold(text), url   # the highlighted words: the cell's own
    found = open_link(page, base, url)
    assert found is not None and found["id"] == entry.anchor, f"{url} landed on {found}"
    cell = page.evaluate(_READ_CELL)
    assert cell is not None, f"{url}: Chromium's target is not a table cell"
    assert (cell["table"], cell["row"], cell["column"]) == (entry.anchor, row, column), url
    assert " ".join(cell["text"].split()) == text and cell["inView"], cell
