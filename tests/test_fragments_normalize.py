"""normalize(): the comparison form shared by the gate, deep links and the worker."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citavial.build.normalize import normalize, normalize_with_map

CASES = [
    ("accents", "La Vía Pública", "la via publica"),
    ("all-spanish-accents", "ÁÉÍÓÚáéíóú", "aeiouaeiou"),
    ("enye-is-n", "AÑO niño", "ano nino"),  # Chromium: "nino" matches "niño"
    ("u-diaeresis", "pingüino", "pinguino"),
    ("guillemets-kept", "«hola»", "«hola»"),
    ("curly-double-quotes", "“hola”", '"hola"'),
    ("curly-single-quotes", "‘l’auto’", "'l'auto'"),
    ("low-quotes", "„x‚", "\"x'"),
    ("ordinal-masculine", "1.º", "1.o"),
    ("ordinal-feminine", "2.ª", "2.a"),
    ("superscript", "m²", "m2"),
    ("fullwidth-digits", "１２", "12"),
    ("nbsp", "art.\u00a05", "art. 5"),
    ("narrow-nbsp", "10\u202fkm", "10 km"),
    ("soft-hyphen", "circu\u00adlación", "circulacion"),
    ("zero-width-space", "ab\u200bcd", "abcd"),
    ("bom-and-lrm", "\ufeffab\u200ecd", "abcd"),
    ("whitespace-runs", "  a \t\n b  ", "a b"),
    ("ideographic-space", "a\u3000b", "a b"),
    ("ligature", "ﬁnal", "final"),
    ("eszett", "Straße", "strasse"),
    ("final-sigma", "ΛΟΓΟΣ λόγος", "λογοσ λογοσ"),
    ("dotted-capital-i", "İstanbul", "istanbul"),
    ("dotless-i-kept", "ı", "ı"),
    ("thorn-kept", "Þ", "þ"),
    ("stroke-letters", "Øl ŁÓDŹ Đ ħ", "ol lodz d h"),
    ("ae-oe", "Æsir cœur", "aesir coeur"),
    ("ellipsis", "así…", "asi..."),
    ("half", "½", "1\u20442"),
    ("spacing-acute-kept", "a´b", "a´b"),
    ("en-dash-kept", "a – b", "a – b"),
    ("combining-acute", "vi\u0301a", "via"),
    ("euro", "100 €", "100 €"),
    ("empty", "", ""),
    ("only-ignorables", "\u00ad\u200b", ""),
]


@pytest.mark.parametrize("text,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_normalize_table(text, expected):
    assert normalize(text) == expected


@pytest.mark.parametrize("text,expected_map", [
    ("a  b", [0, 1, 3, 4]),
    ("straße", [0, 1, 2, 3, 4, 4, 5, 6]),
    ("cafe\u0301", [0, 1, 2, 3, 5]),
    (" x ", [1, 2]),
    ("ab\u00adcd", [0, 1, 3, 4, 5]),
], ids=["collapsed-space", "expansion", "trailing-mark", "stripped", "ignorable-inside"])
def test_offset_map_table(text, expected_map):
    assert normalize_with_map(text)[1] == expected_map


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_idempotent(text):
    once = normalize(text)
    assert normalize(once) == once


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_map_invariants(text):
    norm, offsets = normalize_with_map(text)
    assert len(offsets) == len(norm) + 1
    assert offsets == sorted(offsets)
    assert all(0 <= o <= len(text) for o in offsets)
    assert norm == norm.strip() and "  " not in norm
    for j, ch in enumerate(norm):
        if ch != " ":
            assert ch in normalize(text[offsets[j]]), (j, ch)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1), min_size=1, max_size=5))
def test_word_slices_normalize_to_their_part(words):
    """Slicing the source through the map at space positions gives back the normalized words."""
    text = " ".join(words)
    norm, offsets = normalize_with_map(text)
    spaces = [j for j, ch in enumerate(norm) if ch == " "]
    cuts = [0] + [s for s in spaces] + [len(norm)]
    for a, b in zip(cuts, cuts[1:], strict=False):
        a = a + 1 if a in spaces else a
        assert normalize(text[offsets[a]:offsets[b]]) == norm[a:b]


# Text of the kind the gate folds (Spanish prose, whitespace of every kind), plus any character.
_PROSE = st.text(alphabet=st.sampled_from(list("aáeéiíoóuúüñÑ AZ,.;:«»()-–\t\n\u00a0\u2009")
                                          + ["ß", "ﬁ", "º", "\u0301", "\u00ad", "æ", " "]))


@settings(max_examples=500, deadline=None)
@given(st.one_of(_PROSE, st.text()))
def test_fast_path_equals_the_reference_loop(text):
    """The one-to-one fast path (translate + per word) gives exactly the per-character result."""
    from citavial.build.normalize import _map_general
    assert normalize_with_map(text) == _map_general(text)
