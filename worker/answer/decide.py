"""Decide: answer, say "No lo tengo claro", or say that none of the norms we cover regulates it.

Three honest outcomes instead of one abstention:

* ``answer``        — the evidence is strong and a span was found;
* ``unsure``        — "No lo tengo claro": the three most relevant passages, and no claim;
* ``not_regulated`` — "Esto no lo regula ninguna de las normas que recoge citavial" (the
  Reglamento General de Circulación, the Ley sobre Tráfico, the Reglamentos Generales de
  Vehículos and de Conductores): first aid, mechanics, a city's fees — never a quote.

Which norm answers is the index's decision: every norm's passages compete in one ranking
(build/index/query/lexical.py), and one gate judges the evidence whatever the best passage's
norm. Of the real bank's dev questions answered from another norm (16), the 9 labelled over
the four norms (golden/dgt-labels/agreed-norms.jsonl) had their labelled article first in 7,
and none was a question no norm decides. The evidence score is worker/answer/abstain.py's
calibrated logistic model over the retrieval evidence, the span's score and ``other_margin``;
its thresholds are fitted on the golden ``dev`` split only (worker/eval/calibrate.py). Every
message is Spanish; no reason code reaches the reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citavial.build.models import NORM, SearchHit
from citavial.worker.answer.abstain import GateModel

ANSWER, UNSURE, NOT_REGULATED = "answer", "unsure", "not_regulated"

MESSAGES = {
    UNSURE: "No lo tengo claro. Estos son los pasajes que más se acercan a tu pregunta; "
            "léelos tú:",
    NOT_REGULATED: "Esto no lo regula ninguna de las normas que recoge citavial (el Reglamento "
                   "General de Circulación, la Ley sobre Tráfico y los Reglamentos Generales de "
                   "Vehículos y de Conductores).",
}


@dataclass(frozen=True)
class Decision:
    outcome: str
    score: float | None
    norm: str | None        # the ref prefix of the best passage's norm (None: nothing found)
    calibrated: bool

    @property
    def message(self) -> str:
        return MESSAGES.get(self.outcome, "")

    def as_dict(self) -> dict:
        return {"outcome": self.outcome,
                "score": None if self.score is None else round(self.score, 4),
                "calibrated": self.calibrated}

    def __repr__(self) -> str:
        return f"Decision({self.outcome})"


def other_margin(hits: Sequence[SearchHit]) -> float:
    """How close another norm's best passage comes to the best one among ``hits`` (the search's
    first ten): its score over the best score, 0 when none is there. The index's own evidence
    that a question is another norm's topic — what the keyword lists used to guess."""
    best = max((h.score for h in hits), default=0.0)
    other = max((h.score for h in hits if not h.ref.startswith(NORM + "#")), default=0.0)
    return round(other / best, 6) if best > 0 else 0.0


def features(evidence: dict[str, float], span_score: float | None, norm: str | None) -> dict:
    """The gate's inputs: the retrieval evidence, the span's score and whether the best
    passage is of another norm than the Reglamento."""
    return {**evidence, "span_score": -1.0 if span_score is None else span_score,
            "other_norm": 1.0 if norm is not None and norm != NORM else 0.0}


@dataclass(frozen=True)
class Thresholds:
    answer: float          # score ≥ answer → answer
    not_regulated: float   # score < not_regulated → not regulated


def decide(norms: Sequence[str], evidence: dict[str, float], span_score: float | None,
           gate: GateModel | None, thresholds: Thresholds | None) -> Decision:
    """``norms``: the norm (ref prefix) of each citable passage retrieved, best first."""
    norm = norms[0] if norms else None
    citable_hits = len(norms)
    if citable_hits == 0:
        return Decision(NOT_REGULATED, None, norm, gate is not None)
    if gate is None or thresholds is None:   # uncalibrated: answer when there is a span
        outcome = ANSWER if span_score is not None else UNSURE
        return Decision(outcome, None, norm, False)
    score = gate.score(features(evidence, span_score, norm))
    if score is None:
        return Decision(UNSURE, None, norm, False)
    if score >= thresholds.answer and span_score is not None:
        return Decision(ANSWER, score, norm, True)
    if score < thresholds.not_regulated:
        # whatever the norms of the passages retrieved: they compete in one ranking, and the
        # floor's purity is fitted over them all (worker/eval/calibrate.py FLOOR_PURITY)
        return Decision(NOT_REGULATED, score, norm, True)
    return Decision(UNSURE, score, norm, True)
