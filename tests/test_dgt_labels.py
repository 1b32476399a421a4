"""The real bank's deciding-passage labels: derived mechanically, and every ref a passage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "golden" / "dgt-labels"


def test_agreed_labels_are_rederived_byte_for_byte():
    run = subprocess.run([sys.executable, str(LABELS / "agree.py"), "--check"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_labelled_ref_is_a_citable_passage(built_site):
    known = {e["ref"] for e in json.loads((built_site / "allowlist.json").read_text())["entries"]}
    rows = [json.loads(line) for line in (LABELS / "agreed.jsonl").read_text().splitlines()]
    assert rows and all(r["split"] in ("dev", "test") for r in rows)
    assert not [r for row in rows for r in row["refs"] if r not in known]
    assert all(row["articles"] for row in rows if row["agree"] == "article")


def test_no_label_file_holds_text():
    allowed = {"id", "refs", "decides", "other", "split", "agree", "articles"}
    for path in LABELS.rglob("*.jsonl"):
        for line in path.read_text("utf-8").splitlines():
            assert set(json.loads(line)) <= allowed, path
