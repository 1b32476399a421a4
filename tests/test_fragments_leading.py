"""A page's leading chrome, walked once (build/gate/fragments/leading.py): a page read with the
walk of its children before <main> remembered from other pages is the page read afresh."""

from __future__ import annotations

import pytest

from citavial.build.gate.fragments import leading, read_page
from citavial.build.gate.fragments import textmodel as T

HEADER = ('<a class="skip" href="#m">Saltar al contenido</a>'
          '<header id="top"><nav><a href="/">Índice</a> <a href="/g">Guías</a></nav></header>')
CRUMBS = '<nav class="crumbs"><a href="/t2">Título II</a> › <span>Capítulo I</span></nav>'


def page(body: str, before: str = "") -> str:
    return f"<html><head><title>t</title></head><body>{before}{body}</body></html>"


# Pages read one after another: the same chrome from the same walker state (a hit), the same
# chrome after other serials, blocks or pending text (a miss: another key, or no key), chrome
# that differs by one attribute, a <details> in it (its serials), no <main> (nothing kept).
PAGES = [
    page(HEADER + CRUMBS + '<main id="m"><p id="a">uno  <em>dos</em></p></main><footer>f</footer>'),
    page(HEADER + CRUMBS + '<main id="m"><p id="b">tres</p></main>'),
    page(HEADER + '<nav class="crumbs"><a href="/t3">Título III</a></nav><main id="m"><p>x</p></main>'),
    page(HEADER + CRUMBS + '<main id="m"><p>y</p></main>', before="texto suelto "),
    page(HEADER + CRUMBS + '<main id="m"><p>y</p></main>', before='<p id="antes">antes</p>'),
    page(HEADER.replace('href="/g"', 'href="/h"') + '<main id="m"><p>z</p></main>'),
    page('<details id="d"><summary id="s">Menú</summary><p id="i">dentro</p></details>'
         + HEADER + '<main id="m"><p id="c">cuatro</p></main>'),
    page('<details id="d"><summary id="s">Menú</summary><p id="i">dentro</p></details>'
         + HEADER + '<main id="m"><p id="e">cinco</p></main>'),
    page(HEADER + '<p id="f">sin main</p>'),
    page(HEADER + '<div><main id="m">en un div</main></div>'),
]


def _model(p) -> tuple:
    return (p.blocks, p.ids, p.joined, p.starts, p.details, p.summaries)


def test_pages_read_the_same_with_the_chrome_remembered(monkeypatch):
    monkeypatch.setattr(leading, "_MEMO", {})
    together = [_model(read_page(html)) for html in PAGES + PAGES]
    monkeypatch.setattr(leading, "lead_of", lambda body: [])   # every page walked whole
    alone = [_model(read_page(html)) for html in PAGES]
    assert together == alone + alone
    assert len(leading._MEMO) >= 3   # the memo was used


def test_the_site_reads_the_same_with_the_chrome_remembered(built_site, monkeypatch):
    pages = [p.read_bytes() for p in sorted(built_site.rglob("*.html"))[::2]]
    monkeypatch.setattr(leading, "_MEMO", {})
    monkeypatch.setattr(T, "_RENDERED", {})
    remembered = [_model(read_page(p)) for p in pages]
    hits = len(leading._MEMO)
    monkeypatch.setattr(leading, "lead_of", lambda body: [])
    assert [_model(read_page(p)) for p in pages] == remembered
    assert len(pages) > 250 and 0 < hits < len(pages)   # a few headers, shared


@pytest.mark.parametrize("html, remembered", [
    pytest.param(page(HEADER + '<main><p>x</p></main>'), 1, id="skip-link-with-the-header"),
    pytest.param(page(HEADER + CRUMBS + '<main><p>x</p></main>'), 2, id="crumbs-apart"),
    pytest.param(page(HEADER + '<p>sin main</p>'), 0, id="no-main"),
    pytest.param(page('<main><p>x</p></main>'), 0, id="nothing-before-main"),
    pytest.param(page(HEADER + CRUMBS + '<main><p>x</p></main>', before="suelto "), 1,
                 id="text-pending-before-the-first-group"),
])
def test_what_is_remembered(monkeypatch, html, remembered):
    """Groups end with a block element (the skip link goes with the header); a group that
    starts with inline text pending is walked, not remembered."""
    monkeypatch.setattr(leading, "_MEMO", {})
    read_page(html)
    assert len(leading._MEMO) == remembered


def test_the_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(leading, "_MEMO", {})
    monkeypatch.setattr(leading, "MEMO_MAX", 3)
    for i in range(10):
        read_page(page(f'<header><p>cabecera {i}</p></header><main><p>x</p></main>'))
    assert 1 <= len(leading._MEMO) <= 3
