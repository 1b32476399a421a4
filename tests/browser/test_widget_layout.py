"""The chat widget stays out of the way (issue 25.5), in Debian's Chromium on a desktop
(1280×800) and a phone (390×844), against a scripted worker (Playwright routes /health and
/api/ask on the served site: deterministic, no model): the open panel never covers the text
column (docked beside it; a bottom sheet on a phone), it stays closed on the next page, it is
hidden during a simulacro, a 429 keeps the pasted question and offers a retry, pasted options
are echoed one per line, offline it speaks plain Spanish, and a damaged SSE event is skipped
without switching the widget to offline."""

from __future__ import annotations

import json

import pytest

from citavial.build.index.query.retriever import load_retriever
from citavial.worker.answer.allowlist import load_allowlist
from citavial.worker.answer.cite import citation
from citavial.worker.answer.events import payload

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

CITATION = {"n": 1, "ref": "RD-1428/2003#art18.2", "label": "art. 18.2",
            "url": "art18.html#art18-2", "span_url": "art18.html#art18-2",
            "quote": "Texto de prueba del artículo.", "source_url": "https://www.boe.es/",
            "source_license": "Fuente: BOE.", "as_of": "2026-12-01"}


def sse(*events: tuple[str, object]) -> str:
    return "".join(f"event: {name}\ndata: {data if isinstance(data, str) else json.dumps(data)}\n\n"
                   for name, data in events)


GOOD = sse(("sources", {"sources": [CITATION]}),
           ("answer", {"label": "Lo que dice el Reglamento", "text": "Texto de prueba.",
                       "emphasis": []}),
           ("citations", {"citations": [CITATION]}),
           ("done", {"mode": "extractive"}))


class Worker:
    """Scripted replies for /api/ask, in order (the last one repeats)."""

    def __init__(self, page, replies: list[tuple[int, str]], up: bool = True):
        self.replies, self.asked = list(replies), []
        page.route("**/health", (lambda r: r.fulfill(json={"ok": True})) if up
                   else (lambda r: r.abort()))
        page.route("http://127.0.0.1:8000/**", lambda r: r.abort())
        page.route("**/api/ask", self._ask)

    def _ask(self, route):
        self.asked.append(json.loads(route.request.post_data)["question"])
        status, body = self.replies[0] if len(self.replies) == 1 else self.replies.pop(0)
        if status == 200:
            route.fulfill(status=200, body=body, headers={"Content-Type": "text/event-stream"})
        else:
            route.fulfill(status=status, json={"error": "x"}, headers={"Retry-After": "1"})


@pytest.fixture(params=sorted(VIEWPORTS))
def tab(request, browser):
    context = browser.new_context(viewport=VIEWPORTS[request.param])
    page = context.new_page()
    page.viewport = request.param
    yield page
    context.close()


def _open(tab):
    tab.click(".cv-toggle")
    tab.wait_for_function("() => /Listo|disponible/.test(document.querySelector('.cv-status')"
                          ".textContent)")


def _ask(tab, question: str, n: int = 1):
    tab.fill("#cv-q", question)
    tab.keyboard.press("Enter")
    tab.wait_for_function(f"() => document.querySelectorAll(\".cv-item[aria-busy='false']\")"
                          f".length >= {n}")
    return tab.locator(".cv-item").nth(n - 1)


def _box(tab, selector: str) -> dict:
    return tab.evaluate(f"() => document.querySelector({selector!r}).getBoundingClientRect()"
                        ".toJSON()")


def test_open_panel_never_covers_the_text_column(tab, served_site):
    _, base = served_site
    Worker(tab, [(200, GOOD)])
    tab.goto(f"{base}/art48.html")
    toggle, main = _box(tab, ".cv-toggle"), _box(tab, "main")
    assert toggle["bottom"] <= main["top"]              # the closed toggle sits in the header
    _open(tab)
    panel, main = _box(tab, ".cv-panel"), _box(tab, "main")
    if tab.viewport == "desktop":                       # docked beside the text column
        assert main["right"] <= panel["left"] + 1, (main, panel)
        assert panel["top"] == 0 and panel["bottom"] == 800
    else:                                               # a bottom sheet, full width
        assert (panel["left"], panel["right"], panel["bottom"]) == (0, 390, 844)
        assert panel["height"] <= 0.76 * 844
    assert tab.evaluate("() => document.documentElement.scrollWidth") <= tab.viewport_size["width"]
    tab.click(".cv-close")
    main_after = _box(tab, "main")
    assert main_after["width"] >= main["width"]


def test_stays_closed_on_the_next_page_and_keeps_the_conversation(tab, served_site):
    _, base = served_site
    Worker(tab, [(200, GOOD)])
    tab.goto(f"{base}/index.html")
    _open(tab)
    _ask(tab, "¿Se puede usar el móvil conduciendo?")
    tab.goto(f"{base}/art18.html#art18-2")              # the page a citation opens
    tab.wait_for_selector(".cv-item", state="attached")
    assert tab.is_hidden(".cv-panel")
    assert tab.get_attribute(".cv-toggle", "aria-expanded") == "false"
    assert "(1)" in tab.inner_text(".cv-toggle")


def test_hidden_during_a_simulacro(tab, served_site):
    _, base = served_site
    Worker(tab, [(200, GOOD)])
    tab.goto(f"{base}/simulacro.html")
    assert tab.is_visible(".cv-toggle")
    tab.click("#s-start")
    assert tab.is_hidden(".cv-toggle") and tab.is_hidden(".cv-panel")
    tab.reload()                                        # resumed exam: still hidden
    tab.wait_for_selector("#s-exam:not([hidden])")
    assert tab.is_hidden(".cv-toggle")
    tab.once("dialog", lambda d: d.accept())
    tab.click("#s-finish")
    tab.wait_for_selector("#s-result:not([hidden])")
    assert tab.is_visible(".cv-toggle")


