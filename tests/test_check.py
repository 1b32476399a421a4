"""`citavial check`: the build's gate on notes written by others (tests/fixtures/check-repo).

The fixture repo has good notes (every citation passes) and bad notes with one failing citation
per reason the gate knows; each is run through the real console-script entry point (in-process,
plus one real subprocess), against the real corpus rendered into a per-session cache.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import AS_OF, CORPUS, ROOT, SITE_SRC

from citavial.build.check.cache import REGULATION_FILE
from citavial.build.check.notes import CHECK_REASONS, scan
from citavial.build.gate import verify
from citavial.worker.cli import main

REPO = Path(__file__).parent / "fixtures" / "check-repo"
GOOD, BAD = REPO / "notas" / "buenas", REPO / "notas" / "malas" / "errores.md"
# Line of tests/fixtures/check-repo/notas/malas/errores.md → the code it must fail with.
EXPECTED = {3: "ref-unknown", 4: "ref-unknown", 5: "ref-repealed", 6: "too-short",
            7: "row-not-found", 8: "row-ambiguous", 9: "row-spans-passages", 10: "ambiguous",
            11: "outside-passage", 12: "outside-passage", 13: "not-literal", 14: "not-literal",
            15: "straddles-blocks", 16: "not-word-bounded", 17: "not-found", 18: "malformed",
            19: "stale-link", 20: "ref-unknown", 21: "ref-renamed", 22: "link-not-allowed"}
# Unreachable on the real corpus: every run of 2–5 consecutive blocks on every in-force page
# was tried as a row quote and each one that is found gets a text-fragment link.
UNREACHABLE = {"row-not-selectable"}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("check-cache")


def run(capsys, cache, *args) -> tuple[int, str, str]:
    code = main(["check", *map(str, args), "--as-of", AS_OF.isoformat(), "--corpus", str(CORPUS),
                 "--site-src", str(SITE_SRC), "--cache-dir", str(cache)])
    out, err = capsys.readouterr()
    return code, out, err


def test_good_notes_pass(capsys, cache):
    code, out, _ = run(capsys, cache, GOOD, "-v")
    assert code == 0, out
    assert "5 citation(s) in 2 file(s), 5 ok, 0 failed" in out
    assert out.count(": art") == 5 and "ok → art82.html#art82-1:~:text=" in out


def test_bad_notes_json_every_reason(capsys, cache):
    code, out, _ = run(capsys, cache, BAD, "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["schema"] == "citavial-check/1" and not doc["ok"]
    got = {r["line"]: r["code"] for r in doc["results"]}
    assert got == EXPECTED
    known = {r.value for r in verify.Reason} | {c for c, _ in CHECK_REASONS}
    assert set(got.values()) == known - UNREACHABLE
    assert all(r["reason"] and not r["url"] for r in doc["results"]
               if r["code"] not in ("stale-link", "ref-renamed"))
    renamed = next(r for r in doc["results"] if r["code"] == "ref-renamed")
    assert renamed["reason"].startswith("ref renamed: rd.df1.77 is now rd.df1.3.p4 (since ")
    assert renamed["url"].startswith("rd-df1.html#rd-df1-3-p4:~:text=")  # proven under the new ref


@pytest.mark.parametrize("line, text", [
    pytest.param(13, "art82.1 «el adelantamiento debera efectuarse por la izquierda del vehículo»: "
                     "not literal: the page reads «el adelantamiento deberá", id="not-literal"),
    pytest.param(5, "art51 «cualquier texto de cuatro palabras»: ref repealed:", id="repealed"),
    pytest.param(18, "malformed citation: write [«exact words»](cita:art48.1.a)", id="malformed"),
])
def test_human_format_is_file_line_col(capsys, cache, line, text):
    code, out, _ = run(capsys, cache, BAD)
    assert code == 1
    row = next(x for x in out.splitlines() if x.startswith(f"{BAD}:{line}:"))
    file, ln, col, message = row.split(":", 3)
    assert int(col) == BAD.read_text(encoding="utf-8").splitlines()[line - 1].index("[«") + 1
    assert message.strip().startswith(text)


def test_github_format_annotates_each_failure(capsys, cache):
    code, out, _ = run(capsys, cache, BAD, "--format", "github")
    errors = [x for x in out.splitlines() if x.startswith("::error ")]
    assert code == 1 and len(errors) == len(EXPECTED)
    assert f"::error file={BAD},line=13,col=12,title=citavial check%3A not-literal::art82.1" in out
    assert all("\n" not in e and "%0A" not in e.split("::")[1] for e in errors)


def test_bare_comment_and_code_examples(capsys, cache):
    found = scan((GOOD / "adelantar.md").read_text(encoding="utf-8"), "adelantar.md")
    assert [(f.form, f.citation.line) for f in found] == [("link", 7), ("link", 9),
                                                          ("comment", 11)]


@pytest.mark.parametrize("text, forms", [
    pytest.param("[«cuatro palabras de texto»](cita:art82.1)", ["link"], id="link"),
    pytest.param('[«cuatro palabras de texto»](art82.html#x "cita:art82.1")', ["linked"],
                 id="linked"),
    pytest.param("«cuatro palabras de texto» <!-- cita: art82.1 -->", ["comment"], id="comment"),
    pytest.param("`[«cuatro palabras»](cita:art82.1)`", [], id="code-span"),
    pytest.param("```\n[«cuatro palabras»](cita:art82.1)\n```", [], id="fence"),
    pytest.param("    [«cuatro palabras»](cita:art82.1)", [], id="indented-code"),
    pytest.param("[«a « b»](cita:art82.1) y (cita:art1)", ["malformed"], id="malformed-once"),
    pytest.param("«sin etiqueta» y [texto](https://example.org)", [], id="plain-prose"),
])
def test_scan_forms(text, forms):
    assert [f.form for f in scan(text, "n.md")] == forms


def test_every_gate_reason_is_given():
    """Each Reason member is given by some branch of check_quote (a `Reason.X` outside the enum's
    own definition), and every failure is built by `_fail` with a code: no verdict is a bare
    message that a reader would have to parse."""
    tree = ast.parse(Path(verify.__file__).read_text(encoding="utf-8"))
    enum_def = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Reason")
    inside = {id(n) for n in ast.walk(enum_def)}
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
            and getattr(n.value, "id", "") == "Reason" and id(n) not in inside}
    assert used == {r.name for r in verify.Reason}
    passes = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
              and getattr(n.func, "id", "") == "QuoteCheck" and len(n.args) >= 2
              and not (isinstance(n.args[1], ast.Constant) and n.args[1].value == "")]
    assert [ast.unparse(n) for n in passes] == ["QuoteCheck(cit, reason, '', code)"]   # _fail
    with pytest.raises(ValueError, match="needs both a code and a reason"):
        verify.QuoteCheck(verify.Citation("t.md", 1, "RD-1428/2003#art48.1", "x"), "a reason")


def test_fix_links_rewrites_and_then_passes(capsys, cache, tmp_path):
    note = tmp_path / "nota.md"
    shutil.copy(GOOD / "adelantar.md", note)
    note.chmod(0o640)
    code, out, _ = run(capsys, cache, note, "--fix-links", "--base-url", "https://example.org/rgc/")
    text = note.read_text(encoding="utf-8")
    assert code == 0 and "rewrote 2 link(s) in 1 file(s)" in out
    assert ('[«el adelantamiento deberá efectuarse por la izquierda del vehículo que se pretende '
            'adelantar»](https://example.org/rgc/art82.html#art82-1:~:text=el%20adelantamiento'
            ) in text and '"cita:art82.1")' in text
    assert "`[«palabras exactas»](cita:art48.1.a)`" in text     # code examples untouched
    assert oct(note.stat().st_mode & 0o777) == "0o640"
    code, out, _ = run(capsys, cache, note, "--format", "json", "--base-url",
                       "https://example.org/rgc/")
    assert code == 0 and [r["form"] for r in json.loads(out)["results"]] == \
        ["linked", "linked", "comment"]


def test_fix_links_repairs_a_stale_link(capsys, cache, tmp_path):
    note = tmp_path / "nota.md"
    note.write_text(BAD.read_text(encoding="utf-8").splitlines()[18] + "\n", encoding="utf-8")
    assert run(capsys, cache, note)[0] == 1
    code, out, _ = run(capsys, cache, note, "--fix-links")
    assert code == 0, out
    assert "](art82.html#art82-1:~:text=el%20adelantamiento" in note.read_text(encoding="utf-8")


def test_fix_links_rewrites_a_renamed_ref_in_every_form(capsys, cache, tmp_path):
    note = tmp_path / "nota.md"
    quote = "Es toda vía pública situada dentro de poblado, excepto las travesías"
    note.write_text(f"[«{quote}»](cita:rd.df1.77)\n"
                    f"[«{quote}»](rd-df1.html#rd-df1-77 \"cita:RD-1428/2003#rd.df1.77\")\n"
                    f"«{quote}»  <!--cita:rd.df1.77 -->\n"
                    f"[«Es toda vía pública situada fuera de poblado»](cita:rd.df1.77)\n",
                    encoding="utf-8")
    code, out, _ = run(capsys, cache, note)
    assert code == 1 and out.count("ref renamed: rd.df1.77 is now rd.df1.3.p4") == 4
    assert "4:1: rd.df1.77 «Es toda vía pública situada fuera de poblado»: outside the cited " \
           "passage" in out                      # judged under the new ref, the rename named
    code, out, _ = run(capsys, cache, note, "--fix-links")
    lines = note.read_text(encoding="utf-8").splitlines()
    assert code == 1 and "rewrote 3 link(s) in 1 file(s)" in out
    assert lines[0] == lines[1] and lines[0].startswith(f"[«{quote}»](rd-df1.html#rd-df1-3-p4:~:")
    assert lines[0].endswith('"cita:rd.df1.3.p4")')
    assert lines[2] == f"«{quote}»  <!--cita:rd.df1.3.p4 -->"    # only the ref is rewritten
    assert lines[3].endswith("(cita:rd.df1.77)")                  # its quote fails: untouched
    code, out, _ = run(capsys, cache, note)
    assert "3 ok, 1 failed" in out


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("make, message", [
    pytest.param(lambda d: d / "missing.md", "no such file or folder", id="missing-path"),
    pytest.param(lambda d: (d / "empty").mkdir() or d / "empty", "no Markdown notes",
                 id="folder-without-notes"),
    pytest.param(lambda d: _write(d / "latin1.md", b"caf\xe9 [\xab"), "is not UTF-8",
                 id="not-utf8"),
])
def test_usage_and_io_errors_exit_2(capsys, cache, tmp_path, make, message):
    code, out, err = run(capsys, cache, make(tmp_path), "--format", "json")
    assert code == 2 and message in err
    assert json.loads(out)["ok"] is False and message in json.loads(out)["error"]


def test_broken_corpus_exits_2(capsys, tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    with open(corpus / "BOE-A-2003-23514.xml", "ab") as fh:
        fh.write(b"<!-- tampered -->")
    code = main(["check", str(GOOD), "--corpus", str(corpus), "--cache-dir", str(tmp_path / "c")])
    assert code == 2 and "cannot load the regulation" in capsys.readouterr().err


def test_cache_is_keyed_and_reused(capsys, tmp_path):
    cache = tmp_path / "cache"
    assert run(capsys, cache, GOOD)[0] == 0
    (folder,) = cache.glob("check-*")
    stamp = (folder / REGULATION_FILE).stat().st_mtime_ns
    assert run(capsys, cache, GOOD)[0] == 0
    assert (folder / REGULATION_FILE).stat().st_mtime_ns == stamp     # reused, not rebuilt
    (folder / REGULATION_FILE).write_bytes(b"not a pickle")           # damaged: rebuilt
    assert run(capsys, cache, GOOD)[0] == 0 and (folder / REGULATION_FILE).stat().st_size > 1000
    code = main(["check", str(GOOD), "--as-of", "2026-01-15", "--cache-dir", str(cache),
                 "--corpus", str(CORPUS), "--site-src", str(SITE_SRC)])
    capsys.readouterr()
    (other,) = cache.glob("check-*")                                  # other date, other key
    assert code == 0 and other != folder


def test_console_script_subprocess(cache):
    """The installed `citavial` entry point, as a pre-commit hook runs it."""
    exe = Path(sys.executable).with_name("citavial")
    proc = subprocess.run([str(exe), "check", str(BAD), str(GOOD), "--as-of", AS_OF.isoformat(),
                           "--cache-dir", str(cache)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.strip().splitlines()[-1].startswith("citavial check: 25 citation(s) in "
                                                           "3 file(s), 5 ok, 20 failed")


CLAIMS_NOTE = (
    "# Apuntes\n\n"
    "La marcha atrás [«no podrá ser superior a 15 metros ni invadir un cruce de vías»]"
    "(cita:art80.2) y se hace siempre.\n\n"
    "El máximo es de 25 metros [«no podrá ser superior a 15 metros ni invadir un cruce de "
    "vías»](cita:art80.2).\n\n"
    "Son como mucho 15 metros [«no podrá ser superior a 15 metros ni invadir un cruce de "
    "vías»](cita:art80.2).\n")


def test_claims_are_reported_apart_and_fail_only_when_asked(capsys, cache, tmp_path):
    note = tmp_path / "claims.md"
    note.write_text(CLAIMS_NOTE, encoding="utf-8")
    code, out, _ = run(capsys, cache, note, "--format", "json")
    assert code == 0 and json.loads(out)["claims"] == []
    code, out, _ = run(capsys, cache, note, "--format", "json", "--claims")
    doc = json.loads(out)
    assert code == 1 and doc["ok"] and doc["failed"] == 0   # the quotes themselves pass
    assert [(c["line"], c["code"], c["shown"]) for c in doc["claims"]] == [
        (3, "claim-absolute", "siempre"), (5, "claim-number", "25 metros")]
