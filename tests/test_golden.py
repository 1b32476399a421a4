"""The golden set's split: a fixed rule, and tuning that reads dev only."""

from __future__ import annotations

import hashlib
import json

import pytest
from support import ROOT

from citavial.build.errors import BuildError
from citavial.build.golden import LAST_V1_ID, load_golden, split_of

GOLDEN = ROOT / "golden" / "golden-v2.jsonl"


@pytest.mark.parametrize("qid,split", [
    ("g0001", "dev"), ("g0381", "dev"),
    ("g0382", "test" if int(hashlib.sha256(b"g0382").hexdigest(), 16) % 5 < 3 else "dev"),
], ids=["v1-first", "v1-last", "new-by-hash"])
def test_split_rule(qid, split):
    assert split_of(qid) == split


def test_bad_id_is_an_error():
    with pytest.raises(BuildError, match="g \\+ at least four digits"):
        split_of("q12")


def test_golden_v2_has_a_sealed_test_split_of_new_exam_style_questions():
    qs = load_golden(GOLDEN)
    test = [q for q in qs if q.split == "test"]
    assert all(int(q.id[1:]) > LAST_V1_ID for q in test)
    assert len(qs) >= 600 and len(test) >= 150
    new = [q for q in qs if int(q.id[1:]) > LAST_V1_ID]
    exam = [q for q in new if q.style in ("stem", "situational", "options")]
    assert len(new) >= 300 and len(exam) * 2 >= len(new)
    assert sum(q.kind == "negative" for q in qs) >= 0.25 * len(qs)
    assert all(q.answer for q in new if q.kind == "positive")


@pytest.mark.slow
def test_calibration_reads_dev_only(tmp_path, built_site, monkeypatch):
    """Calibrating on a copy of the golden file without its test questions writes the same
    calibration, byte for byte: the test split cannot influence the gate.

    A question's reading (retrieval and span: what the features are computed from) is a function
    of its text and the site, so the second calibration reuses the first one's readings of the
    same questions instead of reading every dev question again; a question the first did not
    read (a test question, were it read) is read."""
    from citavial.worker.answer import ask
    from citavial.worker.eval.calibrate import calibrate
    read, seen = ask.read, {}

    def read_once(question, deps, reader):
        if question not in seen:
            seen[question] = read(question, deps, reader)
        return seen[question]
    monkeypatch.setattr(ask, "read", read_once)
    labels = ROOT / "worker" / "lead" / "support-labels.jsonl"
    dev_only = tmp_path / "golden-v2.jsonl"
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    dev_only.write_text("\n".join(line for line in lines
                                  if split_of(json.loads(line)["id"]) == "dev") + "\n",
                        encoding="utf-8")
    calibrate(GOLDEN, labels, built_site, out=tmp_path / "all.json")
    calibrate(dev_only, labels, built_site, out=tmp_path / "dev.json")
    assert (tmp_path / "all.json").read_bytes() == (tmp_path / "dev.json").read_bytes()
