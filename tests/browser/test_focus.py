"""Focus a person can see (issue 25.7), in Debian's Chromium, desktop (1280×800) and phone
(390×844): after answering in practice the focus is on screen; the keyboard focus ring has at
least 3:1 contrast against the background it is drawn on (WCAG 2.2, 1.4.11/2.4.13)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

# The ring's colour against the first opaque background behind the focused element.
RING = r"""() => {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const el = document.activeElement, cs = getComputedStyle(el);
  let bg = null;
  for (let n = el.parentElement; n && !bg; n = n.parentElement) {
    const c = rgb(getComputedStyle(n).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) bg = c.slice(0, 3);
  }
  bg = bg || [255, 255, 255];
  const a = lum(rgb(cs.outlineColor)), b = lum(bg);
  return {tag: el.tagName + '.' + el.className, style: cs.outlineStyle,
          width: parseFloat(cs.outlineWidth),
          ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)};
}"""


@pytest.fixture(params=sorted(VIEWPORTS))
def tab(request, browser):
    context = browser.new_context(viewport=VIEWPORTS[request.param])
    page = context.new_page()
    page.route("http://127.0.0.1:8000/**", lambda route: route.abort())
    yield page
    context.close()


def test_focus_after_answering_stays_on_screen(tab, served_site):
    _, base = served_site
    tab.goto(f"{base}/practica.html")
    tab.locator("#p-options button").nth(2).scroll_into_view_if_needed()
    before = tab.evaluate("() => window.scrollY")
    tab.locator("#p-options button").nth(2).click()
    box = tab.evaluate("() => { const r = document.activeElement.getBoundingClientRect();"
                       " return {id: document.activeElement.id, top: r.top, bottom: r.bottom,"
                       " h: innerHeight}; }")
    assert box["id"] in ("p-verdict", "p-options")     # the verdict if in view, else the options
    assert box["bottom"] > 0 and box["top"] < box["h"], box     # on screen
    assert tab.evaluate("() => window.scrollY") == before      # and nothing scrolled
    tab.keyboard.press("Tab")                                  # on to the rule's link
    assert tab.evaluate("() => document.activeElement.id") in ("p-link", "p-changed-link")
    assert tab.is_visible("#p-next")


@pytest.mark.parametrize("page, presses", [
    pytest.param("index.html", 14, id="index"),
    pytest.param("practica.html", 14, id="practice"),
    pytest.param("art48.html", 20, id="article"),
])
def test_focus_ring_contrast_is_at_least_3_to_1(tab, served_site, page, presses):
    _, base = served_site
    tab.goto(f"{base}/{page}")
    seen = []
    for _ in range(presses):
        tab.keyboard.press("Tab")
        ring = tab.evaluate(RING)
        if ring["tag"].startswith("BODY"):
            continue                   # past the last control: the browser's own UI
        seen.append(ring["tag"])
        assert ring["style"] != "none" and ring["width"] >= 2, ring
        assert ring["ratio"] >= 3.0, ring
    assert len(set(seen)) > 3          # the walk went through header, page and controls
