"""Issue 26, worker side: what any web page or local process can send to the worker must stay
bounded (metrics size, connections), and must not reach it cross-site. Each test reproduces the
attack first (bounded in count, loopback only), then asserts the worker's behaviour."""

from __future__ import annotations

import pytest
from support import WAIT_S
from worker_helpers import (
    SCRIPTED_STATUS,
    TEST_CALIBRATION,
    FixedRetriever,
    fixed_allowlist,
)

from citavial.worker.answer.ask import Deps
from citavial.worker.http.app import WorkerState, create_app
from citavial.worker.http.limits import RateLimiter
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt

pytestmark = pytest.mark.adversarial

REFS = ["RD-1428/2003#art18.2", "RD-1428/2003#art48.1.a", "RD-1428/2003#art50.1"]


class OneLineModel:
    def stream(self, request):
        yield from ["Queda prohibido conducir utilizando auriculares", " [[REF:1]]", "."]


def make_state(tmp_path, deps=True) -> WorkerState:
    dist = tmp_path / "dist"
    (dist / "static").mkdir(parents=True, exist_ok=True)
    (dist / "index.html").write_text("<!doctype html><title>citavial</title>", "utf-8")
    allow = fixed_allowlist(tmp_path)
    d = Deps(FixedRetriever(allow, REFS), allow, load_prompt(PROMPTS_DIR / "answer-chat.md"),
             OneLineModel(), SCRIPTED_STATUS, TEST_CALIBRATION, model_lead=True) if deps else None
    return WorkerState(dist_dir=dist, deps=d, unavailable="" if deps else "index missing",
                       index_info={"loaded": deps, "version": "fixed-1"},
                       ask_limiter=RateLimiter(0, 1), search_limiter=RateLimiter(0, 1))


@pytest.fixture()
def client(tmp_path):
    return create_app(make_state(tmp_path)).test_client()


# -- 1. /metrics bounded ---------------------------------------------------------------------

MADE_UP = (lambda n: f"/api/{n}x", lambda n: f"/health/{n}", lambda n: f"/metrics{n}",
           lambda n: f"/no-such-page-{n}.html", lambda n: f"/api/ask/{n}")


def _series(text: bytes) -> list[str]:
    """The series /metrics holds (name and labels), without their values."""
    return [line.rsplit(" ", 1)[0] for line in text.decode().splitlines()
            if not line.startswith("#")]


def test_metrics_series_constant_after_10000_made_up_paths(client):
    """The audit: 3,000 made-up /api/<n> paths took /metrics from 5 KB to 24 MB. Now every
    made-up path lands on one of a few fixed labels, so the series stay the same."""
    for path_of in MADE_UP:          # every label a made-up path can produce, once
        client.get(path_of(0))
        client.post(path_of(0))
    client.get("/metrics")           # /metrics counts itself after it rendered
    before = client.get("/metrics").data
    for n in range(1, 10_001):
        path = MADE_UP[n % len(MADE_UP)](n)
        client.get(path) if n % 2 else client.post(path)
    after = client.get("/metrics").data
    assert _series(after) == _series(before)
    assert len(after) < len(before) + 200     # only the counts' digits grew
    assert b"9999" not in after


# -- 7. cross-site ---------------------------------------------------------------------------

ORIGINS = [
    pytest.param("null", (), False, id="null-by-default"),
    pytest.param("null", ("null",), True, id="null-when-configured"),
    pytest.param("http://localhost:9000", (), False, id="other-local-port-by-default"),
    pytest.param("http://localhost:9000", ("http://localhost:9000",), True,
                 id="configured-origin"),
    pytest.param("https://localhost:9000", ("http://localhost:9000",), False,
                 id="other-scheme-same-host"),
    pytest.param("chrome-extension://localhost", (), False, id="any-scheme-localhost"),
    pytest.param("https://evil.example", ("null",), False, id="foreign"),
]


@pytest.mark.parametrize("origin, configured, allowed", ORIGINS)
@pytest.mark.parametrize("method, path", [("OPTIONS", "/api/ask"), ("GET", "/health"),
                                          ("GET", "/api/search?q=auriculares")])
def test_cors_only_for_configured_origins(tmp_path, origin, configured, allowed, method, path):
    state = make_state(tmp_path)
    state.allowed_origins = configured
    resp = create_app(state).test_client().open(path, method=method, headers={
        "Origin": origin, "Access-Control-Request-Method": "POST"})
    assert (resp.headers.get("Access-Control-Allow-Origin") == origin) is allowed


HOSTS = [
    pytest.param("127.0.0.1:8000", (), 200, id="loopback-ip"),
    pytest.param("[::1]:8000", (), 200, id="loopback-ipv6"),
    pytest.param("localhost:8000", (), 200, id="localhost"),
    pytest.param("LOCALHOST", (), 200, id="localhost-upper"),
    pytest.param("evil.example:8000", (), 421, id="rebound-name"),
    pytest.param("localhost.evil.example", (), 421, id="lookalike"),
    pytest.param("aula.example:8000", ("aula.example",), 200, id="configured-name"),
]


