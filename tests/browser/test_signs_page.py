"""The signs page in Debian's Chromium: search by code and by name, the in-force definition of a
road marking lands on its words, and ANEXO I §5's catalogue index links to the signs page."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=sorted(VIEWPORTS))
def tab(request, browser):
    context = browser.new_context(viewport=VIEWPORTS[request.param])
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("query, code, name", [
    ("R-101", "R-101", "Entrada prohibida"),
    ("r101", "R-101", "Entrada prohibida"),
    ("ceda el paso", "R-1", "Ceda el paso"),
    ("M-4.3", "M-4.3", "Marca de paso para peatones"),
    ("interseccion con prioridad", "P-1", "Intersección con prioridad"),
    ("NIÑOS", "P-21", "Niños"),
    ("ninos", "P-21", "Niños"),
    ("r\u2011101", "R-101", "Entrada prohibida"),
], ids=["code", "code-no-hyphen", "name", "marking", "name-no-accent", "name-enye",
        "name-n-for-enye", "code-non-breaking-hyphen"])
def test_search_by_code_and_name(tab, served_site, query, code, name):
    _, base = served_site
    tab.goto(f"{base}/senales.html")
    total = tab.locator("li.sign").count()
    assert total > 300
    tab.fill("#senal-q", query)
    shown = tab.locator("li.sign:not([hidden])")
    assert 1 <= shown.count() < total
    codes = shown.locator(".sign-code").all_inner_texts()
    assert code in codes
    entry = tab.locator(f"li.sign[id='senal-{code}']")
    assert entry.locator(".sign-name").inner_text() == name
    assert "señal" in tab.inner_text("#senal-estado")


def test_marking_definition_is_a_verified_link(tab, served_site):
    _, base = served_site
    tab.goto(f"{base}/senales.html?q=M-4.1")
    entry = tab.locator("li.sign[id='senal-M-4.1']")
    quote = entry.locator("blockquote").inner_text()
    href = entry.locator("a.chip").get_attribute("href")
    assert href.startswith("anexoI-5.html#") and ":~:text=" in href
    tab.goto(f"{base}/{href}")
    tab.wait_for_function("() => document.querySelector(':target') !== null")
    target = tab.evaluate("() => document.querySelector(':target').closest('[id]').textContent")
    assert " ".join(quote.split()) == " ".join(target.split())


def test_catalogue_index_links_to_signs(tab, served_site):
    _, base = served_site
    tab.goto(f"{base}/anexoI-5.html")
    # The index entries and the chapter headings further down both link to their group.
    hrefs = tab.locator("a.catalogue-link").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert set(hrefs) == {f"senales.html#g{n}" for n in range(1, 19)}
    link = tab.locator("a.catalogue-link", has_text="3.2 Señales de prioridad.").first
    assert link.get_attribute("href") == "senales.html#g2"
    link.click()
    tab.wait_for_url("**/senales.html#g2")
    assert tab.inner_text("#g2-h") == "Señales de prioridad"


def test_signs_data_for_the_search(served_site):
    import json

    out, _ = served_site
    data = json.loads((out / "senales.json").read_text(encoding="utf-8"))
    by_code = {s["code"]: s for s in data["signs"]}
    assert by_code["R-101"]["name"] == "Entrada prohibida"
    assert by_code["R-101"]["url"] == "senales.html#senal-R-101"
    assert not by_code["R-101"]["name_in_force"]
    assert by_code["M-4.3"]["name_in_force"] and by_code["M-4.3"]["definition"].endswith("anexoI.5.p206")
    assert len(by_code) == len(data["signs"]) > 300
