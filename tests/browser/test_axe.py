"""Accessibility: axe-core (its npm package, pinned by package-lock.json and installed by
tests/run_all.sh into node_modules/; read from disk, no network) run in Debian's Chromium reports
no violation on any page type, on a desktop (1280×800) and a phone (390×844) viewport — plus the
states a script draws (a running simulacro, its correction and its "solo errores" view, a past
exam reopened from the history, a practice answer, the open chat panel and an answer with a
table under "Fuentes"). Every built page's table headers and landmark names are also checked
without a browser (tests/test_site_pages.py). axe is injected by Playwright, so the context bypasses the pages' CSP for that script
only; the pages' own code runs as it does for a reader."""

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

# (id, page, steps): a step is a selector to click ("!" accepts the confirm dialog it opens; "?"
# asks the chat panel that question).
PAGES = [
    ("index", "index.html", []),
    ("article", "art48.html", []),
    ("article-exceptions", "art82.html", []),
    ("annex", "anexoI.html", []),
    ("annex-section", "anexoI-5.html", []),
    ("annex-article", "anexoII-art1.html", []),
    ("provision", "da1.html", []),
    ("other-norm-index", "ley-trafico/index.html", []),
    ("other-norm-article-notes", "ley-trafico/art13.html", []),   # two notes of each kind
    ("other-norm-points-table", "ley-trafico/anexoII.html", []),  # a blank header corner
    ("other-norm-annex-blank-headers", "conductores/anexoI.html", []),
    ("other-norm-annex-wide-tables", "conductores/anexoIV.html", []),  # 14 unnamed tables
    ("offline", "offline.html", []),
    ("guide", "guia-velocidad.html", []),
    ("guides", "guias.html", []),
    ("practice", "practica.html", []),
    ("practice-answered", "practica.html", ["#p-options button"]),
    ("practice-answered-row-quote", "practica.html#q=puntos-sanciones-001", ["#p-options button"]),
    ("search", "buscar.html?q=velocidad+autopista", []),
    ("search-no-result", "buscar.html?q=qwxzkj", []),
    ("simulacro", "simulacro.html", []),
    ("simulacro-exam", "simulacro.html", ["#s-start"]),
    ("simulacro-review", "simulacro.html", ["#s-start", "!#s-finish"]),
    ("simulacro-review-errors", "simulacro.html", ["#s-start", "!#s-finish", "#s-only-errors"]),
    ("simulacro-past-exam", "simulacro.html", ["#s-start", "!#s-finish", "#s-again",
                                               "#s-history a.s-review-link"]),
    ("signs", "senales.html", []),
    ("cambios", "cambios.html", []),
    ("porque", "porque.html", []),
    ("vigencia", "vigencia.html", []),
    ("404", "404.html", []),
    ("chat-open", "art18.html", [".cv-toggle"]),
    ("chat-answered", "art48.html", [".cv-toggle", "?¿Velocidad máxima en autopista?",
                                     ".cv-cites summary"]),
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


@pytest.fixture(scope="module", params=sorted(VIEWPORTS))
def context(request, browser):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` at the repository root (tests/run_all.sh "
                    "does it)")
    ctx = browser.new_context(viewport=VIEWPORTS[request.param], bypass_csp=True)
    ctx.route("http://127.0.0.1:8000/**", lambda route: route.abort())
    ctx.route("**/health", lambda route: route.abort())      # no worker: the offline panel
    yield ctx
    ctx.close()


@pytest.mark.parametrize("path, steps", [pytest.param(p[1], p[2], id=p[0]) for p in PAGES])
def test_axe_reports_no_violation(context, served_site, path, steps):
    out, base = served_site
    page = context.new_page()
    if any(step.startswith("?") for step in steps):
        answer = _answer(out)
        page.route("**/health", lambda route: route.fulfill(json={"ok": True}))
        page.route("**/api/ask", lambda route: route.fulfill(
            body=answer, headers={"Content-Type": "text/event-stream"}))
    try:
        page.goto(f"{base}/{path}")
        page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        page.reload()
        for step in steps:
            _take(page, step)
        _settle(page, path)
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("""() => axe.run(document, {resultTypes: ['violations']})
          .then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' :: ' +
                                                n.failureSummary.split('\\n')[1])})))""")
    finally:
        page.close()
    assert result == [], "\n".join(f"{v['id']} ({v['impact']}): {v['help']}\n  " +
                                   "\n  ".join(v["nodes"]) for v in result)


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
