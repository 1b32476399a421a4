"""The prose check (build/content/prose.py): table tests of true and false cases for each rule, run on the
real regulation, a fabricated absolute, and the check wired into the build."""

from __future__ import annotations

import json
import shutil

import pytest
from support import AS_OF, CORPUS, SITE_SRC

from citavial.build import patterns as P
from citavial.build.content.prose import Passages, ProseItem, absolutes, check_item, quantities
from citavial.build.errors import BuildErrors
from citavial.build.models import Citation
from citavial.build.pipeline import build_site


def item(text: str, *cites: tuple[str, str], given: str = "", context: str = "") -> ProseItem:
    """A prose item citing ``(fragment, quote)`` pairs (the quote is not judged here)."""
    return ProseItem("guide.md", 7, text, tuple(
        Citation("guide.md", 7, f"RD-1428/2003#{ref}", quote, "") for ref, quote in cites),
        given=given, context=context)


@pytest.fixture(scope="module")
def passages(reg):
    return Passages(reg)


def findings(passages, it: ProseItem) -> list[str]:
    return [f"{e.where}: {e.problem}" for e in check_item(it, passages)]


# --- reading numbers and absolutes ---------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    pytest.param("a 120 km/h en autopista", [("120", "km/h")], id="speed"),
    pytest.param("a 120 kilómetros por hora", [("120", "km/h")], id="speed-words"),
    pytest.param("mayores de catorce años", [("14", "año")], id="age-in-words"),
    pytest.param("mayores de 14 años", [("14", "año")], id="age"),
    pytest.param("más de 3.500 kg", [("3500", "kg")], id="thousands"),
    pytest.param("0,25 miligramos por litro", [("0.25", "mg/l")], id="decimal-rate"),
    pytest.param("hasta 22 kg y 15 metros", [("22", "kg"), ("15", "m")], id="two"),
    pytest.param("la señal R-2 y la R-200", [("R-2", "code"), ("R-200", "code")], id="sign-codes"),
    pytest.param("según el art. 48.1", [], id="article-reference"),
    pytest.param("los artículos 151 a 158", [], id="article-range"),
    pytest.param("del RD 1428/2003", [], id="norm-reference"),
    pytest.param("un solo carril", [], id="article-not-number"),
])
def test_quantities(text, expected):
    assert [(q.value, q.unit) for q in quantities(text)] == expected


@pytest.mark.parametrize("text, expected", [
    pytest.param("Nunca se puede", ["nunca"], id="nunca"),
    pytest.param("no se permite en ningún caso", ["en ningun caso"], id="en-ningun-caso"),
    pytest.param("Está prohibido parar", ["prohibido"], id="prohibido"),
    pytest.param("Solo los vehículos", ["solo"], id="solo"),
    pytest.param("Sólo los vehículos", ["solo"], id="solo-accent"),
    pytest.param("únicamente de día", ["unicamente"], id="unicamente"),
    pytest.param("siempre que vaya a cargo", [], id="siempre-que-is-a-condition"),
    pytest.param("la respuesta casi nunca es esa", [], id="casi-nunca"),
    pytest.param("por un solo carril", [], id="un-solo-is-one"),
    pytest.param("no solo eso", [], id="no-solo"),
    pytest.param("las señales de prohibición", [], id="sign-group-name"),
])
def test_absolutes(text, expected):
    assert absolutes(text) == expected


# --- rule 1: numbers -----------------------------------------------------------------------------

