"""Renamed refs (corpus/refs-renamed.json): old names in append-only data still resolve.

The golden sets are append-only and a published hooks file is never edited, so when rd.df1's
quoted definitions got refs of the apartado that quotes them, their old refs stayed in those
files. Every reader maps them through the one table; the gate names the new ref.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import AS_OF, CORPUS, ROOT

from citavial.build.errors import BuildError
from citavial.build.gate.verify import Pages, Reason, check_quote
from citavial.build.golden import load_golden
from citavial.build.index.hooks import load_hooks, promoted_hooks
from citavial.build.ingest import with_renames
from citavial.build.ingest.markdown import load_norms
from citavial.build.models import Citation
from citavial.build.renames import Renames, load_renames

R = "RD-1428/2003#"
GOLDEN = ROOT / "golden"
OLD_TO_NEW = {"rd.df1.2.c.p2": "rd.df1.2.p3", "rd.df1.2.c.p3": "rd.df1.2.p4",
              "rd.df1.76": "rd.df1.3.p3", "rd.df1.77": "rd.df1.3.p4", "rd.df1.78": "rd.df1.3.p5",
              "rd.df1.79": "rd.df1.3.p6", "rd.df1.80": "rd.df1.3.p7"}


def _citable(reg) -> set[str]:
    return {b.ref for u in reg.units for b in u.passages if b.ref}


def test_the_table_names_exactly_the_rd_df1_renames(reg):
    renames = load_renames(CORPUS)
    assert {r.old: r.new for r in renames.items} == {R + o: R + n for o, n in OLD_TO_NEW.items()}
    assert all(r.since == "2026-12-01" and "disposición final primera" in r.reason
               for r in renames.items)
    assert reg.renames == renames     # load_regulation attaches it
    citable = _citable(reg)
    assert {R + n for n in OLD_TO_NEW.values()} <= citable
    assert not {R + o for o in OLD_TO_NEW} & citable


def _table(tmp_path: Path, renames: dict) -> Path:
    (tmp_path / "refs-renamed.json").write_text(json.dumps(
        {"schema": "citavial-ref-renames/1", "renames": renames}), encoding="utf-8")
    return tmp_path


def _entry(new: str, since: str = "2026-12-01") -> dict:
    return {"new": R + new, "since": since, "reason": "test"}


def test_chains_are_followed(tmp_path):
    renames = load_renames(_table(tmp_path, {R + "art1.9": _entry("art1.8"),
                                             R + "art1.8": _entry("art1.7", "2027-01-01")}))
    assert renames.current(R + "art1.9") == R + "art1.7"
    assert renames.get(R + "art1.9").since == "2027-01-01"
    assert renames.current(R + "art48.1") == R + "art48.1"
    assert load_renames(tmp_path / "nowhere") == Renames()


@pytest.mark.parametrize("renames, message", [
    pytest.param({R + "art1.9": _entry("art1.9")}, "renamed to itself", id="self"),
    pytest.param({R + "a1": _entry("a2"), R + "a2": _entry("a1")}, "cycle", id="cycle"),
    pytest.param({R + "art1.9": _entry("art1.8", "1 de diciembre")}, "not a date", id="date"),
    pytest.param({"art1.9": _entry("art1.8")}, "not a canonical ref", id="not-canonical"),
    pytest.param({R + "art1.9": {"new": R + "art1.8"}}, "must map to", id="fields"),
])
def test_a_bad_table_stops_the_build(tmp_path, renames, message):
    with pytest.raises(BuildError, match=message):
        load_renames(_table(tmp_path, renames))


def test_an_old_ref_that_is_a_passage_again_stops_the_build(reg, tmp_path):
    _table(tmp_path, {R + "art48.1": _entry("art48.2")})
    with pytest.raises(BuildError, match="are passages of this build again"):
        with_renames(reg, tmp_path)


def test_golden_loader_maps_old_refs_and_the_files_keep_them():
    for name in ("golden-v1.jsonl", "golden-v2.jsonl"):
        raw = (GOLDEN / name).read_text(encoding="utf-8")
        assert '"RD-1428/2003#rd.df1.77"' in raw            # append-only: never edited
        qs = {q.id: q for q in load_golden(GOLDEN / name)}
        assert qs["g0045"].expected == (R + "rd.df1.3.p4",)
        assert qs["g0162"].expected == (R + "rd.df1.2.p4",)
    assert {q.id: q for q in load_golden(GOLDEN / "golden-v2.jsonl")}["g0932"].expected == \
        (R + "rd.df1.2.p4",)
    unmapped = {q.id: q for q in load_golden(GOLDEN / "golden-v1.jsonl", renames=Renames())}
    assert unmapped["g0045"].expected == (R + "rd.df1.77",)


def test_hooks_loader_maps_old_refs(reg):
    # every norm's passages: the promoted hooks include the other norms' (hooks-v6)
    citable = _citable(reg).union(*(_citable(n) for n in load_norms(CORPUS, AS_OF).values()))
    hooks, skipped = load_hooks(promoted_hooks(CORPUS), citable)
    assert skipped == 0
    by_ref = {h.ref for h in hooks}
    lines = [json.loads(line) for path in promoted_hooks(CORPUS)
             for line in path.read_text("utf-8").splitlines() if line.strip()]
    on_old = {x["ref"]: len(x["questions"]) for x in lines if x["ref"][len(R):] in OLD_TO_NEW}
    assert on_old   # the promoted hooks still name old refs: the table is what keeps them
    assert {R + OLD_TO_NEW[ref[len(R):]] for ref in on_old} <= by_ref
    _, lost = load_hooks(promoted_hooks(CORPUS), citable, Renames())
    assert lost == sum(on_old.values())   # what the index silently dropped without the table


def test_the_gate_names_the_new_ref(reg, tmp_path):
    cit = Citation("nota.md", 3, R + "rd.df1.77", "Es toda vía pública situada dentro de poblado")
    verdict = check_quote(reg, Pages(tmp_path), cit)
    assert verdict.code is Reason.REF_RENAMED
    assert verdict.reason.startswith("ref renamed: rd.df1.77 is now rd.df1.3.p4 (since 2026-12-01")


def _passages_file(reg, path: Path) -> Path:
    path.write_text("".join(json.dumps({"ref": b.ref, "unit": u.ref}) + "\n" for u in reg.units
                            for b in u.passages if b.ref), encoding="utf-8")
    return path


@pytest.mark.parametrize("script, data, extra", [
    pytest.param("golden/validate.py", "golden/golden-v2.jsonl",
                 ["--base", "golden/golden-v1.jsonl"], id="golden"),
    pytest.param("corpus/hooks/validate.py", "corpus/hooks/hooks-v2.jsonl", [], id="hooks"),
])
def test_validators_read_the_table(reg, tmp_path, script, data, extra):
    passages = _passages_file(reg, tmp_path / "passages.jsonl")

    def run(*more: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(ROOT / script), str(ROOT / data),
                               str(passages), *[str(ROOT / e) if "/" in e else e for e in extra],
                               *more], capture_output=True, text=True, cwd=ROOT)

    ok = run()
    assert ok.returncode == 0, ok.stdout[-2000:]
    assert "renamed refs read" in ok.stdout
    without = run("--renames", str(tmp_path / "none.json"))
    assert without.returncode == 1 and "rd.df1.77" in without.stdout
