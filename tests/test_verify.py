"""The citation gate, case by case, on a really rendered site (tests/conftest.py: built_site)."""

from __future__ import annotations

import shutil

import pytest
from support import AS_OF, CORPUS, SITE_SRC, tree_hash

from citavial.build.errors import BuildErrors
from citavial.build.gate.verify import GateError, Pages, QuoteCheck, Reason, check_quote
from citavial.build.models import Citation
from citavial.build.pipeline import build_site
from citavial.build.refs import RefError, parse_ref
from citavial.worker.cli import main


@pytest.fixture(scope="module")
def gate(reg, built_site):
    pages = Pages(built_site)

    def judge(ref: str, quote: str):
        return check_quote(reg, pages, Citation("t.md", 1, parse_ref(ref), quote))
    return judge


@pytest.mark.parametrize("ref, quote, code", [
    pytest.param("art48.1", "Las velocidades máximas que no deberán ser rebasadas", "", id="ok-exact"),
    pytest.param("art48", "Las velocidades máximas que no deberán ser rebasadas", "",
                 id="ok-article-ref-covers-its-apartados"),
    pytest.param("art48.1", "LAS VELOCIDADES MAXIMAS QUE NO DEBERAN", "not-literal",
                 id="browser-would-match-but-not-literal"),
    pytest.param("art48.1", "Las velocidades máximas que\u00a0no deberán ser", "",
                 id="ok-nbsp-is-a-space"),
    pytest.param("art48.1.a", "Autopista y autovía | 120 | 90 | 100", "", id="ok-table-row"),
    pytest.param("art48.1", "Las velocidades mínimas que deberán ser rebasadas siempre",
                 "not-found", id="fabricated"),
    pytest.param("art20", "con una tasa de alcohol en sangre superior",
                 "ambiguous", id="found-more-than-once"),
    pytest.param("art48.1.b", "por la que circula. En el supuesto de que",
                 "straddles-blocks", id="straddles-blocks"),
    pytest.param("art48.1", "elocidades máximas que no deberán ser",
                 "not-word-bounded", id="not-word-bounded"),
    pytest.param("art48.2", "Las velocidades máximas que no deberán ser rebasadas",
                 "outside-passage", id="outside-cited-passage"),
    pytest.param("art999.1", "Las velocidades máximas que no deberán ser rebasadas",
                 "ref-unknown", id="unknown-ref"),
    pytest.param("art48.9", "Las velocidades máximas que no deberán ser rebasadas",
                 "ref-unknown", id="unknown-apartado"),
    pytest.param("art51", "Las velocidades máximas fijadas para las carreteras",
                 "ref-repealed", id="repealed-article"),
    pytest.param("art98.3", "Suprimido del todo en este apartado", "ref-repealed",
                 id="suppressed-apartado"),
    pytest.param("art48.1", "velocidades máximas", "too-short", id="too-short"),
    pytest.param("art48.1.a", "Autopista y autovía | 90 | 100", "row-not-found",
                 id="row-cells-not-consecutive"),
])
def test_gate_cases(gate, ref, quote, code):
    check = gate(ref, quote)
    assert check.code_str == code, check.reason
    if code:
        assert check.url == ""
    else:
        assert check.url.startswith("art48.html#") and ":~:text=" in check.url


def test_fabricated_quote_fails_the_build_and_dist_is_untouched(tmp_path, capsys):
    site = tmp_path / "site_src"
    shutil.copytree(SITE_SRC, site)
    guide = site / "content" / "velocidad.md"
    guide.write_text(guide.read_text() + "\nInventado: [«los turismos pueden circular a "
                     "150 kilómetros por hora en autopista»](cita:art48.1.a)\n")
    out = tmp_path / "dist"
    out.mkdir()
    (out / "index.html").write_text("previous")
    before = tree_hash(out)
    code = main(["build", "--site-src", str(site), "--out", str(out), "--as-of", "2026-11-29"])
    err = capsys.readouterr().err
    assert code == 1
    line = len(guide.read_text().splitlines())
    # the failure is reported at its file:line, with its ref (its code: the next test)
    assert f"velocidad.md:{line}: RD-1428/2003#art48.1.a «" in err
    assert tree_hash(out) == before