@pytest.mark.parametrize("host, configured, status", HOSTS)
@pytest.mark.parametrize("path", ["/health", "/api/search?q=auriculares", "/index.html"])
def test_host_header_checked_against_dns_rebinding(tmp_path, host, configured, status, path):
    state = make_state(tmp_path)
    state.allowed_hosts = configured
    resp = create_app(state).test_client().get(path, headers={"Host": host})
    assert resp.status_code == status, resp.data[:200]
    if status == 421:
        assert resp.get_json()["status"] == 421


@pytest.mark.parametrize("headers", [
    pytest.param({}, id="no-content-type"),
    pytest.param({"Content-Type": "text/plain"}, id="text-plain"),          # no-cors fetch
    pytest.param({"Content-Type": "application/x-www-form-urlencoded"}, id="form-post"),
    pytest.param({"Content-Type": "multipart/form-data; boundary=x"}, id="multipart"),
])
def test_ask_needs_a_json_content_type_before_spending_the_rate_budget(tmp_path, headers):
    """What a page can send cross-site without a preflight never reaches the answer path, and
    costs the student no rate budget."""
    state = make_state(tmp_path)
    state.ask_limiter = RateLimiter(1, 1)          # one question per minute
    client = create_app(state).test_client()
    body = '{"question": "¿Se puede conducir con auriculares?"}'.encode()
    for _ in range(3):
        resp = client.post("/api/ask", data=body, headers=headers)
        assert resp.status_code == 400 and resp.get_json()["status"] == 400
    resp = client.post("/api/ask", data=body, headers={"Content-Type": "application/json"})
    assert resp.status_code == 200 and b"event: done" in resp.data


def test_health_shows_no_home_paths(tmp_path):
    from dataclasses import replace
    from pathlib import Path

    from citavial.worker.lead.model import ModelStatus
    home = str(Path.home())
    state = make_state(tmp_path)
    state.deps = replace(state.deps, model=None, model_status=ModelStatus(
        False, "completion", f"{home}/.cache/m.gguf", "m.gguf", None,
        f"model file not found at {home}/.cache/m.gguf"))
    raw = create_app(state).test_client().get("/health").get_data(as_text=True)
    assert home + "/" not in raw and "~/.cache/m.gguf" in raw


# -- 3. a rebuilt or removed dist/ is never served with the allowlist loaded before ----------

def _wait_health(client, ok: bool, timeout: float = 120) -> dict:
    import time
    deadline = time.monotonic() + timeout
    while True:
        resp = client.get("/health")
        if (resp.status_code == 200) is ok or time.monotonic() > deadline:
            return resp.get_json()
        time.sleep(0.1)


def _rebuild(dist, tmp_path):
    """What `citavial build` does to a running worker's dist/: a new folder swapped in whole,
    here with an allowlist that differs (another as_of written into it)."""
    import json
    import shutil
    new = tmp_path / "dist.stage"
    shutil.copytree(dist, new)
    doc = json.loads((new / "allowlist.json").read_text("utf-8"))
    doc["as_of"] = "2031-01-01"
    (new / "allowlist.json").write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    dist.rename(tmp_path / "dist.old")
    new.rename(dist)
    shutil.rmtree(tmp_path / "dist.old")


def test_worker_reloads_a_rebuilt_dist_and_stops_on_a_removed_one(tmp_path):
    import hashlib
    import shutil

    from support import built_site_dir

    from citavial.worker.http.serve import load_state
    dist = tmp_path / "dist"
    shutil.copytree(built_site_dir(), dist)
    state = load_state(dist, ask_per_minute=0, load_llm=False)
    client = create_app(state).test_client()
    first = client.get("/health").get_json()
    assert first["ok"] and first["allowlist"]["as_of"] != "2031-01-01"

    _rebuild(dist, tmp_path)
    on_disk = hashlib.sha256((dist / "allowlist.json").read_bytes()).hexdigest()
    right_after = client.get("/health")                # never ok with the old allowlist
    assert right_after.status_code == 503 or \
        right_after.get_json()["allowlist"]["sha256"] == on_disk
    assert client.get("/api/search?q=auriculares").status_code in (200, 503)
    again = _wait_health(client, ok=True)
    assert again["ok"] and again["allowlist"]["sha256"] == on_disk
    assert state.deps.allowlist.sha256 == on_disk and state.deps.allowlist.as_of == "2031-01-01"
    hits = client.get("/api/search?q=auriculares").get_json()["hits"]
    assert hits and all(state.deps.allowlist.get(h["ref"]).text == h["text"] for h in hits)

    shutil.rmtree(dist)                                # dist/ removed under the worker
    gone = client.get("/health")
    assert gone.status_code == 503 and gone.get_json()["ok"] is False
    assert client.get("/api/search?q=auriculares").status_code == 503
    assert client.post("/api/ask", json={"question": "¿Se puede usar el móvil?"}).status_code \
        == 503
    assert _wait_health(client, ok=False)["ok"] is False   # and it stays so


