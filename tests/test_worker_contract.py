"""The SSE contract, pinned by snapshots (tests/snapshots/worker_sse/*.txt).

Each scenario runs the real pipeline with a scripted model, a fixed three-entry allowlist and a
clock that advances 1 ms per reading, and compares the exact bytes a client receives. A change
to the contract shows up as a diff here; regenerate deliberately with
``CITAVIAL_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/test_worker_contract.py`` and update
docs/answers.md to match.
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

from citavial.worker.answer.abstain import GateModel
from citavial.worker.answer.ask import Deps, answer
from citavial.worker.answer.calibration import Calibration
from citavial.worker.http.app import sse_event
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt

SNAPSHOTS = Path(__file__).parent / "snapshots" / "worker_sse"
REFS = ["RD-1428/2003#art18.2", "RD-1428/2003#art48.1.a", "RD-1428/2003#art50.1"]
GATE = Calibration(gate=GateModel(("overlap_top",), (0.0,), (1.0,), (1.0,), 0.0, 0.5),
                   support_threshold=0.6, calibrated=True, index_version="fixed-1", floor=0.0)

SCENARIOS = {
    # name: (prompt file, model pieces or None, evidence, question, model lead on)
    "answer-extractive": ("answer-completion.md", None, 1.0,
                          "¿Se puede conducir con auriculares?", False),
    "answer-options": ("answer-completion.md", None, 1.0,
                       "¿Qué está prohibido?\na) Auriculares o instrumentos similares "
                       "conectados a aparatos.\nb) Conducir con gafas.\nc) Escuchar la radio.", False),
    "answer-options-undecided": ("answer-completion.md", None, 1.0,
                                 "¿Qué está prohibido?\na) Conducir con auriculares conectados "
                                 "a un reproductor.\nb) Conducir con gafas.\nc) Escuchar la "
                                 "radio.", False),
    "answer-table": ("answer-completion.md", None, 1.0,
                     "¿Velocidad máxima de un turismo en autopista?", False),
    "lead-with-retraction": ("answer-chat.md", [
        "Queda prohibido conducir utilizando auriculares", " [[REF:1]]. ",
        "En autopista se puede ir a 130 km/h [[REF:1]]."], 1.0, "¿Auriculares?", True),
    "lead-prefilled-slot": ("answer-completion.md", [
        " Queda", " prohibido", " conducir", " utilizando", " auriculares", "."], 1.0,
        "¿Se puede conducir con auriculares?", True),
    "unsure": ("answer-chat.md", ["never"], 0.1, "¿Cómo se hace una paella?", True),
    "not-regulated": ("answer-chat.md", ["never"], -1.0, "¿Cómo se hace una tortilla?", True),
    "guard-cut": ("answer-chat.md", ["Según ", "[enlace](http://x.es)", " y más"], 1.0,
                  "¿Auriculares?", True),
}
TABLE = {"RD-1428/2003#art48.1.a": [
    [("", False), ("Turismos y motocicletas", True)], [("En autopistas y autovías", False),
                                                        ("120", False)]]}


class TableRetriever(FixedRetriever):
    """The fixed retriever, with the speed table of art. 48.1.a (as the real index has it)."""

    def table(self, ref):
        return TABLE.get(ref, [])


@pytest.fixture(scope="module")
def allow(tmp_path_factory):
    return fixed_allowlist(tmp_path_factory.mktemp("contract"))


def run(allow, name: str) -> str:
    prompt_file, pieces, evidence, question, lead = SCENARIOS[name]
    model = None if pieces is None else ScriptedModel(pieces)
    status = SCRIPTED_STATUS if model else SCRIPTED_STATUS.__class__(
        False, "completion", None, None, None, "extractive answers (the default)")
    refs = [REFS[1], REFS[0], REFS[2]] if name == "answer-table" else REFS
    deps = Deps(TableRetriever(allow, refs, evidence), allow,
                load_prompt(PROMPTS_DIR / prompt_file), model, status, GATE, model_lead=lead)
    return b"".join(sse_event(e) for e in answer(question, deps, clock=StepClock())).decode()


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
    "answer": {"outcome", "label", "cite", "kind", "text", "emphasis", "lead_in", "exception",
               "table", "option", "before", "items", "after", "clarify"},
    "token": None,   # {"s", "text"} or {"s", "cite"}
    "keep": {"s", "support", "cites"},
    "retract": {"s", "reason", "support", "cites", "missing_numbers"},
    "citations": {"extractive", "label", "citations"},
    "abstain": {"outcome", "message", "passages", "decision"},
    "done": {"answered", "mode", "outcome", "kind", "sentences", "guard", "latency_ms", "model",
             "prompt", "index_version", "backend", "allowlist", "decision"},
}
# norm, boe_id, consolidated: copied from the allowlist like every other field
CITATION_KEYS = {"n", "ref", "label", "url", "quote", "source_url", "source_license", "as_of",
                 "norm", "boe_id", "consolidated"}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_event_has_the_documented_shape(allow, name):
    events = parse_sse(run(allow, name))
    seen = []
    for event, body in events:
        seen.append(event)
        keys = EVENT_KEYS[event]
        if event == "token":
            assert set(body) in ({"s", "text"}, {"s", "cite"})
        else:
            assert set(body) == keys, event
        if event == "citations":
            first, *rest = body["citations"]
            assert set(first) == CITATION_KEYS | {"span", "span_url"}
            assert all(set(c) - {"span", "span_url"} == CITATION_KEYS for c in rest)
            for c in body["citations"]:   # the norm fields are the allowlist's, not the model's
                e = allow.get(c["ref"])
                assert (c["norm"], c["boe_id"], c["consolidated"]) == \
                    (e.norm, e.boe_id, e.consolidated)
    assert seen[0] == "sources" and seen[-1] == "done"
    done = events[-1][1]
    assert set(done["latency_ms"]) == {"sources", "first_token", "total"}
    assert {"file", "sha256"} <= set(done["model"]) and {"id", "version"} <= set(done["prompt"])
