"""Practice items that cite another norm (the Ley sobre Tráfico, the Reglamento General de
Conductores, the Reglamento General de Vehículos): read, verified by the build's own gate on
that norm's page, linked to its folder, and a bad one fails the build naming the question."""

from __future__ import annotations

import json
import shutil

import pytest
from support import AS_OF, CORPUS, SITE_SRC

from citavial.build.content.practice import TOPICS, cited_ref, read_bank, source_name
from citavial.build.errors import BuildErrors
from citavial.build.gate.verify import GateError, Pages, check_quote, regulation_for
from citavial.build.pipeline import build_site
from citavial.build.refs import NORMS, Ref, RefError

NEW_TOPICS = ("puntos-sanciones", "permisos-documentacion")
OTHER_NORMS = ("RDL-6/2015", "RD-818/2009", "RD-2822/1998")


@pytest.fixture(scope="module")
def bank():
    return read_bank(SITE_SRC / "practice")


@pytest.fixture(scope="module")
def others():
    from citavial.build.ingest.markdown import load_norms
    return tuple(load_norms(CORPUS, AS_OF).values())


@pytest.mark.parametrize("raw, ref", [
    pytest.param("art48.1.b", "RD-1428/2003#art48.1.b", id="reglamento-fragment-as-ever"),
    pytest.param("RDL-6/2015#anexoII.r10", "RDL-6/2015#anexoII.r10", id="ley-points-row"),
    pytest.param("RD-818/2009#art4.2.p2", "RD-818/2009#art4.2.p2", id="conductores-table"),
    pytest.param("RD-2822/1998#art26.1.b", "RD-2822/1998#art26.1.b", id="vehiculos-letter"),
])
def test_cited_ref(raw, ref):
    assert cited_ref(raw) == ref


@pytest.mark.parametrize("raw", [
    pytest.param("RDL-7/2015#art1", id="unknown-norm"),
    pytest.param("RDL-6/2015#", id="empty-fragment"),
    pytest.param("RDL-6/2015#art 76", id="space-in-fragment"),
])
def test_cited_ref_refuses_and_says_how(raw):
    with pytest.raises(RefError) as err:
        cited_ref(raw)
    assert "RDL-6/2015#anexoII.r10" in str(err.value)   # the form to write


@pytest.mark.parametrize("ref, name", [
    pytest.param("RD-1428/2003#art48.1", "el reglamento", id="reglamento"),
    pytest.param("RDL-6/2015#anexoII.r10", "la Ley sobre Tráfico", id="ley"),
    pytest.param("RD-818/2009#art4.2.p2", "el Reglamento General de Conductores", id="rgcond"),
    pytest.param("RD-2822/1998#art26.1", "el Reglamento General de Vehículos", id="rgv"),
])
def test_source_name(ref, name):
    assert source_name(ref) == name


def test_new_topics_cite_the_other_norms(bank):
    """At least 30 questions of our own on points, fines, licences and the ITV, each topic big
    enough for adaptive practice, every quote from one of the three other norms."""
    new = [q for q in bank if q.topic in NEW_TOPICS]
    assert set(NEW_TOPICS) <= set(TOPICS)
    assert len(new) >= 30
    norms = {Ref.parse(c.ref).norm for q in new for c in q.citations}
    assert norms == set(OTHER_NORMS), norms
    per_topic = {t: sum(q.topic == t for q in new) for t in NEW_TOPICS}
    assert min(per_topic.values()) >= 20, per_topic


def test_other_norm_items_pass_the_gate_on_their_norms_pages(bank, reg, others, built_site):
    """The gate judges each quote on its own norm's page: literal, once, inside the passage;
    the link the bank publishes is the one the gate proved, in that norm's folder."""
    pages = Pages(built_site)
    published = {q["id"]: q for q in json.loads(
        (built_site / "practice-bank.json").read_text(encoding="utf-8"))["questions"]}
    checked = 0
    for q in bank:
        shown = published[q.id]
        for cit, out in zip(q.citations, [shown] + shown["more"], strict=True):
            norm = Ref.parse(cit.ref).norm
            if norm not in OTHER_NORMS:
                continue
            verdict = check_quote(regulation_for(cit.ref, reg, others), pages, cit)
            assert verdict.code is None, (q.id, verdict.reason)
            assert out["url"] == verdict.url
            assert out["url"].startswith(NORMS[norm].folder + "/") and ":~:text=" in out["url"]
            assert (built_site / out["url"].split("#")[0]).is_file()
            assert out["source"] == source_name(cit.ref)
            assert not out["label"].startswith(NORMS[norm].short)   # the source names it
            checked += 1
    assert checked >= 30


