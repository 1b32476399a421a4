"""`citavial exam BANK`: outcomes, summary counts and intervals, malformed banks, atomic output,
an escaped HTML report. The banks are ours (tests/fixtures/exam/README.md), never real exam text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import ROOT

from citavial.worker.cli import main
from citavial.worker.eval import exam_report
from citavial.worker.eval.exam import wilson
from citavial.worker.eval.exam_report import FILES, ReportError, write_report

BANKS = ROOT / "tests" / "fixtures" / "exam"
ART80_2 = "RD-1428/2003#art80.2"


def exam(tmp_path: Path, bank: Path, *extra: str, dist: Path | None = None,
         out: str = "report") -> tuple[int, Path]:
    argv = ["exam", str(bank), "--out", str(tmp_path / out)] + list(extra)
    if dist is not None:
        argv += ["--dist", str(dist)]
    return main(argv), tmp_path / out


def read(out: Path) -> tuple[dict[str, dict], dict]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text("utf-8").splitlines()]
    return {r["id"]: r for r in rows}, json.loads((out / "summary.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def jsonl_run(built_site, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("exam")
    labels = tmp / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "marcha-atras", "split": "dev", "agree": "article", "refs": [ART80_2],
         "articles": ["RD-1428/2003#art80"]},
        {"id": "auriculares", "split": "dev", "agree": "article", "refs": [],
         "articles": ["RD-1428/2003#art18"]},
        {"id": "marcha-atras-clave-errada", "split": "test", "agree": "article", "refs": [],
         "articles": ["RD-1428/2003#art12"]},
        {"id": "color-coche", "split": "dev", "agree": "no-rgc", "refs": [], "articles": []}]))
    status, out = exam(tmp, BANKS / "bank.jsonl", "--labels", str(labels), dist=built_site)
    assert status == 0
    return read(out) + (out,)


@pytest.mark.parametrize("qid,outcome,letter,correct", [
    pytest.param("marcha-atras", "named", "a", True, id="stated-figure-named-right"),
    pytest.param("auriculares", "named", "c", True, id="stated-prohibition-named-right"),
    pytest.param("marcha-atras-clave-errada", "named", "b", False, id="wrong-key-scored-wrong"),
    pytest.param("auriculares-si-no", "undecided", None, None, id="yes-no-undecided"),
    # the Ley's art. 63.2 answers it ("ocho puntos"), but the search ranks a Reglamento passage
    # first (a known limit: the other norms enter the ranking with a prior): the words it found
    # decide nothing, so no option is named — never a wrong one
    pytest.param("puntos-novel", "undecided", None, None, id="other-norm"),
    pytest.param("color-coche", "unsure", None, None, id="nothing-answers-no-key"),
])
def test_outcomes(jsonl_run, qid, outcome, letter, correct):
    rows, _, _ = jsonl_run
    r = rows[qid]
    assert (r["outcome"], r["letter"], r["correct"]) == (outcome, letter, correct)
    if outcome == "named":
        assert r["words"] and r["words_ref"] and ":~:text=" in r["words_url"]
        assert r["first_citation"]["shown_as"] == "citation"
    if outcome == "undecided":
        assert r["reason"] == "none_stated" and r["words"] is None and r["first_citation"]


def test_named_words_are_the_passages_own(jsonl_run, built_site):
    rows, _, _ = jsonl_run
    entries = {e["ref"]: e for e in json.loads(
        (built_site / "allowlist.json").read_text("utf-8"))["entries"]}
    r = rows["marcha-atras"]
    assert r["words_ref"] == ART80_2 and r["words"] in entries[ART80_2]["text"]
    first = r["first_citation"]
    assert first["quote"] == entries[first["ref"]]["text"]
    assert first["url"] == entries[first["ref"]]["url"]


def test_summary_counts_and_intervals(jsonl_run):
    _, s, _ = jsonl_run
    a = s["all"]
    assert a["n"] == 6 and s["skipped"] == {"needs_image": 1}
    assert a["outcomes"] == {"named": 3, "undecided": 2, "not_this_norm": 0, "unsure": 1}
    expect = {"right": (2, 5), "wrong": (1, 5), "undecided": (2, 6), "declined": (1, 6),
              "precision": (2, 3)}
    for name, (k, n) in expect.items():
        assert (a[name]["count"], a[name]["n"]) == (k, n), name
        assert a[name]["ci95"] == list(wilson(k, n)), name
    assert set(s["by_scope_hint"]) == {"", "licence_points"}
    assert s["by_scope_hint"][""]["n"] == 5
    assert {k: v["n"] for k, v in s["by_scope"].items()} == {"reglamento": 5, "other": 1}
    assert {k: v["n"] for k, v in s["by_split"].items()} == {"dev": 4, "test": 2}
    assert {k: v["n"] for k, v in s["by_tier"].items()} == {"A": 3, "B": 3}
    assert s["invented_refs"] == 0 and s["non_literal_quotes"] == 0
    assert s["latency_ms"]["n"] == 6 and s["index"] == "index-dev"
    lab = s["first_citation_is_labelled_article"]
    assert (lab["count"], lab["n"]) == (2, 3)


def test_rows_and_summary_hold_no_question_text(jsonl_run):
    _, _, out = jsonl_run
    bank = [json.loads(line) for line in (BANKS / "bank.jsonl").read_text("utf-8").splitlines()]
    written = (out / "results.jsonl").read_text("utf-8") + (out / "summary.json").read_text()
    assert not [b["id"] for b in bank if b["question"] in written]


def test_files_are_world_readable(jsonl_run):
    _, _, out = jsonl_run
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    assert all(p.stat().st_mode & 0o004 for p in out.iterdir())
    assert out.stat().st_mode & 0o005 == 0o005


def test_csv_bank_and_multi_line_paste(built_site, tmp_path):
    status, out = exam(tmp_path, BANKS / "bank.csv", "--paste", "multi-line", dist=built_site)
    assert status == 0
    rows, s = read(out)
    assert {k: (r["outcome"], r["letter"]) for k, r in rows.items() if k != "cinturon"} == {
        "marcha-atras": ("named", "a"), "puntos-novel": ("undecided", None)}
    # a bare "Sí." is never named; whether the words are shown is the calibrated gate's call
    assert rows["cinturon"]["letter"] is None
    assert rows["cinturon"]["outcome"] in ("undecided", "unsure")
    assert rows["puntos-novel"]["scope_hint"] == ["licence_points", "sanctions"]
    assert set(s["by_scope_hint"]) == {"", "licence_points", "sanctions"}
    assert s["paste"] == "multi-line" and s["all"]["precision"]["count"] == 1


def test_split_and_images(built_site, tmp_path):
    status, out = exam(tmp_path, BANKS / "bank.jsonl", "--split", "test", dist=built_site)
    rows, s = read(out)
    assert status == 0 and set(rows) == {"marcha-atras-clave-errada", "puntos-novel"}
    assert s["index"] == "index" and s["skipped"] == {}
    status, out = exam(tmp_path, BANKS / "bank.jsonl", "--split", "dev", "--with-images",
                       dist=built_site, out="img")
    rows, s = read(out)
    assert status == 0 and "con-imagen" in rows and s["skipped"] == {}


def test_a_question_the_worker_refuses_is_skipped_and_named(built_site, tmp_path, capsys):
    bank = tmp_path / "b.jsonl"
    long = {**GOOD, "id": "long", "question": "¿" + "muy " * 130 + "largo?"}
    bank.write_text(json.dumps(GOOD) + "\n" + json.dumps(long) + "\n")
    status, out = exam(tmp_path, bank, dist=built_site)
    rows, s = read(out)
    assert status == 0 and list(rows) == ["ok"] and s["skipped"] == {"refused": 1}
    assert [r["line"] for r in s["refused"]] == [2]
    assert f"{bank}:2: skipped:" in capsys.readouterr().err


def test_html_escapes_the_bank(built_site, tmp_path):
    bank = tmp_path / "b.jsonl"
    bank.write_text(json.dumps({"id": "x<i>", "question": "¿<script>alert(1)</script> marcha "
                                "atrás máxima?", "options": ["No podrá ser superior a 15 "
                                "metros.", "<b>Sin</b> límite & más."], "answer": "A"}) + "\n")
    status, out = exam(tmp_path, bank, dist=built_site)
    html = (out / "report.html").read_text("utf-8")
    assert status == 0 and "<script" not in html and "<b>" not in html and "<i>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;b&gt;Sin" in html
    assert "Respuesta: a)" in html and "<mark>no podrá ser superior a 15 metros</mark>" in html


def test_report_links_absolute_with_a_base_url(published_site, tmp_path):
    status, out = exam(tmp_path, BANKS / "bank.csv", dist=published_site)
    html = (out / "report.html").read_text("utf-8")
    assert status == 0 and 'href="https://autoescuela.example/rgc/art80.html#' in html


def test_report_links_relative_to_the_site_without_one(jsonl_run, built_site):
    _, _, out = jsonl_run
    html = (out / "report.html").read_text("utf-8")
    import os
    prefix = Path(os.path.relpath(built_site, out)).as_posix() + "/art80.html#"
    assert f'href="{prefix}' in html and str(built_site) in html


# --- malformed banks: exit 2, one line naming file:line: field -----------------------------

GOOD = {"id": "ok", "question": "¿Velocidad máxima en autopista?", "options": ["120", "100"]}


def jsonl(**change) -> str:
    row = {k: v for k, v in {**GOOD, "id": "bad", **change}.items() if v is not DROP}
    return json.dumps(GOOD) + "\n" + json.dumps(row, ensure_ascii=False) + "\n"


DROP = object()
CSV_HEAD = "id,question,a,b,c,answer\n"
CSV_OK = "ok,¿Velocidad máxima?,120,100,90,a\n"


@pytest.mark.parametrize("name,text,line,field", [
    pytest.param("b.jsonl", jsonl(options=["solo una"]), 2, "options", id="one-option"),
    pytest.param("b.jsonl", jsonl(options=list("abcde")), 2, "options", id="five-options"),
    pytest.param("b.jsonl", jsonl(options={"A": "x", "C": "y"}), 2, "options",
                 id="option-letters-skip"),
    pytest.param("b.jsonl", jsonl(options=["x", "  "]), 2, "options", id="empty-option"),
    pytest.param("b.jsonl", jsonl(options="a) x b) y"), 2, "options", id="options-a-string"),
    pytest.param("b.jsonl", jsonl(question=DROP), 2, "question", id="no-question"),
    pytest.param("b.jsonl", jsonl(question=" "), 2, "question", id="blank-question"),
    pytest.param("b.jsonl", jsonl(answer="C"), 2, "answer", id="key-not-an-option"),
    pytest.param("b.jsonl", jsonl(answer=1), 2, "answer", id="key-a-number"),
    pytest.param("b.jsonl", jsonl(id="ok"), 2, "id", id="duplicate-id"),
    pytest.param("b.jsonl", jsonl(id=["x"]), 2, "id", id="id-a-list"),
    pytest.param("b.jsonl", jsonl(scope_hint="first_aid"), 2, "scope_hint",
                 id="scope-hint-a-string"),
    pytest.param("b.jsonl", jsonl(needs_image="quizá"), 2, "needs_image", id="needs-image-word"),
    pytest.param("b.jsonl", jsonl(split=1), 2, "split", id="split-a-number"),
    pytest.param("b.jsonl", json.dumps(GOOD) + "\n{not json\n", 2, None, id="not-json"),
    pytest.param("b.jsonl", json.dumps(GOOD) + "\n[1, 2]\n", 2, None, id="not-an-object"),
    pytest.param("b.csv", "id,pregunta,a,b\nx,y,z,w\n", 1, "question", id="csv-no-question"),
    pytest.param("b.csv", CSV_HEAD + CSV_OK + "x,¿y?,1,2,3,d\n", 3, "answer",
                 id="csv-key-not-an-option"),
    pytest.param("b.csv", CSV_HEAD + CSV_OK + "x,¿y?,1\n", 3, None, id="csv-short-row"),
    pytest.param("b.csv", CSV_HEAD + CSV_OK + 'x,"¿y,\nz?",1,,,\n', 3, "options",
                 id="csv-one-option-after-a-quoted-newline"),
])
def test_malformed_bank_exits_2_naming_file_line_field(tmp_path, capsys, name, text, line,
                                                       field):
    bank = tmp_path / name
    bank.write_text(text, encoding="utf-8")
    status, out = exam(tmp_path, bank, dist=tmp_path / "no-dist")
    err = capsys.readouterr().err.strip()
    assert status == 2 and not out.exists() and len(err.splitlines()) == 1
    where = f"citavial exam: {bank}:{line}:"
    assert err.startswith(where + (f' field "{field}":' if field else "")), err


@pytest.mark.parametrize("setup,where", [
    pytest.param(lambda t: t / "missing.jsonl", "missing.jsonl", id="bank-missing"),
    pytest.param(lambda t: (t / "l.jsonl").write_bytes(b"\xff\xfe{") and t / "l.jsonl",
                 "l.jsonl", id="bank-not-utf8"),
    pytest.param(lambda t: (t / "ok.jsonl").write_text(json.dumps(GOOD)) and t / "ok.jsonl",
                 "no-dist", id="no-built-site"),
])
def test_io_errors_exit_2_naming_the_file(tmp_path, capsys, setup, where):
    bank = setup(tmp_path)
    status, out = exam(tmp_path, bank, dist=tmp_path / "no-dist")
    err = capsys.readouterr().err.strip()
    assert status == 2 and not out.exists() and where in err and len(err.splitlines()) == 1


def test_a_split_the_bank_lacks_exits_2(tmp_path, capsys):
    bank = tmp_path / "b.jsonl"
    bank.write_text(json.dumps(GOOD) + "\n")
    status, _ = exam(tmp_path, bank, "--split", "dev", dist=tmp_path / "no-dist")
    assert status == 2 and str(bank) in capsys.readouterr().err


# --- atomic output ------------------------------------------------------------------------

def test_a_failing_run_leaves_the_earlier_report_intact(built_site, tmp_path, monkeypatch):
    status, out = exam(tmp_path, BANKS / "bank.csv", dist=built_site)
    assert status == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(jsonl(options=["una"]))
    assert exam(tmp_path, bad, dist=built_site)[0] == 2

    def crash(*args, **kwargs):
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(exam_report, "_html", crash)
    with pytest.raises(RuntimeError):
        exam(tmp_path, BANKS / "bank.jsonl", dist=built_site)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "report"]


def test_write_report_failing_midway_keeps_the_old_one(tmp_path):
    out = tmp_path / "r"
    write_report(out, {"summary.json": b"{}\n"})
    with pytest.raises(TypeError):
        write_report(out, {"report.html": b"<p>", "summary.json": None})   # type: ignore
    assert [p.name for p in out.iterdir()] == ["summary.json"]
    assert (out / "summary.json").read_bytes() == b"{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]
    write_report(out, {"results.jsonl": b"", "summary.json": b"[]\n"})
    assert sorted(p.name for p in out.iterdir()) == ["results.jsonl", "summary.json"]


def test_never_replaces_a_folder_that_is_not_a_report(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ReportError):
        write_report(tmp_path, {"summary.json": b"{}"})
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


# --- Wilson score interval (known values: Newcombe 1998, Brown-Cai-DasGupta 2001) -------------

@pytest.mark.parametrize("k,n,lo,hi", [
    pytest.param(0, 10, 0.0, 0.2775, id="0-of-10"),
    pytest.param(1, 10, 0.0179, 0.4042, id="1-of-10"),
    pytest.param(5, 10, 0.2366, 0.7634, id="5-of-10"),
    pytest.param(10, 10, 0.7225, 1.0, id="10-of-10"),
    pytest.param(50, 100, 0.4038, 0.5962, id="50-of-100"),
])
def test_wilson(k, n, lo, hi):
    got = wilson(k, n)
    assert got is not None and abs(got[0] - lo) <= 1e-4 and abs(got[1] - hi) <= 1e-4


def test_wilson_of_nothing():
    assert wilson(0, 0) is None


# --- the real bank (evaluation data outside the repo): invariants only, never a figure -------

REAL_BANK = ROOT.parent / "shared" / "eval" / "dgt-bank.jsonl"


@pytest.mark.slow
def test_real_bank_dev_split_invariants(built_site, tmp_path):
    if not REAL_BANK.is_file():
        pytest.skip(f"{REAL_BANK} is absent: the real DGT bank lives outside the repo")
    status, out = exam(tmp_path, REAL_BANK, "--split", "dev", "--labels",
                       str(ROOT / "golden" / "dgt-labels" / "agreed.jsonl"), dist=built_site)
    assert status == 0
    rows, s = read(out)
    dev = [json.loads(line) for line in REAL_BANK.read_text("utf-8").splitlines()
           if json.loads(line)["split"] == "dev"]
    a = s["all"]
    assert s["invented_refs"] == 0 and s["non_literal_quotes"] == 0
    assert a["n"] == len(rows) and a["n"] + sum(s["skipped"].values()) == len(dev)
    assert sum(a["outcomes"].values()) == a["n"] == a["keyed"]
    assert a["right"]["count"] + a["wrong"]["count"] == a["outcomes"]["named"]
    assert a["declined"]["count"] == a["outcomes"]["not_this_norm"] + a["outcomes"]["unsure"]
    for part in ("by_split", "by_tier"):
        assert sum(v["n"] for v in s[part].values()) == a["n"]
    assert sum(v["n"] for v in s["by_scope_hint"].values()) >= a["n"]
    assert all(r["words"] is not None for r in rows.values() if r["outcome"] == "named")
