"""Layout on a phone in Debian's Chromium: no page type scrolls sideways at 360 px or 390 px
(wide tables scroll inside their own box), and the fixed chat button never covers the end of a
page. One page of each type, plus the known offenders (velocidad guide, por qué, ANEXO I §5).
And what a reader sees as a heading says its number once ("Anexo I, apartado 5. 5.", issue
25.7), on a phone and on a desktop."""

from __future__ import annotations

import re

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


@pytest.mark.parametrize("width", [390, 1280], ids=["phone", "desktop"])
@pytest.mark.parametrize("name, label", [("anexoI-5.html", "Anexo I, apartado 5"),
                                         ("anexoIII-s1.html", "Anexo III, sección 1")])
def test_a_heading_says_its_number_once(browser, served_site, width, name, label):
    _, base = served_site
    tab = browser.new_page(viewport={"width": width, "height": 844})
    tab.goto(f"{base}/{name}")
    shown = " ".join(tab.locator("h1").inner_text().split())
    number = label.rsplit(" ", 1)[1]
    assert shown.startswith(label + " "), shown
    rest = shown[len(label):].lstrip(" .").lower()
    assert not rest.startswith((number + ".", number + " ", "sección", "apartado")), shown
    assert not re.search(rf"\b{number}\. (sección |apartado )?{number}\b", tab.title(), re.I), \
        tab.title()
    tab.close()
