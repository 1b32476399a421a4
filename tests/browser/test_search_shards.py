"""The static search page loads its index in pieces (build/index/make/export.py), in Debian's
Chromium: opened from file:// and served over loopback HTTP, a search shows the CLI's first
result, taken from the docs shard that holds it, after loading a few shards by <script> — never
the whole index; a repeated search loads nothing twice; a shard that cannot be loaded gives a
message naming the file and the fix. (Offline, from the service worker's cache: test_pwa.py.)"""

from __future__ import annotations

import shutil
from urllib.parse import quote

import pytest

from citavial.build.index.make.export import read_static, shard_of
from citavial.build.index.query.lexical import ref_key
from citavial.build.index.query.retriever import load_retriever
from citavial.build.web.assets import asset

pytestmark = pytest.mark.browser

# Our own wording (never a bank question): a Reglamento article and another norm's passage.
QUESTIONS = ["¿qué luces hay que llevar encendidas dentro de un túnel?",
             "¿cuántos puntos tiene el permiso de conducir de un conductor novel?"]
SHARDS = "script[src*='/search/']"
SAID = "q => document.getElementById('buscar-estado').textContent.includes(q)"


@pytest.fixture
def tab(browser):
    context = browser.new_context()
    page = context.new_page()
    page.route("http://127.0.0.1:8000/**", lambda route: route.abort())   # no stray worker
    yield page
    context.close()


@pytest.fixture(scope="module")
def index(built_site):
    return read_static(asset(built_site, "search-index.js"))


def _search(tab, base: str, question: str) -> list[list[str]]:
    tab.goto(f"{base}/buscar.html?q={quote(question)}")
    tab.wait_for_function("() => document.getElementById('buscar-estado').textContent !== ''")
    return tab.eval_on_selector_all(
        "#buscar-resultados li > a", "els => els.map(a => [a.textContent, a.getAttribute('href')])")


def _loaded(tab) -> list[str]:
    return tab.eval_on_selector_all(SHARDS, "els => els.map(s => s.getAttribute('src'))")


def _first(built_site, index, question: str) -> tuple[list[str], str]:
    """The CLI's first hit as the page shows it ([heading, url]) and its docs shard."""
    hit = load_retriever(built_site).search(question, k=10).hits[0]
    row = index["keys"].index(ref_key(hit.ref))
    shards = index["doc_shards"]
    return [index["docs"][row][2], index["docs"][row][1]], \
        shards["files"][shard_of(shards["starts"], row)]


@pytest.mark.parametrize("where", ["file", "served"])
@pytest.mark.parametrize("question", QUESTIONS, ids=["reglamento", "other-norm"])
def test_first_result_comes_from_a_shard_loaded_on_demand(tab, built_site, served_site, index,
                                                          where, question):
    base = built_site.as_uri() if where == "file" else served_site[1]
    want, shard = _first(built_site, index, question)
    got = _search(tab, base, question)
    assert got and got[0] == want
    loaded = _loaded(tab)
    assert any(src.endswith("/" + shard) for src in loaded), (shard, loaded)
    total = len(index["term_shards"]["files"]) + len(index["doc_shards"]["files"])
    assert 0 < len(loaded) < total // 10, (len(loaded), total)


def test_a_repeated_search_loads_no_shard_twice(tab, served_site):
    _search(tab, served_site[1], QUESTIONS[0])
    tab.fill("#buscar-q", QUESTIONS[1])
    tab.click("button[type=submit]")
    tab.wait_for_function(SAID, arg=QUESTIONS[1])
    tab.fill("#buscar-q", QUESTIONS[0])
    tab.click("button[type=submit]")
    tab.wait_for_function(SAID, arg=QUESTIONS[0])
    loaded = _loaded(tab)
    assert loaded and len(loaded) == len(set(loaded))


def test_a_missing_shard_names_the_file_and_the_fix(tab, built_site, index, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(built_site, site, ignore=shutil.ignore_patterns("index", "index-dev", "*.gz"))
    _, shard = _first(built_site, index, QUESTIONS[0])
    (site / shard).unlink()
    _search(tab, site.as_uri(), QUESTIONS[0])
    status = tab.text_content("#buscar-estado")
    assert shard in status and "citavial build" in status
