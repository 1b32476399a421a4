"""Graceful stop (worker/http/drain.py), on a real `citavial serve` process and a real socket:
on SIGTERM new connections are refused at once, a connection already open is answered in full,
and the worker exits 0 once it is closed. Also: ServerThread.stop() leaves no thread behind.

Deterministic: every wait is for a condition, with a bound that only stops a broken worker.
Behind nginx, mid-burst: tests/adversarial/test_scale_out.py.
"""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support import WAIT_S

from citavial.worker.http.app import WorkerState
from citavial.worker.http.serve import ServerThread

ROOT = Path(__file__).resolve().parents[1]
REQUEST = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def _start(dist: Path) -> tuple[subprocess.Popen, int]:
    """A worker serving an empty dist/ (static site only: starts fast, /health answers 503)."""
    proc = subprocess.Popen([sys.executable, "-m", "citavial.worker.cli", "serve", "--port", "0",
                             "--no-model", "--dist", str(dist)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    m = re.search(r"on http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        proc.kill()
        pytest.fail(f"worker did not start: {line!r}")
    return proc, int(m.group(1))


def _refused(port: int, bound: float = WAIT_S) -> bool:
    """Whether a new connection is refused within ``bound`` (SIGTERM is handled between two
    passes of the event loop, so the first attempts may still be accepted)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
        except ConnectionRefusedError:
            return True
        time.sleep(0.01)
    return False


def _accepted(port: int, bound: float = WAIT_S) -> bool:
    """Whether the worker has accepted every connection made to ``port``: the kernel shows a
    listening socket's accept queue as its rx_queue in /proc/net/tcp. A connection still queued
    when SIGTERM closes the listener is reset by the kernel, not drained — so the test waits for
    the accept before it signals (under load the event loop may not have reached it yet)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        queued = [int(f[4].split(":")[1], 16) for line in
                  Path("/proc/net/tcp").read_text().splitlines()[1:]
                  if (f := line.split()) and f[3] == "0A" and int(f[1].split(":")[1], 16) == port]
        if queued and not any(queued):
            return True
        time.sleep(0.01)
    return False


def _answer(sock: socket.socket) -> tuple[int, bytes]:
    """One whole response (http.client raises IncompleteRead on a cut body)."""
    resp = http.client.HTTPResponse(sock)
    resp.begin()
    return resp.status, resp.read()


@pytest.mark.parametrize("opened", [
    pytest.param("half-sent", id="request-half-sent-at-sigterm"),
    pytest.param("keep-alive", id="idle-keep-alive-at-sigterm"),
])
def test_sigterm_refuses_new_connections_and_finishes_the_open_one(tmp_path, opened):
    proc, port = _start(tmp_path)
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
        if opened == "keep-alive":   # one request answered, the connection kept open
            sock.sendall(REQUEST + b"\r\n")
            assert _answer(sock)[0] == 503
        else:
            sock.sendall(REQUEST)
            assert _accepted(port)
        proc.send_signal(signal.SIGTERM)
        assert _refused(port)
        assert proc.poll() is None                    # still serving the open connection
        sock.sendall((b"" if opened == "half-sent" else REQUEST) + b"Connection: close\r\n\r\n")
        status, body = _answer(sock)
        assert status == 503 and json.loads(body)["ok"] is False
        sock.close()
        assert proc.wait(WAIT_S) == 0                 # drained: exits by itself
    finally:
        if proc.poll() is None:
            proc.kill()


def test_sigterm_with_nothing_open_exits_0(tmp_path):
    proc, port = _start(tmp_path)
    try:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(WAIT_S) == 0
        assert _refused(port)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_server_thread_stop_ends_every_thread_it_started(tmp_path):
    before = set(threading.enumerate())
    state = WorkerState(dist_dir=tmp_path, deps=None, unavailable="no index", index_info={})
    with ServerThread(state, threads=3) as srv:
        with socket.create_connection(("127.0.0.1", srv.server.effective_port),
                                      timeout=WAIT_S) as s:
            s.sendall(REQUEST + b"Connection: close\r\n\r\n")
            assert _answer(s)[0] == 503
    started = set(threading.enumerate()) - before
    for thread in started:
        thread.join(WAIT_S)
    assert not [t.name for t in started if t.is_alive()]
