"""Sentence segmentation of the streamed answer, and where citations land."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citavial.worker.lead.segment import Segmenter


def segment(items, slots="after"):
    seg = Segmenter(slots)
    closed = []
    for item in items:
        if isinstance(item, int):
            closed += seg.cite(item)[1]
        else:
            closed += seg.text(item)[1]
    closed += seg.finish()[1]
    return [(s.text.strip(), s.cites) for s in closed]


CASES = [
    ("one", ["Hola mundo."], "after", [("Hola mundo.", [])]),
    ("two", ["Es 50 km/h. La vía"], "after", [("Es 50 km/h.", []), ("La vía", [])]),
    ("cite-inside", ["Es 50 km/h ", 1, ". Otra."], "after", [("Es 50 km/h .", [1]), ("Otra.", [])]),
    ("cite-after-period-closes", ["Es 50 km/h. ", 2, " Otra."], "after",
     [("Es 50 km/h.", [2]), ("Otra.", [])]),
    ("cite-after-period-opens", [1, "Es 50 km/h. ", 2, " Otra."], "before",
     [("Es 50 km/h.", [1]), ("Otra.", [2])]),
    ("abbreviation-lowercase", ["Se aplica, p. ej. en vías."], "after",
     [("Se aplica, p. ej. en vías.", [])]),
    ("decimal-not-end", ["Son 1.5 metros."], "after", [("Son 1.5 metros.", [])]),
    ("copied-designator", ["1. Los conductores deberán."], "after",
     [("1. Los conductores deberán.", [])]),
    ("question-mark", ["¿Cuándo? Siempre."], "after", [("¿Cuándo?", []), ("Siempre.", [])]),
]


@pytest.mark.parametrize("items,slots,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_segment(items, slots, expected):
    assert segment(items, slots) == expected


def test_pieces_carry_their_sentence_index():
    seg = Segmenter()
    pieces, closed = seg.text("Uno. Dos")
    assert pieces == [(0, "Uno."), (1, " Dos")]
    assert [s.index for s in closed] == [0]


@given(st.text(alphabet="ab. ¿?ABC12\n", max_size=40), st.lists(st.integers(0, 40), max_size=6))
@settings(max_examples=200, deadline=None)
def test_text_is_never_lost_and_splitting_is_stable(text, cuts):
    bounds = [0, *sorted(c for c in cuts if c <= len(text)), len(text)]
    whole, parts = Segmenter(), Segmenter()
    a = whole.text(text)[0]
    b = [p for x, y in zip(bounds, bounds[1:], strict=False) for p in parts.text(text[x:y])[0]]
    joined = lambda ps: [(i, "".join(t for j, t in ps if j == i)) for i in sorted({j for j, _ in ps})]
    assert joined(a) == joined(b)
    # only held whitespace after a sentence end may still be pending
    assert "".join(t for _, t in a) == text[: len("".join(t for _, t in a))]
    assert text[len("".join(t for _, t in a)):].strip() == ""
