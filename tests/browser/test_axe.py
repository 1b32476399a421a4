"""Accessibility: axe-core (its npm package, pinned by package-lock.json and installed by
tests/run_all.sh into node_modules/; read from disk, no network) run in Debian's Chromium reports
no violation on any page type, on a desktop (1280×800) and a phone (390×844) viewport — plus the
states a script draws (a running simulacro, its correction and its "solo errores" view, a past
exam reopened from the history, a practice answer, the open chat panel and an answer with a
table under "Fuentes"). Every built page's table headers and landmark names are also checked
without a browser (tests/test_site_pages.py). axe is injected by Playwright, so the context bypasses the pages' CSP for that script
only; the pages' own code runs as it does for a reader.

Each page is loaded once, in one tab, and checked at both viewports by resizing it (``visit``):
every axe rule runs on every state at each viewport, and a resized page is proven to show axe
the DOM and the violations of a page loaded at that size (a violation seeded at each viewport).
The states a script draws on one page are reached one after another on one load (the simulacro's
five, the practice page's two), as a reader reaches them."""

from __future__ import annotations

import json

import pytest
from support import ROOT

from citavial.build.index.query.retriever import load_retriever
from citavial.worker.answer.allowlist import load_allowlist
from citavial.worker.answer.cite import citation
from citavial.worker.answer.events import payload

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

# (id, page, states): a visit is one fresh load of ``page`` (a cross-document navigation, with
# empty storage); its states are reached in order on that load, each by its steps from the state
# before (a step is a selector to click; "!" accepts the confirm dialog it opens; "?" asks the
# chat panel that question). Every state is checked at both viewports. A visit's id is its first
# state's. The simulacro's states are one visit: its review resets "solo errores" when it is drawn
# (simulacro.js), so the past exam reopened after "solo errores" is the one reopened without it.
VISITS = [
    ("index", "index.html", [("index", [])]),
    ("article", "art48.html", [("article", [])]),
    ("article-exceptions", "art82.html", [("article-exceptions", [])]),
    ("annex", "anexoI.html", [("annex", [])]),
    ("annex-section", "anexoI-5.html", [("annex-section", [])]),
    ("annex-article", "anexoII-art1.html", [("annex-article", [])]),
    ("provision", "da1.html", [("provision", [])]),
    ("other-norm-index", "ley-trafico/index.html", [("other-norm-index", [])]),
    ("other-norm-article-notes", "ley-trafico/art13.html",         # two notes of each kind
     [("other-norm-article-notes", [])]),
    ("other-norm-points-table", "ley-trafico/anexoII.html",        # a blank header corner
     [("other-norm-points-table", [])]),
    ("other-norm-annex-blank-headers", "conductores/anexoI.html",
     [("other-norm-annex-blank-headers", [])]),
    ("other-norm-annex-wide-tables", "conductores/anexoIV.html",   # 14 unnamed tables
     [("other-norm-annex-wide-tables", [])]),
    ("offline", "offline.html", [("offline", [])]),
    ("guide", "guia-velocidad.html", [("guide", [])]),
    ("guides", "guias.html", [("guides", [])]),
    ("practice", "practica.html", [("practice", []), ("practice-answered", ["#p-options button"])]),
    ("practice-answered-row-quote", "practica.html#q=puntos-sanciones-001",
     [("practice-answered-row-quote", ["#p-options button"])]),
    ("search", "buscar.html?q=velocidad+autopista", [("search", [])]),
    ("search-no-result", "buscar.html?q=qwxzkj", [("search-no-result", [])]),
    ("simulacro", "simulacro.html", [
        ("simulacro", []), ("simulacro-exam", ["#s-start"]), ("simulacro-review", ["!#s-finish"]),
        ("simulacro-review-errors", ["#s-only-errors"]),
        ("simulacro-past-exam", ["#s-again", "#s-history a.s-review-link"])]),
    ("signs", "senales.html", [("signs", [])]),
    ("cambios", "cambios.html", [("cambios", [])]),
    ("porque", "porque.html", [("porque", [])]),
    ("vigencia", "vigencia.html", [("vigencia", [])]),
    ("404", "404.html", [("404", [])]),
    ("chat-open", "art18.html", [("chat-open", [".cv-toggle"])]),
    ("chat-answered", "art48.html", [("chat-answered", [
        ".cv-toggle", "?¿Velocidad máxima en autopista?", ".cv-cites summary"])]),
]