def test_every_failure_is_reported_not_just_the_first(tmp_path):
    site = tmp_path / "site_src"
    shutil.copytree(SITE_SRC, site)
    guide = site / "content" / "velocidad.md"
    guide.write_text(guide.read_text() + "\n[«uno dos tres cuatro cinco seis»](cita:art48.1)\n"
                     "[«velocidades máximas»](cita:art48.1)\n[«algo que no existe aquí»](cita:art999)\n")
    with pytest.raises(BuildErrors) as err:
        build_site(corpus_dir=CORPUS, out_dir=tmp_path / "dist", as_of=AS_OF, site_src=site)
    # the gate's failures (each names its canonical ref); the prose check may add its own findings
    codes = sorted(e.code.value for e in err.value.errors if isinstance(e, GateError))
    assert codes == ["not-found", "ref-unknown", "too-short"]


def test_zero_quotes_is_an_error(tmp_path):
    site = tmp_path / "site_src"
    shutil.copytree(SITE_SRC, site)
    for p in list((site / "content").glob("*.md")) + list((site / "practice").glob("*.txt")):
        p.unlink()
    with pytest.raises(BuildErrors) as err:
        build_site(corpus_dir=CORPUS, out_dir=tmp_path / "dist", as_of=AS_OF, site_src=site)
    # one error, about the gate's inputs (not any quote), and nothing written
    assert [e.where for e in err.value.errors] == ["site_src/content, site_src/practice"]
    assert not (tmp_path / "dist").exists()


def test_content_written_for_today_fails_on_an_older_wording(tmp_path, capsys):
    code = main(["build", "--out", str(tmp_path / "dist"), "--as-of", "2026-09-30"])
    assert code == 1
    assert "art48.1.b.p2" in capsys.readouterr().err  # reworded on 2026-10-01


@pytest.mark.parametrize("args, exit_code, reason", [
    pytest.param(["art48.1", "Las velocidades máximas que no deberán ser rebasadas"], 0, "",
                 id="ok"),
    pytest.param(["artículo 48.1", "Las velocidades mínimas inventadas para esta prueba"], 1,
                 "not-found", id="fabricated"),
    pytest.param(["art. 48 z", "Las velocidades máximas que no deberán ser rebasadas"], 1,
                 "ref-unknown", id="bad-ref"),
])
def test_verify_quote_cli(capsys, reg, built_site, args, exit_code, reason):
    """The command prints the gate's own verdict: the reason on stderr, or the deep link."""
    assert main(["verify-quote", *args, "--as-of", AS_OF.isoformat()]) == exit_code
    out = capsys.readouterr()
    try:
        cit = Citation("<command line>", 1, parse_ref(args[0]), args[1])
    except RefError as err:
        cit = Citation("<command line>", 1, args[0], args[1], str(err))
    check = check_quote(reg, Pages(built_site), cit)
    assert check.code_str == reason
    if reason:
        assert out.out == "" and out.err.rstrip("\n").endswith(f"»: {check.reason}")
    else:
        assert out.err == "" and out.out.rstrip("\n").endswith(f"» → {check.url}")


@pytest.mark.parametrize("args, reason, link", [
    pytest.param(["art. 76 a) de la Ley sobre Tráfico", "No respetar los límites de velocidad "
                  "reglamentariamente establecidos"], "", "ley-trafico/art76.html#art76-a:~:text=",
                 id="ley-human"),
    pytest.param(["RD-818/2009#art4.2", "El permiso de conducción será de las siguientes clases"],
                 "", "conductores/art4.html#art4-2:~:text=", id="conductores"),
    pytest.param(["RD-2822/1998#art10.1", "deberán someterse a inspección técnica"], "",
                 "vehiculos/art10.html#art10-1:~:text=", id="vehiculos"),
    pytest.param(["RD-818/2009#art4.2", "El permiso de conduccion será de las siguientes clases"],
                 "not literal", "", id="conductores-misquote"),
])
def test_verify_quote_cli_other_norms(capsys, args, reason, link):
    """Another norm's ref is judged on that norm's own pages (rendered for the one quote)."""
    code = main(["verify-quote", *args, "--as-of", AS_OF.isoformat()])
    out = capsys.readouterr()
    assert code == (1 if reason else 0)
    if reason:
        assert out.out == "" and f"»: {reason}" in out.err
    else:
        assert out.err == "" and f"» → {link}" in out.out


def test_gate_counts_come_from_the_verdicts():
    from citavial.build.gate.verify import gate_counts
    cit = Citation("t.md", 1, "RD-1428/2003#art48.1", "x")
    checks = [QuoteCheck(cit, ""), QuoteCheck(cit, "not found", code=Reason.NOT_FOUND),
              QuoteCheck(cit, "")]
    counts = gate_counts(checks, [])
    assert counts == {"checked": 3, "failed": 1, "passages": 0, "directives": {}, "norms": {}}
