"""The chat widget in Debian's Chromium, on a built page served by the real worker with its
model in the answer path (`--model-lead`).

The worker (real Gemma 3 270M, real index and allowlist) serves the built site and the API on
127.0.0.1; the page's widget asks a question, streams the answer and the model's lead, and a
source's chip opens the cited passage in a new tab, highlighted (:target). Also: keyboard use,
the offline state, and that the page works with the worker down. (The default, model-free answer
path in the widget: tests/browser/test_answers_widget.py.)
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from support import QuietHandler

from citavial.worker.http.serve import ServerThread, load_state

pytestmark = [pytest.mark.browser, pytest.mark.model, pytest.mark.slow]
QUESTION = "¿Se puede conducir con auriculares?"
# chat.js and chat.css reach pages inside the build's bundles (build/web/assets.py BUNDLES)
WIDGET_TAGS = ('id="citavial-chat"', 'src="static/app.', 'href="static/app.')
ANSWER_MS = 300_000   # one answer of the real model, lead included, on a slow loaded machine


@pytest.fixture(scope="module")
def site(request, tmp_path_factory) -> Path:
    """The built site (CITAVIAL_TEST_SITE_SRC may point at another site_src, for development)."""
    src = os.environ.get("CITAVIAL_TEST_SITE_SRC")
    if src:
        from support import AS_OF, CORPUS

        from citavial.build.pipeline import build_site
        out = tmp_path_factory.mktemp("widget-site") / "dist"
        build_site(corpus_dir=CORPUS, out_dir=out, as_of=AS_OF, site_src=Path(src))
        return out
    return request.getfixturevalue("built_site")


@pytest.fixture(scope="module")
def worker(site):
    page = (site / "art18.html").read_text(encoding="utf-8")
    missing = [t for t in WIDGET_TAGS if t not in page]
    if missing:
        pytest.fail(f"built pages lack the chat widget ({missing}): add the tags of "
                    "docs/deploy.md 'Chat widget' to site_src/templates/base.html")
    state = load_state(site, ask_per_minute=0, model_lead=True)
    assert state.deps is not None and state.deps.model is not None, state.unavailable
    with ServerThread(state) as srv:
        yield srv, state


@pytest.fixture()
def tab(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    # The widget's fallback address: never let a stray local worker answer these tests.
    page.route("http://127.0.0.1:8000/**", lambda route: route.abort())
    yield page
    context.close()


def ask(tab, question: str) -> None:
    tab.click(".cv-toggle")
    tab.wait_for_function("() => document.querySelector('.cv-status').textContent"
                          ".startsWith('Listo')")
    tab.fill("#cv-q", question)
    tab.keyboard.press("Enter")
    # The real model answers: its CPU time, on a loaded 2-core runner, is the longest wait here.
    tab.wait_for_selector(".cv-item[aria-busy='false']", timeout=ANSWER_MS)


def test_widget_answers_and_its_chip_opens_the_passage_highlighted(worker, tab):
    srv, state = worker
    tab.goto(srv.url + "/index.html")
    ask(tab, QUESTION)
    assert tab.inner_text(".cv-q") == QUESTION
    tab.click("details.cv-cites summary")          # "Fuentes" starts collapsed
    quotes = tab.locator(".cv-cite blockquote").all_inner_texts()
    assert quotes, tab.inner_text(".cv-item")
    chip = tab.locator(".cv-cite figcaption a.cv-chip").first
    href = chip.get_attribute("href")
    ref = next(e for e in state.deps.allowlist.entries.values()
               if href.endswith(e.url))
    assert quotes[0] == ref.text                     # the quote is the allowlist's, verbatim
    assert re.search(r"Respuesta (con resumen|extractiva)", tab.inner_text(".cv-status"))
    with tab.context.expect_page() as opened:      # a new tab: the conversation stays put
        chip.click()
    tab = opened.value
    tab.wait_for_url(re.compile(re.escape(ref.page)))
    tab.wait_for_function("() => document.querySelector(':target') !== null")
    target = tab.evaluate("""() => {
        const t = document.querySelector(':target').closest('[id]');
        const r = t.getBoundingClientRect();
        return {id: t.id, bg: getComputedStyle(t).backgroundColor,
                inView: r.bottom > 0 && r.top < innerHeight, text: t.textContent};
    }""")
    assert target["id"] == ref.anchor and target["inView"]
    assert target["bg"] == "rgb(255, 248, 214)"      # site.css .passage:target
    assert " ".join(ref.text.split())[:40] in " ".join(target["text"].split())
    tab.screenshot(path=str(Path(os.environ.get("CITAVIAL_SHOTS", "/tmp")) /
                            "citavial-chip-target.png"))


def test_streamed_answer_shows_only_the_lead_sentences_judged_supported(worker, tab):
    """The real model's lead: a sentence is in the page iff the worker sent `keep` for it
    (the stepwise cases, with a scripted stream: tests/browser/test_lead_widget.py)."""
    srv, _ = worker
    tab.goto(srv.url + "/art48.html")
    ask(tab, "¿Qué es una vía urbana?")
    item = tab.locator(".cv-item").first
    assert item.locator(".cv-answer").count() or item.locator(".cv-abstain").count()
    events = tab.evaluate("() => JSON.parse(sessionStorage.getItem('citavial.chat'))[0].events")
    said: dict[int, str] = {}
    for name, d in events:
        if name == "token" and "text" in d:
            said[d["s"]] = said.get(d["s"], "") + d["text"]
    kept = [said[d["s"]] for name, d in events if name == "keep"]
    # exactly the kept sentences, in order: a retracted or unjudged one is never shown
    assert item.locator(".cv-lead .cv-s").all_text_contents() == kept
    assert item.locator(".cv-lead a").count() == 0   # a lead links nothing


def test_keyboard_only_use(worker, tab):
    srv, _ = worker
    tab.goto(srv.url + "/index.html")
    tab.focus(".cv-toggle")
    tab.keyboard.press("Enter")
    assert tab.evaluate("() => document.activeElement.id") == "cv-q"
    assert tab.get_attribute(".cv-toggle", "aria-expanded") == "true"
    assert tab.get_attribute(".cv-log", "role") == "log"
    assert tab.get_attribute(".cv-log", "aria-live") == "polite"
    assert tab.inner_text("label[for='cv-q']") == "Tu pregunta"
    tab.keyboard.press("Escape")
    assert tab.is_hidden("#cv-panel")
    assert tab.evaluate("() => document.activeElement.className") == "cv-toggle"


def test_offline_state_and_site_still_browsable(site, tab):
    """Served by a plain static server with no worker: the widget says so, links still work."""
    import functools
    import threading
    from http.server import ThreadingHTTPServer

    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        tab.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html")
        tab.click(".cv-toggle")
        tab.wait_for_selector(".cv-panel.cv-offline")
        assert "sin conexión" in tab.inner_text(".cv-status")
        assert tab.is_disabled(".cv-send")
        tab.click("a[href='art18.html']")
        tab.wait_for_url(re.compile(r"art18\.html$"))
        assert "Artículo 18" in tab.inner_text("h1")
    finally:
        server.shutdown()
        server.server_close()
