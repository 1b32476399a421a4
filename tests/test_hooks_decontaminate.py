"""corpus/hooks/decontaminate.py and the validator's --splits: a new hooks version without the
questions near golden questions, and the check that proves it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HOOKS_DIR = ROOT / "corpus" / "hooks"


def _golden(tmp_path: Path) -> Path:
    # g0001 is dev (every id up to g0381 is); the test split is checked the same way
    path = tmp_path / "golden.jsonl"
    path.write_text(json.dumps({"id": "g0001", "question": "¿Puedo adelantar en una curva sin "
                                "visibilidad?", "expected": ["RD-1428/2003#art87.1.a"],
                                "kind": "positive"}, ensure_ascii=False) + "\n", "utf-8")
    return path


def _hooks(tmp_path: Path) -> Path:
    path = tmp_path / "hooks.jsonl"
    lines = [{"ref": "RD-1428/2003#art87.1.a",
              "questions": ["¿Puedo adelantar en una curva sin visibilidad?", "¿Luces en un túnel?"]},
             {"ref": "RD-1428/2003#art48.1.a", "questions": ["¿Se puede adelantar en una curva "
                                                              "sin visibilidad?"]}]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    return path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT)


def test_decontaminate_drops_only_the_near_questions(tmp_path):
    out = tmp_path / "hooks-v9.jsonl"
    res = run(str(HOOKS_DIR / "decontaminate.py"), str(_hooks(tmp_path)),
              str(_golden(tmp_path)), str(out), "--splits", "test,dev")
    assert res.returncode == 0, res.stderr
    kept = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert kept == [{"ref": "RD-1428/2003#art87.1.a", "questions": ["¿Luces en un túnel?"]}]
    assert "2 questions dropped" in res.stdout


def test_decontaminate_refuses_to_overwrite_its_input(tmp_path):
    hooks = _hooks(tmp_path)
    before = hooks.read_bytes()
    res = run(str(HOOKS_DIR / "decontaminate.py"), str(hooks), str(_golden(tmp_path)), str(hooks))
    assert res.returncode != 0 and "refusing to overwrite" in res.stderr
    assert hooks.read_bytes() == before


def _hooks_module(name: str):
    """corpus/hooks/<name>.py, which is a script folder, not a package."""
    import importlib
    sys.path.insert(0, str(HOOKS_DIR))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def test_product_hooks_are_clean_of_test_and_dev_clean_hooks_of_dev_too():
    from citavial.build.index.hooks import DEV_CLEAN, PROMOTED
    hooks_validate = _hooks_module("validate")
    golden = str(ROOT / "golden" / "golden-v2.jsonl")
    # A file clean of test+dev is clean of test: the product's hooks that are also dev-clean
    # are checked once, against both splits.
    for name in (n for n in PROMOTED if n not in DEV_CLEAN):
        assert hooks_validate.contamination(str(HOOKS_DIR / name), golden, ("test",)) == []
    for name in DEV_CLEAN:
        assert hooks_validate.contamination(str(HOOKS_DIR / name), golden,
                                            ("test", "dev")) == []
    # and the check can fail: the product's hooks-v2 holds questions near dev ones
    assert "hooks-v2.jsonl" in PROMOTED and "hooks-v2.jsonl" not in DEV_CLEAN
    assert hooks_validate.contamination(str(HOOKS_DIR / "hooks-v2.jsonl"), golden,
                                        ("test", "dev"))


def test_dev_split_measurements_read_the_dev_clean_index():
    from citavial.build.index.hooks import DEV_INDEX_DIR, INDEX_DIR, index_dir_for
    assert [index_dir_for(s) for s in ("test", "dev", "all", None)] == [
        INDEX_DIR, DEV_INDEX_DIR, DEV_INDEX_DIR, DEV_INDEX_DIR]


@pytest.mark.parametrize("written,stored", [
    ("¿Puedo adelantar en una curva?", "¿Puedo adelantar en una curva?"),
    ("puedo aparcar en el carril bus", "puedo aparcar en el carril bus?"),
    ("se puede pasar con el ambar.", "se puede pasar con el ambar?"),
    ("Una marca amarilla en zigzag indica:", "Una marca amarilla en zigzag indica..."),
    ("Fuera de poblado, los peatones circulan por...", "Fuera de poblado, los peatones circulan por..."),
    ("¿Quién tiene prioridad?\na) El ciclista.\nb) Usted.\nc) El que llegue antes.",
     "¿Quién tiene prioridad?"),
], ids=["question", "no-question-mark", "full-stop", "colon-stem", "dots-stem", "pasted-options"])
def test_assemble_writes_the_file_forms(written, stored):
    assert _hooks_module("assemble").file_form(written) == stored


def test_assemble_drops_known_and_repeated_questions(tmp_path):
    known = tmp_path / "hooks-v1.jsonl"
    known.write_text(json.dumps({"ref": "RD-1428/2003#art87.1.a", "questions": [
        "¿Puedo adelantar en una curva?"]}, ensure_ascii=False) + "\n", "utf-8")
    writer = tmp_path / "writer.jsonl"
    writer.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in [
        {"ref": "RD-1428/2003#art87.1.a", "questions": ["puedo adelantar en una curva",
                                                         "¿Y en un paso de cebra?"]},
        {"ref": "RD-1428/2003#art87.1.b", "questions": ["¿Y en un paso de cebra?",
                                                         "¿Adelantar en un paso para peatones?"]},
    ]), "utf-8")
    out = tmp_path / "hooks-v9.jsonl"
    res = run(str(HOOKS_DIR / "assemble.py"), str(out), str(writer), "--known", str(known))
    assert res.returncode == 0, res.stderr
    assert "2 duplicates dropped" in res.stdout
    assert [json.loads(line) for line in out.read_text("utf-8").splitlines()] == [
        {"ref": "RD-1428/2003#art87.1.a", "questions": ["¿Y en un paso de cebra?"]},
        {"ref": "RD-1428/2003#art87.1.b", "questions": ["¿Adelantar en un paso para peatones?"]}]


@pytest.mark.slow
@pytest.mark.parametrize("version,known", [("v4", ["hooks-v2.jsonl"]),
                                           ("v5", ["hooks-v2.jsonl", "hooks-v4.jsonl"]),
                                           ("v6", ["hooks-v2.jsonl", "hooks-v4.jsonl",
                                                   "hooks-v5.jsonl"]),
                                           ("v7", ["hooks-v2.jsonl", "hooks-v4.jsonl",
                                                   "hooks-v5.jsonl", "hooks-v6.jsonl"])])
def test_hooks_are_rederived_byte_for_byte_from_their_writers(tmp_path, version, known):
    """A published hooks-vN made from blind writers is what assemble.py + decontaminate.py make
    of the writers' files kept in corpus/hooks/writers/vN/ (nothing was edited by hand)."""
    raw, out = tmp_path / "raw.jsonl", tmp_path / f"hooks-{version}.jsonl"
    writers = sorted(str(p) for p in (HOOKS_DIR / "writers" / version).glob("out-*.jsonl"))
    res = run(str(HOOKS_DIR / "assemble.py"), str(raw), *writers,
              "--known", *(str(HOOKS_DIR / k) for k in known))
    assert res.returncode == 0, res.stderr
    res = run(str(HOOKS_DIR / "decontaminate.py"), str(raw), str(ROOT / "golden" / "golden-v2.jsonl"),
              str(out), "--splits", "test,dev")
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == (HOOKS_DIR / f"hooks-{version}.jsonl").read_bytes()
