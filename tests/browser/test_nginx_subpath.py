"""The published site under a sub-path, behind Debian's nginx (installed by tests/run_all.sh):
a `--base-url …/rgc/` build served by deploy/nginx-rgc.conf on 127.0.0.1, read by Chromium —
pages, styles, search, deep links, the service worker (scoped to /rgc/) and the 404 page all
work there; precompressed files and the cache and security headers come from nginx."""

from __future__ import annotations

import gzip
import http.client
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from nginx_run import start_nginx
from support import ROOT, WAIT_S

from citavial.build.headers import csp
from citavial.build.web.assets import asset

pytestmark = [pytest.mark.browser, pytest.mark.slow]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
SNIPPET = ROOT / "deploy" / "nginx-rgc.conf"


@pytest.fixture(scope="module")
def nginx(published_site, tmp_path_factory):
    if not Path(NGINX).exists():
        pytest.fail("nginx is missing: run `apt-get install -y nginx` (tests/run_all.sh does)")
    prefix = tmp_path_factory.mktemp("nginx")
    location = SNIPPET.read_text().replace("/srv/citavial/dist/", f"{published_site}/")
    temp = " ".join(f"{k}_temp_path {prefix}/{k};" for k in
                    ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))

    def conf(port: int) -> str:
        return f"""
user root; daemon off; worker_processes 1; pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 64; }}
http {{ access_log off; {temp}
  server {{ listen 127.0.0.1:{port}; server_name localhost;
{location}
  }}
}}
"""
    proc, port = start_nginx(NGINX, prefix, conf)
    yield f"http://127.0.0.1:{port}", published_site
    proc.terminate()
    proc.wait(timeout=WAIT_S)


def get(base: str, path: str, headers: dict | None = None):
    c = http.client.HTTPConnection(base.removeprefix("http://"), timeout=WAIT_S)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def test_nginx_headers_gzip_and_404(nginx):
    base, dist = nginx
    status, h, body = get(base, "/rgc/anexoI-5.html", {"Accept-Encoding": "gzip"})
    assert status == 200 and h["content-encoding"] == "gzip"
    assert gzip.decompress(body) == (dist / "anexoI-5.html").read_bytes()
    assert h["cache-control"] == "no-cache" and h["content-security-policy"] == csp()
    assert h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "same-origin"
    app_js = asset(dist, "static/app.js").relative_to(dist).as_posix()
    status, h, _ = get(base, f"/rgc/{app_js}")
    assert h["cache-control"] == "public, max-age=31536000, immutable"
    assert h["content-security-policy"] == csp() and h["content-type"].startswith("text/javascript")
    status, h, body = get(base, "/rgc/art999.html")
    assert status == 404 and "Página no encontrada" in body.decode("utf-8")
    status, h, _ = get(base, "/rgc/manifest.webmanifest")
    assert h["content-type"].startswith("application/manifest+json")


def test_site_works_under_the_sub_path(nginx, browser):
    base, dist = nginx
    ctx = browser.new_context(viewport={"width": 412, "height": 915}, is_mobile=True,
                              service_workers="allow")   # its scope under the sub-path
    ctx.route(lambda url: not url.startswith(base), lambda route: route.abort())   # loopback only
    page = ctx.new_page()
    failed: list[str] = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.on("console", lambda m: failed.append(m.text) if "Content Security" in m.text else None)
    try:
        page.goto(f"{base}/rgc/")
        page.click("a[href='art48.html']")
        page.wait_for_url(f"{base}/rgc/art48.html")
        assert page.evaluate("getComputedStyle(document.body).margin") == "0px"
        page.goto(f"{base}/rgc/buscar.html?q={quote('velocidad máxima en autopista')}")
        page.wait_for_selector("#buscar-resultados li a")
        page.click("#buscar-resultados li a >> nth=0")
        page.wait_for_function("() => document.querySelector(':target') !== null")
        assert page.url.startswith(f"{base}/rgc/art")
        scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
        assert scope == f"{base}/rgc/"
        page.goto(f"{base}/rgc/no/existe/aqui.html")
        assert page.inner_text("h1") == "Página no encontrada"
        assert page.evaluate("getComputedStyle(document.body).margin") == "0px"   # /rgc/static/…
        ctx.set_offline(True)
        page.goto(f"{base}/rgc/art18.html")
        assert page.inner_text("h1 .unit-label") == "Artículo 18"
    finally:
        ctx.close()
    assert failed == []
