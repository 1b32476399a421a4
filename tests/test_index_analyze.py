"""Table tests of the Spanish search analyzer and of its patterns in build/patterns.py."""

from __future__ import annotations

import pytest

from citavial.build import patterns as P
from citavial.build.index.analyze import analyze, fold, is_exact, words


@pytest.mark.parametrize("text, expected", [
    pytest.param("50 km/h", ["50", "km/h", "50km/h"], id="speed"),
    pytest.param("a 120 kilómetros por hora", ["120", "km/h", "120km/h"], id="speed-in-words"),
    pytest.param("2,5 m", ["2,5", "m", "2,5m"], id="decimal-comma-metres"),
    pytest.param("3.500 kg", ["3500", "kg", "3500kg"], id="thousands-dot"),
    pytest.param("3.500 kilogramos", ["3500", "kg", "3500kg"], id="thousands-kilogramos"),
    pytest.param("0,5 gramos por litro", ["0,5", "g/l", "0,5g/l"], id="alcohol-blood"),
    pytest.param("0,25 mg/l", ["0,25", "mg/l", "0,25mg/l"], id="alcohol-breath"),
    pytest.param("18 años", ["18", "años"], id="number-without-unit"),
    pytest.param("art. 48", ["art48"], id="art-dot"),
    pytest.param("artículo 48", ["art48"], id="articulo"),
    pytest.param("Artículo 14 bis", ["art14bis"], id="bis"),
    pytest.param("articulo 82.2", ["art82"], id="apartado-number-dropped"),
    pytest.param("anexo II", ["anexoii"], id="annex"),
    pytest.param("ANEXO I", ["anexoi"], id="annex-upper"),
    pytest.param("ARTÍCULO 48 del Anexo IV", ["art48", "anexoiv"], id="designators-upper"),
    pytest.param("sin número ni designador", ["numer", "design"], id="no-digit-no-designator"),
    pytest.param("señal R-301", ["señal", "r-301"], id="sign-code"),
    pytest.param("marca M\u20116.3", ["marc", "m-6.3"], id="sign-nonbreaking-hyphen"),
    pytest.param("Camión CAMIÓN camion", ["camion", "camion", "camion"], id="case-accents"),
    pytest.param("Peatón", ["peaton"], id="accent"),
    pytest.param("año", ["año"], id="enye-kept"),
    pytest.param("¿Qué es lo que hay que hacer?", ["hac"], id="stop-words"),
    pytest.param("a) Por autopistas y autovías.", ["autop", "autovi"], id="letter-designator"),
    pytest.param("adelantar adelantamiento adelantamientos", ["adelant"] * 3, id="stemming"),
    # Folding comes before stemming, so a question typed without accents stems the same.
    pytest.param("adelantaré adelantare", ["adelantar"] * 2, id="accentless-same-stem"),
])
def test_analyze(text, expected):
    assert analyze(text) == expected


def test_fold_composes_before_stripping():
    assert fold("Cami\u00f3n") == fold("Camio\u0301n") == "camion"


def test_words_keeps_surface_forms():
    assert words("Los Peatones cruzan") == ["peatones", "cruzan"]


@pytest.mark.parametrize("term, expected", [
    pytest.param("art48", True, id="article"),
    pytest.param("articul", False, id="stem-of-articulo"),
    pytest.param("anexoii", True, id="annex"),
    pytest.param("anex", False, id="stem-of-anexo"),
    pytest.param("m-6.3", True, id="sign"),
    pytest.param("50km/h", True, id="number-unit"),
    pytest.param("0,5", True, id="decimal"),
    pytest.param("50", False, id="plain-integer"),
    pytest.param("veloc", False, id="word"),
])
def test_is_exact(term, expected):
    assert is_exact(term) is expected


@pytest.mark.parametrize("pattern, text, match", [
    pytest.param(P.SEARCH_ARTICLE, "según el art. 48", "art. 48", id="article-abbrev"),
    pytest.param(P.SEARCH_ARTICLE, "Arts. 82", "Arts. 82", id="article-plural"),
    pytest.param(P.SEARCH_ARTICLE, "arte 5", None, id="not-arte"),
    pytest.param(P.SEARCH_ANNEX, "anexo III", "anexo III", id="annex"),
    pytest.param(P.SEARCH_ANNEX, "anexo y", None, id="annex-lowercase-word"),
    pytest.param(P.SEARCH_SIGN, "la S-28 y", "S-28", id="sign"),
    pytest.param(P.SEARCH_SIGN, "P-1a", "P-1a", id="sign-letter"),
    pytest.param(P.SEARCH_SIGN, "auto-escuela", None, id="hyphenated-word"),
    pytest.param(P.SEARCH_NUMBER, "de 3.500 kg", "3.500 kg", id="thousands-unit"),
    pytest.param(P.SEARCH_NUMBER, "1.º En", "1", id="ordinal"),
    pytest.param(P.SEARCH_NUMBER, "50 metros", "50 metros", id="metros"),
    pytest.param(P.SEARCH_NUMBER, "5 mantas", "5", id="m-is-not-a-unit-prefix"),
    pytest.param(P.SEARCH_CLIENT_TOKEN, "3.500", "3.500", id="client-thousands"),
    pytest.param(P.SEARCH_CLIENT_TOKEN, "2,5", "2,5", id="client-decimal"),
    pytest.param(P.SEARCH_CLIENT_TOKEN, "señal", "señal", id="client-word"),
    pytest.param(P.ANNEX_SUBHEADING, "4.2\u2003Semáforos circulares.", "4.2\u2003S",
                 id="subheading-em-space"),
    pytest.param(P.ANNEX_SUBHEADING, "Grupo 1. Normas", "Grupo 1. N", id="subheading-grupo"),
    pytest.param(P.ANNEX_SUBHEADING, "2. Las detenciones", None, id="numbered-rule"),
    pytest.param(P.DESIGNATED, "a)\u2003Brazo", "a)\u2003", id="letter"),
    pytest.param(P.DESIGNATED, "La detención", None, id="continuation"),
])
def test_search_patterns(pattern, text, match):
    m = pattern.search(text)
    assert (m.group(0) if m else None) == match


def test_full_word_memos_stop_growing_and_still_answer(monkeypatch):
    """The word memos of analyze, the lexical documents and the embedder keep at most
    MEMO_LIMIT entries (a worker is sent words without end); past it a word is still analysed
    the same, just not kept."""
    from citavial.build.index import analyze as A
    from citavial.build.index import embed as E
    from citavial.build.index.query import lexical as L
    e = E.load_embedder()
    text = "Circulaban zqxwords velocísimos por 3.500 autopistas"
    want = (A.analyze(text), L.doc_analysis(text), e.token_ids(text))
    for module in (A, E, L):
        monkeypatch.setattr(module, "MEMO_LIMIT", 0)
    sizes = (len(A._WORD_TERM), len(L._TOKEN_TERM), len(e._word_ids or {}))
    A._WORD_TERM.clear(), L._TOKEN_TERM.clear(), (e._word_ids or {}).clear()
    assert (A.analyze(text), L.doc_analysis(text), e.token_ids(text)) == want
    assert (len(A._WORD_TERM), len(L._TOKEN_TERM), len(e._word_ids or {})) == (0, 0, 0)
    assert min(sizes) > 0   # they were filled before the limit
