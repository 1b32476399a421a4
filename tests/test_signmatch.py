"""Signs in a question (build/index/signmatch.py): codes however typed, names, and the search —
a code or a sign's name finds that sign first, shown above the passages, never as a passage."""

from __future__ import annotations

import pytest
from index_helpers import searcher

from citavial.build.index import signmatch as S
from citavial.build.models import SignEntry
from citavial.build.text import STOP_WORDS

TABLE = [("R-1", "Ceda el paso", False), ("R-2", "Detención obligatoria o STOP", False),
         ("R-101", "Entrada prohibida", False), ("R-104", "Entrada prohibida a motocicletas", False),
         ("P-13a", "Curva peligrosa hacia la derecha", False),
         ("P-13b", "Curva peligrosa hacia la izquierda", False), ("P-20", "Peatones", False),
         ("S-28", "Calle residencial", False), ("M-4.3", "Marca de paso para peatones", True),
         ("M-6.3", "Detención obligatoria o STOP", True), ("M-6.5", "Ceda el paso", True)]
SIGNS = [SignEntry(c, n, "g", f"senales.html#senal-{c}", f, "" if not f else "RD#x", ())
         for c, n, f in TABLE]
DATA = S.sign_table(SIGNS)


def found(question):
    return [(TABLE[r][0], how) for r, how in S.match(S.prepare(DATA), question, STOP_WORDS)]


@pytest.mark.parametrize("tok, key", [
    ("calles", "call"), ("calle", "call"), ("peatones", "peaton"), ("peaton", "peaton"),
    ("señales", "señal"), ("marcas", "marca"), ("paso", "paso"), ("es", "es"), ("parque", "parque"),
])
def test_sign_key_folds_plurals_alike(tok, key):
    assert S.sign_key(tok) == key


# Codes as the BOE XML writes them ("R-101", "P-13a", "M-6.3", "S-28", "R‑101" with U+2011)
# and as students type them.
@pytest.mark.parametrize("question, want", [
    ("R-101", [("R-101", "code")]),
    ("R‑101", [("R-101", "code")]),
    ("r101", [("R-101", "code")]),
    ("R 101", [("R-101", "code")]),
    ("¿Qué significa la señal r-101?", [("R-101", "code")]),
    ("P-13a", [("P-13a", "code")]),
    ("p-13", [("P-13a", "family"), ("P-13b", "family")]),
    ("p13", []),                              # a family needs its hyphen
    ("M-6.3", [("M-6.3", "code")]),
    ("m-6", [("M-6.3", "family"), ("M-6.5", "family")]),
    ("M-4.3a", []),                           # a code the catalogue does not have
    ("S-28 o R-1", [("S-28", "code"), ("R-1", "code")]),
    ("señal R-1 de ceda el paso", [("R-1", "code")]),   # a code: no name hits
    ("a 3 m 2 veces", []),
], ids=lambda v: v if isinstance(v, str) else None)
def test_codes(question, want):
    assert found(question) == want


@pytest.mark.parametrize("question, want", [
    ("señal de ceda el paso", [("R-1", "name"), ("M-6.5", "name")]),
    ("marca de ceda el paso", [("M-6.5", "name"), ("R-1", "name")]),   # "marca": markings first
    ("entrada prohibida", [("R-101", "name"), ("R-104", "partial")]),
    ("Calle residencial", [("S-28", "name")]),
    ("¿Qué significa calles residenciales?", [("S-28", "name")]),
    ("señal de stop", [("R-2", "partial"), ("M-6.3", "partial")]),
    ("señal de curva peligrosa", [("P-13a", "partial"), ("P-13b", "partial")]),
    ("peatones", []),                         # a one-word name needs a cue
    ("señal de peatones", [("P-20", "name"), ("M-4.3", "partial")]),
    ("¿Puede un peatón cruzar por la calle residencial?", []),   # about something else
    ("no hay ninguna señal ni ceda el paso", []),               # the cue is not the name's
], ids=lambda v: v if isinstance(v, str) else None)
def test_names(question, want):
    assert found(question) == want


def test_at_most_max_signs():
    many = S.sign_table([SignEntry(f"R-{400 + i}", "Sentido obligatorio", "g", "", False, "")
                         for i in range(9)])
    assert len(S.match(S.prepare(many), "señal de sentido obligatorio", STOP_WORDS)) == S.MAX_SIGNS


# The real index: a code or a name finds the sign first; a code's number is not a word of its own.
@pytest.mark.parametrize("question, code", [
    ("señal R-101", "R-101"), ("r101", "R-101"), ("¿Qué significa la señal R-1?", "R-1"),
    ("S-28", "S-28"), ("m-6.3", "M-6.3"), ("P-13a", "P-13a"), ("señal de ceda el paso", "R-1"),
    ("entrada prohibida", "R-101"), ("calle residencial", "S-28"),
    ("marca de paso para peatones", "M-4.3"),
])
def test_search_finds_the_sign_first(question, code):
    result = searcher().search(question, k=10)
    assert result.signs and result.signs[0].sign.code == code
    sign = result.signs[0].sign
    assert sign.url == f"senales.html#senal-{code}"
    assert sign.name_in_force == code.startswith("M-")


def test_a_code_ranks_the_passages_that_mention_it_not_its_number():
    s = searcher()
    assert [h.ref for h in s.search("S-28", k=10).hits] == []        # was art. 28.1
    assert s.search("r101", k=10).hits[0].ref == "RD-1428/2003#anexoI.5.p52"   # was art. 101
    marking = s.search("m-6.3", k=10)
    assert marking.hits[0].ref == marking.signs[0].sign.definition


def test_everyday_questions_name_no_sign():
    s = searcher()
    for q in ("velocidad máxima en autopista", "¿Puedo adelantar a un ciclista?", "peatones",
              "En esta calle no hay ninguna señal. ¿A qué velocidad máxima puedo ir?"):
        assert s.search(q, k=5).signs == (), q


def test_cli_prints_the_sign_above_the_passages_and_in_json():
    import io

    from citavial.build.search_cli import _print_human, result_json
    result = searcher().search("señal R-101", k=3)
    out = io.StringIO()
    _print_human(result, out)
    first = out.getvalue().splitlines()[0]
    assert first == " ▸ Señal R-101 · Entrada prohibida (nombre del catálogo anterior)"
    doc = result_json(result)
    assert doc["signs"][0]["code"] == "R-101" and doc["signs"][0]["match"] == "code"
    assert doc["signs"][0]["name_in_force"] is False
