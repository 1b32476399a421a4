"""«Copiar enlace» in Debian's Chromium: every passage and table row has a keyboard-reachable
control that copies the gate-proven deep link (the allowlist's, or the gate's row link), the link
lands on its words, the control adds no text to the verified passage, and from file:// (no
clipboard) the link is shown for manual copy."""

from __future__ import annotations

import json

import pytest
from highlight import lit_cells

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def _allowlist(out) -> dict[str, dict]:
    data = json.loads((out / "allowlist.json").read_text(encoding="utf-8"))
    return {e["anchor"]: e for e in data["entries"]}


def _rows(out, page: str) -> dict:
    # The published name carries a content hash (build/web.py): deeplinks/art48.<hash>.js.
    [path] = (out / "deeplinks").glob(page.replace(".html", ".*.js"))
    text = path.read_text(encoding="utf-8")
    return json.loads(text.split("= ", 1)[1].rstrip().rstrip(";"))["rows"]


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_copy_passage_link_with_keyboard(browser, served_site, viewport):
    out, base = served_site
    entry = _allowlist(out)["art48-1-b"]
    context = browser.new_context(viewport=VIEWPORTS[viewport],
                                  permissions=["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    tab.goto(f"{base}/art48.html")
    n_passages = tab.locator(".unit .body [data-ref][id]").count()
    assert tab.locator(".unit .body p[data-ref] > .copy-link").count() == \
        tab.locator(".unit .body p[data-ref]").count() and n_passages > 5
    # The control adds no text: the passage still reads exactly the verified text.
    assert tab.evaluate("() => document.getElementById('art48-1-b').textContent") == entry["text"]
    control = tab.locator("#art48-1-b > .copy-link")
    control.focus()
    tab.keyboard.press("Enter")
    tab.wait_for_selector(".copy-panel:not([hidden])")
    expected = f"{base}/{entry['url']}"
    assert tab.inner_text(".copy-panel .copy-msg") == "Enlace copiado:"
    assert tab.input_value(".copy-panel .copy-url") == expected
    assert tab.evaluate("() => navigator.clipboard.readText()") == expected
    _lands_on(tab, expected, "art48-1-b", entry["text"])
    context.close()


def test_copy_table_row_link(browser, served_site):
    out, base = served_site
    rows = _rows(out, "art48.html")["art48-1-a"]
    n = next(i for i, u in enumerate(rows) if u)
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    tab.goto(f"{base}/art48.html")
    table = tab.locator("#art48-1-a")
    assert table.locator("tr .copy-link").count() == len(rows)
    row_text = " ".join(table.locator("tr").nth(n).inner_text().split())
    table.locator("tr").nth(n).locator(".copy-link").click()
    tab.wait_for_selector(".copy-panel:not([hidden])")
    assert tab.input_value(".copy-panel .copy-url") == f"{base}/{rows[n]}"
    _lands_on(tab, f"{base}/{rows[n]}", "art48-1-a", None)
    target = tab.evaluate("() => document.querySelector(':target').textContent.replace(/\\s+/g, ' ')")
    assert row_text.split()[0] in target
    context.close()


def test_file_url_shows_link_for_manual_copy(browser, served_site):
    out, _ = served_site
    tab = browser.new_page()
    tab.goto((out / "art82.html").as_uri())
    tab.locator(".unit .body p[data-ref] > .copy-link").first.click()
    tab.wait_for_selector(".copy-panel:not([hidden])")
    assert tab.inner_text(".copy-panel .copy-msg") == "Copia este enlace:"
    url = tab.input_value(".copy-panel .copy-url")
    assert url.startswith("file://") and "art82.html#art82" in url
    assert tab.evaluate("() => document.activeElement.className") == "copy-url"
    tab.close()


def _lands_on(tab, url: str, anchor: str, text: str | None) -> None:
    tab.goto("about:blank")
    tab.goto(url)
    tab.wait_for_function("() => document.querySelector(':target') !== null")
    assert tab.evaluate("() => document.querySelector(':target').closest('[id]').id") == anchor
    if text is not None:
        assert tab.evaluate("() => document.querySelector(':target').closest('[id]').textContent") == text


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_header_row_links_to_that_row(browser, served_site, viewport):
    """Issue 25.6: "Copiar enlace a esta fila" on a table's header row gave the whole table's
    link; it links to the header row itself now, and lands on its words."""
    out, base = served_site
    rows = _rows(out, "art48.html")["art48-1-a"]
    assert rows[0], "the header row of art. 48's table has no row link"
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    tab = context.new_page()
    tab.goto(f"{base}/art48.html")
    head = tab.locator("#art48-1-a tr").first
    assert head.locator(".copy-link").get_attribute("aria-label") == "Copiar enlace a esta fila"
    head.locator(".copy-link").click()
    tab.wait_for_selector(".copy-panel:not([hidden])")
    assert tab.input_value(".copy-panel .copy-url") == f"{base}/{rows[0]}"
    assert rows[0] != _allowlist(out)["art48-1-a"]["url"]
    _lands_on(tab, f"{base}/{rows[0]}", "art48-1-a", None)
    picked = tab.evaluate("() => getSelection().toString() || document.querySelector(':target')"
                          ".textContent")
    assert "Turismos" in picked
    context.close()


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_a_row_no_fragment_can_single_out_says_why_and_copies_the_table(browser, served_site,
                                                                       viewport):
    """A row whose cells recur with the same neighbours earlier on the page (no text fragment
    lands on it alone): its control says so, in Spanish, and gives the table's link, which
    lands on the table. A row with no text has no control."""
    out, base = served_site
    rows = _rows(out, "vehiculos/anexoIII.html")["anexoIII-p18"]
    n = rows.index("")
    data = json.loads((out / "allowlist.json").read_text(encoding="utf-8"))
    [entry] = [e for e in data["entries"] if e["ref"] == "RD-2822/1998#anexoIII.p18"]
    table_url = f"{base}/{entry['url']}"
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    tab = context.new_page()
    tab.goto(f"{base}/vehiculos/anexoIII.html")
    control = tab.locator("#anexoIII-p18 tr").nth(n).locator(".copy-link")
    label = control.get_attribute("aria-label")
    assert "tabla" in label and "no tiene enlace propio" in label
    control.click()
    tab.wait_for_selector(".copy-panel:not([hidden])")
    why = tab.locator(".copy-panel .copy-why")
    assert why.is_visible() and why.inner_text().startswith("Esta fila no puede tener enlace propio")
    assert "enlace a la tabla" in why.inner_text()
    assert tab.input_value(".copy-panel .copy-url") == table_url
    _lands_on(tab, table_url, "anexoIII-p18", None)
    # a row with a link of its own shows no such words
    tab.goto(f"{base}/vehiculos/anexoIII.html")
    tab.locator("#anexoIII-p18 tr").nth(rows.index(next(u for u in rows if u))) \
        .locator(".copy-link").click()
    tab.wait_for_selector(".copy-panel:not([hidden])")
    assert not tab.locator(".copy-panel .copy-why").is_visible()
    empty = _rows(out, "vehiculos/anexoXXI.html")["anexoXXI-p225"].index(None)
    tab.goto(f"{base}/vehiculos/anexoXXI.html")
    assert tab.locator("#anexoXXI-p225 tr").nth(empty).locator(".copy-link").count() == 0
    context.close()


# Rows the gate's quote check refuses (too short to quote; a header repeated over the tables of
# one page), linked by their place in the table (build/gate/fragments/cells.py): the teacher's
# link lights up exactly that row's cells, and not the same header of the table before it.
BY_PLACE = [
    pytest.param("anexoI-2.html", "anexoI-2-p1", 0, None, id="too-short-row"),
    pytest.param("vehiculos/anexoI.html", "anexoI-p3", 0, "anexoI-p2", id="repeated-header"),
    # cells that recur with the same neighbours in the table before: two whole-cell directives
    pytest.param("vehiculos/anexoX.html", "anexoX-p39", 9, "anexoX-p35", id="piecewise-row"),
]


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("page,table,n,twin", BY_PLACE)
def test_a_row_linked_by_its_place_lights_up_exactly_that_row(browser, served_site, page, table,
                                                             n, twin, viewport):
    out, base = served_site
    rows = _rows(out, page)[table]
    folder = page.rpartition("/")[0]
    expected = f"{base}/{folder + '/' if folder else ''}{rows[n]}"
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    tab = context.new_page()
    tab.goto(f"{base}/{page}")
    button = tab.locator(f"[id='{table}'] tr").nth(n).locator(".copy-link")
    assert button.get_attribute("aria-label") == "Copiar enlace a esta fila"
    button.click()
    tab.wait_for_selector(".copy-panel:not([hidden])")
    assert tab.input_value(".copy-panel .copy-url") == expected
    _lands_on(tab, expected, table, None)
    cells = tab.locator(f"[id='{table}'] tr").nth(n).locator(":scope > th, :scope > td").count()
    assert lit_cells(tab, table) == {(n, j) for j in range(cells)}
    if twin is not None:
        assert lit_cells(tab, twin) == set()
    context.close()


def _copy_box_from_disk(browser, dist, viewport: str):
    """art82.html opened from disk at ``viewport``; its first passage's «Copiar enlace» pressed:
    the tab, once the copy box shows whole on the screen (no sideways scroll)."""
    tab = browser.new_page(viewport=VIEWPORTS[viewport])
    tab.goto((dist / "art82.html").as_uri())
    tab.locator(".unit .body p[data-ref] > .copy-link").first.click()
    tab.wait_for_selector(".copy-panel:not([hidden])")
    box = tab.locator(".copy-panel").bounding_box()
    assert box is not None and box["x"] >= 0
    assert box["x"] + box["width"] <= VIEWPORTS[viewport]["width"]
    assert tab.evaluate("() => document.documentElement.scrollWidth") <= VIEWPORTS[viewport]["width"]
    return tab


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_file_url_without_base_url_says_the_link_is_local(browser, served_site, viewport):
    out, _ = served_site
    tab = _copy_box_from_disk(browser, out, viewport)
    assert tab.input_value(".copy-panel .copy-url").startswith("file://")
    assert tab.is_visible(".copy-panel .copy-note")
    assert "no para compartirlo" in tab.inner_text(".copy-panel .copy-note")
    tab.close()


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_file_url_of_a_published_build_offers_the_published_link(browser, published_site,
                                                                 viewport):
    """Issue 25.6: a build made with --base-url, opened from disk: the copy box offers the
    published page's link (shareable), not file:///…/dist/…."""
    published_at = "https://autoescuela.example/rgc/"   # tests/conftest.py: published_site
    tab = _copy_box_from_disk(browser, published_site, viewport)
    url = tab.input_value(".copy-panel .copy-url")
    assert url.startswith(published_at + "art82.html#art82"), url
    assert "autoescuela.example" in tab.inner_text(".copy-panel .copy-note")
    tab.close()


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_the_end_of_a_split_title_has_no_copy_link_and_still_lands(browser, served_site,
                                                                  viewport):
    """Issue 25.7: art. 82's "Excepciones." (the BOE put the end of the title in a paragraph of
    its own) reads as the heading's subtitle, with no ¶ link; its allowlisted link still lands."""
    out, base = served_site
    entry = _allowlist(out)["art82"]
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    tab = context.new_page()
    tab.goto(f"{base}/art82.html")
    para = tab.locator("#art82")
    assert para.evaluate("e => e.classList.contains('title-cont')")
    assert para.locator(".copy-link").count() == 0
    assert tab.locator("#art82-1 > .copy-link").count() == 1
    assert para.evaluate("e => getComputedStyle(e).fontWeight") == "700"
    _lands_on(tab, f"{base}/{entry['url']}", "art82", entry["text"])
    context.close()
