"""Tables that read (issue 25.3), in Debian's Chromium on a desktop (1280×800) and a phone
(390×844): no word inside a table cell is broken across lines ("Auto/pista"); a table wider than
the phone scrolls inside its own box, never the page."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
PAGES = ["art48.html", "anexoI-2.html", "guia-velocidad.html", "guia-alcohol-drogas.html",
         "porque.html"]

# Every word of every cell (a run of letters/digits inside one text node) and the number of
# lines its box spans; words with a hyphen or slash may legitimately break there.
BROKEN_WORDS = r"""() => {
  const broken = [];
  let words = 0;
  for (const cell of document.querySelectorAll('main td, main th')) {
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      for (const m of node.data.matchAll(/[^\s\-\/–—]+/g)) {
        if (m[0].length < 4) continue;
        const r = document.createRange();
        r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].filter(b => b.width > 0)
                                                   .map(b => Math.round(b.top)));
        words += 1;
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  return {words, broken};
}"""


@pytest.fixture(scope="module", params=sorted(VIEWPORTS))
def view(request, browser):
    context = browser.new_context(viewport=VIEWPORTS[request.param])
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("name", PAGES)
def test_no_word_in_a_table_is_broken(view, served_site, name):
    _, base = served_site
    view.goto(f"{base}/{name}")
    got = view.evaluate(BROKEN_WORDS)
    assert got["words"] > 0, f"{name}: no table words found"
    assert got["broken"] == [], f"{name}: words broken across lines: {got['broken'][:10]}"
    width = view.evaluate("() => document.documentElement.scrollWidth")
    assert width <= view.viewport_size["width"], f"{name} is {width}px wide"


def test_a_wide_table_scrolls_inside_its_box_on_a_phone(browser, served_site):
    _, base = served_site
    context = browser.new_context(viewport=VIEWPORTS["phone"])
    page = context.new_page()
    page.goto(f"{base}/art48.html")
    box = page.evaluate("""() => {
      const w = document.getElementById('art48-1-a').closest('.table-wrap');
      return {scroll: w.scrollWidth, client: w.clientWidth,
              overflow: getComputedStyle(w).overflowX};
    }""")
    assert box["overflow"] == "auto"
    assert box["scroll"] > box["client"]          # the table keeps its words, the box scrolls
    context.close()
