"""Counters, gauges and histograms in the Prometheus text format (exposition format 0.0.4).

Small on purpose: the worker needs a dozen series, not a client library.
"""

from __future__ import annotations

import threading
from bisect import bisect_left

LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 2.0, 5.0, 10.0, 30.0)

HELP = {
    "citavial_requests_total": ("counter", "HTTP requests by endpoint and status code."),
    "citavial_answers_total": ("counter", "Answers by mode (generated, extractive, abstained)."),
    "citavial_abstentions_total": ("counter", "Abstentions by reason."),
    "citavial_retractions_total": ("counter", "Retracted sentences by reason."),
    "citavial_guard_cuts_total": ("counter", "Model streams cut by the slot guard, by reason."),
    "citavial_disconnects_total": ("counter", "Answers stopped because the client went away."),
    "citavial_rate_limited_total": ("counter", "Requests refused with 429."),
    "citavial_queue_full_total": ("counter", "Requests refused with 503 because the queue was "
                                  "full."),
    "citavial_latency_seconds": ("histogram", "Answer latency by stage (sources, first_token, "
                                 "total)."),
    "citavial_queue_depth": ("gauge", "Answers waiting for the model."),
    "citavial_inference_active": ("gauge", "Answers being generated (0 or 1)."),
    "citavial_model_loaded": ("gauge", "1 if the language model is loaded, 0 if extractive-only."),
}


def _labels(labels: tuple[tuple[str, str], ...]) -> str:
    if not labels:
        return ""
    inner = ",".join(f'{k}="{_escape(v)}"' for k, v in labels)
    return "{" + inner + "}"


def _escape(value: str) -> str:
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[tuple[str, tuple], float] = {}
        self._hist: dict[tuple[str, tuple], list] = {}   # [bucket counts…, sum, count]

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        key = (name, tuple(sorted(labels.items())))
        with self._lock:
            self._values[key] = self._values.get(key, 0.0) + amount

    def set(self, name: str, value: float, **labels: str) -> None:
        with self._lock:
            self._values[(name, tuple(sorted(labels.items())))] = float(value)

    def observe(self, name: str, seconds: float, **labels: str) -> None:
        key = (name, tuple(sorted(labels.items())))
        with self._lock:
            h = self._hist.setdefault(key, [0] * len(LATENCY_BUCKETS) + [0.0, 0])
            i = bisect_left(LATENCY_BUCKETS, seconds)
            for j in range(i, len(LATENCY_BUCKETS)):
                h[j] += 1
            h[-2] += seconds
            h[-1] += 1

    def value(self, name: str, **labels: str) -> float:
        with self._lock:
            return self._values.get((name, tuple(sorted(labels.items()))), 0.0)

    def render(self) -> str:
        with self._lock:
            values = dict(self._values)
            hist = {k: list(v) for k, v in self._hist.items()}
        lines: list[str] = []
        for name, (kind, text) in HELP.items():
            lines += [f"# HELP {name} {text}", f"# TYPE {name} {kind}"]
            for (n, labels), v in sorted(values.items()):
                if n == name:
                    lines.append(f"{name}{_labels(labels)} {_num(v)}")
            for (n, labels), h in sorted(hist.items()):
                if n != name:
                    continue
                for bound, count in zip(LATENCY_BUCKETS, h):
                    lines.append(f"{name}_bucket{_labels(labels + (('le', str(bound)),))} {count}")
                lines.append(f"{name}_bucket{_labels(labels + (('le', '+Inf'),))} {h[-1]}")
                lines.append(f"{name}_sum{_labels(labels)} {_num(h[-2])}")
                lines.append(f"{name}_count{_labels(labels)} {h[-1]}")
        return "\n".join(lines) + "\n"


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))
