"""A table answer's span link, opened in Debian's Chromium (issue 25): the browser must land on
exactly that cell — the cell of the right row and column of the right table, not another cell with
the same value — for every cell the gate's matcher proves (tests/cell_cases.py); and a student's
question answered by several cells (a road but no vehicle, a vehicle but no road, too vague for
either) must light up exactly those cells, on a desktop (1280×800) and a phone (390×844).

The directive's only term is the cell's whole text (prefix/suffix, which are never highlighted,
single it out), so ``:target`` being that cell is the cell's text highlighted, and nothing else.
Completion is detected without sleeping (tests/link_check.py: a sentinel second directive).
Several cells: what is highlighted is read off Chromium's own rendering — the pixels of the
site's highlight colour (``::target-text``, site.css ``--mark``) in each cell's screenshot."""

from __future__ import annotations

import pytest
from cell_cases import CELLS, SPEED
from highlight import lit_cells
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


VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
# A student's question, and the cells of art. 48's table it is answered by: (row, column)
SEVERAL_ASKED = [
    pytest.param("¿A qué velocidad se puede circular por autopista?", {(1, 1), (1, 2), (1, 3)},
                 id="road-no-vehicle"),
    pytest.param("¿Velocidad máxima en autopista?", {(1, 1), (1, 2), (1, 3)},
                 id="road-no-vehicle-maxima"),   # not the turismos' "masa máxima autorizada"
    pytest.param("¿A qué velocidad máxima puede circular un camión?", {(1, 2), (2, 2)},
                 id="vehicle-no-road"),
    pytest.param("¿Puedo ir a 100?", {(r, c) for r in (1, 2) for c in (1, 2, 3)},
                 id="too-vague"),
]

_FIRST_IN_VIEW = """([row, column]) => {
  const r = document.querySelector('#art48-1-a').rows[row].cells[column].getBoundingClientRect();
  return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
}"""


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("question,asked", SEVERAL_ASKED)
def test_several_cells_answer_lights_up_exactly_those_cells(browser, served_site, real,
                                                            question, asked, viewport):
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    _, base = served_site
    r = collect(answer(question, real))
    assert r["outcome"] == "answer" and r["kind"] == "table", r["text"]
    first = r["citations"][0]
    assert first["ref"] == SPEED, first["ref"]
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    tab = context.new_page()
    found = open_link(tab, base, first["span_url"])
    assert found is not None and found["id"] == "art48-1-a", found
    head = min(asked)   # Chromium scrolls to the first directive: the first cell asked
    assert tab.evaluate(_FIRST_IN_VIEW, list(head)), f"{first['span_url']}: {head} not in view"
    lit = lit_cells(tab, "art48-1-a")
    assert lit == asked, (first["span_url"], sorted(lit))
    context.close()
