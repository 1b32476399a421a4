"""Fold the events of one answer into a final record (CLI --json / --batch, eval, bench)."""

from __future__ import annotations

import re
from typing import Iterable


def collect(events: Iterable[tuple[str, dict]]) -> dict:
    """The answer as one JSON-able record: what a client would show once the stream ended.

    ``text`` keeps only the sentences that were not retracted, each citation written as
    ``[n]`` (n = the source number of ``citations``); an extractive answer's text is its label.
    """
    sentences: dict[int, list] = {}
    retracted: dict[int, str] = {}
    record = {"answered": False, "mode": None, "abstain_reason": None, "message": None,
              "text": "", "citations": [], "extractive": False, "retractions": [],
              "sources": [], "latencies": {}, "model": None, "prompt": None,
              "index_version": None, "guard": None, "error": None, "events": 0}
    for name, data in events:
        record["events"] += 1
        if name == "sources":
            record["sources"] = [s["ref"] for s in data["sources"]]
        elif name == "token":
            parts = sentences.setdefault(data["s"], [])
            parts.append(data["text"] if "text" in data else f" [{data['cite']}] ")
        elif name == "retract":
            retracted[data["s"]] = data["reason"]
            record["retractions"].append({"s": data["s"], "reason": data["reason"],
                                          "support": data["support"]})
        elif name == "abstain":
            record["abstain_reason"], record["message"] = data["reason"], data["message"]
        elif name == "citations":
            record["citations"] = data["citations"]
            record["extractive"] = data["extractive"]
            if data["extractive"]:
                record["message"] = data["label"]
        elif name == "error":
            record["error"] = data["error"]
        elif name == "done":
            record.update(answered=data["answered"], mode=data["mode"],
                          latencies=data["latency_ms"], model=data["model"],
                          prompt=data["prompt"], index_version=data["index_version"],
                          guard=data["guard"])
    kept = [re.sub(r"\s+([.,;:])", r"\1", " ".join("".join(parts).split()))
            for s, parts in sorted(sentences.items()) if s not in retracted]
    record["text"] = record["message"] if record["extractive"] else " ".join(k for k in kept if k)
    return record
