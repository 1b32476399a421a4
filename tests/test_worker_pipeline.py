"""The answer pipeline with a scripted model: order of events, retraction, extractive fallback,
abstention, cancellation — and the property that nothing outside the allowlist reaches a client."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from worker_helpers import (
    SCRIPTED_STATUS,
    TEST_CALIBRATION,
    FixedRetriever,
    ScriptedModel,
    fixed_allowlist,
    wire,
)

from citavial.worker.answer.abstain import GateModel
from citavial.worker.answer.ask import Deps, answer
from citavial.worker.answer.calibration import Calibration
from citavial.worker.answer.record import collect
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt

COMPLETION = load_prompt(PROMPTS_DIR / "answer-completion.md")   # 1 passage, prefilled slot
CHAT = load_prompt(PROMPTS_DIR / "answer-chat.md")               # 4 passages, slots after
REFS = ["RD-1428/2003#art18.2", "RD-1428/2003#art48.1.a", "RD-1428/2003#art50.1"]


@pytest.fixture(scope="module")
def allow(tmp_path_factory):
    return fixed_allowlist(tmp_path_factory.mktemp("allow"))


def deps_for(allow, pieces, prompt=CHAT, model=True, calibration=TEST_CALIBRATION,
             evidence=1.0, lead=True):
    return Deps(FixedRetriever(allow, REFS, evidence), allow, prompt,
                ScriptedModel(pieces) if model else None, SCRIPTED_STATUS, calibration,
                model_lead=lead)


def names(events):
    """Event names with runs of tokens shown once as "token+"."""
    out = []
    for n, _ in events:
        if n == "token" and out and out[-1] in ("token", "token+"):
            out[-1] = "token+"
        else:
            out.append(n)
    return out


def test_default_answer_is_the_words_that_answer_with_their_citation(allow):
    deps = deps_for(allow, ["nunca se llama"], lead=False)
    events = wire(answer("¿Puedo conducir con auriculares?", deps))
    assert names(events) == ["sources", "answer", "citations", "done"]
    ans = dict(events)["answer"]
    entry = allow.get(REFS[0])
    assert ans["outcome"] == "answer" and ans["text"] in entry.text and ans["cite"] == 1
    assert [ans["text"][a:b] for a, b in ans["emphasis"]] == ["Queda prohibido"]
    cit = dict(events)["citations"]["citations"][0]
    assert {k: cit[k] for k in ("ref", "url", "quote", "label", "source_url")} == {
        "ref": entry.ref, "url": entry.url, "quote": entry.text, "label": entry.label,
        "source_url": entry.source_url}
    assert cit["span"] in cit["quote"] and cit["span_url"].startswith(entry.page + "#")
    done = events[-1][1]
    assert (done["mode"], done["outcome"], done["kind"]) == ("extractive", "answer", "clause")
    assert done["model"]["in_answer_path"] is False and deps.model.requests == []


def test_lead_supported_is_kept_after_the_answer(allow):
    deps = deps_for(allow, ["Queda prohibido conducir", " utilizando auriculares",
                            " [[REF:1]]", "."])
    events = wire(answer("¿Puedo conducir con auriculares?", deps))
    assert names(events) == ["sources", "answer", "token+", "keep", "citations", "done"]
    assert dict(events)["keep"]["s"] == 0 and dict(events)["keep"]["cites"] == [1]
    assert events[-1][1]["mode"] == "generated"
    assert deps.model.requests and "[1] 2. Queda prohibido" in deps.model.requests[0]


def test_unsupported_lead_is_retracted_and_the_answer_stays_extractive(allow):
    deps = deps_for(allow, ["La velocidad en autopista es 130 km/h [[REF:1]]."])
    record = collect(answer("¿Puedo conducir con auriculares?", deps))
    assert record["retractions"] == [{"s": 0, "reason": "number_not_in_passage",
                                      "support": record["retractions"][0]["support"]}]
    assert "130" not in record["text"] and record["mode"] == "extractive"
    assert record["text"].startswith("Queda prohibido conducir utilizando")


def test_uncited_lead_sentence_is_retracted(allow):
    events = wire(answer("¿Puedo conducir con auriculares?", deps_for(allow, ["Depende."])))
    assert [n.rstrip("+") for n in names(events)] == ["sources", "answer", "token", "retract",
                                                      "citations", "done"]
    assert dict(events)["retract"]["reason"] == "uncited"


def test_prefilled_slot_prompt_cites_the_answer_passage(allow):
    deps = deps_for(allow, [" Queda", " prohibido conducir utilizando auriculares."],
                    prompt=COMPLETION)
    events = wire(answer("¿Auriculares?", deps))
    assert events[2] == ("token", {"s": 0, "cite": 1})   # the prefill's slot, with the 1st token
    assert events[-1][1]["mode"] == "generated"
    assert deps.model.requests[0].endswith("Respuesta: [[REF:1]]")


def test_one_sentence_limit_stops_generation(allow):
    pieces = [" Queda prohibido conducir utilizando auriculares.", " Otra frase.", " Y otra."]
    deps = deps_for(allow, pieces, prompt=COMPLETION)
    record = collect(answer("¿Auriculares?", deps))
    assert record["text"].startswith("Queda prohibido conducir utilizando auriculares.")
    assert "Otra frase" not in record["text"] and deps.model.closed


def test_gate_says_not_sure_with_passages_and_no_claim(allow):
    cal = Calibration(gate=GateModel(("overlap_top",), (0.0,), (1.0,), (1.0,), 0.0, 0.5),
                      support_threshold=0.6, calibrated=True, floor=-5.0)
    deps = deps_for(allow, ["nunca se llama"], calibration=cal, evidence=0.2)
    events = wire(answer("¿Cómo se hace una paella?", deps))
    assert names(events) == ["sources", "abstain", "done"]
    ab = events[1][1]
    assert ab["outcome"] == "unsure" and ab["message"].startswith("No lo tengo claro")
    assert [p["ref"] for p in ab["passages"]] == REFS[:3]
    assert events[2][1]["answered"] is False and deps.model.requests == []


def test_weak_evidence_in_every_norm_is_not_regulated_and_never_quoted(allow):
    cal = Calibration(gate=GateModel(("overlap_top",), (0.0,), (1.0,), (1.0,), -2.0, 0.5),
                      support_threshold=0.6, calibrated=True, floor=-1.0)
    deps = deps_for(allow, [], calibration=cal, evidence=0.2)
    ab = dict(wire(answer("¿Cómo se hace una tortilla?", deps)))["abstain"]
    assert ab["outcome"] == "not_regulated" and ab["passages"] == [] and "norm" not in ab
    assert all(name in ab["message"] for name in ("Reglamento General de Circulación",
                                                  "Ley sobre Tráfico", "Vehículos", "Conductores"))


def test_cancellation_stops_generation_and_sends_nothing_more(allow):
    calls = {"n": 0}

    def cancelled():
        calls["n"] += 1
        return calls["n"] > 2
    deps = deps_for(allow, ["Uno", " dos", " tres", " cuatro", " cinco"])
    events = wire(answer("¿Auriculares?", deps, cancelled=cancelled))
    assert "done" not in names(events) and "citations" not in names(events)
    assert deps.model.closed


def test_guard_cut_is_reported_in_done(allow):
    deps = deps_for(allow, ["Queda prohibido conducir utilizando auriculares [[REF:1]]. ",
                            "Ver [[REF:9]] más"])
    events = wire(answer("¿Auriculares?", deps))
    assert events[-1][1]["guard"] == {"cut": "out_of_range_slot", "token": 1}
    assert "más" not in "".join(d.get("text", "") for n, d in events if n == "token")


def test_pasted_options_get_the_option_the_passage_states(allow):
    q = ("¿Qué está prohibido al conducir?\na) Llevar gafas de sol.\n"
         "b) Cualquier tipo de casco de audio.\nc) Escuchar la radio del coche.")
    ans = dict(wire(answer(q, deps_for(allow, [], lead=False))))["answer"]
    assert ans["kind"] == "option" and ans["option"]["letter"] == "b"
    assert ans["option"]["basis"] == "stated"
    assert ans["option"]["words"] == "cualquier tipo de casco de audio"


def test_pasted_options_the_passage_does_not_state_are_not_named(allow):
    q = ("¿Qué está prohibido al conducir?\na) Llevar auriculares conectados a un reproductor.\n"
         "b) Llevar gafas de sol.\nc) Escuchar la radio del coche.")
    ans = dict(wire(answer(q, deps_for(allow, [], lead=False))))["answer"]
    assert ans["kind"] == "option" and ans["option"]["letter"] is None
    assert ans["option"]["reason"] == "none_stated" and ans["text"]


# --- the property: whatever the model writes, only allowlisted links/refs/quotes get out ---

URLISH = re.compile(r"://|www\.|[\w.+-]+@[\w-]+\.\w|\b[\w-]+\.(?:es|com|org|net|gob|html?|php)\b", re.I)
REFISH = re.compile(r"#|1428/2003|\bart(?:[íi]culo)?s?\.?\s*\d|\bapartado\s+\d|(?-i:REF:)", re.I)
QUOTEISH = re.compile(r"[«»\"“”„<>\[\]]")

fragments = st.sampled_from([
    "http://evil.example/x", "https://boe.es/buscar/act.php?id=1", "www.dgt.es", "dgt.es/multas",
    "[aquí](http://x.es)", "<a href='http://x.es'>x</a>", "<script>alert(1)</script>",
    "**negrita**", "`code`", "# Título", "[[REF:99]]", "[[REF:0]]", "[[REF:1]]", "[[REF:2]]",
    "[[REF:", "]]", "[1]", "RD-1428/2003#art48", "según el artículo 48.1", "art. 82.2",
    "el apartado 3", "la Ley 18/2009", "«Queda prohibido conducir»", "\"texto citado\"",
    "mailto:a@b.es", "javascript:alert(1)", " ", ". ", "Queda prohibido", " conducir",
    " utilizando auriculares", " 120 km/h", "\n", "ñ", "🚗",
])


@st.composite
def model_output(draw):
    text = "".join(draw(st.lists(st.one_of(fragments, st.text(max_size=6)), max_size=14)))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def _strings(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]")
    elif isinstance(value, str):
        yield path, value


@given(model_output(), st.sampled_from(["chat", "completion"]))
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_nothing_outside_the_allowlist_reaches_the_client(allow, pieces, which):
    prompt = CHAT if which == "chat" else COMPLETION
    deps = deps_for(allow, pieces, prompt=prompt)
    events = wire(answer("¿Puedo conducir con auriculares?", deps))
    for name, data in events:
        if name == "token":
            if "cite" in data:
                assert data["cite"] == 1                 # only the answer's own passage
                continue
            text = data["text"]
            assert not URLISH.search(text), text
            assert not REFISH.search(text), text
            assert not QUOTEISH.search(text), text
        elif name in ("sources", "citations"):
            for item in data.get("sources", []) + data.get("citations", []):
                entry = allow.get(item["ref"])
                assert entry is not None
                assert item["url"] == entry.url and item["label"] == entry.label
                if "quote" in item:
                    assert item["quote"] == entry.text
                    assert item["source_url"] == entry.source_url
                    assert item.get("span", "") in entry.text
        elif name == "answer":
            entry = allow.get(REFS[0])
            assert data["text"] in entry.text
        else:
            for path, s in _strings(data):
                assert not URLISH.search(s) or path.endswith(("sha256",)), (name, path, s)
