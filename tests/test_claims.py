"""`citavial check --claims`: the sentence around a citation against the passage it cites.

Sentences and passages are written for the test (no real exam question enters the repo)."""

from __future__ import annotations

import pytest

from citavial.build.check.claims import ClaimCode, judge_claim, sentence_around

LIMIT = "En autopistas y autovías la velocidad máxima de los turismos es de 120 km/h."
RULE = ("Queda prohibido adelantar en los pasos para peatones, salvo cuando la velocidad "
        "permita detenerse.")


@pytest.mark.parametrize("sentence,passage,codes", [
    pytest.param("Un turismo puede ir a 120 km/h en autopista.", LIMIT, [], id="figure-stated"),
    pytest.param("Un turismo puede ir a 130 km/h en autopista.", LIMIT, [ClaimCode.NUMBER],
                 id="figure-changed"),
    pytest.param("Un turismo puede ir a 120 m en autopista.", LIMIT, [ClaimCode.NUMBER],
                 id="unit-changed"),
    pytest.param("Nunca se adelanta en un paso para peatones.", RULE, [ClaimCode.ABSOLUTE],
                 id="absolute-against-exception"),
    pytest.param("Está prohibido adelantar en un paso para peatones.", RULE, [],
                 id="prohibition-backed"),
    pytest.param("Siempre a 130 km/h.", LIMIT, [ClaimCode.NUMBER, ClaimCode.ABSOLUTE],
                 id="both"),
])
def test_judge_claim(sentence, passage, codes):
    assert [f.code for f in judge_claim(sentence, [passage])] == codes


def test_numbers_of_the_premise_are_not_claims():
    assert judge_claim("a 90 km/h, que es lo permitido", [LIMIT], given="Si circula a 90 km/h") \
        == []


@pytest.mark.parametrize("text,quote,expected", [
    pytest.param("Primera frase. Ojo: [«q»](cita:x) vale siempre. Otra.", "[«q»](cita:x)",
                 "vale siempre", id="middle"),
    pytest.param("[«q»](cita:x) abre el párrafo\n\nOtro párrafo.", "[«q»](cita:x)",
                 "abre el párrafo", id="paragraph-start"),
])
def test_sentence_around(text, quote, expected):
    start = text.index(quote)
    assert sentence_around(text, start, start + len(quote)) == expected
