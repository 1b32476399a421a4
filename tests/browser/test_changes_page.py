"""Qué ha cambiado in Debian's Chromium: art. 48's history links to its 1 October 2026 change,
which shows exactly the words of 1.b (párr. 2) that went and came; a practice question whose
quoted passage changed warns the student."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_art48_diff_from_the_article(browser, served_site, viewport):
    _, base = served_site
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    tab = context.new_page()
    tab.goto(f"{base}/art48.html")
    link = tab.locator("a.what-changed[href='cambios.html#c-art48-20261001']")
    assert link.count() == 1
    link.click()
    tab.wait_for_url("**/cambios.html#c-art48-20261001")
    change = tab.locator("#c-art48-20261001")
    assert change.is_visible()
    assert change.locator(".diff-ref").all_inner_texts() == ["art. 48.1.b) párr. 2"]
    assert change.locator("del").all_inner_texts() == ["máxima en vías convencionales"]
    assert change.locator("ins").all_inner_texts() == [
        "máxima, cualquiera que sea el tipo de vía fuera de poblado,"]
    # "Cambios recientes": newest date first.
    days = tab.locator("section.change-day h2").all_inner_texts()
    assert days[0].startswith("1 de octubre de 2026")
    width = tab.evaluate("() => document.documentElement.scrollWidth")
    assert width <= VIEWPORTS[viewport]["width"]
    context.close()


def test_practice_question_warns_of_a_changed_passage(browser, served_site):
    out, base = served_site
    bank = json.loads((out / "practice-bank.json").read_text(encoding="utf-8"))
    q = next(q for q in bank["questions"] if q["changed"])
    plain = next(q for q in bank["questions"] if not q["changed"])
    tab = browser.new_page()
    tab.goto(f"{base}/practica.html#q={q['id']}")
    tab.wait_for_selector("#p-options button")
    tab.locator("#p-options button").first.click()
    assert tab.is_visible("#p-changed")
    day = q["changed"].replace("-", "")
    assert tab.get_attribute("#p-changed-link", "href") == f"cambios.html#d-{day}"
    tab.goto(f"{base}/practica.html#q={plain['id']}")
    tab.reload()
    tab.wait_for_selector("#p-options button")
    tab.locator("#p-options button").first.click()
    assert not tab.is_visible("#p-changed")
    tab.goto(f"{base}/cambios.html#d-{day}")
    assert tab.locator(f"#d-{day}").is_visible()
    tab.close()


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_a_rewritten_paragraph_shows_both_wordings(browser, served_site, viewport):
    """Issue 25.7: side by side on a desktop, one above the other on a phone."""
    _, base = served_site
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    tab = context.new_page()
    tab.goto(f"{base}/cambios.html")
    pair = tab.locator(".diff-sides").first
    assert pair.locator("del, ins").count() == 0
    old = pair.locator(".diff-old").bounding_box()
    new = pair.locator(".diff-new").bounding_box()
    if viewport == "desktop":
        assert old["y"] == new["y"] and old["x"] + old["width"] <= new["x"]
    else:
        assert new["y"] >= old["y"] + old["height"]
    assert tab.evaluate("() => document.documentElement.scrollWidth") <= VIEWPORTS[viewport]["width"]
    context.close()