@pytest.mark.parametrize("ref, quote, code", [
    pytest.param("RDL-6/2015#anexoII.r14", "14. No mantener la distancia de seguridad con el "
                 "vehículo que le precede. | 4", "", id="ley-row-ok"),
    pytest.param("RD-818/2009#art10", "dentro del plazo de veinte días", "not-found",
                 id="conductores-fabricated"),
    pytest.param("RDL-7/2015#art1", "dentro del plazo de veinte días", "ref-unknown",
                 id="unknown-norm"),
])
def test_verify_quote_cli_judges_other_norms(capsys, reg, others, built_site, ref, quote, code):
    """`citavial verify-quote` takes another norm's full ref, as the practice bank does, and
    prints the gate's own verdict (the deep link on that norm's page, or the reason)."""
    from citavial.build.models import Citation
    from citavial.worker.cli import main

    assert main(["verify-quote", ref, quote, "--as-of", AS_OF.isoformat()]) == (1 if code else 0)
    out = capsys.readouterr()
    try:
        cit = Citation("<command line>", 1, cited_ref(ref), quote)
    except RefError as err:
        cit = Citation("<command line>", 1, ref, quote, str(err))
    check = check_quote(regulation_for(cit.ref, reg, others), Pages(built_site), cit)
    assert check.code_str == code
    if code:
        assert check.reason in out.err
    else:
        assert out.out.strip().endswith(f"→ {check.url}")


def _break(site, name: str, qid: str, key: str, old: str, new: str) -> int:
    """Replace ``old`` by ``new`` in question ``qid``'s ``key`` line; return that line's number."""
    path = site / "practice" / name
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"### {qid}")
    n = next(i for i in range(start, len(lines)) if lines[i].startswith(f"{key}: "))
    assert old in lines[n]
    lines[n] = lines[n].replace(old, new)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return n + 1


def test_bad_other_norm_items_fail_the_build_naming_each_question(tmp_path):
    """One build, four broken items: each failure is reported at its file:line (a quote at its
    texto line, a prose finding at its explicacion line), naming the question, its ref and the
    gate's code (or the prose check's finding); nothing is written."""
    site = tmp_path / "site_src"
    shutil.copytree(SITE_SRC, site)
    pts, per = "puntos-sanciones.txt", "permisos-documentacion.txt"
    row = _break(site, pts, "puntos-sanciones-001", "texto", "encendida. | 4", "encendida. | 6")
    word = _break(site, per, "permisos-documentacion-019", "texto", "cotejadas", "compulsadas")
    ref = _break(site, pts, "puntos-sanciones-014", "cita", "art63.1", "art63.9") + 1  # its texto
    prose = _break(site, pts, "puntos-sanciones-021", "explicacion", "200 euros", "300 euros")
    with pytest.raises(BuildErrors) as err:
        build_site(corpus_dir=CORPUS, out_dir=tmp_path / "dist", as_of=AS_OF, site_src=site)
    got = {e.where: e for e in err.value.errors}
    expect = [
        (pts, row, "puntos-sanciones-001", "RDL-6/2015#anexoII.r10", "row-not-found"),
        (per, word, "permisos-documentacion-019", "RD-2822/1998#art26.2", "not-found"),
        (pts, ref, "puntos-sanciones-014", "RDL-6/2015#art63.9", "ref-unknown"),
    ]
    for name, line, qid, cited, code in expect:
        e = got[f"{site / 'practice' / name}:{line}"]
        assert isinstance(e, GateError) and e.code.value == code, str(e)
        assert e.problem.startswith(f"question {qid}: {cited} «"), str(e)
    finding = got[f"{site / 'practice' / pts}:{prose}"]
    assert finding.problem.startswith("question puntos-sanciones-021: number «300 euros»")
    assert "(RDL-6/2015#art80.1)" in finding.problem   # another norm's ref is named in full
    # nothing else failed (the unknown ref also leaves its item's numbers unbacked)
    broken = {"puntos-sanciones-001", "permisos-documentacion-019", "puntos-sanciones-014",
              "puntos-sanciones-021"}
    assert {e.problem.split(":")[0].removeprefix("question ") for e in err.value.errors} == broken
    assert not (tmp_path / "dist").exists()
