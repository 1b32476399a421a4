"""Fixtures for real-browser tests: a loopback HTTP server and Debian's Chromium via Playwright.

Nothing leaves the machine: pages are served from a temp dir on 127.0.0.1 (port 0), and
Chromium is launched from /usr/bin/chromium (``apt-get install -y chromium``); Playwright never
downloads a browser here.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: shared case tables

from support import QuietHandler as _QuietHandler  # noqa: E402 - after the path it needs


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("site")


@pytest.fixture(scope="session")
def base_url(site_dir: Path) -> Iterator[str]:
    """``site_dir`` served over HTTP on 127.0.0.1 (ThreadingHTTPServer, ephemeral port)."""
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="test-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def publish(site_dir: Path, base_url: str) -> Callable[[str, str], str]:
    """Write ``html`` as ``name`` under the served dir and return its URL."""
    def _publish(name: str, html: str) -> str:
        (site_dir / name).write_text(html, encoding="utf-8")
        return f"{base_url}/{name}"
    return _publish


@pytest.fixture(scope="session")
def page(browser):
    """One tab for the session; tests navigate to about:blank between links."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tab = context.new_page()
    yield tab
    context.close()


@pytest.fixture(scope="session")
def served_site(built_site: Path) -> Iterator[tuple[Path, str]]:
    """THE built site (tests/conftest.py: built_site), served on 127.0.0.1: (dist, base URL)."""
    out = built_site
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(_QuietHandler, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, name="site-http", daemon=True)
    thread.start()
    try:
        yield out, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
