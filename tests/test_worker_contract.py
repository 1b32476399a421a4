"""The SSE contract, pinned by snapshots (tests/snapshots/worker_sse/*.txt).

Each scenario runs the real pipeline with a scripted model, a fixed three-entry allowlist and a
clock that advances 1 ms per reading, and compares the exact bytes a client receives. A change
to the contract shows up as a diff here; regenerate deliberately with
``CITAVIAL_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/test_worker_contract.py`` and update
worker/README.md to match.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from worker_helpers import (
    SCRIPTED_STATUS,
    FixedRetriever,
    ScriptedModel,
    StepClock,
    fixed_allowlist,
    parse_sse,
)

from citavial.worker.answer import Deps, answer
from citavial.worker.app import sse
from citavial.worker.calibration import Calibration
from citavial.worker.gate import GateModel
from citavial.worker.prompts import PROMPTS_DIR, load_prompt

SNAPSHOTS = Path(__file__).parent / "snapshots" / "worker_sse"
REFS = ["RD-1428/2003#art18.2", "RD-1428/2003#art48.1.a", "RD-1428/2003#art50.1"]
GATE = Calibration(gate=GateModel(("overlap_top",), (0.0,), (1.0,), (1.0,), 0.0, 0.5),
                   support_threshold=0.6, calibrated=True, index_version="fixed-1")

SCENARIOS = {
    # name: (prompt file, model pieces or None, evidence, question)
    "generated-with-retraction": ("answer-chat.md", [
        "Queda prohibido conducir utilizando auriculares", " [[REF:1]]. ",
        "En autopista se puede ir a 130 km/h [[REF:2]]."], 1.0, "¿Auriculares y autopista?"),
    "generated-prefilled-slot": ("answer-completion.md", [
        " Queda", " prohibido", " conducir", " utilizando", " auriculares", "."], 1.0,
        "¿Se puede conducir con auriculares?"),
    "extractive-no-model": ("answer-completion.md", None, 1.0, "¿Se puede usar auriculares?"),
    "extractive-nothing-supported": ("answer-chat.md", ["Depende", " del caso", "."], 1.0,
                                     "¿Qué pasa?"),
    "abstained": ("answer-chat.md", ["never"], 0.1, "¿Cómo se hace una paella?"),
    "guard-cut": ("answer-chat.md", ["Según ", "[enlace](http://x.es)", " y más"], 1.0,
                  "¿Enlaces?"),
}


@pytest.fixture(scope="module")
def allow(tmp_path_factory):
    return fixed_allowlist(tmp_path_factory.mktemp("contract"))


def run(allow, name: str) -> str:
    prompt_file, pieces, evidence, question = SCENARIOS[name]
    model = None if pieces is None else ScriptedModel(pieces)
    status = SCRIPTED_STATUS if model else SCRIPTED_STATUS.__class__(
        False, "completion", "/missing.gguf", "missing.gguf", None, "model file not found")
    deps = Deps(FixedRetriever(allow, REFS, evidence), allow,
                load_prompt(PROMPTS_DIR / prompt_file), model, status, GATE)
    return b"".join(sse(n, d) for n, d in answer(question, deps, clock=StepClock())).decode()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_sse_snapshot(allow, name):
    got = run(allow, name)
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("CITAVIAL_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got, encoding="utf-8")
    assert path.is_file(), f"{path} missing: run with CITAVIAL_UPDATE_SNAPSHOTS=1 once"
    assert got == path.read_text(encoding="utf-8")


EVENT_KEYS = {
    "sources": {"sources", "index_version"},
    "token": None,   # {"s", "text"} or {"s", "cite"}
    "retract": {"s", "reason", "support", "cites", "missing_numbers"},
    "citations": None,   # {"extractive", "citations"} (+ "reason", "label" when extractive)
    "abstain": {"reason", "message", "gate"},
    "done": {"answered", "mode", "abstain_reason", "extractive_reason", "sentences", "guard",
             "latency_ms", "model", "prompt", "index_version", "backend", "allowlist",
             "support_threshold", "gate"},
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_event_has_the_documented_shape(allow, name):
    events = parse_sse(run(allow, name))
    seen = []
    for event, body in events:
        seen.append(event)
        keys = EVENT_KEYS[event]
        if event == "token":
            assert set(body) in ({"s", "text"}, {"s", "cite"})
        elif event == "citations":
            assert set(body) in ({"extractive", "citations"},
                                 {"extractive", "reason", "label", "citations"})
            for c in body["citations"]:
                assert {"ref", "url", "quote", "source_url", "source_license"} <= set(c)
        else:
            assert set(body) == keys, event
    assert seen[0] == "sources" and seen[-1] == "done"
    done = events[-1][1]
    assert set(done["latency_ms"]) == {"sources", "first_token", "total"}
    assert {"file", "sha256"} <= set(done["model"]) and {"id", "version"} <= set(done["prompt"])
