"""/metrics counts what passes through an answer's events (worker/http/observe.py): the model's
sentences kept and retracted, and an answer its client left before ``done``."""

from __future__ import annotations

import pytest

from citavial.worker.answer.events import Keep, Retract
from citavial.worker.http.metrics import Metrics
from citavial.worker.http.observe import observe

KEEP = Keep(s=0, support=0.9, cites=(1,))
RETRACT = Retract(s=1, reason="number_not_in_passage", support=0.2, cites=(1,),
                  missing_numbers=("90",))


@pytest.mark.parametrize("events, name, labels, count", [
    pytest.param([KEEP, KEEP], "citavial_kept_sentences_total", {}, 2, id="kept"),
    pytest.param([KEEP, RETRACT], "citavial_retractions_total",
                 {"reason": "number_not_in_passage"}, 1, id="retracted"),
    pytest.param([RETRACT], "citavial_kept_sentences_total", {}, 0, id="none-kept"),
    pytest.param([KEEP], "citavial_disconnects_total", {}, 1, id="no-done-is-a-disconnect"),
])
def test_events_are_counted_and_relayed_unchanged(events, name, labels, count):
    m = Metrics()
    assert list(observe(iter(events), m)) == events
    assert m.value(name, **labels) == count


def test_the_kept_counter_is_in_the_exposition():
    m = Metrics()
    list(observe(iter([KEEP]), m))
    assert "citavial_kept_sentences_total 1.0" in m.render()
