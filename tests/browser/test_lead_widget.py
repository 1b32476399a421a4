"""The model's lead in the chat widget is shown only once judged (docs/answers.md, "The lead in
the chat widget"), in Debian's Chromium, against a real HTTP server on 127.0.0.1.

The server serves the built site and a scripted worker: /health says ok, and each POST /api/ask
answers a chunked SSE stream that the test writes one step at a time, so every step's DOM and
live region are asserted before the next event exists. Each step is synchronised on a DOM
condition (the answer's `data-events` count, or its `aria-busy` going false), never on time.
One case per way a lead sentence can end: kept, retracted, the stream ending without a verdict,
an error event, the connection breaking, a new question aborting the answer — and the real
worker's order, where the next sentence's tokens come before the previous one's verdict."""

from __future__ import annotations

import functools
import json
import queue
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from support import WAIT_S, QuietHandler

pytestmark = [pytest.mark.browser, pytest.mark.slow]

QUESTION = "¿Puedo conducir con auriculares puestos?"
LEAD = ["Conducir con auriculares está prohibido.", " Se tolera a 130 km/h en autovía."]
END, BREAK = "end", "break"   # steps that are not events: close the stream, or cut it


def sse(events: list[tuple[str, dict]]) -> bytes:
    return "".join(f"event: {n}\ndata: {json.dumps(d, ensure_ascii=False)}\n\n"
                   for n, d in events).encode()


class Handler(QuietHandler):
    """The built site's files, /health, and /api/ask streamed from a queue the test fills."""

    protocol_version = "HTTP/1.1"   # chunked, so a cut stream is an error, not a normal end

    def do_GET(self) -> None:
        if self.path.split("?")[0] != "/health":
            return super().do_GET()
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        steps: queue.Queue = queue.Queue()
        self.server.streams.put(steps)   # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.close_connection = True
        try:
            while True:
                # Longer than any wait of the test's (each step waits up to WAIT_S for the
                # page), so a slow page never finds its stream gone; a test that died leaves
                # no thread behind.
                step = steps.get(timeout=2 * WAIT_S)
                if step == BREAK:
                    return   # no terminating chunk: the browser sees a broken stream
                if step == END:
                    self.wfile.write(b"0\r\n\r\n")
                    return
                self.wfile.write(b"%x\r\n%s\r\n" % (len(step), step))
                self.wfile.flush()
        except (queue.Empty, OSError):   # the client went away (an aborted answer)
            return


@pytest.fixture(scope="module")
def server(built_site: Path) -> Iterator[ThreadingHTTPServer]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler,
                                                                  directory=str(built_site)))
    srv.streams = queue.Queue()   # type: ignore[attr-defined]
    thread = threading.Thread(target=srv.serve_forever, name="lead-sse", daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=5)


@pytest.fixture(scope="module")
def citation(built_site: Path) -> dict:
    data = json.loads((built_site / "allowlist.json").read_text(encoding="utf-8"))
    e = next(e for e in data["entries"] if e["anchor"] == "art18-2")
    return {"n": 1, "ref": e["ref"], "label": e["label"], "url": e["url"], "quote": e["text"],
            "span_url": e["url"], "source_url": e["source_url"],
            "source_license": e["source_license"], "as_of": e["as_of"]}


