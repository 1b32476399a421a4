"""Never a side rule (issue 25.4): a figure question that names no case is answered by the rule
stated for every case (worker/answer/general.py), and a table's cell is not named for a
question that adds a case another passage read states (judge.case_beside, in ask._judge).
Over passages written for them (our own wording), then on the real built site."""

from __future__ import annotations

import pytest

from citavial.build.models import AllowlistEntry
from citavial.worker.answer.general import general_rule
from citavial.worker.answer.question import read_question
from citavial.worker.answer.span import Piece, Span

N = "RD-1428/2003#"


def entry(frag: str, text: str) -> AllowlistEntry:
    return AllowlistEntry(ref=N + frag, url=f"{frag}.html", page=f"{frag}.html", anchor=frag,
                          text=text, sha256="x", as_of="2026-12-01",
                          source_url="https://www.boe.es/x", source_license="BOE",
                          label=f"art. {frag}", directive="exact", norm="RD-1428/2003",
                          boe_id="BOE-A-2003-23514", consolidated="2026-07-31")


SIDE = entry("art70.4", "4. En los cascos urbanos y en los tramos urbanos, los camiones de "
                        "basura circularán como máximo a 30 km/h.")
GENERAL = entry("art70.5", "5. El límite genérico de velocidad en tramos urbanos es de 50 km/h "
                           "para todo tipo de vehículos. Podrá rebajarse con señales.")
METRES = entry("art70.6", "6. En los tramos urbanos se guardará con carácter general una "
                          "distancia de 5 metros.")


def whole(e: AllowlistEntry, n: int = 0) -> Span:
    text = e.text.split(". Podrá")[0] + ("." if ". Podrá" in e.text else "")
    return Span(Piece(e.ref, text, 0, len(text)), 2.5, n)


@pytest.mark.parametrize("question,entries,chosen", [
    # names a road, no vehicle: the rule for every vehicle, not the lorries' one
    pytest.param("¿Cuál es la velocidad máxima en un tramo urbano?", [SIDE, GENERAL],
                 "art70.5", id="general-rule"),
    # names the case: the clause that states it stays
    pytest.param("¿A qué velocidad máxima va un camión de basura en un tramo urbano?",
                 [SIDE, GENERAL], "art70.4", id="the-case-named"),
    # a general clause of another unit (metres) says nothing of a speed
    pytest.param("¿Cuál es la velocidad máxima en un tramo urbano?", [SIDE, METRES],
                 "art70.4", id="another-unit"),
    # not a figure question: left to the span picker
    pytest.param("¿Quién circula por los tramos urbanos?", [SIDE, GENERAL], "art70.4",
                 id="not-a-figure-question"),
])
def test_general_rule(question, entries, chosen):
    span = whole(SIDE)
    got = general_rule(read_question(question), entries, span, lambda ref: None)
    assert got.main.ref == N + chosen and got.score == span.score   # the gate's score kept
    e = next(x for x in entries if x.ref == got.main.ref)
    assert e.text[got.main.start:got.main.end] == got.main.text
    assert entries[got.rank].ref == got.main.ref


@pytest.fixture(scope="module")
def real(built_site):
    from citavial.worker.http.serve import load_deps
    deps, why, _ = load_deps(built_site, load_llm=False)
    assert deps is not None, why
    return deps


def ask(deps, question: str) -> dict:
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    return collect(answer(question, deps))


@pytest.mark.parametrize("question,letter", [
    # art. 48.1.b's second paragraph states the case ("pasajeros de pie"): not the table's cell
    ("Por una autovía va un autobús que lleva pasajeros de pie, como tiene autorizado. "
     "Su velocidad máxima es…\na) 80 km/h\nb) 90 km/h\nc) 100 km/h", None),
    # the widget's example: "100 km/h" stands in a side rule, but no case does — cell named
    ("Un turismo en autopista no debe superar…\na) 100 km/h\nb) 120 km/h\nc) 130 km/h", "b"),
])
def test_real_table_cell_and_the_case_beside_it(real, question, letter):
    r = ask(real, question)
    option = r["answer"]["option"]
    assert option["letter"] == letter, r["text"]
    if letter is None:
        assert option["reason"] == "case_stated"


@pytest.mark.parametrize("question", ["¿Qué velocidad máxima hay en las travesías?",
                                      "¿A qué velocidad máxima se puede ir por una travesía?"])
def test_real_travesia_gets_the_general_limit_not_the_dangerous_goods_one(built_site, question):
    """Golden g0210's kin, on the dev index (where art. 50.4, "…los vehículos que transporten
    mercancías peligrosas circularán como máximo a 40 km/h", ranks first): the answer is art.
    50.5's 50 km/h "para todo tipo de vehículos", art. 50.4 still read beside it."""
    from citavial.build.index.hooks import index_dir_for
    from citavial.worker.http.serve import load_deps
    deps, why, _ = load_deps(built_site, load_llm=False, index=index_dir_for("dev"))
    assert deps is not None, why
    r = ask(deps, question)
    refs = [c["ref"].split("#")[1] for c in r["citations"]]
    assert r["outcome"] == "answer" and refs[0] == "art50.5", (refs, r["text"])
    assert "para todo tipo de vehículos" in r["text"] and "art50.4" in refs
