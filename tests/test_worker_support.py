"""The sentence-support score: table cases and a differential check against a plain rescoring."""

from __future__ import annotations

import pytest
import Stemmer
from hypothesis import given, settings
from hypothesis import strategies as st

from citavial.build.text import STOP_WORDS, fold
from citavial.worker.lead.support import FILLER, numbers, support

_SNOWBALL = Stemmer.Stemmer("spanish")

PASSAGE = ("1. Queda prohibido conducir utilizando cualquier tipo de casco de audio, auriculares o "
           "instrumentos similares conectados a aparatos receptores o reproductores de sonido.")
SPEED = "En autopistas y autovías: 120 km/h para turismos y motocicletas, y 3.500 kg de masa."

CASES = [
    ("copy", "Queda prohibido conducir utilizando auriculares.", PASSAGE, True, "supported"),
    ("reordered-paraphrase", "Conducir utilizando auriculares queda prohibido.", PASSAGE, True,
     "supported"),
    ("stitched-new-claim", "Los auriculares conectados a aparatos de sonido son obligatorios.",
     PASSAGE, False, "low_support"),
    ("unrelated", "La velocidad máxima en autopista es de 120 km/h.", PASSAGE, False,
     "number_not_in_passage"),
    ("number-right", "En autopistas: 120 km/h para turismos.", SPEED, True, "supported"),
    ("number-wrong", "En autopistas: 130 km/h para turismos.", SPEED, False,
     "number_not_in_passage"),
    ("thousands-forms", "Autovías: 3500 kg de masa.", SPEED, True, "supported"),
    ("no-content", "Sí.", PASSAGE, False, "no_content"),
    ("accents-and-case", "QUEDA PROHIBIDO CONDUCIR UTILIZANDO AURICULARES", PASSAGE, True,
     "supported"),
]


@pytest.mark.parametrize("sentence,passage,ok,reason", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_support_table(sentence, passage, ok, reason):
    verdict = support(sentence, passage, threshold=0.6)
    assert (verdict.supported, verdict.reason) == (ok, reason)
    assert 0.0 <= verdict.score <= 1.0


@pytest.mark.parametrize("text,expected", [
    ("3.500 kg", {"3500"}), ("0,5 g/l", {"0.5"}), ("1.5 m", {"1.5"}), ("art. 48.1", {"48.1"}),
    ("120 y 90", {"120", "90"}), ("sin cifras", set()),
])
def test_numbers(text, expected):
    assert numbers(text) == expected


def _reference_score(sentence: str, passage: str) -> float:
    """Brute force: word list, stop list, Snowball stems, pairs — the slow obvious way."""
    def seq(t):
        out = []
        for w in "".join(c if c.isalpha() else " " for c in fold(t)).split():
            if len(w) >= 2 and w not in STOP_WORDS and w not in FILLER:
                out.append(_SNOWBALL.stemWord(w))
        return out
    s, p = seq(sentence), seq(passage)
    ns, np_ = numbers(sentence), numbers(passage)
    if not s and not ns:
        return 0.0
    words = (sum(1 for w in set(s) if w in p) + len(ns & np_)) / (len(set(s)) + len(ns))
    pairs_s = {(s[i], s[i + 1]) for i in range(len(s) - 1)}
    pairs_p = {(p[i], p[i + 1]) for i in range(len(p) - 1)}
    ordered = len(pairs_s & pairs_p) / len(pairs_s) if pairs_s else words
    return round((words + ordered) / 2, 4)


@given(st.text(alphabet="abcdeáéñ 12.,", max_size=60), st.text(alphabet="abcdeáéñ 12.,", max_size=80))
@settings(max_examples=300, deadline=None)
def test_score_matches_the_reference(sentence, passage):
    assert support(sentence, passage, 0.5).score == _reference_score(sentence, passage)
