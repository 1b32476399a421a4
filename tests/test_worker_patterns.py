"""Table tests for every regex of the answer worker (worker/patterns.py)."""

from __future__ import annotations

import pytest

from citavial.worker import patterns as P

TABLE = [
    # (pattern name, method, text, matches?)
    ("SLOT", "match", "[[REF:1]]", True),
    ("SLOT", "match", "[[REF:12]]", True),
    ("SLOT", "match", "[[REF:0]]", False),
    ("SLOT", "match", "[[REF:1]", False),
    ("SLOT", "match", "[[ref:1]]", False),
    ("SLOT_PREFIX", "match", "[", True),
    ("SLOT_PREFIX", "match", "[[RE", True),
    ("SLOT_PREFIX", "match", "[[REF:", True),
    ("SLOT_PREFIX", "match", "[[REF:10]", True),
    ("SLOT_PREFIX", "match", "[[REF:1]]", True),
    ("SLOT_PREFIX", "match", "[a", False),
    ("SLOT_PREFIX", "match", "[[REF:01", False),
    ("SLOT_PREFIX", "match", "[[REF:1]]]", False),
    ("URL_SCHEME", "search", "http://boe.es", True),
    ("URL_SCHEME", "search", "javascript:alert(1)", True),
    ("URL_SCHEME", "search", "mailto:x", True),
    ("URL_SCHEME", "search", "siguientes:", False),
    ("URL_SCHEME", "search", "12:30", False),
    ("URL_WWW", "search", "www.dgt.es", True),
    ("URL_WWW", "search", "(www.x", True),
    ("URL_WWW", "search", "awww.x", False),
    ("EMAIL", "search", "a@b.es", True),
    ("EMAIL", "search", "a@b", False),
    ("WEB_FILE", "search", "art48.html", True),
    ("WEB_FILE", "search", "act.php?id=1", True),
    ("WEB_FILE", "search", "htmlx", False),
    ("BARE_DOMAIN", "search", "boe.es", True),
    ("BARE_DOMAIN", "search", "sede.dgt.gob.es/x", True),
    ("BARE_DOMAIN", "search", "¢dgt.es/multas", True),
    ("BARE_DOMAIN", "search", "3.500", False),
    ("BARE_DOMAIN", "search", "km/h.", False),
    ("BARE_IP", "search", "10.0.0.1/x", True),
    ("BARE_IP", "search", "(192.168.1.1).", True),
    ("BARE_IP", "search", "3.500", False),
    ("BARE_IP", "search", "18.2.3", False),
    ("BARE_IP", "search", "1.2.3.4.5", False),
    ("BARE_DOMAIN", "search", "art.48", False),
    ("BARE_DOMAIN", "search", "1.º", False),
    ("REF_GLUED", "match", "articulo48", True),
    ("REF_GLUED", "match", "art.48.1", True),
    ("REF_GLUED", "match", "artes", False),
    ("CANONICAL_IN_PROSE", "search", "RD-1428/2003#art48", True),
    ("CANONICAL_IN_PROSE", "search", "#art48", True),
    ("CANONICAL_IN_PROSE", "search", "6/2015", True),
    ("CANONICAL_IN_PROSE", "search", "km/h", False),
    ("CANONICAL_IN_PROSE", "search", "1/2", False),
    ("REF_TRIGGER", "match", "articulo", True),
    ("REF_TRIGGER", "match", "art.", True),
    ("REF_TRIGGER", "match", "arts.", True),
    ("REF_TRIGGER", "match", "apartado", True),
    ("REF_TRIGGER", "match", "disposicion", True),
    ("REF_TRIGGER", "match", "arte", False),
    ("REF_TRIGGER", "match", "velocidad", False),
    ("REF_DESIGNATOR", "match", "48", True),
    ("REF_DESIGNATOR", "match", "48.1,", True),
    ("REF_DESIGNATOR", "match", "2.º", True),
    ("REF_DESIGNATOR", "match", "a)", True),
    ("REF_DESIGNATOR", "match", "II", True),
    ("REF_DESIGNATOR", "match", "adicional", True),
    ("REF_DESIGNATOR", "match", "18/2009", True),
    ("REF_DESIGNATOR", "match", "48.1a", True),
    ("REF_DESIGNATOR", "match", "siguiente", False),
    ("REF_DESIGNATOR", "match", "de", False),
    ("MARKUP_CHARS", "search", "<b>", True),
    ("MARKUP_CHARS", "search", "«x»", True),
    ("MARKUP_CHARS", "search", "texto (entre paréntesis), sí.", False),
    ("UNSAFE_CHARS", "search", "a\x00", True),
    ("UNSAFE_CHARS", "search", "🚗", True),
    ("UNSAFE_CHARS", "search", "\u202e", True),
    ("UNSAFE_CHARS", "search", "ñ á €", False),
    ("SENTENCE_OPEN", "match", "L", True),
    ("SENTENCE_OPEN", "match", "¿", True),
    ("SENTENCE_OPEN", "match", "l", False),
    ("WORDS", "search", "1. Los", True),
    ("WORDS", "search", "1.", False),
    ("WORDS", "search", "a)", False),
    ("QUESTION_FORBIDDEN", "search", "hola\n", False),
    ("QUESTION_FORBIDDEN", "search", "hola\x0b", True),
    ("QUESTION_FORBIDDEN", "search", "hola\x00", True),
    ("QUESTION_FORBIDDEN", "search", "hola\x85", True),
    ("QUESTION_FORBIDDEN", "search", "¿Qué velocidad?", False),
]


@pytest.mark.parametrize("name,method,text,hit", TABLE,
                         ids=[f"{n}-{i}" for i, (n, *_r) in enumerate(TABLE)])
def test_pattern(name, method, text, hit):
    pattern = getattr(P, name)
    assert bool(getattr(pattern, method)(text)) is hit


# Every pattern of worker/patterns.py has rows here or in test_answer_stages: proven by
# tests/test_patterns.py::test_every_pattern_has_a_table_test.
