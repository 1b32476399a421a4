"""Counters, gauges and histograms in the Prometheus text format, through ``prometheus-client``.

Every metric is declared here with its label names; the label *values* the app passes are from
bounded sets (route rules, modes, reasons), never from the request path, so /metrics cannot grow
with what a client sends (issue 26, item 1). One registry per ``Metrics`` so that two apps in one
process (the tests) do not share counts.
"""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST

LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 2.0, 5.0, 10.0, 30.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST

# name → (kind, help, label names)
HELP: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "citavial_requests_total": ("counter", "HTTP requests by route rule and status code.",
                                ("endpoint", "status")),
    "citavial_answers_total": ("counter", "Answers by mode (generated, extractive, abstained).",
                               ("mode",)),
    "citavial_abstentions_total": ("counter", "Abstentions by reason.", ("reason",)),
    "citavial_retractions_total": ("counter", "Retracted sentences by reason.", ("reason",)),
    "citavial_kept_sentences_total": ("counter", "Model sentences kept: supported by a cited "
                                      "passage.", ()),
    "citavial_guard_cuts_total": ("counter", "Model streams cut by the slot guard, by reason.",
                                  ("reason",)),
    "citavial_disconnects_total": ("counter", "Answers stopped because the client went away.",
                                   ()),
    "citavial_rate_limited_total": ("counter", "Requests refused with 429.", ()),
    "citavial_queue_full_total": ("counter", "Requests refused with 503 because the queue was "
                                  "full.", ()),
    "citavial_latency_seconds": ("histogram", "Answer latency by stage (sources, first_token, "
                                 "total).", ("stage",)),
    "citavial_queue_depth": ("gauge", "Answers waiting for the model.", ()),
    "citavial_inference_active": ("gauge", "Answers being generated (0 or 1).", ()),
    "citavial_model_loaded": ("gauge", "1 if the language model is loaded, 0 if "
                              "extractive-only.", ()),
}

# the *_created series double the output and say nothing a local worker's operator needs
disable_created_metrics()


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._m: dict[str, Counter | Gauge | Histogram] = {}
        for name, (kind, text, labels) in HELP.items():
            if kind == "counter":
                self._m[name] = Counter(name, text, labels, registry=self.registry)
            elif kind == "gauge":
                self._m[name] = Gauge(name, text, labels, registry=self.registry)
            else:
                self._m[name] = Histogram(name, text, labels, registry=self.registry,
                                          buckets=LATENCY_BUCKETS)

    def _child(self, name: str, labels: dict[str, str]):
        metric = self._m[name]
        return metric.labels(**labels) if labels else metric

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        self._child(name, labels).inc(amount)

    def set(self, name: str, value: float, **labels: str) -> None:
        self._child(name, labels).set(float(value))

    def observe(self, name: str, seconds: float, **labels: str) -> None:
        self._child(name, labels).observe(seconds)

    def value(self, name: str, **labels: str) -> float:
        got = self.registry.get_sample_value(name, labels)
        return 0.0 if got is None else got

    def render(self) -> str:
        return generate_latest(self.registry).decode("utf-8")
