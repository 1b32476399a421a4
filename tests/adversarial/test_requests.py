"""Bad requests against the real worker on 127.0.0.1: each gets a 4xx in the one error shape
{"ok": false, "error": …, "status": …} (or, for absurd headers, a refusal — never a 5xx,
never a hang). Rate limit → 429 + Retry-After; full queue → 503 + Retry-After."""

from __future__ import annotations

import http.client
import json
import socket
import threading

import pytest
from support import WAIT_S
from worker_helpers import SCRIPTED_STATUS, TEST_CALIBRATION, FixedRetriever, fixed_allowlist

from citavial.worker.answer.ask import Deps
from citavial.worker.http.app import WorkerState
from citavial.worker.http.limits import InferenceSlot, RateLimiter
from citavial.worker.http.serve import ServerThread
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt

pytestmark = pytest.mark.adversarial


def request(port, method, path, body=None, headers=None, timeout=WAIT_S):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def assert_error_shape(status, raw, expected):
    assert status == expected, (status, raw[:300])
    doc = json.loads(raw.decode("utf-8"))
    assert set(doc) == {"ok", "error", "status"}, doc
    assert doc["ok"] is False and doc["status"] == expected
    assert isinstance(doc["error"], str) and len(doc["error"]) > 10
    return doc["error"]


JSON = {"Content-Type": "application/json"}
BAD_BODIES = [
    pytest.param(b"", JSON, 400, "not valid JSON", id="empty-body"),
    pytest.param(b"\xff\xfe\x00\x01binary\x80", JSON, 400, "not valid UTF-8", id="binary"),
    pytest.param('{"question": "caf\xe9 latino"}'.encode("latin-1"), JSON, 400, "UTF-8",
                 id="latin1-not-utf8"),
    pytest.param(b'{"question": "abc', JSON, 400, "not valid JSON", id="truncated-json"),
    pytest.param(b"{'question': 'hola que tal'}", JSON, 400, "not valid JSON",
                 id="single-quotes"),
    pytest.param(b'["question", "hola"]', JSON, 400, "JSON object", id="json-array"),
    pytest.param(b'"hola que tal"', JSON, 400, "JSON object", id="json-string"),
    pytest.param(b"null", JSON, 400, "JSON object", id="json-null"),
    pytest.param(b'{"q": "hola que tal"}', JSON, 400, '"question"', id="missing-field"),
    pytest.param(b'{"question": "hola que tal", "admin": true}', JSON, 400, "unknown field",
                 id="extra-field"),
    pytest.param(b'{"question": 42}', JSON, 400, "must be a string", id="number-question"),
    pytest.param(b'{"question": ["a", "b", "c"]}', JSON, 400, "must be a string",
                 id="list-question"),
    pytest.param(b'{"question": "ab"}', JSON, 400, "between 3 and 500", id="too-short"),
    pytest.param(b'{"question": "      "}', JSON, 400, "between 3 and 500", id="blank"),
    pytest.param(json.dumps({"question": "a" * 501}).encode(), JSON, 400, "between 3 and 500",
                 id="too-long"),
    pytest.param(b'{"question": "\\ud800 hola"}', JSON, 400, "control character",
                 id="lone-surrogate"),
    pytest.param(b'{"question": "hola que tal"}', {"Content-Type": "text/plain"}, 400,
                 "application/json", id="wrong-content-type"),
    pytest.param(json.dumps({"question": "x" * 9000}).encode(), JSON, 413, "too large",
                 id="oversized-9kb"),
    pytest.param(b"{" + b" " * (2 * 1024 * 1024) + b"}", JSON, 413, "too large",
                 id="oversized-2mb"),
]


@pytest.mark.parametrize("body, headers, expected, words", BAD_BODIES)
def test_bad_bodies_get_4xx_in_the_error_shape(site_worker, body, headers, expected, words):
    port, _ = site_worker
    status, _, raw = request(port, "POST", "/api/ask", body, headers)
    assert words in assert_error_shape(status, raw, expected)




@pytest.mark.parametrize("method, path, expected", [
    # regression: GET /api/ask fell through to the static catch-all and answered 404
    pytest.param("GET", "/api/ask", 405, id="GET-ask"),
    pytest.param("PUT", "/api/ask", 405, id="PUT-ask"),
    pytest.param("DELETE", "/api/ask", 405, id="DELETE-ask"),
    pytest.param("POST", "/api/search", 405, id="POST-search"),
    pytest.param("GET", "/api/nothing", 404, id="unknown-endpoint"),
])
def test_wrong_methods_and_paths(site_worker, method, path, expected):
    port, _ = site_worker
    status, headers, raw = request(port, method, path)
    message = assert_error_shape(status, raw, expected)
    if expected == 405:
        assert method in message and path in message


