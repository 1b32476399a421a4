"""Layout on a phone in Debian's Chromium: no page type scrolls sideways at 360 px or 390 px
(wide tables scroll inside their own box), and the fixed chat button never covers the end of a
page. One page of each type, plus the known offenders (velocidad guide, por qué, ANEXO I §5)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PAGES = ["index.html", "art48.html", "art117.html", "anexoI-2.html", "anexoI-5.html",
         "vigencia.html", "guias.html", "guia-velocidad.html", "practica.html", "simulacro.html",
         "buscar.html", "porque.html", "cambios.html", "senales.html"]
WIDTHS = [360, 390]


@pytest.fixture(scope="module", params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def phone(request, browser):
    context = browser.new_context(viewport={"width": request.param, "height": 844},
                                  is_mobile=True, has_touch=True)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("name", PAGES)
def test_no_horizontal_scroll(phone, served_site, name):
    _, base = served_site
    phone.goto(f"{base}/{name}")
    width = phone.evaluate("() => document.documentElement.scrollWidth")
    assert width <= phone.viewport_size["width"], f"{name} is {width}px wide"


@pytest.mark.parametrize("name", ["art48.html", "guia-velocidad.html", "porque.html"])
def test_chat_button_never_hides_the_end_of_a_page(phone, served_site, name):
    _, base = served_site
    phone.goto(f"{base}/{name}")
    phone.wait_for_selector(".cv-toggle")
    phone.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    overlap = phone.evaluate("""() => {
      const b = document.querySelector('.cv-toggle').getBoundingClientRect();
      const hits = [];
      for (const el of document.querySelectorAll('main p, main li, main td, footer p')) {
        const r = el.getBoundingClientRect();
        if (r.width && r.bottom > b.top && r.top < b.bottom && r.right > b.left && r.left < b.right)
          hits.push(el.textContent.slice(0, 40));
      }
      return hits;
    }""")
    assert overlap == []
