"""The option judge: an option is named only when the cited words state it and no other's.

Every question here is written by us for the test (real exam questions never enter the repo).
"""

from __future__ import annotations

import itertools

import pytest

from citavial.build.text import stems
from citavial.worker.answer.judge import (
    Basis,
    Evidence,
    Undecided,
    case_beside,
    find_stated,
    judge,
    judge_cell,
    judge_figure,
    judge_row,
)
from citavial.worker.answer.quantity import quantities

RULE = Evidence("RD-1428/2003#art80.2", "2. La marcha hacia atrás deberá efectuarse lentamente, "
                "y en ningún caso será superior a 15 metros ni invadirá un cruce de vías.")
NEAR = Evidence("RD-1428/2003#art80.1", "1. Se prohíbe circular hacia atrás, salvo en los "
                "casos en que no sea posible marchar hacia delante.")
TABLE = Evidence("RD-1428/2003#art20.1", "1. No podrán circular los conductores con una tasa "
                 "de alcohol en aire espirado superior a 0,25 miligramos por litro.")

OPTIONS = (("a", "Lentamente y sin superar 15 metros."),
           ("b", "Lentamente, y en ningún caso será superior a 15 metros."),
           ("c", "Lo más rápido posible para no entorpecer."))


@pytest.mark.parametrize("options,cited,read,letter,why", [
    pytest.param(OPTIONS, [RULE], [RULE, NEAR], "b", Basis.STATED, id="stated-in-passage"),
    pytest.param((("a", "Superior a 0,15 miligramos por litro."),
                  ("b", "Superior a 0,25 miligramos por litro."),
                  ("c", "Superior a 0,50 miligramos por litro.")),
                 [TABLE], [TABLE], "b", Basis.STATED, id="figure-with-its-unit"),
    pytest.param((("a", "Sí, siempre."), ("b", "No."), ("c", "Solo de día.")),
                 [RULE], [RULE], None, Undecided.NONE_STATED, id="yes-no-not-stated"),
    pytest.param((("a", "en ningún caso será superior a 15 metros"),
                  ("b", "no invadirá un cruce de vías nunca"),
                  ("c", "La marcha hacia atrás deberá efectuarse lentamente")),
                 [RULE], [RULE], None, Undecided.SEVERAL_STATED, id="two-stated"),
    pytest.param((("a", "en ningún caso será superior a 15 metros"),
                  ("b", "salvo en los casos en que no sea posible"), ("c", "Nunca.")),
                 [RULE], [RULE, NEAR], None, Undecided.OTHER_STATED, id="other-stated-nearby"),
    pytest.param((("a", "marcha hacia atrás"), ("b", "Hacia delante."), ("c", "Nunca.")),
                 [RULE], [RULE], None, Undecided.NONE_STATED, id="too-few-words"),
])
def test_judge(options, cited, read, letter, why):
    verdict = judge(options, cited, read)
    assert verdict.letter == letter
    assert (verdict.basis if letter else verdict.reason) == why
    if letter:
        assert verdict.words and verdict.words in verdict_text(cited, verdict.ref)


def verdict_text(cited, ref):
    return next(e.text for e in cited if e.ref == ref)


def test_the_deciding_words_are_the_passages_own():
    words = find_stated("LENTAMENTE, y en ningun caso sera superior a 15 metros", RULE.text)
    assert words == "lentamente, y en ningún caso será superior a 15 metros"


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))),
                         ids=lambda o: "".join(map(str, o)))
def test_shuffling_the_options_keeps_the_grounded_choice(order):
    texts = [OPTIONS[i][1] for i in order]
    shuffled = tuple(zip("abc", texts, strict=False))
    verdict = judge(shuffled, [RULE], [RULE, NEAR])
    assert verdict.text == OPTIONS[1][1] and verdict.letter == "abc"[order.index(1)]


@pytest.mark.parametrize("a,c", [
    ("Despacio y recorriendo como mucho quince metros.", "Tan rápido como se pueda."),
    ("Sin límite de distancia.", "A la velocidad del tráfico."),
], ids=["reworded-distractors-1", "reworded-distractors-2"])
def test_rewording_the_other_options_keeps_the_grounded_choice(a, c):
    options = (("a", a), ("b", OPTIONS[1][1]), ("c", c))
    assert judge(options, [RULE], [RULE, NEAR]).letter == "b"


def test_rewording_the_stated_option_can_only_make_it_undecided():
    options = (("a", OPTIONS[0][1]), ("b", "Despacio y nunca más de quince metros."),
               ("c", OPTIONS[2][1]))
    assert judge(options, [RULE], [RULE, NEAR]).letter is None