# -- 8. the model lead's sanitizer: look-alike dots and bare addresses -------------------------

LEADS = [
    pytest.param("Consulte evil．com para el detalle.", "evil", id="fullwidth-dot"),
    pytest.param("Consulte evil。com para el detalle.", "evil", id="ideographic-dot"),
    pytest.param("Consulte evil.ｃｏｍ para el detalle.", "evil", id="fullwidth-tld"),
    pytest.param("Envíe sus datos a 10.0.0.1/x hoy.", "10.0.0.1", id="bare-ip"),
    pytest.param("Entre en ｈｔｔｐｓ：／／evil.example ya.", "evil", id="fullwidth-url"),
    pytest.param("Consulte [::1]:8000/x ahora.", "::1", id="bracketed-ipv6"),
    pytest.param("Escriba a 2001:db8::1 hoy.", "db8", id="bare-ipv6"),
]


@pytest.mark.parametrize("lead, host", LEADS)
def test_lead_sanitizer_drops_look_alike_hosts_streamed_char_by_char(lead, host):
    from citavial.worker.lead.sanitize import TextSanitizer
    s = TextSanitizer()
    shown = "".join(s.feed(ch) for ch in lead) + s.flush()
    assert host not in shown and "com" not in shown.split(), shown
    assert shown.startswith(lead.split()[0])          # the prose around it survives


# -- 4. slow connections ---------------------------------------------------------------------

def _trickler(n: int, source: str, port: int):
    """``n`` sockets from ``source`` that each start a request and never finish it."""
    import socket
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
        s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        socks.append(s)
    return socks


def _trickle(socks, stop):
    """One header byte per socket every 0.2 s: what reset waitress' inactivity timeout."""
    while not stop.wait(0.2):
        for s in list(socks):
            try:
                s.send(b"X")
            except OSError:
                socks.remove(s)


def _answered_while_trickled(state, sources: list[str], per_source: int, **guard) -> int:
    """Status of a normal client's GET /health from 127.0.0.1 while ``per_source`` sockets
    from each of ``sources`` trickle a request that never ends."""
    import http.client
    import threading

    from citavial.worker.http.serve import ServerThread
    with ServerThread(state, threads=4, **guard) as srv:
        port = srv.server.effective_port
        socks, stop = [], threading.Event()
        for source in sources:
            socks += _trickler(per_source, source, port)
        pump = threading.Thread(target=_trickle, args=(socks, stop), daemon=True)
        pump.start()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)   # a bound
            conn.request("GET", "/health")
            resp = conn.getresponse()
            resp.read()
            conn.close()
            return resp.status
        finally:
            stop.set()
            pump.join(5)
            for s in socks:
                s.close()


def test_200_trickling_sockets_from_one_address_are_held_off_by_the_cap(tmp_path):
    """The deadline is set far beyond the timeout: only the per-client cap can let the normal
    client in (waitress alone holds 100 connections in all)."""
    assert _answered_while_trickled(make_state(tmp_path), ["127.0.0.2"], 200,
                                    deadline=600) == 200


def test_200_trickling_sockets_from_ten_addresses_are_cut_by_the_deadline(tmp_path):
    """10 addresses x 20 sockets stay under the cap but fill waitress' 100 connections: the
    whole-request deadline closes them and the normal client is answered."""
    assert _answered_while_trickled(make_state(tmp_path), [f"127.0.0.{10 + i}" for i in range(10)],
                                    20, deadline=2) == 200


def test_a_request_that_never_completes_is_closed_at_the_deadline(tmp_path):
    import socket
    import time

    from citavial.worker.http.serve import ServerThread
    with ServerThread(make_state(tmp_path), deadline=1.0) as srv:
        s = socket.create_connection(("127.0.0.1", srv.server.effective_port), timeout=WAIT_S)
        s.sendall(b"GET /health HTTP/1.1\r\n")
        # Keeps sending, but the request never ends: a trickle no inactivity timeout would ever
        # close, so only the deadline can. Up to WAIT_S of it (a bound for a broken guard: the
        # close comes about a second in, later on a loaded machine). Non-blocking: a socket
        # with a timeout waits up to it in recv() even with MSG_DONTWAIT, and its timeout error
        # (an OSError) read as "closed" -- so the trickle was one byte, and a guard that never
        # closed anything passed too.
        s.setblocking(False)
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end:
            try:
                s.send(b"X")
                if s.recv(1) == b"":
                    break
            except BlockingIOError:
                pass
            except OSError:   # reset: closed with our unread bytes in its buffer
                break
            time.sleep(0.1)
        else:
            pytest.fail(f"the server kept a {WAIT_S} s trickle open with a 1 s deadline")
        s.close()


