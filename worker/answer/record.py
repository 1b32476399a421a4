"""Fold the events of one answer into a final record (CLI --json / --batch, eval, bench)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from citavial.worker.answer.events import (
    Abstain,
    Answer,
    Citations,
    CiteToken,
    Done,
    Error,
    Event,
    Keep,
    Retract,
    Sign,
    Sources,
    Token,
    payload,
)


def shown_text(answer: dict | None, lead: str = "") -> str:
    """What the reader sees first, as plain text, in reading order: the model's kept lead (if
    any), the option, the question back (a vague question), the words that name the
    antecedent, the lead-in, the answer's words (a table answer as row · column → value) with
    the items of its list, the exception, the qualifying passage after it."""
    if answer is None:
        return lead
    parts = [lead]
    option = answer.get("option")
    if option:
        parts.append(f"{option['letter']}) {option['text']}" if option["letter"]
                     else option["text"])
    parts.append(answer.get("clarify") or "")
    parts += [p["text"] for p in answer.get("before") or ()]
    if answer.get("lead_in"):
        parts.append(answer["lead_in"]["text"])
    table = answer.get("table")
    items = answer.get("items") or []
    if table:
        parts += [f"{c['row']} · {c['column']}: {c['value']}" + (f" {c['unit']}" if c["unit"]
                                                                   else "")
                  for c in table["cells"]]
    elif not any(p["answer"] for p in items):
        parts.append(answer["text"])
    parts += [p["text"] for p in items]   # the answer's own item stands in its place
    if answer.get("exception"):
        parts.append(answer["exception"]["text"])
    parts += [p["text"] for p in answer.get("after") or ()]
    return " ".join(p for p in parts if p)


def collect(events: Iterable[Event]) -> dict:
    """The answer as one JSON-able record: what a client would show once the stream ended.

    ``text`` is what the reader sees first (``shown_text``); as in the chat widget, only lead
    sentences judged supported (``keep``) are in it — retracted and unjudged ones are left out;
    ``message`` is the label of an answer or the message of an abstention. The record is the
    CLI's edge: the parts it keeps of an event (``answer``, ``citations``, ``sign``…) are in the
    wire's form (events.payload), as `citavial ask --json` prints them."""
    sentences: dict[int, list[str]] = {}
    retracted: set[int] = set()
    kept: set[int] = set()
    record: dict = {"answered": False, "outcome": None, "mode": None, "kind": None,
                    "message": None, "text": "", "answer": None, "citations": [],
                    "passages": [], "retractions": [], "sources": [], "latencies": {},
                    "model": None, "prompt": None, "index_version": None, "guard": None,
                    "error": None, "sign": None, "events": 0}
    for event in events:
        record["events"] += 1
        match event:
            case Sources():
                record["sources"] = [s.ref for s in event.sources]
            case Answer():
                record["answer"], record["message"] = payload(event), event.label
            case Token():
                sentences.setdefault(event.s, []).append(event.text)
            case CiteToken():
                sentences.setdefault(event.s, []).append("")
            case Keep():
                kept.add(event.s)
            case Retract():
                retracted.add(event.s)
                record["retractions"].append({"s": event.s, "reason": event.reason,
                                              "support": event.support})
            case Sign():
                record["sign"] = payload(event)
            case Abstain():
                record.update(outcome=event.outcome, message=event.message,
                              passages=payload(event.passages))
            case Citations():
                record["citations"] = payload(event.citations)
            case Error():
                record["error"] = event.error
            case Done():
                record.update(answered=event.answered, mode=event.mode, kind=event.kind,
                              outcome=event.outcome, latencies=payload(event.latency_ms),
                              model=payload(event.model), prompt=payload(event.prompt),
                              index_version=event.index_version, guard=payload(event.guard))
    lead = " ".join(re.sub(r"\s+([.,;:])", r"\1", " ".join("".join(p).split()))
                    for s, p in sorted(sentences.items()) if s in kept - retracted)
    record["text"] = shown_text(record["answer"], lead.strip())
    return record
