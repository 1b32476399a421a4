"""Defence in depth: with escaping deliberately bypassed in a test build, the Content-Security-
Policy alone stops every script the adversarial suite knows how to inject — through the content
(a page rendered without autoescape), the question, the model's output and the allowlisted
quote/label/licence shown by the chat widget. Chromium reports each block as a
`securitypolicyviolation` event and nothing runs; every page of the real site, meanwhile, runs
with no violation at all.

The bypass: the page's markup is injected raw (what jinja without autoescape would write); the
worker's TextSanitizer is replaced by a pass-through; an init script (injected through the
DevTools protocol, so not itself subject to the policy) turns every textContent/createTextNode
into HTML parsing — whatever the widget's code does with text, it becomes markup."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from worker_helpers import SCRIPTED_STATUS, FixedRetriever

from citavial.worker.answer.allowlist import load_allowlist
from citavial.worker.answer.ask import Deps
from citavial.worker.answer.calibration import Calibration
from citavial.worker.http.app import WorkerState
from citavial.worker.http.limits import InferenceSlot, RateLimiter
from citavial.worker.http.serve import ServerThread
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt

pytestmark = [pytest.mark.adversarial, pytest.mark.browser]
POISONED = Path(__file__).parent / "data" / "poisoned-allowlist.json"
REFS = ["RD-1428/2003#art18.2", "RD-1428/2003#art48.1.a", "RD-1428/2003#art50.1"]
PAYLOADS = ("<img src=x onerror=window.__pwned=1>", "<script>window.__pwned=1</script>",
            "<svg onload=window.__pwned=1></svg>", '<a href="javascript:window.__pwned=1">x</a>',
            '<iframe src="javascript:window.__pwned=1"></iframe>')
CLEAN_PAGES = ("index.html", "art48.html", "anexoI-5.html", "buscar.html?q=alcohol",
               "practica.html", "guias.html", "porque.html", "vigencia.html", "no-existe.html")

BYPASS_AND_RECORD = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', e =>
  window.__violations.push({directive: e.effectiveDirective, sample: e.sample}));
if (window.__bypassEscaping) {
  const text = Object.getOwnPropertyDescriptor(Node.prototype, 'textContent');
  Object.defineProperty(Node.prototype, 'textContent', {configurable: true, get: text.get,
    set(v) { if (this.nodeType === 1) this.innerHTML = v; else text.set.call(this, v); }});
  Document.prototype.createTextNode = function (t) {
    const tpl = document.createElement('template'); tpl.innerHTML = t; return tpl.content; };
}
"""


class PassThrough:
    """The TextSanitizer's interface, removing nothing (the bypass)."""

    def feed(self, text: str) -> str:
        return text

    def flush(self) -> str:
        return ""


class Scripted:
    def __init__(self, pieces):
        self.pieces = pieces

    def stream(self, request):
        yield from self.pieces


def inject(page: Path, anchor: str) -> None:
    """Put the payloads unescaped inside a passage, as a render without autoescape would."""
    html = page.read_text("utf-8")
    html, n = re.subn(rf'(<p id="{anchor}"[^>]*>)', lambda m: m.group(1) + "".join(PAYLOADS),
                      html, count=1)
    assert n == 1, anchor
    page.write_text(html, "utf-8")
    Path(str(page) + ".gz").unlink(missing_ok=True)   # or the server would send the clean twin


@pytest.fixture(scope="module")
def bypassed(built_site, tmp_path_factory):
    dist = tmp_path_factory.mktemp("csp") / "dist"
    shutil.copytree(built_site, dist)
    inject(dist / "art18.html", "art18-2")
    return dist


@pytest.fixture(scope="module")
def worker(bypassed):
    mp = pytest.MonkeyPatch()
    mp.setattr("citavial.worker.lead.generate.TextSanitizer", PassThrough)
    allow = load_allowlist(POISONED)
    model = Scripted(["Queda prohibido conducir con auriculares ", PAYLOADS[0], " [[REF:1]]",
                      " ", PAYLOADS[2], "."])
    deps = Deps(FixedRetriever(allow, REFS), allow, load_prompt(PROMPTS_DIR / "answer-chat.md"),
                model, SCRIPTED_STATUS, Calibration(gate=None, support_threshold=0.0,
                                                    calibrated=False))
    state = WorkerState(dist_dir=bypassed, deps=deps, ask_limiter=RateLimiter(0, 1),
                        slot=InferenceSlot(4))
    with ServerThread(state) as srv:
        yield srv.url
    mp.undo()


