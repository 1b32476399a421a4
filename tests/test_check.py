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

from citavial.build.check.notes import CHECK_REASONS, scan
from citavial.build.check.stored import REGULATION_FILE
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
    (folder / REGULATION_FILE).write_bytes(b"not json")               # damaged: rebuilt
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


# --- every norm (issue 23) -----------------------------------------------------------------
# A citation of each norm as a note writes it → the code it gets ("" passes) and the start of
# its proven deep link (a page in the norm's folder; the Reglamento's at the site root). Bare
# fragments and human refs that name no norm are the Reglamento's, as they always were.
ROW10 = ("10. Incumplir las disposiciones legales sobre preferencia de paso, y la obligación de "
         "detenerse en la señal de stop, ceda el paso y en los semáforos con luz roja encendida. | 4")
SPEED = "No respetar los límites de velocidad reglamentariamente establecidos"
CLASSES = "El permiso de conducción será de las siguientes clases"
ITV = ("deberán someterse a inspección técnica en una de las Estaciones de Inspección Técnica de "
       "Vehículos")
OVERTAKE = "el adelantamiento deberá efectuarse por la izquierda"
NORM_CASES = {  # id → (the citation, its norm, code, deep link start)
    "ley-canonical": (f"[«{SPEED}»](cita:RDL-6/2015#art76.a)", "RDL-6/2015", "",
                      "ley-trafico/art76.html#art76-a:~:text=No%20respetar"),
    "ley-points-row": (f"[«{ROW10}»](cita:RDL-6/2015#anexoII.r10)", "RDL-6/2015", "",
                       "ley-trafico/anexoII.html#anexoII-r10:~:text=10.%20Incumplir"),
    "ley-human-comment": (f"«{SPEED}» <!-- cita: art. 76 a) de la Ley sobre Tráfico -->",
                          "RDL-6/2015", "", "ley-trafico/art76.html#art76-a:~:text="),
    "ley-misquote": (f"[«{SPEED.replace('í', 'i')}»](cita:RDL-6/2015#art76.a)", "RDL-6/2015",
                     "not-literal", ""),
    "ley-row-words-twice": ("[«y en los semáforos con luz roja encendida»]"
                            "(cita:RDL-6/2015#anexoII.r10)", "RDL-6/2015", "ambiguous", ""),
    "ley-suppressed": ("[«cualquier texto de cuatro palabras»](cita:RDL-6/2015#art21.4)",
                       "RDL-6/2015", "ref-repealed", ""),
    "ley-unknown": ("[«cualquier texto de cuatro palabras»](cita:RDL-6/2015#art999)",
                    "RDL-6/2015", "ref-unknown", ""),
    "ley-link-into-another-folder": (
        f'[«{SPEED}»](vehiculos/art76.html#art76-a:~:text=No%20respetar "cita:RDL-6/2015#art76.a")',
        "RDL-6/2015", "stale-link", "ley-trafico/art76.html#art76-a:~:text="),
    "conductores-canonical": (f"[«{CLASSES}»](cita:RD-818/2009#art4.2)", "RD-818/2009", "",
                              "conductores/art4.html#art4-2:~:text=El%20permiso"),
    "conductores-human-comment": (
        f"«{CLASSES}» <!-- cita: artículo 4.2 del Reglamento General de Conductores -->",
        "RD-818/2009", "", "conductores/art4.html#art4-2:~:text="),
    "conductores-other-apartado": ("[«deberán constar en un único documento»]"
                                   "(cita:RD-818/2009#art4.2)", "RD-818/2009",
                                   "outside-passage", ""),
    "conductores-invented": ("[«El permiso de conducción será de una sola clase»]"
                             "(cita:RD-818/2009#art4.2)", "RD-818/2009", "not-found", ""),
    "conductores-suppressed": ("[«cualquier texto de cuatro palabras»](cita:RD-818/2009#art5.6)",
                               "RD-818/2009", "ref-repealed", ""),
    "vehiculos-canonical": (f"[«{ITV}»](cita:RD-2822/1998#art10.1)", "RD-2822/1998", "",
                            "vehiculos/art10.html#art10-1:~:text=deber%C3%A1n"),
    "vehiculos-human-comment": (
        f"«{ITV}» <!-- cita: artículo 10.1 del Reglamento General de Vehículos -->",
        "RD-2822/1998", "", "vehiculos/art10.html#art10-1:~:text="),
    "vehiculos-other-apartado": ("[«se estará a lo dispuesto en la reglamentación que se recoge "
                                 "en el anexo I»](cita:RD-2822/1998#art10.1)", "RD-2822/1998",
                                 "outside-passage", ""),
    "reglamento-bare": (f"[«{OVERTAKE}»](cita:art82.1)", "RD-1428/2003", "",
                        "art82.html#art82-1:~:text=el%20adelantamiento"),
    "reglamento-named": (f"«{OVERTAKE}» <!-- cita: artículo 82.1 del Reglamento General de "
                         "Circulación -->", "RD-1428/2003", "", "art82.html#art82-1:~:text="),
    "reglamento-bare-means-the-reglamento": (f"[«{SPEED}»](cita:art76)", "RD-1428/2003",
                                             "not-found", ""),
}


