"""The typed events of an answer (worker/answer/events.py) and their one serialiser, ``to_wire``.

Table-driven: one sample of every kind (and of each variant whose keys differ) → its event name
and its keys in wire order, nested ones included; each key is in the event's row of
docs/answers.md ("SSE contract"); the JSON survives a round trip; every kind has a row here.
"""

from __future__ import annotations

import json
import re
import typing
from dataclasses import replace
from pathlib import Path

import pytest

from citavial.worker.answer import events as ev
from citavial.worker.answer.judge import Basis, Undecided
from citavial.worker.answer.span import Cell

DOCS = Path(__file__).resolve().parents[1] / "docs" / "answers.md"

CITATION_KEYS = ["n", "ref", "label", "url", "quote", "source_url", "source_license", "as_of",
                 "norm", "boe_id", "consolidated"]


def citation(n: int, span: bool = False) -> ev.Citation:
    c = ev.Citation(n=n, ref=f"RD-1428/2003#art{n}", label=f"Artículo {n}", url=f"art{n}.html",
                    quote="Queda prohibido.", source_url="https://boe.example/x",
                    source_license="BOE", as_of="2026-01-01", norm="RD-1428/2003",
                    boe_id="BOE-A-2003-23514", consolidated="2025-01-01")
    return replace(c, span="prohibido", span_url=f"art{n}.html#:~:text=prohibido") if span else c


DECISION = ev.DecisionInfo(outcome="answer", score=0.91, calibrated=True)
OPTION = ev.Option(letter="b", text="120 km/h", basis=Basis.CELL, reason=None, words="120",
                   ref="RD-1428/2003#art48.1.a", url="art48.html#x")
UNDECIDED = ev.Option(letter=None, text="No puedo elegir", basis=None,
                      reason=Undecided.SEVERAL_STATED, words=None, ref=None, url=None)
BRIEF = ev.SignBrief(code="M-1.3", name="Línea", url="senales.html#senal-M-1.3",
                     name_source="in_force")
DONE = ev.Done(answered=True, mode="generated", outcome="answer", kind="table",
               sentences=ev.Sentences(kept=1, retracted=2),
               guard=ev.GuardCut(cut="malformed_slot", token=3),
               latency_ms=ev.Latency(sources=1.0, first_token=2.0, total=3.5),
               model=ev.ModelInfo(file="m.gguf", sha256="0" * 64, mode="completion",
                                  loaded=True, in_answer_path=True),
               prompt=ev.PromptInfo(id="answer-completion", version=2), index_version="v1",
               backend="fixed", allowlist=ev.AllowlistInfo(sha256="1" * 64, as_of="2026-01-01"),
               decision=DECISION)
SIGN_DONE = replace(DONE, guard=None, sign="R-101")
ANSWER = ev.Answer(label="Respuesta extractiva", cite=1, kind="option", text="120",
                   emphasis=((0, 3),), lead_in=ev.Shown(text="Se fijan:", cite=2),
                   exception=ev.Shown(text="salvo…", cite=3),
                   table=ev.Table(cells=(Cell(row="Autopista", column="Turismos", value="120",
                                              unit="km/h"),)),
                   option=OPTION, before=(ev.Shown(text="Los conductores", cite=2),),
                   items=(ev.Item(text="a) uno", cite=1, answer=True),),
                   after=(ev.Shown(text="Además…", cite=3),), clarify="¿En qué vía?")

ANSWER_KEYS = ["outcome", "label", "cite", "kind", "text", "emphasis", "lead_in", "exception",
               "table", "option", "before", "items", "after", "clarify"]
DONE_KEYS = ["answered", "mode", "outcome", "kind", "sentences", "guard", "latency_ms", "model",
             "prompt", "index_version", "backend", "allowlist", "decision"]

