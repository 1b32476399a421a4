"""Issue 26, worker side: what any web page or local process can send to the worker must stay
bounded (metrics size, connections), and must not reach it cross-site. Each test reproduces the
attack first (bounded in count, loopback only), then asserts the worker's behaviour."""

from __future__ import annotations

import pytest
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
