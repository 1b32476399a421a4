"""The suite's loopback static server (support.QuietHandler) says nothing when a client hangs up
mid-response -- what Chromium does whenever a page navigates away, a fetch is aborted or a tab
closes, which printed dozens of BrokenPipeError tracebacks into a CI log -- and still reports
any other error. Deterministic: the client resets the connection before the server reads it."""

from __future__ import annotations

import contextlib
import functools
import io
import socket
import struct
from http.server import HTTPServer, SimpleHTTPRequestHandler
from pathlib import Path

import pytest
from support import QuietHandler

BIG = 8 << 20   # far more than the socket buffers hold: the server is still writing at the reset


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("quiet")
    (where / "big.bin").write_bytes(b"x" * BIG)
    return where


def _serve_one(handler, site: Path, hang_up: bool) -> str:
    """What the server printed (stderr) while serving one GET of big.bin; with ``hang_up`` the
    client resets the connection (SO_LINGER 0) right after sending the request."""
    server = HTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    server.timeout = 60   # handle_request() returns even if no connection came: never a hang
    try:
        client = socket.create_connection(server.server_address[:2], timeout=60)
        client.sendall(b"GET /big.bin HTTP/1.0\r\n\r\n")
        if hang_up:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            client.close()
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            server.handle_request()
        if not hang_up:
            client.close()
        return err.getvalue()
    finally:
        server.server_close()


def test_the_stdlib_handler_prints_a_traceback_when_the_client_hangs_up(site):
    """The control: the situation is real, and it is what the quiet handler is for."""
    printed = _serve_one(SimpleHTTPRequestHandler, site, hang_up=True)
    assert "Exception occurred during processing of request" in printed
    assert "BrokenPipeError" in printed or "ConnectionResetError" in printed, printed


def test_the_quiet_handler_prints_nothing_when_the_client_hangs_up(site):
    assert _serve_one(QuietHandler, site, hang_up=True) == ""


class _Broken(QuietHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        raise RuntimeError("a bug in a test server")


def test_the_quiet_handler_still_reports_any_other_error(site):
    printed = _serve_one(_Broken, site, hang_up=False)
    assert "Exception occurred during processing of request" in printed
    assert "RuntimeError: a bug in a test server" in printed
