"""build/index/query/lexical.py: the ranking `citavial search`, the worker and the static page share."""

from __future__ import annotations

import numpy as np
import pytest

from citavial.build import patterns as P
from citavial.build.index.query import lexical as L


@pytest.mark.parametrize("text,terms", [
    ("Artículo 48. Velocidades máximas", ["articul", "48", "veloc", "maxim", "art48"]),
    ("3.500 kg y 0,5 g/l", ["3500", "kg", "0,5"]),
    ("señal R-101 y marca M-6.3", ["señal", "101", "marc", "6", "3", "r-101", "m-6.3"]),
    ("de la que el", []),
], ids=["designator", "numbers-one-letter-words-dropped", "sign-codes", "stop-words"])
def test_doc_terms(text, terms):
    """Stems and numbers in reading order, then designators and sign codes."""
    assert L.doc_terms(text) == terms


@pytest.mark.parametrize("pattern,text,ok", [
    (P.SEARCH_SIGN_CODE, "r-101", True), (P.SEARCH_SIGN_CODE, "m-6.3", True), (P.SEARCH_SIGN_CODE, "s-28a", True),
    (P.SEARCH_SIGN_CODE, "p\u20111", True), (P.SEARCH_SIGN_CODE, "km-50", True), (P.SEARCH_SIGN_CODE, "abc-1", False),
    (P.SEARCH_SIGN_CODE, "r-", False), (P.SEARCH_SIGN_CODE, "R-101", False),
], ids=["r101", "m63", "letter-suffix", "nb-hyphen", "two-letters", "three-letters", "no-number",
        "upper-case-is-folded-first"])
def test_sign_code_pattern(pattern, text, ok):
    assert bool(pattern.fullmatch(text)) is ok


@pytest.mark.parametrize("question,fragment", [
    ("artículo 48", "art48"), ("art. 82.2", "art82.2"), ("Art 87.1 b)", "art87.1.b"),
    ("artículo 82, apartado 2", "art82.2"), ("art. 14 bis", "art14bis"),
    ("anexo I, 4", "anexoI.4"), ("ANEXO III", "anexoIII"),
    ("artículo 48 velocidad", None), ("anexo I cuatro", None), ("¿Puedo ir a 100?", None),
], ids=["article", "apartado", "letter", "apartado-word", "bis", "annex-section", "annex",
        "trailing-words", "annex-word", "question"])
def test_named_fragment(question, fragment):
    assert L.named_fragment(question) == fragment


DATA = {"forms": {"adecuada": 0, "luces": 1}, "negation": ["des", "in", "im"],
        "aliases": {"moto": ["motocicleta"], "itv": ["inspeccion", "tecnica"]}}
STEM_ID = {"adecu": 0, "luc": 1, "alumbr": 2, "120": 3, "art48": 4, "motociclet": 5,
           "inspeccion": 6, "tecnic": 7}


@pytest.mark.parametrize("question,ids", [
    ("velocidad adecuada", [0]),              # known form
    ("inadecuada", [0]),                      # negation prefix dropped when the word is unknown
    ("alumbrados", [2]),                      # unseen word: longest known stem prefixing it
    ("luces en la imagen", [1]),              # picture words dropped
    ("a 120", [3]),
    ("artículo 48", [4]),
    ("luces de la Moto", [1, 5]),             # an everyday word read as the law's (aliases)
    ("la ITV", [6, 7]),                       # one word read as two
    ("motocross", []),                        # only a whole word is an alias
], ids=["form", "negation", "prefix", "picture", "number", "designator", "alias",
        "alias-two-words", "alias-whole-word-only"])
def test_query_ids(question, ids):
    assert L.query_ids(DATA, STEM_ID, question) == ids


def test_rank_rolls_up_and_lets_the_top_group_have_two():
    score = np.array([9, 8, 7, 6, 5, 4, 3, 0])
    groups = [0, 0, 0, 1, 1, 2, 3, 4]
    tiebreak = np.arange(8)
    # head: best of group 0 (x2 allowed), then one per group; skipped rows follow in order
    assert L.rank(score, tiebreak, groups) == [0, 1, 3, 5, 6, 2, 4]
    assert L.rank(score, tiebreak, groups, limit=3) == [0, 1, 3]


def test_rank_ties_break_by_ref_and_named_rows_go_first():
    score = np.array([5, 5, 5, 1])
    groups = [0, 1, 2, 3]
    assert L.rank(score, np.array([2, 0, 1, 3]), groups) == [1, 2, 0, 3]
    assert L.rank(score, np.arange(4), groups, first=[3]) == [3, 0, 1, 2]


def test_scores_are_integer_sums_of_postings():
    data = {**DATA, "postings": [[0, 150, 2, 20], [1, 7]]}
    got = L.scores(L.postings_arrays(data), data, STEM_ID, "adecuada luces adecuada", 3)
    assert got.tolist() == [300, 7, 40] and got.dtype.kind == "i"