def tab(browser, bypass: bool):
    ctx = browser.new_context()
    ctx.add_init_script(("window.__bypassEscaping = true;" if bypass else "") + BYPASS_AND_RECORD)
    ctx.route("http://127.0.0.1:8000/**", lambda route: route.abort())
    page = ctx.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    return ctx, page, dialogs


def reported(directive: str) -> str:
    """A condition for ``outcome``: Chromium has reported a violation of ``directive``."""
    return f"window.__violations.some(v => v.directive === {directive!r})"


def outcome(page, until: str = "true") -> dict:
    """What the payloads did, once ``until`` holds: a JavaScript condition for what the test
    expects to have happened (a violation reported, a payload run), waited for up to the
    context's budget, since Chromium reports violations asynchronously and a loaded machine
    reports them late. Then a fixed 300 ms for what must NOT happen -- a handler that would run
    late, e.g. a broken image's onerror -- which no event announces: a short pause is right
    there, a slow machine can only make the check weaker, never fail it."""
    page.wait_for_function(f"() => {until}")
    page.wait_for_timeout(300)
    return page.evaluate("""() => ({pwned: typeof window.__pwned,
        directives: [...new Set(window.__violations.map(v => v.directive))].sort(),
        samples: window.__violations.map(v => v.sample)})""")


def test_content_injected_unescaped_is_blocked(browser, worker):
    ctx, page, dialogs = tab(browser, bypass=False)
    try:
        page.goto(f"{worker}/art18.html")
        assert page.locator("#art18-2 img[onerror], #art18-2 script").count() == 2   # it is there
        got = outcome(page, reported("script-src-elem") + " && " + reported("script-src-attr"))
        page.locator("#art18-2 a[href^='javascript:']").click()
        after = outcome(page, f"window.__violations.length > {len(got['samples'])}")
    finally:
        ctx.close()
    assert got["pwned"] == after["pwned"] == "undefined" and not dialogs
    assert {"script-src-elem", "script-src-attr"} <= set(got["directives"]), got
    assert len(after["samples"]) > len(got["samples"])   # the javascript: link was blocked too


def test_question_model_output_and_quotes_are_blocked_in_the_widget(browser, worker):
    ctx, page, dialogs = tab(browser, bypass=True)
    try:
        page.goto(f"{worker}/index.html")
        page.click(".cv-toggle")
        page.wait_for_function("() => document.querySelector('#citavial-chat .cv-status')"
                               ".textContent.startsWith('Listo')")
        page.fill("#cv-q", "¿Puedo conducir con auriculares? " + PAYLOADS[0] + PAYLOADS[2])
        page.press("#cv-q", "Enter")
        page.wait_for_selector("#citavial-chat .cv-item[aria-busy='false']")
        injected = page.locator("#citavial-chat .cv-item img[onerror], "
                                "#citavial-chat .cv-item svg[onload]").count()
        got = outcome(page, reported("script-src-attr"))
        chips = page.locator("#citavial-chat a.cv-chip").count()
    finally:
        ctx.close()
    assert injected >= 4, injected   # question, model text, quote, label: escaping is off
    assert got["pwned"] == "undefined" and not dialogs, got
    assert "script-src-attr" in got["directives"], got
    assert chips >= 1   # the answer and its citation still render


def test_without_the_policy_the_same_payloads_run(browser, bypassed, tmp_path):
    """The control: the payloads are live — strip the policy and they execute."""
    shutil.copy(bypassed / "art18.html", tmp_path / "art18.html")
    page_file = tmp_path / "art18.html"
    page_file.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "",
                                page_file.read_text("utf-8")), "utf-8")
    ctx, page, _ = tab(browser, bypass=False)
    try:
        page.goto(page_file.as_uri())
        assert outcome(page, "window.__pwned !== undefined")["pwned"] == "number"
    finally:
        ctx.close()


@pytest.mark.parametrize("path", CLEAN_PAGES)
def test_the_real_site_runs_without_a_single_violation(browser, built_site, path):
    state = WorkerState(dist_dir=built_site, deps=None, unavailable="static only (test)")
    with ServerThread(state) as srv:
        ctx, page, _ = tab(browser, bypass=False)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        try:
            page.goto(f"{srv.url}/{path}")
            if path.startswith("buscar"):
                page.wait_for_selector("#buscar-resultados li a")
            if path.startswith("practica"):
                page.wait_for_selector("#p-options button")
            page.click(".cv-toggle")   # the widget's own code, too
            page.wait_for_selector("#citavial-chat .cv-search")
            got = outcome(page)
        finally:
            ctx.close()
    assert got == {"pwned": "undefined", "directives": [], "samples": []}, got
    assert not [e for e in errors if "Content Security Policy" in e], errors
