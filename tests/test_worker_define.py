"""A question that asks what a term is gets the law's definition of it (worker/answer/define.py),
on the real built site: which shapes ask for a definition, which term they name, and that the
answer path puts the definition first and names an option only when its words stand there.
The questions are ours, in the shapes students write."""

from __future__ import annotations

import pytest
from worker_helpers import wire

from citavial.build.models import AllowlistEntry
from citavial.build.refs import Ref
from citavial.worker.answer.ask import answer
from citavial.worker.answer.define import Glossary, term_key

LEY = "RDL-6/2015#anexoI."


@pytest.fixture(scope="module")
def deps(built_site):
    from citavial.worker.http.serve import load_deps
    d, why, _ = load_deps(built_site, load_llm=False)
    assert d is not None, why
    return d


@pytest.fixture(scope="module")
def glossary(deps) -> Glossary:
    return Glossary.from_entries(deps.allowlist.entries.values())


def _defines(deps, ref: str, term: str) -> bool:
    entry = deps.allowlist.get(ref)
    return entry is not None and term_key(term) in term_key(entry.text[:80])


ASKED = [
    pytest.param("¿Qué es un remolque?", "remolque", id="que-es"),
    pytest.param("¿Que es una glorieta?", "glorieta", id="que-es-no-accent"),
    pytest.param("¿Qué son los remolques ligeros?", "remolque ligero", id="plural"),
    pytest.param("¿Qué se entiende por calzada?", "calzada", id="se-entiende-por"),
    pytest.param("¿Cómo se define el arcén?", "arcén", id="como-se-define"),
    pytest.param("Se considera peatón a quien…", "peatón", id="se-considera"),
    pytest.param("Un tractocamión es un…", "tractocamión", id="x-es-un"),
    pytest.param("Un ciclomotor, ¿es un vehículo de motor?", "ciclomotor", id="subject-first"),
    pytest.param("Un patinete, ¿se considera un vehículo de motor?", "vehículo de motor",
                 id="second-candidate"),
    pytest.param("¿Qué es la M.M.A. de un camión?", "masa máxima autorizada",
                 id="abbreviation-with-tail"),
    pytest.param("¿Qué es un catadióptrico?", "catadióptrico", id="ley-over-reglamento"),
]


@pytest.mark.parametrize("question,term", ASKED)
def test_a_definition_question_names_the_definition(deps, glossary, question, term):
    ref = glossary.asked(question)
    assert ref is not None and _defines(deps, ref, term), (question, ref)


def test_the_ley_definition_wins_where_two_norms_define_a_term(glossary):
    # the Reglamento General de Vehículos defines the catadióptrico too (anexo X)
    assert glossary.asked("¿Qué es un catadióptrico?").startswith(LEY)


NOT_ASKED = [
    pytest.param("¿Qué es lo que debo hacer en una glorieta?", id="que-es-lo-que"),
    pytest.param("Llego a una intersección que es una glorieta, ¿quién pasa?", id="mid-sentence"),
    pytest.param("¿Qué es un dispositivo de seguridad activa?", id="term-is-part-of-phrase"),
    pytest.param("¿Qué es la distancia de seguridad?", id="undefined-term"),
    pytest.param("¿Puede un remolque llevar personas?", id="not-a-definition-shape"),
    pytest.param("¿Qué es el objeto de este anexo?", id="annex-heading-not-a-term"),
]


@pytest.mark.parametrize("question", NOT_ASKED)
def test_other_questions_take_the_usual_path(glossary, question):
    assert glossary.asked(question) is None


def test_terms_come_from_definition_units_only(deps, glossary):
    refs = [*glossary.terms.values(), *(r for o in glossary.others.values() for r in o)]
    units = {str(Ref.parse(r).unit) for r in refs}
    assert {"RDL-6/2015#anexoI", "RD-2822/1998#anexoX", "RD-1428/2003#rd.df1"} <= units
    for unit in units:   # each opens with "se entiende por:" or "… definiciones"
        first = [e for ref, e in deps.allowlist.entries.items()
                 if ref == unit or ref.startswith(unit + ".")][:3]
        assert any("entiende por" in e.text or "definiciones" in e.text
                   or e.text.rstrip().endswith(":") for e in first), unit
    assert all(len(k) >= 3 and k[0].isalpha() for k in glossary.terms)
    assert term_key("Remolques ligeros") == "remolque ligero"


def test_a_unit_without_an_intro_defines_nothing():
    e = AllowlistEntry.__new__(AllowlistEntry)
    object.__setattr__(e, "ref", "RD-2822/1998#anexoI.p2")
    object.__setattr__(e, "text", "1. Remolque. Vehículo no autopropulsado.")
    assert Glossary.from_entries([e]).terms == {}


def _events(question: str, deps) -> dict[str, dict]:
    return dict(wire(answer(question, deps)))


def test_the_answer_is_the_definition_first(deps, glossary):
    ev = _events("¿Qué es un remolque?", deps)
    ref = glossary.asked("¿Qué es un remolque?")
    assert "abstain" not in ev
    assert ev["sources"]["sources"][0]["ref"] == ref
    assert ev["citations"]["citations"][0]["ref"] == ref
    assert ev["answer"]["text"] == deps.allowlist.get(ref).text


def test_an_amending_provisions_numbered_items_are_not_terms(glossary):
    assert not {"uno", "do", "dos", "tre", "tres"} & set(glossary.terms)


def test_the_other_norms_definition_of_the_term_is_read_too(deps, glossary):
    # The Ley defines "Vía pública situada fuera de poblado."; the Reglamento's final provision
    # "Es toda vía pública situada fuera de poblado.": an option in the second wording is stated.
    ref = glossary.asked("¿Qué es una vía interurbana?")
    assert ref.startswith(LEY)
    alike = glossary.alike(ref)
    assert alike and all(r.startswith("RD-1428/2003#rd.df1.") for r in alike)
    ev = _events("¿Qué es una vía interurbana? a) Una autopista de peaje. b) Toda vía situada "
                 "dentro de poblado. c) Toda vía pública situada fuera de poblado.", deps)
    assert ev["sources"]["sources"][0]["ref"] == ref
    assert ev["answer"]["option"]["letter"] == "c"
    assert ev["answer"]["option"]["ref"] in alike


def test_an_option_is_named_only_on_the_definitions_words(deps):
    ref = Glossary.from_entries(deps.allowlist.entries.values()).asked("¿Qué es un remolque?")
    definition = deps.allowlist.get(ref).text.split(". ", 2)[2]   # after "20. Remolque."
    stated = (f"¿Qué es un remolque? a) Un vehículo con motor propio. b) {definition} "
              "c) Cualquier carga sujeta a un turismo.")
    option = _events(stated, deps)["answer"]["option"]
    assert option["letter"] == "b"
    unstated = ("¿Qué es un remolque? a) Un vehículo con motor propio. b) Un vehículo sin "
                "motor que se engancha. c) Cualquier carga sujeta a un turismo.")
    assert _events(unstated, deps)["answer"]["option"]["letter"] is None
