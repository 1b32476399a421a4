"""The load script (tests/bench/load_worker.py) with small numbers against a real `citavial
serve` subprocess on 127.0.0.1: 20 concurrent clients, no request lost or left hanging, no 5xx
but the deliberate 503 (queue full), and the worker's memory sampled."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = [pytest.mark.adversarial, pytest.mark.slow]
SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "load_worker.py"


def _load():
    spec = importlib.util.spec_from_file_location("load_worker", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("rate", [pytest.param(0, id="unlimited"),
                                  pytest.param(20, id="rate-limited")])
def test_load_script_small_run(rate):
    s = _load().run(clients=20, requests=60, ask_every=6, timeout=120, rate=rate, queue=2)
    assert s["requests"] == 60 and s["lost"] == 0, s["lost_examples"]
    assert s["unexpected_5xx"] == 0, s["codes"]
    assert sum(s["codes"].values()) == 60
    allowed = {"search 200", "ask 200", "ask 503", "ask 429", "search 429"}
    assert set(s["codes"]) <= allowed, s["codes"]
    assert s["codes"].get("search 200", 0) > 0 and s["codes"].get("ask 200", 0) >= 1
    if rate:
        assert s["codes"].get("ask 429", 0) + s["codes"].get("search 429", 0) > 0, s["codes"]
    assert s["rss_mb"]["samples"] > 0 and 0 < s["rss_mb"]["max"] < 2048
