"""Shared pieces of the adversarial worker tests: the real worker (real index, real allowlist,
real default model) on 127.0.0.1, and checks every answer must pass whatever was asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import built_site_dir
from worker_helpers import ask_sse, parse_sse

from citavial.build.refs import Ref
from citavial.worker.answer.ask import SOURCES

FORBIDDEN_IN_TEXT = ("http", "www.", "<", "[[", "#art", "://")


def load_entries(path: Path | None = None) -> dict[str, dict]:
    """Allowlist entries by ref (default: the allowlist of THE built site of the test run)."""
    doc = json.loads((path or built_site_dir() / "allowlist.json").read_text(encoding="utf-8"))
    return {e["ref"]: e for e in doc["entries"]}


def _offered(sources: list[dict]) -> set[str]:
    """The passages "No lo tengo claro" offers, a list's lead-in and its items counted as one
    (worker/answer/beside.py ``nearest``: a letter is shown after its lead-in, and for a
    "¿cuándo…?" question with its whole list): at most SOURCES of them."""
    refs = {s["ref"] for s in sources}
    out = set()
    for ref in refs:
        parent = Ref.parse(ref).parent
        out.add(str(parent) if parent is not None and str(parent) in refs else ref)
    return out


def assert_contract(events: list[tuple[str, dict]], entries: dict[str, dict]) -> dict:
    """Every answer, whatever the question: contract order, allowlisted citations only (span a
    substring of the quote), no link/ref/markup in generated text. Returns the ``done`` data."""
    names = [n for n, _ in events]
    assert "error" not in names, events
    assert names[0] == "sources" and names[-1] == "done", names
    done = events[-1][1]
    mode, body = done["mode"], names[1:-1]
    if mode == "abstained":
        assert body == ["abstain"], names
        ab = events[1][1]
        assert ab["outcome"] == done["outcome"] in ("unsure", "not_regulated")
        assert len(_offered(events[0][1]["sources"])) <= SOURCES and "_" not in ab["message"]
        for p in ab["passages"]:
            e = entries[p["ref"]]
            assert p["url"] == e["url"] and p["quote"] == e["text"]
    else:
        assert mode in ("generated", "extractive"), mode
        assert body[0] == "answer" and body[-1] == "citations", names
        assert set(body[1:-1]) <= {"token", "keep", "retract"}, names
        answer = events[1][1]
        cited = events[-2][1]["citations"]
        assert answer["text"] and cited[0]["span"] in cited[0]["quote"]
        assert cited[0]["span_url"].startswith(cited[0]["url"].split(":~:")[0])
    if mode == "extractive":
        # nothing the model wrote survived: every sentence it sent was retracted
        said = {d["s"] for n, d in events if n == "token"}
        gone = {d["s"] for n, d in events if n == "retract"}
        assert said <= gone, (said, gone)
    sources = {s["n"]: s for s in events[0][1]["sources"]}
    for s in sources.values():
        e = entries[s["ref"]]
        assert s["url"] == e["url"] and s["label"] == e["label"]
    for name, data in events:
        if name == "token":
            if "text" in data:
                low = data["text"].lower()
                for bad in FORBIDDEN_IN_TEXT:
                    assert bad not in low, (bad, data)
            else:
                assert data["cite"] == 1, data   # the answer's own passage only
        if name == "citations":
            assert data["citations"], data
            for c in data["citations"]:
                e = entries.get(c["ref"])
                assert e is not None, f"citation outside the allowlist: {c['ref']}"
                assert c["url"] == e["url"] and c["quote"] == e["text"], c["ref"]
                assert c["source_url"] == e["source_url"] and c["label"] == e["label"]
    return done


@pytest.fixture(scope="session")
def real_state():
    """The worker's state as `citavial serve` loads it: the built site, its index, the real
    model."""
    from citavial.worker.http.serve import load_state
    state = load_state(built_site_dir(), ask_per_minute=0, max_waiting=8, model_lead=True)
    if state.deps is None or state.deps.model is None:
        pytest.fail("the real model did not load: run `.venv/bin/citavial model-setup` "
                    f"({state.unavailable or state.deps.model_status.reason})")
    return state


@pytest.fixture(scope="session")
def real_worker(real_state):
    """(port, state) of the real worker on 127.0.0.1."""
    from citavial.worker.http.serve import ServerThread
    srv = ServerThread(real_state, threads=8).__enter__()
    yield srv.server.effective_port, real_state
    srv.stop()


@pytest.fixture(scope="session")
def site_worker():
    """(port, state) of the worker as `citavial serve` starts it on the built site (real index,
    real allowlist, real HTTP server on 127.0.0.1) but without loading the model: for tests of
    the HTTP layer, which never reaches the model."""
    from citavial.worker.http.serve import ServerThread, load_state
    state = load_state(built_site_dir(), ask_per_minute=0, max_waiting=8, load_llm=False)
    assert state.deps is not None, state.unavailable
    srv = ServerThread(state, threads=8).__enter__()
    yield srv.server.effective_port, state
    srv.stop()


@pytest.fixture(scope="session")
def entries() -> dict[str, dict]:
    return load_entries()


class _Checks:
    ask = staticmethod(ask_sse)
    parse_sse = staticmethod(parse_sse)
    assert_contract = staticmethod(assert_contract)
    load_entries = staticmethod(load_entries)


@pytest.fixture(scope="session")
def chk() -> _Checks:
    """The helpers above as a fixture (test modules cannot import this conftest by name)."""
    return _Checks()


@pytest.fixture(scope="session")
def adv_browser(browser):
    """The session's one Chromium (tests/conftest.py)."""
    return browser
