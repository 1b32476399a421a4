"""Metrics from the events of an answer, as they pass on their way to the client."""

from __future__ import annotations

from typing import Generator, Iterator

from citavial.worker.answer.events import Abstain, Done, Error, Event, Keep, Retract
from citavial.worker.http.metrics import Metrics


def observe(events: Iterator[Event], m: Metrics) -> Generator[Event, None, None]:
    """Relay ``events`` unchanged, counting them; an answer that ends without ``done`` or
    ``error`` was stopped because its client went away."""
    finished = False
    try:
        for event in events:
            if isinstance(event, Abstain):
                m.inc("citavial_abstentions_total", reason=event.outcome)
            elif isinstance(event, Retract):
                m.inc("citavial_retractions_total", reason=event.reason)
            elif isinstance(event, Keep):   # kept beside retracted: how often the lead holds
                m.inc("citavial_kept_sentences_total")
            elif isinstance(event, (Done, Error)):
                finished = True
                if isinstance(event, Done):
                    _done(event, m)
            yield event
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()
        if not finished:
            m.inc("citavial_disconnects_total")


def _done(done: Done, m: Metrics) -> None:
    m.inc("citavial_answers_total", mode=done.mode)
    if done.guard:
        m.inc("citavial_guard_cuts_total", reason=done.guard.cut)
    for stage, ms in done.latency_ms.stages():
        if ms is not None:
            m.observe("citavial_latency_seconds", ms / 1000.0, stage=stage)