# id: (event, name, its keys in wire order, {path to a nested object: its keys in order})
CASES = {
    "sources": (ev.Sources(sources=(ev.Source(n=1, ref="RD-1428/2003#art18.2", label="Art. 18",
                                              url="art18.html", norm="RD-1428/2003",
                                              boe_id="BOE-A", consolidated="2025-01-01"),),
                           index_version="v1"),
                "sources", ["sources", "index_version"],
                {"sources.0": ["n", "ref", "label", "url", "norm", "boe_id", "consolidated"]}),
    "sign": (ev.Sign(code="R-101", name="Entrada prohibida", url="senales.html#senal-R-101",
                     name_source="previous_catalogue", group="R", label="Señal R-101",
                     defined=False, definition=None, mentions=("RD-1428/2003#art152",),
                     others=(BRIEF,)),
             "sign", ["code", "name", "url", "name_source", "group", "label", "defined",
                      "definition", "mentions", "others"],
             {"others.0": ["code", "name", "url", "name_source"]}),
    "answer-every-part": (ANSWER, "answer", ANSWER_KEYS, {
        "lead_in": ["text", "cite"], "exception": ["text", "cite"], "table": ["cells"],
        "table.cells.0": ["row", "column", "value", "unit"],
        "option": ["letter", "text", "basis", "reason", "words", "ref", "url"],
        "before.0": ["text", "cite"], "items.0": ["text", "cite", "answer"],
        "after.0": ["text", "cite"]}),
    "answer-a-clause": (ev.Answer(label="R", cite=1, kind="clause", text="x", emphasis=()),
                        "answer", ANSWER_KEYS, {}),
    "answer-undecided": (ev.Answer(label="R", cite=1, kind="option", text="x", emphasis=(),
                                   option=UNDECIDED), "answer", ANSWER_KEYS,
                         {"option": ["letter", "text", "basis", "reason", "words", "ref",
                                     "url"]}),
    "token-text": (ev.Token(s=0, text="Queda"), "token", ["s", "text"], {}),
    "token-cite": (ev.CiteToken(s=0, cite=1), "token", ["s", "cite"], {}),
    "keep": (ev.Keep(s=0, support=0.8, cites=(1,)), "keep", ["s", "support", "cites"], {}),
    "retract": (ev.Retract(s=1, reason="number_not_in_passage", support=0.4, cites=(1,),
                           missing_numbers=("130",)),
                "retract", ["s", "reason", "support", "cites", "missing_numbers"], {}),
    "retract-uncited": (ev.Retract(s=1, reason="uncited", support=None, cites=(),
                                   missing_numbers=()),
                        "retract", ["s", "reason", "support", "cites", "missing_numbers"], {}),
    "citations": (ev.Citations(label="R", citations=(citation(1, span=True), citation(2))),
                  "citations", ["extractive", "label", "citations"],
                  {"citations.0": CITATION_KEYS + ["span", "span_url"],
                   "citations.1": CITATION_KEYS}),
    "citations-of-a-table": (ev.Citations(label="R", citations=(replace(
        citation(1), rows=((ev.QuoteCell(text="", header=False),
                            ev.QuoteCell(text="Turismos", header=True)),
                           (ev.QuoteCell(text="Autopista", header=False),
                            ev.QuoteCell(text="120", header=False)))),)),
        "citations", ["extractive", "label", "citations"],
        {"citations.0": CITATION_KEYS + ["rows"], "citations.0.rows.1.1": ["text", "header"]}),
    "abstain": (ev.Abstain(outcome="unsure", message="No lo tengo claro.",
                           passages=(citation(1),), decision=DECISION),
                "abstain", ["outcome", "message", "passages", "decision"],
                {"passages.0": CITATION_KEYS, "decision": ["outcome", "score", "calibrated"]}),
    "abstain-sign": (ev.Abstain(outcome="sign", message="El texto en vigor no define…",
                                norm=None, passages=(), decision=DECISION),
                     "abstain", ["outcome", "message", "norm", "passages", "decision"], {}),
    "done": (DONE, "done", DONE_KEYS, {
        "sentences": ["kept", "retracted"], "guard": ["cut", "token"],
        "latency_ms": ["sources", "first_token", "total"],
        "model": ["file", "sha256", "mode", "loaded", "in_answer_path"],
        "prompt": ["id", "version"], "allowlist": ["sha256", "as_of"],
        "decision": ["outcome", "score", "calibrated"]}),
    "done-sign": (SIGN_DONE, "done", DONE_KEYS + ["sign"], {}),
    "error": (ev.Error(error="internal error while answering: ValueError"), "error",
              ["ok", "error", "status"], {}),
}


def _at(data, path: str):
    for part in path.split("."):
        data = data[int(part)] if part.isdigit() else data[part]
    return data


def _documented(name: str) -> set[str]:
    """Every word inside backticks in the event's row of the SSE contract table."""
    row = next(line for line in DOCS.read_text(encoding="utf-8").splitlines()
               if line.startswith(f"| `{name}` |"))
    return {w for span in re.findall(r"`([^`]*)`", row) for w in re.findall(r"\w+", span)}


@pytest.mark.parametrize("case", list(CASES))
def test_every_kind_serialises_to_its_documented_keys_in_order(case):
    event, name, keys, nested = CASES[case]
    got_name, data = ev.to_wire(event)
    assert got_name == name
    assert list(data) == keys
    for path, inner in nested.items():
        assert list(_at(data, path)) == inner, path
    assert not set(keys) - _documented(name), "docs/answers.md 'SSE contract'"
    assert json.loads(json.dumps(data, ensure_ascii=False)) == data   # plain JSON values


@pytest.mark.parametrize("case", ["answer-every-part", "answer-undecided", "sign", "done"])
def test_values_reach_the_wire_as_json(case):
    event, *_ = CASES[case]
    text = json.dumps(ev.to_wire(event)[1], ensure_ascii=False)
    assert "Basis." not in text and "Undecided." not in text and "ABSENT" not in text
    assert "absent" not in text and "(" not in text   # enums by value, tuples as arrays


def test_enums_and_tuples_are_plain():
    data = ev.to_wire(ANSWER)[1]
    assert data["emphasis"] == [[0, 3]] and data["option"]["basis"] == "cell"
    assert ev.to_wire(CASES["answer-undecided"][0])[1]["option"]["reason"] == "several_stated"


def test_every_kind_has_a_case_and_the_union_is_the_registry():
    assert {type(e) for e, *_ in CASES.values()} == set(ev.KINDS)
    members = set()
    for arg in typing.get_args(ev.Event):
        members |= set(typing.get_args(arg)) or {arg}
    assert members == set(ev.KINDS)
