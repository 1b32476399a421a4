"""Gate and support calibration: the fitting code on known data, and the committed result."""

from __future__ import annotations

import json

import numpy as np
import pytest
from worker_helpers import fixed_allowlist

from citavial.worker.answer.calibration import PATH, SCHEMA, UNCALIBRATED, load_calibration
from citavial.worker.eval.calibrate import (
    best_threshold,
    calibrate_support,
    cross_validate,
    fit_gate,
    fit_logistic,
    rates,
)


def test_logistic_recovers_the_direction_of_a_separating_feature():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] - 0.2 * x[:, 1] > 0).astype(float)
    w, b = fit_logistic(x, y)
    assert w[0] > 0 and w[1] < 0 and abs(w[0]) > abs(w[1])


def test_best_threshold_minimises_the_larger_error_rate():
    scores = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])
    y = np.array([0, 0, 0, 1, 1, 1], dtype=float)
    t, fa, ma = best_threshold(scores, y)
    assert 0.3 < t < 0.7 and fa == 0.0 and ma == 0.0
    assert rates(scores, y, 0.85) == (2 / 3, 0.0)   # abstains on two positives


def test_cross_validation_is_worse_or_equal_on_noise():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 3))
    y = (rng.random(200) > 0.5).astype(float)
    fit = fit_gate(x, y)["fit"]
    cv = cross_validate(x, y)
    assert max(cv["false_abstention"], cv["missed_abstention"]) >= \
        max(fit["false_abstention"], fit["missed_abstention"]) - 0.05


def test_support_threshold_prefers_keeping_no_wrong_sentence(tmp_path):
    allow = fixed_allowlist(tmp_path)
    ref = "RD-1428/2003#art18.2"
    labels = [
        {"ref": ref, "sentence": "Queda prohibido conducir utilizando auriculares.",
         "supported": True},
        {"ref": ref, "sentence": "Conducir con auriculares conectados a aparatos es obligatorio.",
         "supported": False},
        {"ref": ref, "sentence": "Se permite el sonido.", "supported": False},
    ]
    result = calibrate_support(labels, allow)
    assert result["precision"] == 1.0 and result["recall"] == 1.0 and result["n"] == 3


def test_support_labels_must_name_allowlisted_refs(tmp_path):
    from citavial.build.errors import BuildError
    with pytest.raises(BuildError, match="not in the allowlist"):
        calibrate_support([{"ref": "RD-1428/2003#art999", "sentence": "x", "supported": True}],
                          fixed_allowlist(tmp_path))


def test_committed_calibration_loads_and_reports_its_fit():
    cal = load_calibration(PATH)
    assert cal.calibrated and cal.gate is not None
    doc = json.loads(PATH.read_text(encoding="utf-8"))
    assert doc["schema"] == SCHEMA
    assert doc["golden"]["split"] == "dev"
    assert doc["golden"]["positives"] + doc["golden"]["negatives"] >= 260
    assert set(doc["report"]) == {"gate_fit_in_sample", "gate_cv", "support"}
    assert cal.floor < cal.gate.threshold
    assert 0.0 < cal.support_threshold < 1.0
    assert len(cal.gate.features) == len(cal.gate.weights) == len(cal.gate.mean)


def test_missing_calibration_means_uncalibrated(tmp_path):
    assert load_calibration(tmp_path / "none.json") is UNCALIBRATED


def test_bad_calibration_names_the_file(tmp_path):
    from citavial.build.errors import BuildError
    bad = tmp_path / "calibration.json"
    bad.write_text('{"schema": "other"}', encoding="utf-8")
    with pytest.raises(BuildError, match="calibration.json"):
        load_calibration(bad)
