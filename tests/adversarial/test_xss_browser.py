"""XSS through the question, the model's output and the content, in real Chromium: the worker
(real code, on 127.0.0.1) serves dist/ and the API; the chat widget (#citavial-chat) must show
every payload as inert text — no script runs (window.__pwned stays undefined), no element is
injected into the widget."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest
from support import built_site_dir
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
PAYLOADS = ["<img src=x onerror=window.__pwned=1>", "<script>window.__pwned=1</script>",
            "<svg onload=window.__pwned=1>", "\"><iframe src=javascript:window.__pwned=1>"]


class Scripted:
    def __init__(self, pieces):
        self.pieces = pieces

    def stream(self, request):
        yield from self.pieces


def ask_in_widget(browser, base: str, question: str):
    ctx = browser.new_context()
    page = ctx.new_page()
    dialogs, requests = [], []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{base}/index.html")
    page.click(".cv-toggle")
    page.wait_for_function("() => document.querySelector('#citavial-chat .cv-status')"
                           ".textContent.startsWith('Listo')")
    page.fill("#cv-q", question)
    page.press("#cv-q", "Enter")
    page.wait_for_selector("#citavial-chat .cv-item[aria-busy='false']")
    # What must NOT happen: any deferred handler (onerror of a broken image) has had its chance.
    # No event announces that it will not run, so a short pause; a slow machine can only make
    # the check weaker, never fail it.
    page.wait_for_timeout(300)
    state = page.evaluate("""() => {
        const w = document.getElementById('citavial-chat');
        return {pwned: typeof window.__pwned,
                injected: w.querySelectorAll('img, script, svg, iframe, object, embed').length,
                onattrs: [...w.querySelectorAll('*')].filter(e => [...e.attributes]
                    .some(a => a.name.startsWith('on'))).length,
                badHrefs: [...w.querySelectorAll('a')].map(a => a.getAttribute('href'))
                    .filter(h => !/^https?:/.test(h)),
                hrefs: [...w.querySelectorAll('a')].map(a => a.href),
                q: w.querySelector('.cv-q').textContent,
                text: w.querySelector('.cv-item').textContent};
    }""")
    ctx.close()
    state["dialogs"] = dialogs
    state["off_site"] = [u for u in requests if not u.startswith(base + "/")]
    return state


def assert_inert(state):
    assert state["pwned"] == "undefined", state
    assert state["injected"] == 0 and state["onattrs"] == 0, state
    assert state["badHrefs"] == [] and not state["dialogs"], state
    assert state["off_site"] == [], state   # the widget talks to its own worker only


@pytest.fixture(scope="module")
def real_site(real_state):
    srv = ServerThread(real_state).__enter__()
    yield srv.url
    srv.stop()


@pytest.mark.slow
@pytest.mark.parametrize("payload", PAYLOADS)
def test_question_payload_is_inert_with_the_real_worker(adv_browser, real_site, payload):
    question = f"¿Puedo conducir con auriculares? {payload}"
    state = ask_in_widget(adv_browser, real_site, question)
    assert_inert(state)
    assert state["q"] == question   # shown literally, as text


def poisoned_site(model_pieces):
    allow = load_allowlist(POISONED)
    prompt = load_prompt(PROMPTS_DIR / "answer-chat.md")
    deps = Deps(FixedRetriever(allow, REFS), allow, prompt,
                Scripted(model_pieces) if model_pieces else None, SCRIPTED_STATUS,
                Calibration(gate=None, support_threshold=0.6, calibrated=False),
                model_lead=bool(model_pieces))
    state = WorkerState(dist_dir=built_site_dir(), deps=deps, ask_limiter=RateLimiter(0, 1),
                        slot=InferenceSlot(4))
    return ServerThread(state).__enter__()


@pytest.mark.parametrize("pieces", [
    pytest.param(None, id="content-extractive-quote"),
    pytest.param(["Queda prohibido conducir utilizando auriculares", " [[REF:1]]",
                  " <img src=x onerror=window.__pwned=1>", "."], id="model-output-img"),
    pytest.param(["<script>window.__pwned=1</script> Queda prohibido conducir con casco de "
                  "audio o auriculares", " [[REF:1]]", "."], id="model-output-script"),
])
def test_model_output_and_content_payloads_are_inert(adv_browser, pieces):
    srv = poisoned_site(pieces)
    try:
        state = ask_in_widget(adv_browser, srv.url, "¿Puedo conducir con auriculares?")
    finally:
        srv.stop()
    assert_inert(state)
    # every link the widget made is a citation's deep link (on this site) or its BOE source
    entries = load_allowlist(POISONED).entries.values()
    allowed = {urljoin(srv.url + "/", e.url) for e in entries} | {e.source_url for e in entries}
    # (compared percent-decoded: the browser escapes the payload's quotes and brackets in a.href)
    made = {unquote(h) for h in state["hrefs"]}
    assert made and made <= {unquote(u) for u in allowed}, (state["hrefs"], allowed)
    # the poisoned quote, label and licence are on screen as text (proof they were rendered)
    assert "<script>window.__pwned=1</script>" in state["text"]
    assert "<img src=x onerror=window.__pwned=1>" in state["text"]
