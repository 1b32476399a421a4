"""The "Por qué" figures: intervals, the rule of three, and only reports that exist."""

from __future__ import annotations

import json

import pytest

from citavial.build.errors import BuildError
from citavial.build.render.figures import collect_figures, count_figure, wilson

GATE = {"checked": 383, "failed": 0, "passages": 1436}


@pytest.mark.parametrize("k, n, lo, hi", [
    pytest.param(0, 10, 0.0, 0.2775, id="zero"),
    pytest.param(5, 10, 0.2366, 0.7634, id="half"),
    pytest.param(10, 10, 0.7225, 1.0, id="all"),
])
def test_wilson(k, n, lo, hi):
    assert wilson(k, n) == pytest.approx((lo, hi), abs=1e-4)


def test_zero_failures_show_the_rule_of_three():
    f = count_figure("x", 0, 383, "s", bad=True)
    assert f.value == "0 de 383 (95 %: ≤ 0,008)" and f.n == "383"


def test_only_existing_reports_give_figures(tmp_path):
    assert [f.what for f in collect_figures(GATE, tmp_path)][0].startswith("Citas de guías")
    assert len(collect_figures(GATE, tmp_path)) == 2
    (tmp_path / "browser-links.json").write_text(json.dumps(
        {"checked": 736, "failed": 0, "date": "2026-11-29"}))
    figs = collect_figures(GATE, tmp_path)
    assert len(figs) == 3 and "≤ 0,004" in figs[-1].value


def test_corrupt_report_is_a_clear_error(tmp_path):
    (tmp_path / "retrieval.json").write_text("{not json")
    with pytest.raises(BuildError, match="retrieval.json: is not valid JSON"):
        collect_figures(GATE, tmp_path)


def test_committed_reports_render(built_site):
    text = (built_site / "porque.html").read_text()
    gate = json.loads((built_site / "gate-report.json").read_text())
    assert gate["checked"] > 0 and gate["passages"] > 0
    assert f"{gate['failed']} de {gate['checked']}" in text  # this build's gate, as counted
    assert "Chromium" in text   # golden/reports/browser-links.json exists in the repo
