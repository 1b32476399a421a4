"""tests/nginx_run.py: a port taken between picking it and nginx binding it is retried on
another, and the server found listening is nginx, never the stranger on the first port."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import nginx_run
import pytest
from support import WAIT_S

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _conf(prefix: Path):
    def conf(port: int) -> str:
        return (f"daemon off; worker_processes 1; pid {prefix}/nginx.pid;\n"
                f"error_log {prefix}/error.log warn;\nevents {{ worker_connections 16; }}\n"
                f"http {{ access_log off; client_body_temp_path {prefix}/cb; proxy_temp_path "
                f"{prefix}/px; fastcgi_temp_path {prefix}/fc; uwsgi_temp_path {prefix}/uw; "
                f"scgi_temp_path {prefix}/sc;\n  server {{ listen 127.0.0.1:{port}; "
                "return 200 \"nginx\\n\"; }\n}\n")
    return conf


def test_a_taken_port_is_retried_on_another(tmp_path, monkeypatch):
    if not Path(NGINX).exists():
        pytest.fail("nginx is missing: run `apt-get install -y nginx` (tests/run_all.sh does)")
    stranger = socket.socket()
    stranger.bind(("127.0.0.1", 0))
    stranger.listen()
    taken = stranger.getsockname()[1]
    picks = iter([taken])
    real = nginx_run.free_port
    monkeypatch.setattr(nginx_run, "free_port", lambda: next(picks, None) or real())
    try:
        proc, port = nginx_run.start_nginx(NGINX, tmp_path, _conf(tmp_path))
    finally:
        stranger.close()
    try:
        assert port != taken
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as c:
            c.sendall(b"GET / HTTP/1.0\r\n\r\n")
            assert c.recv(4096).endswith(b"nginx\n")
    finally:
        proc.terminate()
        proc.wait(WAIT_S)


def test_a_broken_config_fails_at_once_with_nginx_s_words(tmp_path):
    if not Path(NGINX).exists():
        pytest.fail("nginx is missing: run `apt-get install -y nginx` (tests/run_all.sh does)")
    with pytest.raises(pytest.fail.Exception, match="unknown directive"):
        nginx_run.start_nginx(NGINX, tmp_path, lambda port: _conf(tmp_path)(port) + "nonsense;\n")