def test_429_keeps_the_question_and_retries(tab, served_site):
    _, base = served_site
    worker = Worker(tab, [(429, ""), (200, GOOD)])
    tab.goto(f"{base}/index.html")
    _open(tab)
    pasted = "¿Qué luz hay que llevar de noche?\na) Cruce\nb) Posición\nc) Ninguna"
    it = _ask(tab, pasted)
    assert "Demasiadas preguntas seguidas" in it.inner_text()
    assert tab.input_value("#cv-q") == pasted            # not lost
    tab.click(".cv-retry")
    tab.wait_for_selector(".cv-answer")
    assert worker.asked == [pasted, pasted]
    assert tab.input_value("#cv-q") == ""                # cleared once answered


@pytest.mark.parametrize("pasted", [
    pytest.param("¿Qué luz hay que llevar de noche?\na) Cruce\nb) Posición\nc) Ninguna",
                 id="pasted-with-newlines"),
    pytest.param("¿Qué luz hay que llevar de noche? a) Cruce b) Posición c) Ninguna",
                 id="pasted-on-one-line"),
])
def test_pasted_options_are_echoed_on_their_own_lines(tab, served_site, pasted):
    _, base = served_site
    Worker(tab, [(200, GOOD)])
    tab.goto(f"{base}/index.html")
    _open(tab)
    it = _ask(tab, pasted)
    lines = it.locator(".cv-q").inner_text().split("\n")
    assert lines == ["¿Qué luz hay que llevar de noche?", "a) Cruce", "b) Posición", "c) Ninguna"]


def test_offline_speaks_plain_spanish(tab, served_site):
    _, base = served_site
    Worker(tab, [(200, GOOD)], up=False)
    tab.goto(f"{base}/index.html")
    _open(tab)
    tab.wait_for_selector(".cv-panel.cv-offline")
    shown = tab.inner_text(".cv-panel")
    assert "sin conexión" in shown
    for dev in ("citavial", "8000", "127.0.0.1", "localhost"):
        assert dev not in shown, dev
    assert tab.is_visible("a.cv-search")


def test_a_damaged_event_is_skipped_not_offline(tab, served_site):
    _, base = served_site
    damaged = sse(("sources", "{not json"), ("answer", "[1, 2"),) + GOOD
    Worker(tab, [(200, damaged)])
    tab.goto(f"{base}/index.html")
    _open(tab)
    it = _ask(tab, "¿Se puede usar el móvil conduciendo?")
    assert it.locator(".cv-answer").count() == 1
    assert tab.locator(".cv-panel.cv-offline").count() == 0
    assert not tab.is_disabled(".cv-send")


def test_a_chip_accessible_name_contains_its_visible_text(tab, served_site):
    """Issue 25.7 (WCAG 2.5.3, label in name)."""
    _, base = served_site
    Worker(tab, [(200, GOOD)])
    tab.goto(f"{base}/index.html")
    _open(tab)
    it = _ask(tab, "¿Se puede usar el móvil conduciendo?")
    it.locator(".cv-cites summary").click()
    chips = it.locator("a.cv-chip")
    assert chips.count() >= 2
    for k in range(chips.count()):
        chip = chips.nth(k)
        assert chip.inner_text().strip() in chip.get_attribute("aria-label")


def _entry(out, anchor: str) -> dict:
    """The citation the worker sends for the passage ``anchor`` (cite.citation: a table's with
    its rows of cells, from the index)."""
    allow = load_allowlist(out / "allowlist.json")
    e = next(e for e in allow.entries.values() if e.anchor == anchor)
    return {**payload(citation(1, e, load_retriever(out).table(e.ref))), "span_url": e.url}


@pytest.mark.parametrize("tamper", [pytest.param(False, id="table-quote"),
                                    pytest.param(True, id="quote-differs-stays-text")])
def test_a_table_under_fuentes_is_a_table(tab, served_site, tamper):
    """Issue 25.3: under "Fuentes" a quoted table is shown as rows and cells (the citation's
    ``rows``, used only when they read exactly the quote), not one flat run of words."""
    out, base = served_site
    table, para = _entry(out, "art48-1-a"), _entry(out, "art48-1-b")
    assert "rows" in table and "rows" not in para
    if tamper:
        table["quote"] = table["quote"].replace("120", "130")
    para["n"] = 2
    body = sse(("answer", {"label": "Lo que dice el Reglamento", "text": "x", "emphasis": []}),
               ("citations", {"citations": [table, para]}), ("done", {"mode": "extractive"}))
    Worker(tab, [(200, body)])
    tab.goto(f"{base}/index.html")
    _open(tab)
    it = _ask(tab, "¿Velocidad máxima en autopista?")
    it.locator(".cv-cites summary").click()
    figs = it.locator(".cv-cites figure")
    if tamper:
        assert figs.nth(0).locator("table").count() == 0
        assert "130" in figs.nth(0).locator("blockquote").inner_text()
        return
    tab.wait_for_selector(".cv-cites table.cv-quote-table")
    rows = figs.nth(0).locator("tr")
    assert rows.count() == 3
    assert rows.nth(1).locator("th, td").all_inner_texts() == ["Autopista y autovía", "120",
                                                               "90", "100"]
    assert rows.nth(1).locator("th[scope=row]").inner_text() == "Autopista y autovía"
    assert rows.nth(0).locator("th[scope=col]").count() == 3
    assert figs.nth(1).locator("blockquote").inner_text() == para["quote"]   # prose stays prose
    assert tab.evaluate("() => document.documentElement.scrollWidth") <= tab.viewport_size["width"]
