"""Decide: answer, say "No lo tengo claro", or say the Reglamento does not regulate it.

Three honest outcomes instead of one abstention:

* ``answer``        — the evidence is strong and a span was found;
* ``unsure``        — "No lo tengo claro": the three most relevant passages, and no claim;
* ``not_regulated`` — "Esto no lo regula el Reglamento General de Circulación", naming the norm
  that usually does (points and fines: Ley sobre Tráfico; licences: Reglamento General de
  Conductores; ITV, papers, labels: Reglamento General de Vehículos; insurance; Código Penal) with
  a link to that norm's BOE page — never a quote from it.

The evidence score is worker/answer/abstain.py's calibrated logistic model over the retrieval evidence plus
the span's score and an other-norm flag; its thresholds are fitted on the golden ``dev`` split
only (worker/eval/calibrate.py). Every message is Spanish; no reason code reaches the reader.
"""

from __future__ import annotations

from dataclasses import dataclass

from citavial.build.text import fold
from citavial.worker import patterns as P
from citavial.worker.answer.abstain import GateModel

ANSWER, UNSURE, NOT_REGULATED = "answer", "unsure", "not_regulated"


@dataclass(frozen=True)
class Norm:
    name: str
    url: str


LSV = Norm("la Ley sobre Tráfico, Circulación de Vehículos a Motor y Seguridad Vial "
           "(Real Decreto Legislativo 6/2015)",
           "https://www.boe.es/buscar/act.php?id=BOE-A-2015-11722")
RGCOND = Norm("el Reglamento General de Conductores (Real Decreto 818/2009)",
              "https://www.boe.es/buscar/act.php?id=BOE-A-2009-9481")
RGV = Norm("el Reglamento General de Vehículos (Real Decreto 2822/1998)",
           "https://www.boe.es/buscar/act.php?id=BOE-A-1999-1826")
SOA = Norm("la Ley sobre responsabilidad civil y seguro en la circulación de vehículos a motor "
           "(Real Decreto Legislativo 8/2004)",
           "https://www.boe.es/buscar/act.php?id=BOE-A-2004-18911")
PENAL = Norm("el Código Penal (Ley Orgánica 10/1995)",
             "https://www.boe.es/buscar/act.php?id=BOE-A-1995-25444")
# Order matters: "perder puntos por una multa" is about points.
OTHER_NORMS = ((P.OTHER_POINTS, LSV), (P.OTHER_PENAL, PENAL), (P.OTHER_INSURANCE, SOA),
               (P.OTHER_VEHICLES, RGV), (P.OTHER_LICENCE, RGCOND), (P.OTHER_FINES, LSV))

MESSAGES = {
    UNSURE: "No lo tengo claro. Estos son los pasajes del Reglamento que más se acercan a tu "
            "pregunta; léelos tú:",
    NOT_REGULATED: "Esto no lo regula el Reglamento General de Circulación.",
}


def other_norm(question: str) -> Norm | None:
    """The norm that usually answers a question about points, fines, licences, ITV, papers,
    insurance or crimes; None for anything else."""
    folded = fold(question)
    for pattern, norm in OTHER_NORMS:
        if pattern.search(folded):
            return norm
    return None


def not_regulated_message(norm: Norm | None) -> str:
    if norm is None:
        return MESSAGES[NOT_REGULATED]
    return f"{MESSAGES[NOT_REGULATED]} Suele regularlo {norm.name}."


@dataclass(frozen=True)
class Decision:
    outcome: str
    score: float | None
    norm: Norm | None
    calibrated: bool

    @property
    def message(self) -> str:
        if self.outcome == NOT_REGULATED:
            return not_regulated_message(self.norm)
        return MESSAGES.get(self.outcome, "")

    def as_dict(self) -> dict:
        return {"outcome": self.outcome,
                "score": None if self.score is None else round(self.score, 4),
                "calibrated": self.calibrated}

    def __repr__(self) -> str:
        return f"Decision({self.outcome})"


def features(evidence: dict[str, float], span_score: float | None, norm: Norm | None) -> dict:
    """The gate's inputs: the retrieval evidence, the span's score and the other-norm flag."""
    return {**evidence, "span_score": -1.0 if span_score is None else span_score,
            "other_norm": 1.0 if norm is not None else 0.0}


@dataclass(frozen=True)
class Thresholds:
    answer: float          # score ≥ answer → answer
    not_regulated: float   # score < not_regulated (or an other-norm question) → not regulated


def decide(question: str, evidence: dict[str, float], citable_hits: int,
           span_score: float | None, gate: GateModel | None,
           thresholds: Thresholds | None) -> Decision:
    norm = other_norm(question)
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
    if norm is not None or score < thresholds.not_regulated:
        return Decision(NOT_REGULATED, score, norm, True)
    return Decision(UNSURE, score, norm, True)
