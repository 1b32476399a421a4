"""Signs in the static search page and the chat, in Debian's Chromium: searching a sign's code
or name shows the sign above the passages — labelled as the previous catalogue's name, or as
in-force text for a road marking — and its link lands on the sign in senales.html; asking the
chat what a sign means shows the same honest card (never a quote of the old name)."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from citavial.worker.http.serve import ServerThread, load_state

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=sorted(VIEWPORTS))
def tab(request, browser):
    context = browser.new_context(viewport=VIEWPORTS[request.param])
    page = context.new_page()
    page.route("http://127.0.0.1:8000/**", lambda route: route.abort())
    yield page
    context.close()


def search(tab, url: str, question: str):
    tab.goto(f"{url}?q={quote(question)}")
    tab.wait_for_function("() => document.getElementById('buscar-estado').textContent !== ''")
    return tab.locator("#buscar-senales li.sign-hit")


def test_code_search_shows_the_sign_and_lands_on_it(tab, served_site):
    _, base = served_site
    signs = search(tab, f"{base}/buscar.html", "R-101")
    assert signs.count() == 1
    assert signs.first.inner_text() == \
        "Señal R-101 · Entrada prohibida (nombre del catálogo anterior)"
    assert "1 señal" in tab.inner_text("#buscar-estado")
    # the sign comes before the passages, which are still listed
    assert tab.locator("#buscar-resultados li.search-hit").count() >= 1
    box = tab.locator("#buscar-senales").bounding_box()
    assert box["y"] < tab.locator("#buscar-resultados").bounding_box()["y"]
    signs.first.locator("a").click()
    tab.wait_for_url("**/senales.html#senal-R-101")
    target = tab.evaluate("() => document.querySelector(':target').id")
    assert target == "senal-R-101"
    assert tab.locator("#senal-R-101").is_visible()
    assert tab.locator("#senal-R-101 .sign-name").inner_text() == "Entrada prohibida"
    assert tab.evaluate("() => { const r = document.querySelector(':target')"   # scrolled to
                        ".getBoundingClientRect(); return r.top > -2 && r.top < innerHeight; }")


@pytest.mark.parametrize("question, first, note", [
    ("r101", "Señal R-101 · Entrada prohibida", "(nombre del catálogo anterior)"),
    ("señal de ceda el paso", "Señal R-1 · Ceda el paso", "(nombre del catálogo anterior)"),
    ("calle residencial", "Señal S-28 · Calle residencial", "(nombre del catálogo anterior)"),
    ("m-6.3", "Marca vial M-6.3 · Detención obligatoria o STOP", "(definida en el texto en vigor)"),
], ids=["code-no-hyphen", "name", "name-only", "marking"])
def test_names_and_code_forms_from_file(tab, built_site, question, first, note):
    """From file://, with no server: the page's own JavaScript finds the sign."""
    signs = search(tab, (built_site / "buscar.html").as_uri(), question)
    assert signs.count() >= 1
    assert signs.first.locator("a").inner_text() == first
    assert signs.first.locator(".hit-place").inner_text().strip() == note
    href = signs.first.locator("a").get_attribute("href")
    assert href == "senales.html#senal-" + first.split(" · ")[0].split(" ")[-1]


def test_everyday_search_shows_no_sign(tab, built_site):
    signs = search(tab, (built_site / "buscar.html").as_uri(), "velocidad máxima en autopista")
    assert signs.count() == 0 and tab.locator("#buscar-senales").is_hidden()


@pytest.fixture(scope="module")
def worker(built_site):
    state = load_state(built_site, ask_per_minute=0)
    assert state.deps is not None, state.unavailable
    with ServerThread(state) as srv:
        yield srv


def ask(tab, question: str):
    tab.click(".cv-toggle")
    tab.fill("#cv-q", question)
    tab.keyboard.press("Enter")
    tab.wait_for_function("() => document.querySelectorAll(\".cv-item[aria-busy='false']\")"
                          ".length > 0")
    return tab.locator(".cv-item").first


def test_chat_names_a_vertical_sign_without_quoting_it(tab, worker):
    tab.goto(worker.url + "/index.html")
    it = ask(tab, "¿Qué significa la señal R-101?")
    card = it.locator("a.cv-chip[href$='senales.html#senal-R-101']")
    assert card.count() == 1
    assert card.inner_text().startswith("Señal R-101 · Entrada prohibida — nombre del catálogo")
    assert card.get_attribute("href") == worker.url + "/senales.html#senal-R-101"
    assert card.get_attribute("target") == "_blank"
    assert "no es una cita del texto en vigor" in it.locator(".cv-abstain").inner_text()
    quotes = it.locator("blockquote.cv-quote").all_inner_texts()
    assert quotes and all("Entrada prohibida" != q.strip() for q in quotes)