@pytest.mark.parametrize("text, cites, given, bad", [
    pytest.param("Los ciclomotores, a 45 km/h como máximo.", [("art48.1.e", "")], "", False,
                 id="number-in-passage"),
    pytest.param("Los ciclomotores, a 50 km/h como máximo.", [("art48.1.e", "")], "", True,
                 id="wrong-number"),
    pytest.param("Los ciclomotores, a 45 metros.", [("art48.1.e", "")], "", True,
                 id="right-number-wrong-unit"),
    pytest.param("Desde los catorce años.", [("art38.1.p2", "")], "", False,
                 id="age-in-words-matches-digits"),
    pytest.param("Con 16 años ya puede.", [("art38.1.p2", "")], "Un ciclista de 16 años…", False,
                 id="number-given-by-the-question"),
    pytest.param("Con 16 años ya puede.", [("art38.1.p2", "")], "", True,
                 id="number-not-given"),
    pytest.param("Se respeta la señal R-2.", [("anexoI.5.p203", "")], "", False, id="sign-code"),
    pytest.param("Se respeta la señal R-101.", [("anexoI.5.p203", "")], "", True,
                 id="sign-code-elsewhere"),
    pytest.param("Lo dice el art. 48.1.", [("art48.1.e", "")], "", False,
                 id="reference-is-not-a-number"),
])
def test_numbers_rule(passages, text, cites, given, bad):
    found = [f for f in findings(passages, item(text, *cites, given=given)) if "number" in f]
    assert bool(found) is bad, found


# --- rule 2: absolutes ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, cites, bad", [
    pytest.param("Está prohibida la marcha atrás en autopistas.", [("art80.3", "")], False,
                 id="prohibido-backed-by-se-prohibe"),
    pytest.param("En ningún caso se puede dar marcha atrás en autopistas.", [("art80.3", "")],
                 True, id="en-ningun-caso-over-a-prohibition-with-an-exception-elsewhere"),
    pytest.param("Está prohibida la marcha atrás en autopistas, salvo a los prioritarios en "
                 "servicio urgente.", [("art80.3", ""), ("art68.1.p2", "")], False,
                 id="exception-named-and-cited"),
    pytest.param("Está prohibido, salvo a los prioritarios.", [("art80.3", "")], False,
                 id="prohibido-backed-even-with-salvo"),
    pytest.param("Nunca en autopistas, autovías o convencionales.", [("art119.2", "")], False,
                 id="nunca-backed-by-en-ningun-caso"),
    pytest.param("Solo en los lugares habilitados.", [("art79.1", "")], False,
                 id="solo-backed-by-prohibition-salvo"),
    pytest.param("Solo el verde se puede rebasar.", [("anexoI.3.p24", "")], False,
                 id="solo-backed-by-unico"),
    pytest.param("Solo durante la marcha atrás.", [("art119.1.a", "")], True,
                 id="solo-unbacked"),
    pytest.param("Las motos llevan siempre la luz de cruce.", [("art104.a", "")], True,
                 id="siempre-unbacked"),
    pytest.param("Debe detenerlo siempre dentro de su campo de visión.", [("art45", "")], False,
                 id="siempre-backed"),
])
def test_absolutes_rule(passages, text, cites, bad):
    found = [f for f in findings(passages, item(text, *cites)) if "absolute" in f]
    assert bool(found) is bad, found


def test_fabricated_absolute_over_a_passage_with_an_exception(passages):
    """art. 94.1.g forbids stopping on motorways "salvo en las zonas habilitadas para ello": an
    explanation that says "nunca" is caught, with file:line and the cited ref."""
    bad = item("Queda prohibido parar en una autopista: nunca se puede.",
               ("art94.1.g", "En autopistas y autovías, salvo en las zonas habilitadas para ello"))
    assert findings(passages, bad) == [
        "guide.md:7: absolute «nunca» is not backed by a cited passage (art94.1.g): none says "
        "«nunca» or an equivalent"]
    good = item("Está prohibido parar en una autopista, salvo en las zonas habilitadas.",
                ("art94.1.g", "En autopistas y autovías, salvo en las zonas habilitadas para ello"))
    assert findings(passages, good) == []


