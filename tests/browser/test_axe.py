"""Accessibility: axe-core (its npm package, pinned by package-lock.json and installed by
tests/run_all.sh into node_modules/; read from disk, no network) run in Debian's Chromium reports
no violation on any page type, on a desktop (1280×800) and a phone (390×844) viewport — plus the
states a script draws (a running simulacro, its correction, a practice answer, the open chat
panel). axe is injected by Playwright, so the context bypasses the pages' CSP for that script
only; the pages' own code runs as it does for a reader."""

from __future__ import annotations

import pytest
from support import ROOT

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

# (id, page, steps): a step is a selector to click ("!" accepts the confirm dialog it opens).
PAGES = [
    ("index", "index.html", []),
    ("article", "art48.html", []),
    ("article-exceptions", "art82.html", []),
    ("annex-section", "anexoI-5.html", []),
    ("guide", "guia-velocidad.html", []),
    ("guides", "guias.html", []),
    ("practice", "practica.html", []),
    ("practice-answered", "practica.html", ["#p-options button"]),
    ("practice-answered-row-quote", "practica.html#q=puntos-sanciones-001", ["#p-options button"]),
    ("search", "buscar.html?q=velocidad+autopista", []),
    ("simulacro", "simulacro.html", []),
    ("simulacro-exam", "simulacro.html", ["#s-start"]),
    ("simulacro-review", "simulacro.html", ["#s-start", "!#s-finish"]),
    ("signs", "senales.html", []),
    ("cambios", "cambios.html", []),
    ("porque", "porque.html", []),
    ("vigencia", "vigencia.html", []),
    ("404", "404.html", []),
    ("chat-open", "art18.html", [".cv-toggle"]),
]


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
    _, base = served_site
    page = context.new_page()
    try:
        page.goto(f"{base}/{path}")
        page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        page.reload()
        for step in steps:
            if step.startswith("!"):
                page.once("dialog", lambda d: d.accept())
                step = step[1:]
            page.locator(step).first.click()
        if path.startswith("buscar.html"):
            # the status speaks once every result's shard has arrived (search.js render)
            page.wait_for_function("() => document.getElementById('buscar-estado')"
                                   ".textContent !== ''", timeout=15000)
        page.wait_for_timeout(300)      # let the pages' own scripts settle (no timing asserted)
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("""() => axe.run(document, {resultTypes: ['violations']})
          .then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' :: ' +
                                                n.failureSummary.split('\\n')[1])})))""")
    finally:
        page.close()
    assert result == [], "\n".join(f"{v['id']} ({v['impact']}): {v['help']}\n  " +
                                   "\n  ".join(v["nodes"]) for v in result)
