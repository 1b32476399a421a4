"""`citavial serve` as a web server for the built site: security headers on every response,
cache policy (immutable hashed assets, revalidated HTML), precompressed files, the Spanish
404 page, no cookies, and questions kept out of logs and metrics unless asked for."""

from __future__ import annotations

import gzip
import http.client
import json
import logging

import pytest
from support import WAIT_S
from worker_helpers import (
    SCRIPTED_STATUS,
    TEST_CALIBRATION,
    FixedRetriever,
    ScriptedModel,
    fixed_allowlist,
)

from citavial.build.headers import csp
from citavial.build.web.assets import asset
from citavial.worker.answer.ask import Deps
from citavial.worker.http.app import WorkerState
from citavial.worker.http.limits import InferenceSlot, RateLimiter
from citavial.worker.http.serve import ServerThread
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt

QUESTION = "¿Puedo llevar auriculares mientras conduzco la moto?"


def get(url: str, path: str, headers: dict | None = None):
    host, port = url.removeprefix("http://").split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=WAIT_S)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


@pytest.fixture(scope="module")
def site(built_site):
    state = WorkerState(dist_dir=built_site, deps=None, unavailable="static only (test)")
    with ServerThread(state) as srv:
        yield srv.url, built_site


@pytest.fixture()
def answering(tmp_path, built_site):
    def start(log_questions: bool):
        allow = fixed_allowlist(tmp_path)
        deps = Deps(FixedRetriever(allow, ["RD-1428/2003#art18.2"]), allow,
                    load_prompt(PROMPTS_DIR / "answer-chat.md"),
                    ScriptedModel(["Queda prohibido conducir con auriculares [[REF:1]]."]),
                    SCRIPTED_STATUS, TEST_CALIBRATION)
        state = WorkerState(dist_dir=built_site, deps=deps, ask_limiter=RateLimiter(0, 1),
                            slot=InferenceSlot(4), log_questions=log_questions)
        return ServerThread(state)
    return start


@pytest.mark.parametrize("path", ["/art48.html", "/api/search?q=ab", "/health", "/no-existe"])
def test_every_response_carries_the_security_headers(site, path):
    _, h, _ = get(site[0], path)
    assert h["content-security-policy"] == csp()
    assert h["x-content-type-options"] == "nosniff"
    assert h["referrer-policy"] == "same-origin" and h["x-frame-options"] == "SAMEORIGIN"
    assert "set-cookie" not in h


@pytest.mark.parametrize("logical, cache", [
    pytest.param("static/app.js", "public, max-age=31536000, immutable", id="hashed-js"),
    pytest.param("static/app.css", "public, max-age=31536000, immutable", id="hashed-css"),
    pytest.param("search-index.js", "public, max-age=31536000, immutable", id="search-index"),
    pytest.param("art48.html", "no-cache", id="html"),
    pytest.param("sw.js", "no-cache", id="service-worker"),
    pytest.param("manifest.webmanifest", "no-cache", id="manifest"),
])
def test_cache_policy(site, logical, cache):
    url, dist = site
    rel = asset(dist, logical).relative_to(dist).as_posix()
    status, h, _ = get(url, "/" + rel)
    assert status == 200 and h["cache-control"] == cache


def test_precompressed_twin_is_sent_only_when_accepted(site):
    url, dist = site
    plain = (dist / "anexoI-5.html").read_bytes()
    status, h, body = get(url, "/anexoI-5.html", {"Accept-Encoding": "gzip, br"})
    assert status == 200 and h["content-encoding"] == "gzip" and h["vary"] == "Accept-Encoding"
    assert h["content-type"].startswith("text/html") and gzip.decompress(body) == plain
    assert len(body) < len(plain) / 4
    status, h, body = get(url, "/anexoI-5.html", {"Accept-Encoding": "identity"})
    assert "content-encoding" not in h and body == plain
    status, h, _ = get(url, "/manifest.webmanifest")
    assert h["content-type"] == "application/manifest+json"


def test_unchanged_html_revalidates_with_a_304(site):
    url, _ = site
    _, h, _ = get(url, "/art48.html", {"Accept-Encoding": "gzip"})
    status, _, body = get(url, "/art48.html", {"Accept-Encoding": "gzip",
                                               "If-None-Match": h["etag"]})
    assert status == 304 and body == b""


@pytest.mark.parametrize("path", ["/art999.html", "/rgc/nada/", "/static/../../pyproject.toml"])
def test_missing_files_get_the_spanish_404(site, path):
    status, h, body = get(site[0], path)
    assert status == 404 and "Página no encontrada" in body.decode("utf-8")
    assert h["cache-control"] == "no-cache"


@pytest.mark.parametrize("log_questions", [False, True], ids=["default", "opt-in"])
def test_questions_stay_out_of_logs_and_metrics(answering, caplog, log_questions):
    caplog.set_level(logging.DEBUG)
    with answering(log_questions) as srv:
        host, port = srv.url.removeprefix("http://").split(":")
        c = http.client.HTTPConnection(host, int(port), timeout=WAIT_S)
        c.request("POST", "/api/ask", body=json.dumps({"question": QUESTION}).encode(),
                  headers={"Content-Type": "application/json"})
        r = c.getresponse()
        events = r.read().decode("utf-8")
        assert r.status == 200 and "event: done" in events and r.getheader("Set-Cookie") is None
        _, _, metrics = get(srv.url, "/metrics")
    assert "auriculares" not in metrics.decode("utf-8")
    logged = "\n".join(rec.getMessage() for rec in caplog.records)
    assert (QUESTION in logged) is log_questions, logged
