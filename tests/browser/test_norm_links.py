"""Links into the other norms in Debian's Chromium (issue 23): one allowlist deep link per norm,
and the Ley's points row for a red light (anexo II, row 10), land on their passage with its words
selected by the text fragment; a teacher copies the link of a points-table row and it lands."""

from __future__ import annotations

import json

import pytest
from link_check import open_link, python_target

pytestmark = pytest.mark.browser

# One passage of each norm (an article's apartado, stable across updates of the copies), and the
# points row a teacher sends a student: "semáforos con luz roja encendida. 4".
CASES = [
    pytest.param("RDL-6/2015#anexoII.r10", id="ley-points-row"),
    pytest.param("RDL-6/2015#art76.a", id="ley-article-letter"),
    pytest.param("RD-818/2009#art4.2", id="conductores-article"),
    pytest.param("RD-2822/1998#art10.1", id="vehiculos-article"),
]

_HIGHLIGHT = """() => {
  const t = document.querySelector(':target');
  return t ? t.closest('[id]').id : null;
}"""


def _entries(out) -> dict[str, dict]:
    data = json.loads((out / "allowlist.json").read_text(encoding="utf-8"))
    return {e["ref"]: e for e in data["entries"]}


@pytest.mark.parametrize("ref", CASES)
def test_allowlist_link_lands_on_its_passage(served_site, page, ref):
    out, base = served_site
    entry = _entries(out)[ref]
    assert ":~:text=" in entry["url"]   # a text fragment, not the id-only fallback
    got = open_link(page, base, entry["url"])
    assert got is not None and got["id"] == entry["anchor"] and got["inView"]
    assert python_target(out, entry["url"]) == entry["anchor"]
    # the passage is the one Chromium targets, scrolled into view, and reads the allowlist text
    assert page.evaluate(_HIGHLIGHT) == entry["anchor"]
    # a table's cells join without a space in textContent: compare without whitespace
    text = page.evaluate("id => document.getElementById(id).textContent", entry["anchor"])
    assert "".join(entry["text"].split()) in "".join(text.split())


def test_teacher_copies_a_points_row_link(browser, served_site):
    out, base = served_site
    entry = _entries(out)["RDL-6/2015#anexoII.r10"]
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    tab.goto(f"{base}/{entry['page']}")
    row = tab.locator(f"#{entry['anchor']} tr").first
    row.locator(".copy-link").click()
    tab.wait_for_selector(".copy-panel:not([hidden])")
    url = tab.input_value(".copy-panel .copy-url")
    assert url.startswith(f"{base}/{entry['page']}#{entry['anchor']}:~:text=")
    assert tab.evaluate("() => navigator.clipboard.readText()") == url
    tab.goto("about:blank")
    tab.goto(url)
    tab.wait_for_function("() => document.querySelector(':target') !== null")
    assert tab.evaluate(_HIGHLIGHT) == entry["anchor"]
    context.close()