SPEEDS = (("a", "100 km/h"), ("b", "120 km/h"), ("c", "130 km/h"))


@pytest.mark.parametrize("options,value,unit,letter", [
    pytest.param(SPEEDS, "120", "km/h", "b", id="the-cell's-figure"),
    pytest.param((("a", "120 metros"), ("b", "120 km/h"), ("c", "90 km/h")), "120", "km/h", "b",
                 id="unit-tells-them-apart"),
    pytest.param((("a", "120 km/h"), ("b", "A 120 km/h si es turismo"), ("c", "90 km/h")),
                 "120", "km/h", None, id="two-options-state-it"),
    pytest.param(SPEEDS, "90", "km/h", None, id="no-option-states-it"),
])
def test_judge_cell(options, value, unit, letter):
    verdict = judge_cell(options, "RD-1428/2003#art48.1.a", value, unit)
    assert verdict.letter == letter
    assert (verdict.basis == Basis.CELL) if letter else verdict.reason is not None


def test_shuffling_keeps_the_cell_choice():
    shuffled = (("a", "130 km/h"), ("b", "100 km/h"), ("c", "120 km/h"))
    assert judge_cell(shuffled, "RD-1428/2003#art48.1.a", "120", "km/h").letter == "c"


# A row of a table published row by row (our own wording, in the Ley's anexo II form).
ROW_REF, ROW = "RDL-6/2015#anexoII.r7", "7. Circular con un vehículo sin las luces que se exigen. 4"
POINTS = (("a", "2 puntos."), ("b", "4 puntos."), ("c", "6 puntos."))


@pytest.mark.parametrize("options,ref,text,letter", [
    pytest.param(POINTS, ROW_REF, ROW, "b", id="the-row's-figure"),
    pytest.param(tuple(reversed(POINTS)), ROW_REF, ROW, "b", id="order-does-not-matter"),
    pytest.param((("a", "4 puntos."), ("b", "Cuatro o 4, según la vía."), ("c", "6 puntos.")),
                 ROW_REF, ROW, None, id="two-options-state-it"),
    pytest.param((("a", "1"), ("b", "2"), ("c", "3")), ROW_REF, ROW, None, id="no-option-states-it"),
    # the row number is not its figure: "7" is no answer
    pytest.param((("a", "7"), ("b", "5"), ("c", "6")), ROW_REF, ROW, None, id="not-the-row-number"),
])
def test_judge_row(options, ref, text, letter):
    verdict = judge_row(options, ref, text)
    assert verdict is not None and verdict.letter == letter
    if letter:
        assert verdict.basis == Basis.ROW and verdict.words == text and verdict.ref == ref


@pytest.mark.parametrize("ref,text", [
    pytest.param("RDL-6/2015#art63.1", "1. Se asignará un crédito inicial de doce puntos 4",
                 id="not-a-row"),
    pytest.param(ROW_REF, "7. Circular sin luces.", id="no-figure-at-the-end"),
])
def test_judge_row_only_reads_rows_that_end_in_a_figure(ref, text):
    assert judge_row(POINTS, ref, text) is None


# --- figures: every option a figure with its unit (worker/answer/quantity.py) ----------------

REVERSE = Evidence("RD-1428/2003#art81.1", "1. El recorrido hacia atrás no podrá ser superior a "
                   "15 metros ni invadir un cruce de vías.")
TUNNEL = Evidence("RD-1428/2003#art54.3", "3. Dentro del túnel deberá mantenerse una distancia "
                  "de, al menos, 100 metros o un intervalo mínimo de cuatro segundos.")
FIGURES = (("a", "15 metros."), ("b", "25 metros."), ("c", "40 metros."))
BACK = frozenset(stems("¿Cuál es el recorrido máximo hacia atrás?"))
INSIDE = frozenset(stems("¿Qué distancia hay que mantener dentro de un túnel?"))


@pytest.mark.parametrize("text,want", [
    pytest.param("0,15 miligramos por litro", {("0.15", "mg")}, id="decimal-comma-spelt-unit"),
    pytest.param("0,15 mg/l", {("0.15", "mg")}, id="abbreviated-unit"),
    pytest.param("1,50 metros", {("1.5", "m")}, id="trailing-zero-equal"),
    pytest.param("3.500 kilogramos", {("3500", "kg")}, id="thousands-dot"),
    pytest.param("a 60km/h", {("60", "km/h")}, id="no-space-before-unit"),
    pytest.param("45 kilómetros por hora", {("45", "km/h")}, id="speed-spelt-out"),
    pytest.param("125 centímetros cúbicos", {("125", "cm3")}, id="cc-not-cm"),
    pytest.param("los menores de 18 años", {("18", "year")}, id="years-with-enye"),
    pytest.param("el apartado 3 y el 20 de mayo", set(), id="bare-numbers-are-no-figure"),
    pytest.param("5 m/s", set(), id="unknown-compound-unit"),
])
def test_quantities(text, want):
    got = {(f"{q.value:f}", q.unit) for q in quantities(text)}
    assert got == want


