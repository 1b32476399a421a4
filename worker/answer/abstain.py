"""The gate's score: a calibrated linear model over the evidence of one answer.

The evidence is the named retrieval features (``SearchResult.evidence``: best lexical and BM25
scores, share of known terms, best hook match…) plus the span's score and an other-norm flag
(worker/answer/decide.py). The score is a linear function of the standardised features whose weights,
threshold and floor are fitted on the golden set's dev split (worker/eval/calibrate.py →
worker/answer/calibration.json); worker/answer/decide.py turns it into one of the three outcomes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class GateModel:
    """score = bias + Σ weight·(feature − mean)/scale; abstain when score < threshold."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float

    def score(self, evidence: dict[str, float]) -> float | None:
        """The gate score, or None when a feature it needs is missing from the evidence."""
        total = self.bias
        for name, m, s, w in zip(self.features, self.mean, self.scale, self.weights, strict=False):
            if name not in evidence or not math.isfinite(evidence[name]):
                return None
            total += w * (evidence[name] - m) / s
        return total

    def __repr__(self) -> str:
        return f"GateModel({len(self.features)} features, threshold {self.threshold:.3f})"
