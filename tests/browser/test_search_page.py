"""The static search page in Debian's Chromium, opened from file:// with no server and no
worker: its JavaScript ranks exactly as `citavial search`, and shows readable results (heading
with the article's title, where the passage sits, query words marked, tables as tables)."""

from __future__ import annotations

import shutil
from urllib.parse import quote

import pytest
from index_helpers import ROOT, built_dist

from citavial.build.index.make.export import SHARD_DIR, read_static
from citavial.build.index.query.lexical import ref_key
from citavial.build.index.query.retriever import load_retriever
from citavial.build.render.pages import ExtraPage, render_pages
from citavial.build.web.assets import asset

pytestmark = pytest.mark.browser
SITE_SRC = ROOT / "site_src"

QUESTIONS = [
    "¿Puedo aparcar en doble fila?",
    "luces largas en un túnel",
    "velocidad máxima de una moto en autovía",
    "adelantaré en una curva",          # unseen inflection: prefix fallback to a known stem
    "camion de 3.500 kg",
    "0,5 gramos por litro",
    "constructor toString",             # words that are Object.prototype members in JS
    "zzzz",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory, reg):
    out = tmp_path_factory.mktemp("search-site")
    render_pages(reg, SITE_SRC, out, [ExtraPage("buscar.html", "search.html", {})])
    shutil.copytree(SITE_SRC / "static", out / "static")
    shutil.copy(asset(built_dist(), "search-index.js"), out / "search-index.js")
    shutil.copytree(built_dist() / SHARD_DIR, out / SHARD_DIR)
    return out


@pytest.fixture
def tab(browser):
    context = browser.new_context()
    page = context.new_page()
    yield page
    context.close()


def _results(tab):
    return tab.eval_on_selector_all(
        "#buscar-resultados li > a", "els => els.map(a => [a.textContent, a.getAttribute('href')])")


@pytest.mark.parametrize("question", QUESTIONS)
def test_page_ranks_like_the_cli(site, tab, question):
    data = read_static(site / "search-index.js")
    docs = {d[0]: d for d in data["docs"]}
    expected = [ref_key(h.ref)
                for h in load_retriever(built_dist()).search(question, k=20).hits]
    tab.goto(f"{(site / 'buscar.html').as_uri()}?q={quote(question)}")
    tab.wait_for_function("() => document.getElementById('buscar-estado').textContent !== ''")
    got = _results(tab)
    assert [href for _, href in got] == [docs[ref][1] for ref in expected]
    assert [text for text, _ in got] == [docs[ref][2] for ref in expected]
    assert all(not text.startswith(("art", "RD-", "anexo")) for text, _ in got), got
    if not expected:
        assert "Sin resultados" in tab.text_content("#buscar-estado")


def test_results_read_like_the_regulation(site, tab):
    """Heading with the title, the passage's place in words, query words marked, and the speed
    table shown as a table (never a flattened run of cells)."""
    tab.goto(f"{(site / 'buscar.html').as_uri()}?q={quote('alumbrado de cruce obligatorio')}")
    tab.wait_for_selector("#buscar-resultados li")
    first = tab.text_content("#buscar-resultados li > a")
    assert first.startswith("Artículo ") and ". " in first and first.split(". ", 1)[1]
    marks = tab.eval_on_selector_all("#buscar-resultados mark", "els => els.map(e => e.textContent)")
    assert any(m.lower() in ("alumbrado", "cruce", "obligatorio") for m in marks), marks
    tab.goto(f"{(site / 'buscar.html').as_uri()}?q={quote('velocidad máxima turismo autopista autovía')}")
    tab.wait_for_selector("#buscar-resultados li")
    assert tab.locator("#buscar-resultados table.hit-table th").count() >= 3
    places = tab.eval_on_selector_all("#buscar-resultados .hit-place",
                                      "els => els.map(e => e.textContent)")
    assert any("apartado" in p for p in places), places


def test_typing_a_question_and_following_a_result(site, tab):
    tab.goto((site / "buscar.html").as_uri())
    tab.fill("#buscar-q", "¿Quién tiene prioridad en una glorieta?")
    tab.click("button[type=submit]")
    tab.wait_for_selector("#buscar-resultados li")
    first = _results(tab)[0]
    assert first[1].startswith("art") and ".html#" in first[1]
    assert "resultados para «¿Quién tiene prioridad en una glorieta?»" in \
        tab.text_content("#buscar-estado")


def test_missing_index_says_how_to_fix(site, tab, tmp_path):
    bare = tmp_path / "bare"
    shutil.copytree(site, bare)
    (bare / "search-index.js").unlink()
    tab.goto((bare / "buscar.html").as_uri())
    assert "citavial build" in tab.text_content("#buscar-estado")


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, {"width": 390, "height": 844}],
                         ids=["desktop", "phone"])
def test_alcoholemia_shows_the_alcohol_rates_first(site, browser, viewport):
    """Issue 25.7: the students' word "alcoholemia" is read as the law's "alcohol"
    (build/text.py QUERY_ALIASES), so art. 20's rates come first, their "alcohol" marked, in
    view on a desktop and a phone."""
    context = browser.new_context(viewport=viewport)
    tab = context.new_page()
    try:
        tab.goto(f"{(site / 'buscar.html').as_uri()}?q=alcoholemia")
        tab.wait_for_function("() => document.getElementById('buscar-estado').textContent !== ''")
        first = tab.locator("#buscar-resultados li").first
        assert first.locator("a").first.text_content().startswith("Artículo 20. ")
        marks = first.locator("mark").all_text_contents()
        assert marks and {m.lower() for m in marks} == {"alcohol"}, marks
        box = first.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, {"width": 390, "height": 844}],
                         ids=["desktop", "phone"])
def test_a_table_result_scrolls_in_its_box_not_the_page(served_site, browser, viewport):
    """Issue 25.3 on the search page (the built site, served): art. 48's speed table as a result
    keeps its words whole and, on a phone, scrolls inside its own box — reachable by keyboard
    and named — while the page never scrolls sideways (it was 572 px wide at 390)."""
    _, base = served_site
    context = browser.new_context(viewport=viewport)
    tab = context.new_page()
    try:
        tab.goto(f"{base}/buscar.html?q={quote('velocidad turismos autopista')}")
        tab.wait_for_function("() => document.getElementById('buscar-estado').textContent !== ''")
        wrap = tab.locator("#buscar-resultados .table-wrap:has(table.hit-table)").first
        assert "Autopista y autovía" in wrap.inner_text()
        assert tab.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
        box = wrap.evaluate("w => ({scroll: w.scrollWidth, client: w.clientWidth, "
                            "tab: w.tabIndex, role: w.getAttribute('role'), "
                            "name: w.getAttribute('aria-label')})")
        if viewport["width"] < 500:
            assert box["scroll"] > box["client"] and box["tab"] == 0 and box["role"] == "region"
            assert box["name"].startswith("Tabla: Artículo 48."), box
        heads = wrap.locator("th").all_inner_texts()
        assert not any(th == "" for th in heads)      # the blank corner is a <td>
    finally:
        context.close()