def _answer(out) -> str:
    """The worker as the chat panel meets it for "chat-answered" (a "?" step asks): one answer
    citing art. 48.1.a)'s speed table (drawn as a table under "Fuentes") and art. 48.1.b), each
    citation built by the worker's own code from the built site's allowlist and index."""
    allow, retriever = load_allowlist(out / "allowlist.json"), load_retriever(out)
    cites = []
    for n, anchor in enumerate(("art48-1-a", "art48-1-b"), 1):
        e = next(e for e in allow.entries.values() if e.anchor == anchor)
        cites.append({**payload(citation(n, e, retriever.table(e.ref))), "span_url": e.url})
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in (
        ("sources", {"sources": cites}),
        ("answer", {"label": "Lo que dice el Reglamento", "text": cites[1]["quote"],
                    "emphasis": []}),
        ("citations", {"citations": cites}), ("done", {"mode": "extractive"})))


def _context(browser, viewport: str):
    """A context as a reader's first visit meets the site: no worker on 127.0.0.1:8000 (the chat
    panel's offline state), and the service worker blocked (the suite's default: conftest.py
    SERVICE_WORKERS; a page the worker serves is the same bytes as the loopback server's)."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` at the repository root (tests/run_all.sh "
                    "does it)")
    ctx = browser.new_context(viewport=VIEWPORTS[viewport], bypass_csp=True)
    ctx.route("http://127.0.0.1:8000/**", lambda route: route.abort())
    ctx.route("**/health", lambda route: route.abort())      # no worker: the offline panel
    return ctx


@pytest.fixture(scope="module")
def tab(browser):
    """One tab for every visit (a fresh load each: visit()), and what its "?" step is answered
    with (None: no worker, as above)."""
    ctx = _context(browser, "desktop")
    page, asked = ctx.new_page(), {"answer": None}
    page.route("**/health", lambda route: route.fulfill(json={"ok": True})
               if asked["answer"] else route.fallback())
    page.route("**/api/ask", lambda route: route.fulfill(
        body=asked["answer"], headers={"Content-Type": "text/event-stream"})
               if asked["answer"] else route.fallback())
    yield page, asked
    ctx.close()


@pytest.mark.parametrize("path, states", [pytest.param(v[1], v[2], id=v[0]) for v in VISITS])
def test_axe_reports_no_violation(tab, served_site, path, states):
    out, base = served_site
    page, asked = tab
    asked["answer"] = _answer(out) if any(s.startswith("?") for _, st in states for s in st) \
        else None
    found = visit(page, f"{base}/{path}", states)
    bad = {where: got for where, got in found.items() if got}
    assert len(found) == 2 * len(states)
    assert not bad, "\n".join(f"{where}: {v['id']} ({v['impact']}): {v['help']}\n  " +
                               "\n  ".join(v["nodes"][:3]) for where, got in bad.items()
                               for v in got)


def visit(page, url: str, states: list) -> dict[str, list]:
    """Load ``url`` afresh in ``page`` and, for each state in turn, take its steps and run every
    axe rule at each viewport: {"<viewport> <state>": violations}. The page is loaded at the
    first viewport and resized for the others: the site's layout follows CSS media queries, and
    its one script that reads the layout (tables.js: which table boxes scroll) runs again on
    resize; test_a_resized_page_shows_axe_what_a_load_at_that_size_shows proves the two agree.
    The storage the previous visit left (practice, simulacro, chat) is cleared before; about:blank
    between makes a URL that differs from the last one only in its fragment a new document."""
    if page.url.startswith("http"):
        page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    page.goto("about:blank")
    page.goto(url)
    found = {}
    for name, steps in states:
        for step in steps:
            _take(page, step)
        _settle(page, url)
        for viewport in VIEWPORTS:
            _resize(page, VIEWPORTS[viewport])
            found[f"{viewport} {name}"] = violations(page)
        _resize(page, VIEWPORTS[next(iter(VIEWPORTS))])
    return found


def _resize(page, size: dict) -> None:
    """Resize the viewport and wait until the page has handled it: the new width is in effect
    and a frame has run its resize steps (the resize event fires before animation frames)."""
    if page.viewport_size == size:
        return
    page.set_viewport_size(size)
    page.wait_for_function("w => innerWidth === w", arg=size["width"])
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def violations(page) -> list[dict]:
    """Every axe rule on the page as it is now (axe injected once per document)."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate("""() => axe.run(document, {resultTypes: ['violations']})
      .then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => n.target.join(' ') + ' :: ' +
                                n.failureSummary.split('\\n')[1])})))""")


# A violation of axe's color-contrast rule seeded at each viewport alone (site.css's breakpoint is
# 40rem): the page's first heading on a phone, the footer's text on a desktop.
SEEDED = ("<style>@media (max-width: 40rem) { h1 { color: #d6d6d6 !important; } }"
          "@media (min-width: 40.0625rem) { footer p { color: #dadada !important; } }</style>")
DOM = "() => document.documentElement.outerHTML"


@pytest.mark.parametrize("path", ["art48.html", "conductores/anexoIV.html"])
def test_a_resized_page_shows_axe_what_a_load_at_that_size_shows(browser, served_site, path):
    """Pages whose DOM differs between the two viewports (tables.js marks the table boxes that
    scroll), with a violation seeded at each viewport: loaded at the first viewport and resized
    (visit()), each viewport has the DOM and the violations of a fresh load at that size, and the
    seeded violations are found, each at its own viewport only."""
    out, base = served_site
    html = (out / path).read_text(encoding="utf-8").replace("</head>", SEEDED + "</head>", 1)
    fresh: dict[str, tuple[str, list]] = {}
    for viewport in VIEWPORTS:
        ctx = _context(browser, viewport)
        ctx.route(f"{base}/{path}", lambda route: route.fulfill(body=html,
                                                                content_type="text/html"))
        page = ctx.new_page()
        page.goto(f"{base}/{path}")
        _settle(page, path)
        fresh[viewport] = page.evaluate(DOM), violations(page)
        if viewport != next(iter(VIEWPORTS)):   # the resized page's DOM, read before axe runs
            resized = ctx.new_page()
            resized.set_viewport_size(VIEWPORTS[next(iter(VIEWPORTS))])
            resized.goto(f"{base}/{path}")
            _settle(resized, path)
            _resize(resized, VIEWPORTS[viewport])
            assert resized.evaluate(DOM) == fresh[viewport][0], viewport
        ctx.close()
    ctx = _context(browser, next(iter(VIEWPORTS)))
    ctx.route(f"{base}/{path}", lambda route: route.fulfill(body=html, content_type="text/html"))
    found = visit(ctx.new_page(), f"{base}/{path}", [("seeded", [])])
    ctx.close()
    assert found == {f"{viewport} seeded": fresh[viewport][1] for viewport in VIEWPORTS}
    assert fresh["desktop"][0] != fresh["phone"][0]
    seen = {vp: {n.split(" :: ")[0] for v in fresh[vp][1] if v["id"] == "color-contrast"
                 for n in v["nodes"]} for vp in VIEWPORTS}
    assert seen["phone"] == {".unit-title"}, seen                # the page's <h1 class=unit-title>
    assert "#aviso" in seen["desktop"] - seen["phone"], seen    # the footer's disclaimer


def _take(page, step: str) -> None:
    """One step: "?question" asks the chat and waits for the answer; "!sel" clicks a button
    whose confirm dialog is accepted; otherwise a click."""
    if step.startswith("?"):
        page.fill("#cv-q", step[1:])
        page.keyboard.press("Enter")
        page.wait_for_selector(".cv-item[aria-busy='false']")
        return
    if step.startswith("!"):
        page.once("dialog", lambda d: d.accept())
        step = step[1:]
    page.locator(step).first.click()


def _settle(page, path: str) -> None:
    """Wait until the page's own scripts have drawn what axe reads (conditions, no sleep): the
    load is complete, a search has spoken its status (every result's shard arrived), and an
    open chat panel has settled on a status (its /health check answered or failed)."""
    page.wait_for_function("() => document.readyState === 'complete'")
    if path.startswith("buscar.html"):
        page.wait_for_function("() => document.getElementById('buscar-estado')"
                               ".textContent !== ''")
    page.wait_for_function("""() => {
      const panel = document.querySelector('.cv-panel');
      if (!panel || panel.hidden) return true;
      const said = document.querySelector('.cv-status').textContent;
      return said !== '' && !said.startsWith('Conectando');
    }""")