def test_one_address_holds_at_most_per_client_connections(tmp_path):
    import socket

    from citavial.worker.http.serve import ServerThread
    with ServerThread(make_state(tmp_path), per_client=4) as srv:
        port = srv.server.effective_port
        socks = [socket.create_connection(("127.0.0.1", port), timeout=WAIT_S,
                                          source_address=("127.0.0.2", 0)) for _ in range(6)]
        closed = 0
        for s in socks:   # none is closed before all six were counted: no race with accept
            try:
                s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                closed += s.recv(100) == b""     # over the cap: closed without an answer
            except ConnectionError:
                closed += 1
        for s in socks:
            s.close()
        assert closed == 2


# -- 9. the smaller ones ---------------------------------------------------------------------

JSON_HEADERS = {"Content-Type": "application/json"}
ABSURD = [
    pytest.param("POST", "/api/ask", b"[" * 100_000 + b"]" * 100_000, id="nested-100000-deep"),
    pytest.param("POST", "/api/ask", b'{"question": ' + b"1" * 5001 + b"}", id="5001-digit-int"),
    pytest.param("GET", "/api/search?q=auriculares&k=" + "9" * 5000, None, id="k-5000-digits"),
]


@pytest.mark.parametrize("method, path, body", ABSURD)
def test_absurd_input_is_a_400_in_the_error_shape(tmp_path, method, path, body):
    state = make_state(tmp_path)
    app = create_app(state)
    app.config["MAX_CONTENT_LENGTH"] = None if body and len(body) > 8192 else 8192
    resp = app.test_client().open(path, method=method, data=body, headers=JSON_HEADERS)
    assert resp.status_code == 400, resp.data[:300]
    assert resp.get_json()["status"] == 400 and len(resp.data) < 1000


def test_search_json_is_never_stored(client):
    resp = client.get("/api/search?q=auriculares")
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store"


def test_a_gz_twin_is_not_served_as_a_page(tmp_path):
    import gzip
    state = make_state(tmp_path)
    (state.dist_dir / "index.html.gz").write_bytes(gzip.compress(b"<!doctype html>"))
    client = create_app(state).test_client()
    resp = client.get("/index.html.gz")
    assert resp.status_code == 404
    resp = client.get("/index.html", headers={"Accept-Encoding": "gzip"})
    assert resp.status_code == 200 and resp.headers["Content-Encoding"] == "gzip"


WAITRESS_ERRORS = [
    pytest.param(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + b"a" * 300_000 + b"\r\n\r\n",
                 431, id="431-headers-too-large"),
    pytest.param(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n", 400,
                 id="400-bad-content-length"),
    pytest.param(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX : y\r\n\r\n", 400,
                 id="400-bad-header-line"),
    pytest.param(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n",
                 501, id="501-transfer-encoding"),
    pytest.param(b"GET http://[::1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400,
                 id="400-bad-uri"),   # was no answer at all: urlsplit's ValueError uncaught
    pytest.param(b"GET /a b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, id="400-bad-request-line"),
]


@pytest.mark.parametrize("raw, status", WAITRESS_ERRORS)
def test_waitress_own_errors_carry_the_security_headers(tmp_path, raw, status):
    import socket

    from citavial.build.headers import security_headers
    from citavial.worker.http.serve import ServerThread
    with ServerThread(make_state(tmp_path)) as srv:
        with socket.create_connection(("127.0.0.1", srv.server.effective_port),
                                      timeout=WAIT_S) as s:
            try:
                s.sendall(raw)
            except ConnectionError:
                pass
            reply = b""
            while b"\r\n\r\n" not in reply and (chunk := s.recv(65536)):
                reply += chunk
    head = reply.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
    assert head.split(" ", 2)[1] == str(status), head[:200]
    for name in security_headers():
        assert f"\r\n{name.lower()}: " in head, name


def test_a_taken_port_is_one_line_and_exit_2(tmp_path):
    import socket
    import subprocess
    import sys
    from pathlib import Path
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    exe = str(Path(sys.executable).with_name("citavial"))
    try:
        proc = subprocess.run([exe, "serve", "--port", str(port), "--dist",
                               str(make_state(tmp_path).dist_dir), "--no-model"],
                              capture_output=True, text=True, timeout=120)
    finally:
        taken.close()
    assert proc.returncode == 2, proc.stderr[-800:]
    errors = [ln for ln in proc.stderr.splitlines() if "citavial serve: error" in ln]
    assert len(errors) == 1 and str(port) in errors[0] and "Traceback" not in proc.stderr
