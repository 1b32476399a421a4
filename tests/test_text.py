"""build/text.py: the one fold, stop words, stems, numbers and JSONL reader that the gate, the
search, the trainer, the support check and the sanitizer share."""

from __future__ import annotations

import json
import shutil
import subprocess
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import ROOT

from citavial.build import patterns as P
from citavial.build.errors import BuildError
from citavial.build.text import ACCENT_FOLDS, fold, normalize, numbers, read_jsonl, stems, words
from citavial.worker.lead.sanitize import fold as sanitize_fold

FOLD_CASES = [
    ("lower-accents", "Vía Rápida", "via rapida"),
    ("enye-kept", "AÑO de la señal", "año de la señal"),
    ("circumflex-diaeresis", "âêîôû äëïöü", "aeiou aeiou"),
    ("grave", "àèìòù", "aeiou"),
    ("cedilla", "Ç", "c"),
    ("nbsp-and-runs", "art.\u00a05   y\t6\n", "art. 5 y 6"),
    ("soft-hyphen-zwsp", "circu\u00adla\u200bción", "circulacion"),
    ("ligature", "ﬁnal", "final"),
    ("fullwidth-digits", "１２０ km/h", "120 km/h"),
    ("ordinal", "1.º y 2.ª", "1.o y 2.a"),
    ("sharp-s", "Straße", "strasse"),
    ("curly-quotes", "“hola” ‘x’", '"hola" \'x\''),
    ("guillemets-kept", "«hola»", "«hola»"),
    ("decomposed-input", "vi\u0301a", "via"),
    ("decomposed-enye", "an\u0303o", "ano"),   # n + combining tilde is not the letter ñ
    ("empty", "", ""),
    ("only-space", " \u3000 ", ""),
]


@pytest.mark.parametrize("text,expected", [c[1:] for c in FOLD_CASES],
                         ids=[c[0] for c in FOLD_CASES])
def test_fold_table(text, expected):
    assert fold(text) == expected


# Every character of the blocks a Spanish text or a pasted question may bring: Latin-1 and
# Latin Extended-A/B/Additional, spacing and combining marks, Greek, general punctuation, letterlike and
# number forms, ligatures, fullwidth forms; as single characters and inside words.
PARITY_BLOCKS = [(0x20, 0x250), (0x2B0, 0x370), (0x370, 0x400), (0x1E00, 0x1F00), (0x2000, 0x2070),
                 (0x2100, 0x2190), (0x2460, 0x24FF), (0x3000, 0x3004), (0xFB00, 0xFB07),
                 (0xFF01, 0xFF5F)]


def test_the_pages_fold_is_the_python_fold():
    """site_src/static/util.js's fold (the search and signs pages) folds every character of
    PARITY_BLOCKS, alone and between letters, and the fold table's texts, as build/text.py."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the parity test runs the page's JavaScript under node")
    chars = [chr(c) for lo, hi in PARITY_BLOCKS for c in range(lo, hi)
             if unicodedata.category(chr(c)) != "Cs"]
    texts = chars + [f"Añ{ch}B  c" for ch in chars] + [c[1] for c in FOLD_CASES]
    proc = subprocess.run([node, ROOT / "tests" / "js" / "fold.js"], input=json.dumps(texts),
                          capture_output=True, text=True, timeout=120, check=True)
    differ = [(t, fold(t), js) for t, js in zip(texts, json.loads(proc.stdout), strict=True)
              if js != fold(t)]
    assert differ == [], f"{len(differ)} of {len(texts)} differ, e.g. {differ[:5]}"


@given(st.text(max_size=80))
@settings(max_examples=500, deadline=None)
def test_search_and_gate_fold_identically_but_for_enye(text):
    """The search's fold is the gate's normalize, except that ñ stays ñ."""
    assert fold(text).replace("ñ", "n") == normalize(text)


@given(st.text(alphabet="abcñáéÑÁ ,.¿?()", max_size=40))
@settings(max_examples=300, deadline=None)
def test_sanitizer_words_fold_as_the_gate(word):
    assert sanitize_fold(word) == normalize(word).strip("(¿¡,;:!?)")


def test_accent_folds_cover_every_folded_latin_letter():
    table = dict(ACCENT_FOLDS)
    for ch in "áéíóúàèìòùâêîôûäëïöüç":
        assert table[ch] == fold(ch)
    assert "ñ" not in table


@pytest.mark.parametrize("text,expected", [
    ("¿Cuándo se deben usar las luces de cruce?", ["deben", "usar", "luces", "cruce"]),
    ("El año y el AÑO", ["año", "año"]),
    ("a 120 km/h", ["km"]),
], ids=["question", "enye", "numbers-are-not-words"])
def test_words(text, expected):
    assert words(text) == expected


def test_stems_join_derived_forms():
    assert stems("señalización")[0] == stems("señalizaciones")[0]
    assert stems("adelantar")[0] == stems("adelantamos")[0]


@pytest.mark.parametrize("text,expected", [
    ("3.500 kg", {"3500"}), ("0,5 g/l", {"0.5"}), ("1.5 m", {"1.5"}),
    ("120 y 90", {"120", "90"}), ("1.000.000", {"1000000"}), ("sin cifras", set()),
], ids=["thousands", "decimal-comma", "decimal-dot", "two", "millions", "none"])
def test_numbers(text, expected):
    assert numbers(text) == expected


@pytest.mark.parametrize("pattern,text,ok", [
    (P.TEXT_NUMBER, "3.500", True), (P.TEXT_NUMBER, "0,5", True), (P.TEXT_NUMBER, "km", False),
    (P.TEXT_THOUSANDS, "3.500", True), (P.TEXT_THOUSANDS, "1.000.000", True),
    (P.TEXT_THOUSANDS, "1.5", False), (P.TEXT_THOUSANDS, "48.1", False),
], ids=["num-thousands", "num-decimal", "num-none", "th-3500", "th-million", "th-decimal",
        "th-article"])
def test_number_patterns(pattern, text, ok):
    assert bool(pattern.fullmatch(text)) is ok


def test_read_jsonl_names_file_and_line(tmp_path):
    good = tmp_path / "ok.jsonl"
    good.write_text('{"a": 1}\n\n{"b": 2}\n', encoding="utf-8")
    assert read_jsonl(good) == [{"a": 1}, {"b": 2}]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"a": 1}) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"bad\.jsonl:2.*not valid JSON"):
        read_jsonl(bad)
    arr = tmp_path / "arr.jsonl"
    arr.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"arr\.jsonl:1.*not an object"):
        read_jsonl(arr)
    with pytest.raises(BuildError, match="file not found"):
        read_jsonl(tmp_path / "missing.jsonl")