@pytest.mark.parametrize("method, path, allow", [
    pytest.param("GET", "/api/ask", "POST", id="GET-ask"),
    pytest.param("PUT", "/api/ask", "POST", id="PUT-ask"),
    pytest.param("DELETE", "/api/ask", "POST", id="DELETE-ask"),
    pytest.param("POST", "/api/search", "GET", id="POST-search"),
])
def test_405_names_the_allowed_methods(site_worker, method, path, allow):
    port, _ = site_worker
    status, headers, _ = request(port, method, path)
    assert status == 405 and allow in headers.get("allow", ""), headers


@pytest.mark.parametrize("query, words", [
    pytest.param("/api/search", "'q' has 0 characters", id="search-no-q"),
    pytest.param("/api/search?q=velocidad&k=0", "'k'", id="search-k-zero"),
    pytest.param("/api/search?q=velocidad&k=-1", "'k'", id="search-k-negative"),
    pytest.param("/api/search?q=velocidad&k=%EF%BC%95", "'k'", id="search-k-fullwidth-5"),
    pytest.param("/api/search?q=velocidad&k=99999999999999999999", "'k'", id="search-k-huge"),
    pytest.param("/api/search?q=hola%00que", "control character", id="search-nul"),
    pytest.param("/api/search?q=%FF%FE%FD", "", id="search-invalid-utf8"),
])
def test_bad_search_arguments(site_worker, query, words):
    port, _ = site_worker
    status, _, raw = request(port, "GET", query)
    assert status < 500, (status, raw[:200])
    if status != 200:
        assert words in assert_error_shape(status, raw, 400)
    else:   # invalid UTF-8 is decoded with replacement characters: a legal, harmless query
        doc = json.loads(raw)
        assert doc["ok"] is True


def test_64kb_header_is_served_or_refused_without_5xx(site_worker):
    port, _ = site_worker
    status, _, raw = request(port, "GET", "/health", headers={"X-Big": "a" * 64 * 1024})
    assert status in (200, 400, 413, 431), status
    if status == 200:
        assert json.loads(raw)["ok"] is True


def test_1mb_of_headers_is_refused_and_the_server_stays_up(site_worker):
    port, _ = site_worker
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
    try:
        head = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(
            b"X-H%d: %s\r\n" % (i, b"b" * 1000) for i in range(1024)) + b"\r\n"
        try:
            sock.sendall(head)
            reply = sock.recv(4096)
        except (ConnectionResetError, BrokenPipeError):
            reply = b""   # refused by closing the connection: acceptable
    finally:
        sock.close()
    if reply:
        code = int(reply.split(b" ", 2)[1])
        assert 400 <= code < 500, reply[:200]
    status, _, _ = request(port, "GET", "/health")
    assert status == 200


def test_slow_partial_request_does_not_block_others(site_worker):
    """A client that sends half a request and stalls holds no worker thread hostage: the
    search is answered while the stalled requests still hold their connections, not once the
    worker's request deadline (connguard, 15 s) has cut them -- whatever the machine's speed,
    so the check is on the sockets, not on a time."""
    port, _ = site_worker
    stalled = [socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) for _ in range(10)]
    try:
        for s in stalled:
            s.sendall(b"POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{\"qu")
        status, _, raw = request(port, "GET", "/api/search?q=velocidad%20autopista&k=3")
        assert status == 200 and json.loads(raw)["hits"]
        assert all(_still_open(s) for s in stalled), "answered only once the stalled were cut"
    finally:
        for s in stalled:
            s.close()


def _still_open(sock: socket.socket) -> bool:
    """Whether the server still holds ``sock`` open without having answered on it (looked at
    now: a socket with a timeout would first wait up to it for something to read)."""
    sock.setblocking(False)
    try:
        sock.recv(1)   # data or end of stream: answered, or closed
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


# ---- admission control, with a scripted model so the timing is ours ----

class GatedModel:
    def __init__(self, pieces):
        self.pieces, self.release, self.started = pieces, threading.Event(), threading.Event()

    def stream(self, request):
        for i, p in enumerate(self.pieces):
            if i:
                self.started.set()
                self.release.wait(WAIT_S)   # the test releases it; a bound for a broken test
            yield p


