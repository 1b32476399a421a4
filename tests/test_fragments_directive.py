"""directive.py: encoding, strict parsing, and deep links that select their own passage."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citavial.build.errors import BuildError
from citavial.build.gate.fragments import (
    TextDirective,
    decode_term,
    deep_link,
    directive_for,
    encode_term,
    find_all,
    format_directive,
    match_directive,
    parse_directive,
    parse_fragment,
    read_page,
)
from citavial.build.gate.fragments.directive import MAX_EXACT, locate
from citavial.build.normalize import normalize

_ENCODED = re.compile(r"(?:[A-Za-z0-9!$'()*+./:;=?@_~]|%[0-9A-F]{2})*")

ENCODE = [
    ("ascii-safe", "abc.XYZ_09~", "abc.XYZ_09~"),
    ("space", "la vía", "la%20v%C3%ADa"),
    ("reserved", "a-b,c&d", "a%2Db%2Cc%26d"),
    ("percent", "100%", "100%25"),
    ("enye", "ñ", "%C3%B1"),
    ("guillemets", "«x»", "%C2%ABx%C2%BB"),
    ("hash", "#1", "%231"),
    ("allowed-punct", "!$'()*+./:;=?@", "!$'()*+./:;=?@"),
]


@pytest.mark.parametrize("text,encoded", [c[1:] for c in ENCODE], ids=[c[0] for c in ENCODE])
def test_encode_table(text, encoded):
    assert encode_term(text) == encoded
    assert decode_term(encoded) == text


@settings(max_examples=400, deadline=None)
@given(st.text(min_size=1))
def test_encode_round_trips_and_escapes_reserved(text):
    encoded = encode_term(text)
    assert _ENCODED.fullmatch(encoded)
    assert not set(encoded) & set("-,& #\"<>[]\\^`{|}")
    assert decode_term(encoded) == text


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1), st.none() | st.text(min_size=1), st.none() | st.text(min_size=1),
       st.none() | st.text(min_size=1))
def test_directive_round_trips(start, end, prefix, suffix):
    d = TextDirective(start, end, prefix, suffix)
    assert parse_directive(format_directive(d)) == d


PARSE = [
    ("start", "uno", TextDirective("uno")),
    ("range", "uno,dos", TextDirective("uno", "dos")),
    ("context", "a-,uno,-b", TextDirective("uno", None, "a", "b")),
    ("full", "a-,uno,dos,-b", TextDirective("uno", "dos", "a", "b")),
    ("plus-literal", "uno+dos", TextDirective("uno+dos")),
    ("encoded-hyphen", "a%2Db", TextDirective("a-b")),
    ("raw-hyphen", "a-b", None),
    ("empty", "", None),
    ("prefix-only", "uno-", None),
    ("suffix-only", "-uno", None),
    ("three-terms", "uno,dos,tres", None),
    ("five-tokens", "a-,b,c,d,-e", None),
    ("bad-escape", "uno%zz", None),
    ("truncated-escape", "uno%2", None),
    ("bad-utf8", "%C3", None),
    ("empty-end", "uno,", None),
]


@pytest.mark.parametrize("value,expected", [c[1:] for c in PARSE], ids=[c[0] for c in PARSE])
def test_parse_table(value, expected):
    assert parse_directive(value) == expected


def test_parse_fragment():
    element, directives = parse_fragment("#art-5:~:text=uno&foo=1&text=a-b")
    assert element == "art-5"
    assert directives == (TextDirective("uno"), None)
    assert parse_fragment("art-5") == ("art-5", ())


PAGE = """
<h1 id="t">Artículo 5. Uso de la vía</h1>
<p id="a">La vía pública es de todos.</p>
<p id="b">La vía pública es de todos.</p>
<p id="c">Uno dos tres cuatro cinco seis siete ocho nueve diez.<br>Once doce trece.</p>
<div id="d"><p>Primer párrafo.</p><p>Segundo párrafo.</p></div>
<p id="e">Se prohíbe <em>circular</em> por la vía pública.</p>
<p id="f">La vía pública es de todos.</p>
<p id="g">La vía pública es de todos.</p>
"""


@pytest.mark.parametrize("anchor,text,kind,context", [
    ("t", "Artículo 5. Uso de la vía", "exact", False),
    ("a", "La vía pública es de todos.", "exact", False),
    ("b", "la via publica es de todos.", "exact", True),
    ("c", "Uno dos tres cuatro cinco seis siete ocho nueve diez.\nOnce doce trece.", "exact", False),
    ("d", "Primer párrafo. Segundo párrafo.", "range", False),
    ("e", "circular por la vía", "exact", False),
    ("e", "ircular por", "exact", False),  # widened to whole words
    ("f", "La vía pública es de todos.", "exact", True),
], ids=["heading", "first-of-duplicates", "duplicate-needs-suffix", "across-br", "div-range",
        "inline", "widened", "duplicate-needs-prefix"])
def test_deep_links(anchor, text, kind, context):
    page = read_page(PAGE)
    link = deep_link(page, anchor, text)
    assert (link.kind, link.context) == (kind, context)
    element, (directive,) = parse_fragment(link.fragment)
    assert element == anchor
    hit = match_directive(page, directive)
    assert (hit.pos, hit.end_pos) == locate(page, anchor, text)


def test_long_passage_uses_a_range():
    words = " ".join(f"palabra{i}" for i in range(80))
    page = read_page(f'<p id="x">{words}</p>')
    link = deep_link(page, "x", words)
    assert link.kind == "range" and len(words) > MAX_EXACT
    directive = parse_fragment(link.fragment)[1][0]
    assert directive.start == "palabra0 palabra1 palabra2"
    assert directive.end == "palabra77 palabra78 palabra79"


def test_indistinguishable_passage_falls_back_to_the_id(caplog):
    # #g repeats #b and is preceded by the same words as #b: no prefix/suffix can tell them apart.
    caplog.set_level("INFO", logger="citavial.build.gate.fragments.directive")
    page = read_page(PAGE)
    assert deep_link(page, "g", "La vía pública es de todos.").kind == "fallback"
    assert directive_for(page, "g", "La vía pública es de todos.") == "g"
    assert "linking the id only" in caplog.text
    page = read_page('<div id="w">x uno y</div><div id="v">x uno y</div>')
    assert (directive_for(page, "w", "uno"), directive_for(page, "v", "uno")) == ("w:~:text=uno", "v")


def test_id_is_escaped():
    page = read_page('<p id="a:~:b">uno</p>')
    assert directive_for(page, "a:~:b", "uno") == "a%3A~%3Ab:~:text=uno"


@pytest.mark.parametrize("anchor,text", [("nope", "uno"), ("a", "tres"), ("a", "  ")],
                         ids=["unknown-id", "text-not-there", "empty-text"])
def test_errors(anchor, text):
    with pytest.raises(BuildError):
        directive_for(read_page('<p id="a">uno dos</p>'), anchor, text)


# A page of blocks built from a small vocabulary, so phrases repeat and collide.
_WORDS = st.sampled_from(["la", "vía", "via", "pública", "Vía", "de", "todos", "5.1", "«art»", "ñu"])
_BLOCK = st.lists(_WORDS, min_size=1, max_size=6).map(" ".join)
_TAGS = st.sampled_from(["p", "li", "td", "h2"])


def _check_own_directive(blocks: list[tuple[str, str]], i: int) -> None:
    html = "".join(f'<{tag} id="p{k}">{text}</{tag}>' for k, (tag, text) in enumerate(blocks))
    page = read_page(f"<div>{html}</div>")
    text = blocks[i][1]
    fragment = directive_for(page, f"p{i}", text)
    if ":~:" not in fragment:
        earlier = [m for m in find_all(page, text) if m.start_block < i]
        assert earlier, f"a passage with no earlier occurrence fell back: {fragment}"
        return
    element, (directive,) = parse_fragment(fragment)
    hit = match_directive(page, directive)
    assert element == f"p{i}" and hit.target == f"p{i}"
    assert page.joined[hit.pos:hit.end_pos] == normalize(page.blocks[i].text)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_TAGS, _BLOCK), min_size=1, max_size=12), st.data())
def test_a_passage_directive_always_selects_it(blocks, data):
    _check_own_directive(blocks, data.draw(st.integers(0, len(blocks) - 1)))


_LONG = st.lists(_WORDS, min_size=60, max_size=90).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_TAGS, _LONG | _BLOCK), min_size=1, max_size=6), st.data())
def test_long_passage_range_always_selects_it(blocks, data):
    _check_own_directive(blocks, data.draw(st.integers(0, len(blocks) - 1)))


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_encode_term_equals_the_byte_by_byte_rule(text):
    """encode_term (urllib's quote + "-") escapes exactly the bytes outside the raw-safe set."""
    from citavial.build.gate.fragments.directive import _RAW
    expected = "".join(chr(b) if b in _RAW else f"%{b:02X}" for b in text.encode("utf-8"))
    assert encode_term(text) == expected
