"""Model text → safe text: links, markup, quotes and refs never pass; streaming changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citavial.worker.lead.sanitize import OMITTED, TextSanitizer, clean_word


def stream(pieces: list[str]) -> str:
    s = TextSanitizer()
    return "".join(s.feed(p) for p in pieces) + s.flush()


WORDS = [
    # id, word, safe form
    ("plain", "velocidad", "velocidad"),
    ("accents-and-punct", "máxima,", "máxima,"),
    ("speed-unit", "km/h.", "km/h."),
    ("thousands", "3.500", "3.500"),
    ("decimal", "0,5", "0,5"),
    ("ordinal", "1.º", "1.º"),
    ("parenthesis", "(salvo", "(salvo"),
    ("http", "http://boe.es/x", ""),
    ("https-in-parens", "(https://evil.example/a?b=c).", ""),
    ("javascript", "javascript:alert(1)", ""),
    ("www", "www.dgt.es", ""),
    ("bare-domain", "dgt.es", ""),
    ("bare-domain-path", "boe.es/buscar/act.php", ""),
    ("path", "/buscar/act.php", ""),
    ("web-file", "art48.html#x", ""),
    ("email", "info@dgt.es", ""),
    ("canonical-ref", "RD-1428/2003#art48", ""),
    ("fragment-ref", "#art48.1", ""),
    ("norm-number", "18/2009", ""),
    ("slot-word", "REF:1", ""),
    ("html-tag", "<b>negrita</b>", "bnegrita/b"),
    ("markdown-bold", "**muy**", "muy"),
    ("markdown-code", "`x`", "x"),
    ("quotes", "«conducir»", "conducir"),
    ("curly-quotes", "“texto”", "texto"),
    ("emoji", "ok🚗", "ok"),
    ("control", "a\x07b", "ab"),
    ("glued-ref", "artículo48.1,", "(referencia omitida),"),
    ("domain-after-symbol", "¢dgt.es/multas", ""),
    # issue 26.8: dots and letters that only look different, and bare addresses
    ("fullwidth-dot", "evil．com", ""),
    ("ideographic-dot", "evil。com", ""),
    ("halfwidth-ideographic-dot", "evil｡com/x", ""),
    ("fullwidth-tld", "evil.ｃｏｍ", ""),
    ("middle-dot", "evil·com", ""),
    ("hyphenation-point", "evil‧com/x", ""),
    ("short-ipv4-with-path", "127.1/x", ""),
    ("apartado-kept", "127.1", "127.1"),
    ("fullwidth-scheme", "ｈｔｔｐｓ://x", ""),
    ("fullwidth-www", "www．dgt．es", ""),
    ("zero-width-in-domain", "ev\u200bil.com", ""),
    ("bare-ip-path", "10.0.0.1/x", ""),
    ("bare-ip-in-parens", "(192.168.1.1).", ""),
    ("three-part-number", "18.2.3", "18.2.3"),
    ("ordinal-kept-under-nfkc", "2.ª", "2.ª"),
]


@pytest.mark.parametrize("word,safe", [w[1:] for w in WORDS], ids=[w[0] for w in WORDS])
def test_clean_word(word, safe):
    assert clean_word(word) == safe


STREAMS = [
    ("prose-untouched", ["Queda prohibido", " conducir."], "Queda prohibido conducir."),
    ("leading-space-dropped", [" La", " vía"], "La vía"),
    ("url-dropped", ["Ver http://", "x.es/a para", " más."], "Ver para más."),
    ("article-ref", ["según el artículo 48, la"], f"según el {OMITTED}, la"),
    ("article-ref-split", ["según el ", "artí", "culo", " 48.1", " dice"],
     f"según el {OMITTED} dice"),
    ("art-abbrev", ["el art. 82.2 permite"], f"el {OMITTED} permite"),
    ("apartado-chain", ["el artículo 48, apartado 2 dice"], f"el {OMITTED}, dice"),
    ("disposition", ["la disposición adicional primera dice"], f"la {OMITTED} dice"),
    ("annex", ["el anexo II regula"], f"el {OMITTED} regula"),
    ("law", ["la Ley 18/2009 dice"], f"la {OMITTED} dice"),
    ("trigger-not-ref", ["el artículo siguiente"], "el artículo siguiente"),
    ("trigger-at-end", ["según el reglamento"], "según el reglamento"),
    ("ref-then-period", ["lo dice el artículo 12."], f"lo dice el {OMITTED}."),
    ("newlines-are-spaces", ["a\n\nb"], "a b"),
]


@pytest.mark.parametrize("pieces,safe", [s[1:] for s in STREAMS], ids=[s[0] for s in STREAMS])
def test_stream(pieces, safe):
    assert stream(pieces) == safe


def test_holds_back_only_the_unfinished_word():
    s = TextSanitizer()
    assert s.feed("Queda prohi") == "Queda"
    assert s.feed("bido conducir") == " prohibido"
    assert s.flush() == " conducir"


def test_holds_back_a_trigger_until_the_next_word():
    s = TextSanitizer()
    assert s.feed("según el artículo ") == "según el"
    assert s.feed("48 dice ") == f" {OMITTED} dice"


@given(st.text(max_size=80), st.lists(st.integers(0, 80), max_size=8))
@settings(max_examples=300, deadline=None)
def test_tokenisation_does_not_change_the_output(text, cuts):
    bounds = [0, *sorted(c for c in cuts if c <= len(text)), len(text)]
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    assert stream(pieces) == stream([text])