@pytest.fixture()
def scripted_server(tmp_path):
    servers = []

    def start(model, limiter, max_waiting):
        allow = fixed_allowlist(tmp_path)
        refs = ["RD-1428/2003#art18.2", "RD-1428/2003#art48.1.a", "RD-1428/2003#art50.1"]
        deps = Deps(FixedRetriever(allow, refs), allow,
                    load_prompt(PROMPTS_DIR / "answer-chat.md"), model, SCRIPTED_STATUS,
                    TEST_CALIBRATION, model_lead=True)
        state = WorkerState(dist_dir=tmp_path, deps=deps, ask_limiter=limiter,
                            slot=InferenceSlot(max_waiting))
        srv = ServerThread(state, threads=6).__enter__()
        servers.append(srv)
        return srv.server.effective_port, state
    yield start
    for s in servers:
        s.stop()


ASK = json.dumps({"question": "¿Puedo conducir con auriculares?"}).encode()
PIECES = ["Queda prohibido conducir utilizando auriculares", " [[REF:1]]", "."]


def test_rate_limit_gives_429_with_retry_after(scripted_server):
    model = GatedModel(PIECES)
    model.release.set()
    port, state = scripted_server(model, RateLimiter(2, 2), 4)
    codes = [request(port, "POST", "/api/ask", ASK, JSON)[0] for _ in range(2)]
    assert codes == [200, 200]
    status, headers, raw = request(port, "POST", "/api/ask", ASK, JSON)
    assert "try again" in assert_error_shape(status, raw, 429)
    assert int(headers["retry-after"]) >= 1
    assert request(port, "GET", "/health")[0] == 200   # exempt
    assert state.metrics.value("citavial_rate_limited_total") == 1


def test_full_queue_gives_503_with_retry_after(scripted_server):
    model = GatedModel(PIECES)
    port, state = scripted_server(model, RateLimiter(0, 1), 0)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
    conn.request("POST", "/api/ask", body=ASK, headers=JSON)
    first = conn.getresponse()
    assert first.status == 200
    assert model.started.wait(WAIT_S)   # the first answer holds the model
    try:
        status, headers, raw = request(port, "POST", "/api/ask", ASK, JSON)
        assert "queue full" in assert_error_shape(status, raw, 503)
        assert headers["retry-after"] == "2"
        assert state.metrics.value("citavial_queue_full_total") == 1
    finally:
        model.release.set()
        first.read()
        conn.close()
    assert request(port, "POST", "/api/ask", ASK, JSON)[0] == 200   # the place came back


@pytest.mark.parametrize("origin, allowed", [
    pytest.param("http://evil.example", False, id="foreign-origin"),
    pytest.param("http://127.0.0.1.evil.example", False, id="lookalike-origin"),
    pytest.param("http://localhost.evil.example:8000", False, id="lookalike-localhost"),
    pytest.param("null", False, id="null-origin-unless-configured"),   # sandboxed iframes too
    pytest.param("https://localhost", False, id="other-scheme-localhost"),
    pytest.param("http://127.0.0.1:9999", False, id="other-local-port-unless-configured"),
])
def test_cors_only_for_configured_origins(site_worker, origin, allowed):
    """issue 26.7: no origin gets CORS by default (the site served here is same-origin)."""
    port, _ = site_worker
    status, headers, _ = request(port, "OPTIONS", "/api/ask", headers={
        "Origin": origin, "Access-Control-Request-Method": "POST"})
    assert status == 204
    assert (headers.get("access-control-allow-origin") == origin) is allowed, headers
    if not allowed:
        assert "access-control-allow-origin" not in headers


@pytest.mark.parametrize("path", [
    pytest.param("/../pyproject.toml", id="dotdot"),
    pytest.param("/%2e%2e/pyproject.toml", id="encoded-dotdot"),
    pytest.param("/static/..%2f..%2fpyproject.toml", id="encoded-slash"),
    pytest.param("//etc/passwd", id="double-slash-absolute"),
    pytest.param("/%2fetc%2fpasswd", id="encoded-absolute"),
])
def test_static_files_do_not_escape_dist(site_worker, path):
    port, _ = site_worker
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
    try:   # raw request line: no client-side normalisation of the path
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    finally:
        sock.close()
    code = int(reply.split(b" ", 2)[1])
    assert code in (400, 404), reply[:200]
    assert b"root:" not in reply and b"[project]" not in reply
