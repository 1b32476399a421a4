"""corpus/hooks/validate.py's coverage rule: every unit of the norms --require-coverage names
(default RD-1428/2003) needs a hook; the other norms' coverage is reported per norm only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VALIDATE = ROOT / "corpus" / "hooks" / "validate.py"

PASSAGES = [("RD-1428/2003#art1.1", "art1"), ("RD-1428/2003#art2", "art2"),
            ("RDL-6/2015#art63.1", "ley/art63"), ("RDL-6/2015#anexoII.r10", "ley/anexoII"),
            ("RD-818/2009#art12.2", "rgcond/art12")]
RGC_ALL = {"RD-1428/2003#art1.1": ["¿Qué regula el reglamento?"],
           "RD-1428/2003#art2": ["¿A quién se aplica?"]}
LEY_ONE = {"RDL-6/2015#anexoII.r10": ["cuantos puntos por saltarme un semaforo en rojo?"]}


def run(tmp_path: Path, hooks: dict[str, list[str]], *args: str) -> subprocess.CompletedProcess:
    passages, hooks_file = tmp_path / "passages.jsonl", tmp_path / "hooks.jsonl"
    passages.write_text("".join(json.dumps({"ref": r, "unit": u}) + "\n" for r, u in PASSAGES),
                        "utf-8")
    hooks_file.write_text("".join(json.dumps({"ref": r, "questions": q}, ensure_ascii=False)
                                  + "\n" for r, q in hooks.items()), "utf-8")
    return subprocess.run([sys.executable, str(VALIDATE), str(hooks_file), str(passages), *args],
                          capture_output=True, text=True, cwd=ROOT)


def by_norm(stdout: str) -> dict[str, tuple[str, str]]:
    """norm -> (units "a/b", rule) from the "coverage by norm:" block."""
    block = stdout.split("coverage by norm:\n", 1)[1].split("renamed refs read", 1)[0]
    rows = {}
    for line in block.strip().splitlines():
        name, rest = line.strip().split(": ", 1)
        rows[name] = (rest.split(",")[0].removeprefix("units "), rest.rsplit("(", 1)[1].rstrip(")"))
    return rows


@pytest.mark.parametrize("hooks, args, code", [
    ({**RGC_ALL}, [], 0),
    ({**RGC_ALL, **LEY_ONE}, [], 0),
    ({**LEY_ONE}, [], 1),
    ({**LEY_ONE}, ["--allow-uncovered"], 0),
    ({**LEY_ONE}, ["--require-coverage", "none"], 0),
    ({**RGC_ALL, **LEY_ONE}, ["--require-coverage", "RD-1428/2003,RDL-6/2015"], 1),
    ({**LEY_ONE, "RDL-6/2015#art63.1": ["con cuantos puntos empieza un conductor?"]},
     ["--require-coverage", "RDL-6/2015"], 0),
    ({**LEY_ONE}, ["--require-coverage", "RDL-6/2016"], 2),
], ids=["rgc-whole", "rgc-whole-plus-ley", "ley-only-default-fails", "ley-only-allow-uncovered",
        "ley-only-require-none", "ley-required-and-partial", "ley-required-and-whole",
        "unknown-norm-is-a-usage-error"])
def test_coverage_is_required_only_of_the_named_norms(tmp_path, hooks, args, code):
    res = run(tmp_path, hooks, *args)
    assert res.returncode == code, res.stdout + res.stderr


def test_coverage_is_reported_per_norm(tmp_path):
    res = run(tmp_path, {**RGC_ALL, **LEY_ONE})
    assert res.returncode == 0, res.stdout
    assert by_norm(res.stdout) == {"RD-1428/2003": ("2/2", "required"),
                                   "RDL-6/2015": ("1/2", "reported only"),
                                   "RD-818/2009": ("0/1", "reported only")}


def test_an_unknown_norm_names_the_value_and_the_known_norms(tmp_path):
    res = run(tmp_path, LEY_ONE, "--require-coverage", "RDL-6/2016")
    assert res.returncode == 2
    assert "'RDL-6/2016'" in res.stderr and "RDL-6/2015" in res.stderr