@pytest.mark.parametrize("options,cited,read,asked,letter,why", [
    pytest.param(FIGURES, [REVERSE], [REVERSE, NEAR], BACK, "a", Basis.FIGURE,
                 id="one-figure-stated"),
    pytest.param((("a", "50 metros."), ("b", "100 metros."), ("c", "150 metros.")),
                 [TUNNEL], [TUNNEL, REVERSE], INSIDE, "b", Basis.FIGURE, id="figure-among-others"),
    pytest.param((("a", "15 km/h."), ("b", "25 km/h."), ("c", "40 km/h.")),
                 [REVERSE], [REVERSE], BACK, None, Undecided.NONE_STATED,
                 id="same-value-other-unit"),
    pytest.param((("a", "15 metros como máximo."), ("b", "15,0 metros como mínimo."),
                  ("c", "40 metros.")),
                 [REVERSE], [REVERSE], BACK, None, Undecided.SEVERAL_STATED,
                 id="two-options-same-figure"),
    pytest.param((("a", "15 metros."), ("b", "100 metros."), ("c", "40 metros.")),
                 [REVERSE], [REVERSE, TUNNEL], BACK, None, Undecided.OTHER_STATED,
                 id="another-figure-in-a-passage-read"),
    pytest.param(FIGURES, [REVERSE], [REVERSE], INSIDE, None, Undecided.NONE_STATED,
                 id="figure-in-a-clause-on-another-topic"),
])
def test_judge_figure(options, cited, read, asked, letter, why):
    verdict = judge_figure(options, cited, read, asked)
    assert verdict is not None and verdict.letter == letter
    assert (verdict.basis if letter else verdict.reason) == why
    if letter:   # the deciding words are the passage's own clause, holding the figure
        assert verdict.words in verdict_text(cited, verdict.ref)
        assert quantities(dict(options)[letter]) <= quantities(verdict.words)


@pytest.mark.parametrize("options", [
    pytest.param((("a", "15 metros."), ("b", "Lentamente."), ("c", "40 metros.")),
                 id="an-option-without-a-figure"),
    pytest.param((("a", "Tres."), ("b", "Cuatro."), ("c", "2")), id="counts-without-units"),
])
def test_judge_figure_reads_only_questions_of_figures(options):
    assert judge_figure(options, [REVERSE], [REVERSE], BACK) is None


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))), ids=str)
def test_shuffling_keeps_the_figure_choice(order):
    letters = "abc"
    shuffled = tuple((letters[i], FIGURES[j][1]) for i, j in enumerate(order))
    verdict = judge_figure(shuffled, [REVERSE], [REVERSE, NEAR], BACK)
    assert verdict is not None and verdict.text == "15 metros."


# A case the question adds to a table (our own wording, shaped like art. 48): the table's cell
# is no answer when a passage read states the case; a figure alone makes no case.
SPEED_TABLE = ("Las velocidades máximas son las siguientes: Autopista 120 90 100 Convencional 90 "
               "80 90 Turismos Camiones Autobuses")
STANDING = Evidence("RD-1428/2003#art48.1.b.p2", "Si en un autocar van viajeros de pie, su "
                    "velocidad máxima fuera de poblado será de 80 kilómetros por hora.")
SIDE = Evidence("RD-1428/2003#art48.1.a.1o", "En convencionales con calzadas separadas, el "
                "titular de la vía podrá fijar un límite de 100 kilómetros por hora.")


@pytest.mark.parametrize("question,read,found", [
    pytest.param("Un autocar con viajeros de pie va por autopista. ¿Velocidad máxima?",
                 [SIDE, STANDING], STANDING, id="viajeros-de-pie"),
    pytest.param("Un autobús en autopista no debe superar…", [SIDE, STANDING], None,
                 id="the-figure-of-a-side-rule-is-no-case"),
    # one word the table lacks ("autocar") is no case: the question may just name it otherwise
    pytest.param("¿A cuánto va un autocar por autopista?", [SIDE, STANDING], None,
                 id="one-word-is-no-case"),
    # the case's words must stand in a row in the passage read, as in the question
    pytest.param("¿Velocidad de un autocar con viajeros sentados de pie?", [STANDING], None,
                 id="words-apart-are-no-case"),
])
def test_case_beside(question, read, found):
    assert case_beside(stems(question), SPEED_TABLE, read) == found