# --- rule 3: lead-ins ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, cites, context, bad", [
    pytest.param("En los pasos para peatones.", [("art87.1.b", "")], "", True,
                 id="list-item-alone"),
    pytest.param("Está prohibido adelantar en los pasos para peatones.", [("art87.1.b", "")], "",
                 False, id="lead-in-shown-in-prose"),
    pytest.param("En los pasos para peatones.", [("art87.1.b", ""), ("art87.1", "")], "", False,
                 id="lead-in-cited"),
    pytest.param("En los pasos para peatones.", [("art87.1.b", "")],
                 "Lugares donde queda prohibido adelantar", False, id="lead-in-in-the-context"),
    pytest.param("Brazo levantado: todos se detienen.", [("anexoI.1.p2", "")], "", True,
                 id="annex-list-item-alone"),
    pytest.param("La señal de brazo levantado: todos se detienen.", [("anexoI.1.p2", "")], "",
                 False, id="annex-lead-in-shown"),
    pytest.param("Hay que ceder el paso a la derecha.", [("art57.1", "")], "", False,
                 id="not-a-list-item"),
])
def test_lead_in_rule(passages, text, cites, context, bad):
    found = [f for f in findings(passages, item(text, *cites, context=context)) if "lead-in" in f]
    assert bool(found) is bad, found


@pytest.mark.parametrize("ref, lead", [
    pytest.param("art87.1.b", "art87.1", id="letter"),
    pytest.param("art48.1.a.1o", None, id="ordinal-under-a-table"),
    pytest.param("anexoI.1.p2", "anexoI.1.p1", id="annex-paragraph"),
    pytest.param("anexoI.5.p203", None, id="annex-paragraph-without-colon"),
    pytest.param("art60.1", None, id="apartado"),
])
def test_lead_in_of(passages, ref, lead):
    block = passages.lead_in(f"RD-1428/2003#{ref}")
    assert (block.ref.split("#")[1] if block else None) == lead


def test_prose_patterns_are_named():
    """The module's regexes are in build/patterns.py (each has this table test)."""
    assert P.PROSE_QUANTITY.search("120 km/h").group(2) == "km/h"
    assert P.PROSE_REFERENCE.fullmatch("art. 48.1")
    assert P.PROSE_ABSOLUTE.search("nunca").group(1) == "nunca"
    assert P.PROSE_EXCEPTION.search("salvo en")
    assert P.PROSE_PUNCT.sub(" ", "a,b") == "a b"
    assert P.PLACEHOLDER_NUMBER.findall("CITAVIALCITE3X y CITAVIALCITE12X") == ["3", "12"]


# --- in the build --------------------------------------------------------------------------------

def test_build_reports_prose_findings_like_gate_failures(tmp_path):
    """A guide sentence with an unbacked absolute stops the build with file:line, and the
    previous dist/ is untouched."""
    site = tmp_path / "site_src"
    shutil.copytree(SITE_SRC, site)
    guide = site / "content" / "velocidad.md"
    text = guide.read_text(encoding="utf-8")
    anchor = "[«ciclomotores de dos y tres ruedas y cuadriciclos ligeros: 45 kilómetros por hora»]"
    assert anchor in text
    guide.write_text(text.replace(anchor, "nunca más de 50 km/h: " + anchor), encoding="utf-8")
    line = text[: text.index(anchor)].count("\n") + 1
    out = tmp_path / "dist"
    with pytest.raises(BuildErrors) as exc:
        build_site(corpus_dir=CORPUS, out_dir=out, as_of=AS_OF, site_src=site)
    problems = [str(e) for e in exc.value.errors]
    assert any(p.startswith(f"{guide}:{line}: absolute «nunca»") for p in problems), problems
    assert any(p.startswith(f"{guide}:{line}: number «50 km/h»") for p in problems), problems
    assert not out.exists()


def test_build_counts_the_prose_check(built_site):
    gate = json.loads((built_site / "gate-report.json").read_text(encoding="utf-8"))
    assert gate["prose"]["findings"] == 0
    assert gate["prose"]["items"] > 500   # every guide block and every practice question
    porque = (built_site / "porque.html").read_text(encoding="utf-8")
    assert "no se comprueba que el sentido de la frase sea el del pasaje" in porque
