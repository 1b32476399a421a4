"""calibration.json: the gate model and the support threshold, with how they were fit.

Written by ``citavial calibrate`` (worker/eval/calibrate.py) from the golden set to ``--out``
(default ``user_path()``, the user cache folder: never into the installed package); read at
start-up from ``serve``/``ask --calibration PATH``, else the packaged worker/answer/calibration.json
(``PATH``, refreshed by the developers with ``citavial calibrate --out`` that file). A missing file is not an error: the gate then abstains only when nothing is retrieved, the
support threshold takes ``DEFAULT_SUPPORT`` and /health says the worker is uncalibrated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from citavial.build.errors import BuildError
from citavial.worker.answer.abstain import GateModel
from citavial.worker.answer.decide import Thresholds

PATH = Path(__file__).resolve().parent / "calibration.json"  # package data: read, never written
SCHEMA = "citavial-worker-calibration/2"
DEFAULT_SUPPORT = 0.6


@dataclass(frozen=True)
class Calibration:
    gate: GateModel | None
    support_threshold: float
    calibrated: bool
    index_version: str | None = None
    report: dict = field(default_factory=dict)   # figures of the fit, shown by /health
    floor: float = float("-inf")   # below it: "not regulated" rather than "unsure"

    @property
    def thresholds(self) -> Thresholds | None:
        return None if self.gate is None else Thresholds(self.gate.threshold, self.floor)

    def __repr__(self) -> str:
        return f"Calibration(gate={self.gate}, support≥{self.support_threshold})"


UNCALIBRATED = Calibration(gate=None, support_threshold=DEFAULT_SUPPORT, calibrated=False)


def user_path() -> Path:
    """Where ``citavial calibrate`` writes by default: the user cache folder
    ($CITAVIAL_CACHE, else $XDG_CACHE_HOME/citavial or ~/.cache/citavial)."""
    from citavial.build.check.cache import cache_root
    return cache_root() / "calibration.json"


def load_calibration(path: Path = PATH) -> Calibration:
    path = Path(path)
    if not path.is_file():
        return UNCALIBRATED
    fix = "regenerate it with `citavial calibrate`"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("schema") != SCHEMA:
            raise BuildError(f"{path}: schema", f"is {doc.get('schema')!r}, expected "
                             f"{SCHEMA!r}", fix)
        g = doc["gate"]
        gate = None if g is None else GateModel(
            features=tuple(g["features"]), mean=tuple(g["mean"]), scale=tuple(g["scale"]),
            weights=tuple(g["weights"]), bias=float(g["bias"]), threshold=float(g["threshold"]))
        return Calibration(gate=gate, support_threshold=float(doc["support"]["threshold"]),
                           calibrated=True, index_version=doc.get("index_version"),
                           report=doc.get("report", {}),
                           floor=float(g["floor"]) if g is not None else float("-inf"))
    except (KeyError, TypeError, ValueError) as err:
        raise BuildError(str(path), f"is not a valid calibration ({err!r})", fix) from None