def _sources() -> dict[str, tuple[str, str]]:
    """{norm: (BOE id, consolidation date)} as the corpus states them."""
    from citavial.build.corpus.integrity import verify_corpus
    from citavial.build.corpus.norms import verify_norms
    from citavial.build.ingest import read_source
    rgc = read_source(verify_corpus(CORPUS).metadatos_path)
    return {"RD-1428/2003": (rgc.norm_id, rgc.consolidated),
            **{n: (c.boe_id, c.consolidated) for n, c in verify_norms(CORPUS).items()}}


@pytest.fixture(scope="module")
def norm_note(cache, tmp_path_factory):
    """One note holding every NORM_CASES citation (line i + 1 = case i), checked once as JSON
    and once as GitHub annotations."""
    import contextlib
    import io
    note = tmp_path_factory.mktemp("norms") / "normas.md"
    note.write_text("\n".join(c[0] for c in NORM_CASES.values()) + "\n", encoding="utf-8")
    outs = {}
    for fmt in ("json", "github"):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(["check", str(note), "--format", fmt, "--as-of", AS_OF.isoformat(),
                         "--corpus", str(CORPUS), "--site-src", str(SITE_SRC),
                         "--cache-dir", str(cache)])
        outs[fmt] = (code, buf.getvalue())
    return outs


@pytest.mark.parametrize("case", list(NORM_CASES))
def test_each_norm_is_checked_with_the_gate(norm_note, case):
    cited, norm, want, link = NORM_CASES[case]
    code, out = norm_note["json"]
    line = list(NORM_CASES).index(case) + 1
    r = next(r for r in json.loads(out)["results"] if r["line"] == line)
    assert code == 1 and (r["code"], r["ok"]) == (want, not want), r
    assert r["url"].startswith(link) if link else r["url"] == "", r
    assert (r["norm"], r["boe_id"], r["consolidated"]) == (norm, *_sources()[norm])
    assert r["ref"] == (norm + "#" + r["ref"].partition("#")[2] if norm != "RD-1428/2003"
                        else r["ref"]) and ("#" in r["ref"]) == (norm != "RD-1428/2003")


@pytest.mark.parametrize("case", [c for c, v in NORM_CASES.items() if v[2]])
def test_github_annotation_names_the_norm(norm_note, case):
    _, norm, want, _ = NORM_CASES[case]
    code, out = norm_note["github"]
    line = list(NORM_CASES).index(case) + 1
    row = next(x for x in out.splitlines() if f",line={line}," in x)
    boe_id, consolidated = _sources()[norm]
    assert code == 1 and f"title=citavial check%3A {want}::" in row
    assert row.endswith(f", {boe_id}, consolidated {consolidated})")


@pytest.mark.parametrize("case, folder", [("ley-canonical", "ley-trafico/"),
                                          ("ley-points-row", "ley-trafico/"),
                                          ("ley-link-into-another-folder", "ley-trafico/"),
                                          ("conductores-canonical", "conductores/"),
                                          ("vehiculos-canonical", "vehiculos/"),
                                          ("reglamento-bare", "")])
def test_fix_links_points_into_the_norms_folder(capsys, cache, tmp_path, case, folder):
    cited, norm, _, link = NORM_CASES[case]
    note = tmp_path / "nota.md"
    note.write_text(cited + "\n", encoding="utf-8")
    code, out, _ = run(capsys, cache, note, "--fix-links", "--base-url",
                       "https://example.org/rgc/")
    (text,) = note.read_text(encoding="utf-8").splitlines()
    ref = "art82.1" if norm == "RD-1428/2003" else cited.split("cita:")[1].rstrip(')"')
    assert code == 0 and "rewrote 1 link(s)" in out, out
    assert text.startswith(f"[«{cited.split('«')[1].split('»')[0]}»](https://example.org/rgc/"
                           f"{link}") and link.startswith(folder)
    assert text.endswith(f' "cita:{ref}")')
    code, out, _ = run(capsys, cache, note, "--format", "json", "--base-url",
                       "https://example.org/rgc/")
    assert code == 0 and [r["form"] for r in json.loads(out)["results"]] == ["linked"]


