"""The practice page in Debian's Chromium: answer questions, follow the explanation's deep link
to the quoted words, reload and find the progress kept; and it works from file:// too."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(served_site):
    return served_site


def _answer(tab, choice: int) -> dict:
    tab.locator("#p-options button").nth(choice).click()
    tab.wait_for_selector("#p-feedback:not([hidden])")
    return {"verdict": tab.inner_text("#p-verdict"), "quote": tab.inner_text("#p-quote"),
            "href": tab.get_attribute("#p-link", "href"),
            "question": tab.inner_text("#p-question")}


def test_answer_follow_link_reload(served, browser):
    _, base = served
    context = browser.new_context()
    tab = context.new_page()
    tab.goto(f"{base}/practica.html")
    tab.wait_for_selector("#p-options button")
    seen = []
    for i in range(3):
        got = _answer(tab, i % 3)
        assert got["verdict"].startswith(("¡Correcto!", "Incorrecto"))
        assert len(got["quote"].split()) >= 4
        assert ":~:text=" in got["href"] and not got["href"].startswith("http")
        seen.append(got)
        tab.click("#p-next")
    assert len({s["question"] for s in seen}) == 3  # no question repeated
    assert tab.inner_text("#p-count").endswith("de 3 respuestas correctas")
    bars = tab.locator("#p-mastery [role=meter]").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-valuenow'))")
    assert any(v != "25" for v in bars)  # some topic moved away from the prior

    # The explanation's link opens the regulation with the quoted words targeted.
    link = seen[0]["href"]
    tab.goto("about:blank")
    tab.goto(f"{base}/{link}")
    tab.wait_for_function("() => document.querySelector(':target') !== null", timeout=5000)
    target_text = tab.evaluate("() => document.querySelector(':target').closest('[id]').textContent")
    assert " ".join(seen[0]["quote"].split()) in " ".join(target_text.split())

    # Progress survives a reload (localStorage).
    tab.goto(f"{base}/practica.html")
    tab.wait_for_selector("#p-options button")
    assert tab.inner_text("#p-count").endswith("de 3 respuestas correctas")
    tab.once("dialog", lambda d: d.accept())
    tab.click("#p-reset")
    assert tab.inner_text("#p-count") == "Aún no has respondido ninguna pregunta."
    context.close()


def test_works_from_file_url(served, browser):
    out, _ = served
    tab = browser.new_page()
    tab.goto((out / "practica.html").as_uri())
    tab.wait_for_selector("#p-options button")
    assert tab.locator("#p-options button").count() == 3
    got = _answer(tab, 0)
    assert got["quote"]
    tab.close()
