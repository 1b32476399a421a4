"""Fold the events of one answer into a final record (CLI --json / --batch, eval, bench)."""

from __future__ import annotations

import re
from collections.abc import Iterable


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


def collect(events: Iterable[tuple[str, dict]]) -> dict:
    """The answer as one JSON-able record: what a client would show once the stream ended.

    ``text`` is what the reader sees first (``shown_text``); as in the chat widget, only lead
    sentences judged supported (``keep``) are in it — retracted and unjudged ones are left out; ``message`` is the label of an answer or the message of an abstention."""
    sentences: dict[int, list] = {}
    retracted: set[int] = set()
    kept: set[int] = set()
    record: dict = {"answered": False, "outcome": None, "mode": None, "kind": None,
                    "message": None, "text": "", "answer": None, "citations": [],
                    "passages": [], "retractions": [], "sources": [], "latencies": {},
                    "model": None, "prompt": None, "index_version": None, "guard": None,
                    "error": None, "sign": None, "events": 0}
    for name, data in events:
        record["events"] += 1
        if name == "sources":
            record["sources"] = [s["ref"] for s in data["sources"]]
        elif name == "answer":
            record["answer"], record["message"] = data, data["label"]
        elif name == "token":
            parts = sentences.setdefault(data["s"], [])
            parts.append(data["text"] if "text" in data else "")
        elif name == "keep":
            kept.add(data["s"])
        elif name == "retract":
            retracted.add(data["s"])
            record["retractions"].append({"s": data["s"], "reason": data["reason"],
                                          "support": data["support"]})
        elif name == "sign":
            record["sign"] = data
        elif name == "abstain":
            record.update(outcome=data["outcome"], message=data["message"],
                          passages=data["passages"])
        elif name == "citations":
            record["citations"] = data["citations"]
        elif name == "error":
            record["error"] = data["error"]
        elif name == "done":
            record.update(answered=data["answered"], mode=data["mode"], kind=data["kind"],
                          outcome=data["outcome"], latencies=data["latency_ms"],
                          model=data["model"], prompt=data["prompt"],
                          index_version=data["index_version"], guard=data["guard"])
    lead = " ".join(re.sub(r"\s+([.,;:])", r"\1", " ".join("".join(p).split()))
                    for s, p in sorted(sentences.items()) if s in kept - retracted)
    record["text"] = shown_text(record["answer"], lead.strip())
    return record
