"""The abstention gate: answer, or say why not, from the retrieval evidence alone.

The evidence is the named features of one retrieval (``SearchResult.evidence``: best BM25 score,
share of known terms, best cosine, channel agreement…). The gate is a linear score over those
features, standardised, whose weights and threshold are calibrated on the golden set
(worker/calibrate.py → worker/calibration.json). Reasons are typed:

* ``no_results``    — retrieval returned no citable passage at all;
* ``weak_evidence`` — the calibrated score is below the threshold: the regulation probably does
  not answer this (out of domain, another law, or not regulated).

Without a calibration the gate abstains only on ``no_results`` and says it is uncalibrated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from citavial.build.models import SearchResult

NO_RESULTS = "no_results"
WEAK_EVIDENCE = "weak_evidence"
REASONS = (NO_RESULTS, WEAK_EVIDENCE)

# Shown to the reader (site UI is Spanish).
MESSAGES = {
    NO_RESULTS: "No he encontrado ningún pasaje del Reglamento General de Circulación que trate "
                "esta pregunta.",
    WEAK_EVIDENCE: "Esta pregunta no parece estar regulada en el Reglamento General de "
                   "Circulación (puede depender de otra norma, como la Ley de Tráfico o el "
                   "Reglamento General de Conductores), así que no respondo para no inventar.",
}


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
        for name, m, s, w in zip(self.features, self.mean, self.scale, self.weights):
            if name not in evidence or not math.isfinite(evidence[name]):
                return None
            total += w * (evidence[name] - m) / s
        return total

    def __repr__(self) -> str:
        return f"GateModel({len(self.features)} features, threshold {self.threshold:.3f})"


@dataclass(frozen=True)
class Decision:
    abstain: bool
    reason: str | None
    score: float | None
    threshold: float | None
    calibrated: bool

    def as_dict(self) -> dict:
        return {"abstain": self.abstain, "reason": self.reason,
                "score": None if self.score is None else round(self.score, 4),
                "threshold": self.threshold, "calibrated": self.calibrated}

    def __repr__(self) -> str:
        return f"Decision({'abstain: ' + str(self.reason) if self.abstain else 'answer'})"


def decide(result: SearchResult, citable_hits: int, model: GateModel | None) -> Decision:
    """Abstain or answer for one retrieval; ``citable_hits`` counts hits in the allowlist."""
    if citable_hits == 0:
        return Decision(True, NO_RESULTS, None, None, model is not None)
    if model is None:
        return Decision(False, None, None, None, False)
    score = model.score(dict(result.evidence))
    if score is None:
        # The index changed its evidence features: do not guess; answer and let support decide.
        return Decision(False, None, None, model.threshold, False)
    if score < model.threshold:
        return Decision(True, WEAK_EVIDENCE, score, model.threshold, True)
    return Decision(False, None, score, model.threshold, True)
