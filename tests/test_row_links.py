""""Copiar enlace a esta fila" (issue 25.6) on the real built site: every row link in every page's
deeplinks script selects, by the gate's own matcher, exactly the cells of its row — also the rows
the gate's quote check refuses (too short to quote, repeated on the page: linked by their place
in the table, build/gate/fragments/cells.py) — and those rows now have a link. The links are opened
in Chromium by tests/browser/test_copy_link.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import html as lhtml

from citavial.build.gate.fragments import match_directive, parse_fragment, read_page
from citavial.build.gate.fragments.cells import cell_blocks, whole_cells


def _scripts(site: Path) -> dict[str, dict[str, list[str]]]:
    """{page: {table anchor: [row url or ""]}} from every deeplinks/<page>.<hash>.js."""
    out = {}
    for path in sorted((site / "deeplinks").rglob("*.js")):
        folder = path.parent.relative_to(site / "deeplinks")
        page = str(folder / (path.name.split(".")[0] + ".html")).removeprefix("./")
        out[page] = json.loads(path.read_text("utf-8").split("= ", 1)[1].rstrip()
                               .rstrip(";"))["rows"]
    return out


def _rows(doc, anchor: str) -> list[list[str]]:
    """The table's cells as the page shows the law's text (the ¶ button's label is CSS; an
    image's "Ver imagen en el BOE" placeholder is no part of the passage)."""
    table = doc.get_element_by_id(anchor)
    for a in table.xpath(".//a[@class='boe-image']"):
        a.getparent().remove(a)
    return [[" ".join(c.text_content().split()) for c in tr.xpath("./th|./td")]
            for tr in table.xpath(".//tr")]


@pytest.fixture(scope="module")
def scripts(built_site):
    return _scripts(built_site)


def test_every_row_link_selects_exactly_its_row(built_site, scripts):
    checked = 0
    for page, tables in scripts.items():
        model = read_page((built_site / page).read_bytes())
        doc = lhtml.fromstring((built_site / page).read_bytes())
        base = page.rpartition("/")[2]
        for anchor, urls in tables.items():
            grid = cell_blocks(model, anchor, _rows(doc, anchor))
            assert grid is not None and len(grid) == len(urls), (page, anchor)
            for i, url in enumerate(urls):
                if not url:
                    continue
                name, _, fragment = url.partition("#")
                element, directives = parse_fragment(fragment)
                assert (name, element) == (base, anchor), url
                lit = set()
                for d in directives:
                    hit = match_directive(model, d)
                    assert d is not None and hit is not None, url
                    lit |= set(range(model.block_at(hit.pos), model.block_at(hit.end_pos - 1) + 1))
                assert lit == {b for b in grid[i] if b is not None}, (url, i)
                checked += 1
    assert checked > 1200, checked


# Rows the gate's quote check refuses, now linked by their place: (page, table, row)
BY_PLACE = [
    pytest.param("anexoI-2.html", "anexoI-2-p1", 0, id="too-short-one-cell-row"),
    pytest.param("vehiculos/anexoI.html", "anexoI-p3", 0, id="header-repeated-on-the-page"),
    pytest.param("conductores/anexoI.html", "anexoI-p33", 0, id="first-row-of-a-codes-table"),
]


@pytest.mark.parametrize("page,anchor,row", BY_PLACE)
def test_a_row_the_quote_check_refuses_is_linked_by_its_place(scripts, page, anchor, row):
    assert scripts[page][anchor][row], f"{page} #{anchor} row {row} has no link of its own"


# Rows whose every cell recurs with the same neighbours in an earlier table, singled out by a
# cover of whole-cell directives (cells.cover_fragment): (page, table, row)
BY_COVER = [
    pytest.param("vehiculos/anexoX.html", "anexoX-p35", 3, id="lamp-row-of-a-second-category"),
    pytest.param("vehiculos/anexoIII.html", "anexoIII-p21", 0, id="header-after-a-long-lead-in"),
]


@pytest.mark.parametrize("page,anchor,row", BY_COVER)
def test_a_row_whose_cells_recur_is_linked_piecewise(scripts, page, anchor, row):
    assert scripts[page][anchor][row], f"{page} #{anchor} row {row} has no link of its own"


def _unlinked(built_site, scripts):
    """(page model, the row's cell blocks) of every row with text but no link of its own."""
    for page, tables in scripts.items():
        if all(u or u is None for urls in tables.values() for u in urls):
            continue
        model = read_page((built_site / page).read_bytes())
        doc = lhtml.fromstring((built_site / page).read_bytes())
        for anchor, urls in tables.items():
            grid = cell_blocks(model, anchor, _rows(doc, anchor))
            for i, url in enumerate(urls):
                blocks = [b for b in grid[i] if b is not None]
                assert (url is None) == (not blocks), (page, anchor, i)
                if url == "":
                    yield model, blocks


def test_a_row_left_without_a_link_cannot_be_singled_out(built_site, scripts):
    """Every run of a row's cells tried alone, each with its whole neighbours as context (the
    most telling directive for it: cells.whole_cells), by brute force rather than the build's
    cover search: no set of them is the row, because at least one cell no run lands on.
    So no text fragment made of the row's whole cells lands on that row alone."""
    left = 0
    for model, blocks in _unlinked(built_site, scripts):
        reached = set()
        for j in range(len(blocks)):
            for k in range(j, len(blocks)):
                hit = match_directive(model, whole_cells(model, blocks, j, k))
                span = (model.starts[blocks[j]],
                        model.starts[blocks[k]] + len(model.blocks[blocks[k]].norm))
                if hit is not None and (hit.pos, hit.end_pos) == span:
                    reached |= set(range(j, k + 1))
        assert reached != set(range(len(blocks))), (model, blocks)
        left += 1
    assert 0 < left <= 85, left


def test_few_rows_are_left_without_a_link(scripts):
    """All but the rows no text fragment can single out (their cells, with the same
    neighbours, recur earlier on the page): 85 of 1,493 rows with text (102 before the
    piecewise cover, 450 before rows were found by their place); a row with no text has no
    link and no control (None)."""
    urls = [u for tables in scripts.values() for rows in tables.values() for u in rows]
    assert len(urls) > 1400 and sum(1 for u in urls if u == "") <= 85
    assert sum(1 for u in urls if u is None) == 1


def test_the_build_reports_the_rows_left_to_their_table(built_site, scripts):
    """gate-report.json (and the build's summary line, from the same counts) says how many
    rows copy their table's link because no text fragment singles them out."""
    gate = json.loads((built_site / "gate-report.json").read_text("utf-8"))
    urls = [u for tables in scripts.values() for rows in tables.values() for u in rows]
    assert gate["rows"] == {"rows": sum(1 for u in urls if u is not None),
                            "linked": sum(1 for u in urls if u),
                            "table": sum(1 for u in urls if u == "")}
    assert gate["rows"]["table"] > 0
