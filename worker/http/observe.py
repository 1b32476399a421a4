"""Metrics from the events of an answer, as they pass on their way to the client."""

from __future__ import annotations

from typing import Generator, Iterator

from citavial.worker.http.metrics import Metrics


def observe(events: Iterator[tuple[str, dict]],
            m: Metrics) -> Generator[tuple[str, dict], None, None]:
    """Relay ``events`` unchanged, counting them; an answer that ends without ``done`` or
    ``error`` was stopped because its client went away."""
    finished = False
    try:
        for name, data in events:
            if name == "abstain":
                m.inc("citavial_abstentions_total", reason=data["outcome"])
            elif name == "retract":
                m.inc("citavial_retractions_total", reason=data["reason"])
            elif name in ("done", "error"):
                finished = True
                if name == "done":
                    _done(data, m)
            yield name, data
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()
        if not finished:
            m.inc("citavial_disconnects_total")


def _done(data: dict, m: Metrics) -> None:
    m.inc("citavial_answers_total", mode=data["mode"])
    if data.get("guard"):
        m.inc("citavial_guard_cuts_total", reason=data["guard"]["cut"])
    for stage, ms in data["latency_ms"].items():
        if ms is not None:
            m.observe("citavial_latency_seconds", ms / 1000.0, stage=stage)