@pytest.fixture()
def tab(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.route("http://127.0.0.1:8000/**", lambda route: route.abort())   # only our server
    page.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html")
    page.click(".cv-toggle")
    page.wait_for_function("() => document.querySelector('.cv-status').textContent"
                           ".startsWith('Listo')")
    yield page
    context.close()


def start(tab, server, question: str = QUESTION) -> queue.Queue:
    while not server.streams.empty():   # a stream an earlier test left open
        server.streams.get_nowait().put(BREAK)
    tab.fill("#cv-q", question)
    tab.keyboard.press("Enter")
    try:
        return server.streams.get(timeout=WAIT_S)   # the request has reached the server
    except queue.Empty:
        pytest.fail(f"the widget's question had not reached the server after {WAIT_S} s")


def tokens(s: int, text: str) -> list[tuple[str, dict]]:
    """A sentence as the worker streams it: its words in two pieces, its slot, its full stop."""
    words, _, last = text.rstrip(".").rpartition(" ")
    return [("token", {"s": s, "text": words}), ("token", {"s": s, "text": " " + last}),
            ("token", {"s": s, "cite": 1}), ("token", {"s": s, "text": "."})]


def keep(s: int) -> tuple[str, dict]:
    return ("keep", {"s": s, "support": 0.9, "cites": [1]})


def retract(s: int) -> tuple[str, dict]:
    return ("retract", {"s": s, "reason": "number_not_in_passage", "support": 0.0,
                        "cites": [1], "missing_numbers": ["130"]})


def opening(cite: dict) -> list[tuple[str, dict]]:
    return [("sources", {"sources": [{k: cite[k] for k in ("n", "ref", "label", "url")}]}),
            ("answer", {"outcome": "answer", "label": "Respuesta extractiva: las palabras del "
                        "Reglamento que responden.", "kind": "clause", "cite": 1,
                        "text": "Queda prohibido conducir utilizando cualquier tipo de casco "
                        "de audio", "emphasis": [[0, 15]]})]


def closing(cite: dict, mode: str) -> list[tuple[str, dict]]:
    return [("citations", {"extractive": mode == "extractive", "label": "x",
                           "citations": [cite]}), ("done", {"mode": mode, "answered": True})]


def state(tab, nth: int = 0) -> dict:
    """What the reader and the live regions have: the lead shown, and whether any lead words
    are anywhere in the page (hidden or not) or in the role=log region."""
    return tab.evaluate("""([nth, lead]) => {
        const it = document.querySelectorAll('.cv-item')[nth];
        const log = document.querySelector('.cv-log[role=log][aria-live=polite]');
        const p = it.querySelector('.cv-lead');
        const words = lead.map(s => s.trim().replace(/\\.$/, ''));
        return {
            shown: Array.from(it.querySelectorAll('.cv-lead .cv-s'), e => e.textContent),
            before_answer: !p || p.nextElementSibling === it.querySelector('.cv-answer'),
            in_page: words.filter(w => document.body.textContent.includes(w)),
            in_log: words.filter(w => log.textContent.includes(w)),
            busy: it.getAttribute('aria-busy'),
            error: it.querySelectorAll('.cv-error').length,
            status: document.querySelector('.cv-status[role=status]').textContent,
        };
    }""", [nth, LEAD])


def expect(shown: list[str], busy: str, status: str | None = None, error: int = 0) -> dict:
    return {"shown": shown, "busy": busy, "status": status, "error": error}


HELD = expect([], "true")
ONE = [LEAD[0]]

# case: [(step, what the page shows after it)]; a step is a list of events, END or BREAK
CASES = {
    "supported-shown-on-keep": lambda c: [
        (opening(c) + tokens(0, LEAD[0]), HELD),
        ([keep(0)], expect(ONE, "true")),
        (closing(c, "generated"), expect(ONE, "true")),
        (END, expect(ONE, "false", "Respuesta con resumen.")),
    ],
    "unsupported-never-shown": lambda c: [
        (opening(c) + tokens(0, LEAD[1]), HELD),
        ([retract(0)], HELD),
        (closing(c, "extractive"), HELD),
        (END, expect([], "false", "Respuesta extractiva.")),
    ],
    "next-sentence-before-verdict": lambda c: [   # the real worker's order (snapshots)
        (opening(c) + tokens(0, LEAD[0]) + tokens(1, LEAD[1])[:1], HELD),
        ([keep(0)], expect(ONE, "true")),
        (tokens(1, LEAD[1])[1:], expect(ONE, "true")),
        ([retract(1)], expect(ONE, "true")),
        (closing(c, "generated"), expect(ONE, "true")),
        (END, expect(ONE, "false", "Respuesta con resumen.")),
    ],
    "done-without-verdict": lambda c: [
        (opening(c) + tokens(0, LEAD[0]), HELD),
        (closing(c, "generated"), HELD),
        (END, expect([], "false", "Respuesta con resumen.")),
    ],
    "stream-ends-without-verdict": lambda c: [
        (opening(c) + tokens(0, LEAD[0]), HELD),
        (END, expect([], "false", "La respuesta se cortó.")),
    ],
    "error-mid-stream": lambda c: [
        (opening(c) + tokens(0, LEAD[0]), HELD),
        ([("error", {"ok": False, "error": "internal", "status": 500})],
         expect([], "false", "Sin respuesta.", error=1)),
        (END, expect([], "false", "Sin respuesta.", error=1)),
    ],
    "connection-lost": lambda c: [
        (opening(c) + tokens(0, LEAD[0]), HELD),
        (BREAK, expect([], "false", "Sin respuesta.", error=1)),
    ],
}


def wait_for(tab, step, sent: int) -> None:
    item = ".cv-item"
    if step in (END, BREAK):
        tab.wait_for_selector(f"{item}[aria-busy='false']")
    else:
        tab.wait_for_selector(f"{item}[data-events='{sent}']", state="attached")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_lead_sentence_is_shown_only_once_judged_supported(tab, server, citation, case):
    stream, sent = start(tab, server), 0
    for i, (step, want) in enumerate(CASES[case](citation)):
        if step in (END, BREAK):
            stream.put(step)
        else:
            sent += len(step)
            stream.put(sse(step))
        wait_for(tab, step, sent)
        got = state(tab)
        where = f"{case}, step {i}"
        assert got["shown"] == want["shown"], where
        assert got["in_log"] == got["in_page"] == [s.strip().rstrip(".") for s in want["shown"]], \
            where   # nothing unjudged is in the page, hidden or not, nor in the live region
        assert got["before_answer"] and got["busy"] == want["busy"], where
        assert got["error"] == want["error"], where
        if want["status"] is not None:
            assert got["status"] == want["status"], where


def test_a_new_question_drops_the_unjudged_lead_of_the_one_it_aborts(tab, server, citation):
    first = start(tab, server)
    events = opening(citation) + tokens(0, LEAD[0])
    first.put(sse(events))
    tab.wait_for_selector(f".cv-item[data-events='{len(events)}']", state="attached")
    second = start(tab, server, "¿Y con un solo auricular?")
    tab.wait_for_selector(".cv-item >> nth=0 >> xpath=self::*[@aria-busy='false']",
                          state="attached")
    first.put(sse([keep(0)]))   # too late: a verdict for the aborted answer shows nothing
    first.put(END)
    events = opening(citation) + tokens(0, LEAD[0]) + [keep(0)] + closing(citation, "generated")
    second.put(sse(events))
    second.put(END)
    tab.wait_for_selector(".cv-item >> nth=1 >> xpath=self::*[@aria-busy='false']",
                          state="attached")
    assert state(tab, 0)["shown"] == [] and state(tab, 1)["shown"] == ONE
    assert tab.locator(".cv-item").nth(0).locator(".cv-lead").count() == 0