def test_other_norms_are_rendered_only_when_cited(capsys, tmp_path):
    cache = tmp_path / "cache"
    assert run(capsys, cache, GOOD)[0] == 0
    (folder,) = cache.glob("check-*")
    assert not (folder / "norms").exists()        # a note of the Reglamento pays for it alone
    note = tmp_path / "ley.md"
    note.write_text(NORM_CASES["ley-canonical"][0] + "\n", encoding="utf-8")
    assert run(capsys, cache, note)[0] == 0
    assert [p.name for p in (folder / "norms").iterdir() if p.is_dir()] == ["ley-trafico"]
    assert (folder / "norms" / "ley-trafico" / "ley-trafico" / "art76.html").is_file()
    stamp = (folder / "norms" / "ley-trafico" / REGULATION_FILE).stat().st_mtime_ns
    assert run(capsys, cache, note)[0] == 0                                  # reused
    assert (folder / "norms" / "ley-trafico" / REGULATION_FILE).stat().st_mtime_ns == stamp


def test_claims_read_another_norms_passage(capsys, cache, tmp_path):
    note = tmp_path / "claims.md"
    note.write_text(f"Siempre es infracción grave [«{SPEED}»](cita:RDL-6/2015#art76.a).\n",
                    encoding="utf-8")
    code, out, _ = run(capsys, cache, note, "--format", "json", "--claims")
    doc = json.loads(out)
    assert code == 1 and doc["failed"] == 0
    assert [(c["ref"], c["code"], c["shown"]) for c in doc["claims"]] == [
        ("RDL-6/2015#art76.a", "claim-absolute", "siempre")]


def _text_model(path: Path) -> list[tuple[str, str]]:
    from citavial.build.gate.fragments import read_page
    return [(b.anchor, b.norm) for b in read_page(path.read_bytes()).blocks]


def test_check_judges_on_the_text_the_site_serves(norm_note, cache, built_site):
    """Every unit page check renders for each norm reads, as a browser does, exactly as the
    built site's page: same blocks, same words, same anchors."""
    (folder,) = cache.glob("check-*")
    roots = {"": folder, **{n: folder / "norms" / n
                            for n in ("ley-trafico", "conductores", "vehiculos")}}
    compared = {}
    for name, root in roots.items():
        pages = sorted((root / name).glob("*.html")) if name else sorted(
            p for p in root.glob("*.html") if p.name not in ("index.html", "vigencia.html"))
        for p in pages:
            site_page = built_site / (f"{name}/" if name else "") / p.name
            assert _text_model(p) == _text_model(site_page), p
        compared[name] = len(pages)
    assert compared[""] > 200 and all(compared[n] > 90 for n in roots if n)


def test_a_passing_citation_links_as_the_allowlist_does(capsys, cache, tmp_path, built_site):
    """Every 25th passage of each other norm quoted whole: when the gate lets it pass (a few
    passages repeat elsewhere on their page), check proves the allowlist's own link."""
    entries = json.loads((built_site / "allowlist.json").read_text(encoding="utf-8"))["entries"]
    sample = [e for e in entries if e["norm"] != "RD-1428/2003"
              and not any(c in e["text"] for c in "«»[]\n")][::25]
    note = tmp_path / "muestra.md"
    note.write_text("".join(f"[«{e['text']}»](cita:{e['ref']})\n" for e in sample), "utf-8")
    code, out, _ = run(capsys, cache, note, "--format", "json")
    results = json.loads(out)["results"]
    passed = [(r["url"], e["url"]) for r, e in zip(results, sample, strict=True) if r["ok"]]
    assert {r["code"] for r in results} <= {"", "ambiguous", "too-short", "straddles-blocks"}
    assert len(passed) > 0.8 * len(sample) and all(a == b for a, b in passed)
    assert {e["norm"] for e in sample} == {"RDL-6/2015", "RD-818/2009", "RD-2822/1998"}
