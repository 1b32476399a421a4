"""Start Debian's nginx on a free loopback port for a test (the sub-path and scale-out tests).

A free port is found by binding port 0 and closing the socket, so nginx binds it a moment later.
In that gap another process may take it -- under pytest-xdist a browser on another worker opens
outgoing loopback connections from the same port range -- and nginx then fails to bind. So the
start is retried on a fresh port. nginx writes its pid file only after binding every listen
socket, so the pid file (not a connection, which a stranger on the port could accept) says the
server is ours."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from typing import Callable

import pytest
from support import WAIT_S

TRIES = 5


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(nginx: Path | str, prefix: Path, conf: Callable[[int], str],
                timeout: float = WAIT_S) -> tuple[subprocess.Popen, int]:
    """nginx running ``conf(port)`` (which must write its pid to ``prefix/nginx.pid``), and port."""
    errors = []
    for _ in range(TRIES):
        port = free_port()
        pid = prefix / "nginx.pid"
        pid.unlink(missing_ok=True)
        (prefix / "nginx.conf").write_text(conf(port))
        proc = subprocess.Popen([str(nginx), "-p", str(prefix), "-c", str(prefix / "nginx.conf"),
                                 "-e", str(prefix / "error.log")], stderr=subprocess.PIPE, text=True)
        if _listening(proc, pid, port, timeout):
            return proc, port
        if proc.poll() is None:
            proc.kill()
        proc.wait(WAIT_S)
        log = (prefix / "error.log").read_text(errors="replace") if (prefix / "error.log").exists() else ""
        errors.append(f"port {port}: {proc.stderr.read()}{log}".strip())
        if "Address already in use" not in errors[-1]:
            break   # not the port race: retrying would not help
    pytest.fail("nginx did not start:\n" + "\n".join(errors))


def _listening(proc: subprocess.Popen, pid: Path, port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if pid.exists():
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return True
            except OSError:
                pass
        time.sleep(0.05)
    return False
