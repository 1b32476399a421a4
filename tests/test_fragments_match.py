"""match.py and wordbreak.py: terms and directives found the way Chromium finds them."""

from __future__ import annotations

import fragment_cases
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citavial.build.gate.fragments import TextDirective, find_all, match_directive, read_page
from citavial.build.gate.fragments.wordbreak import is_boundary


@pytest.mark.parametrize("case", fragment_cases.ALL, ids=[c.id for c in fragment_cases.ALL])
def test_measured_chromium_cases(case):
    """Every case whose outcome was measured in Chromium 156 (tests/browser re-measures them)."""
    html = fragment_cases.page_html(case.body)
    assert fragment_cases.python_target(html, case.fragment) == case.expect


BOUNDARY = [  # (id, text, offset, is a boundary)
    ("block-start", "abc", 0, True),
    ("block-end", "abc", 3, True),
    ("inside-word", "abc", 1, False),
    ("letter-space", "ab c", 2, True),
    ("space-letter", "ab c", 3, True),
    ("letter-digit", "a5", 1, False),
    ("digit-dot-digit", "5.1", 1, False),
    ("dot-digit", "5.1", 2, False),
    ("digit-dot-end", "5. x", 1, True),
    ("letter-dot-letter", "a.b", 1, True),
    ("apostrophe-letters", "l'a", 1, False),
    ("curly-apostrophe-letters", "l’a", 2, False),
    ("apostrophe-letter-digit", "a'5", 1, True),
    ("middle-dot-letters", "l·l", 1, False),
    ("middle-dot-digits", "5·5", 1, True),
    ("comma-digits", "5,5", 1, False),
    ("comma-letters", "a,b", 1, True),
    ("colon", "a:b", 1, True),
    ("underscore", "a_b", 1, False),
    ("ordinal", "12º", 2, False),
    ("superscript", "m²", 1, True),
    ("before-combining-mark", "e\u0301", 1, False),
    ("after-combining-mark", "e\u0301 ", 2, True),
    ("soft-hyphen-breaks", "ab\u00adcd", 2, True),
    ("zwsp-breaks", "ab\u200bcd", 3, True),
    ("word-joiner-joins", "ab\u2060cd", 3, False),
    ("punct-punct", "((", 1, True),
]


@pytest.mark.parametrize("text,offset,expected", [c[1:] for c in BOUNDARY],
                         ids=[c[0] for c in BOUNDARY])
def test_word_boundary(text, offset, expected):
    assert is_boundary(text, offset) is expected


FIND = [  # (id, html, term, [(block, start, end)])
    ("not-in-orange", "<p>an orange</p>", "range", []),
    ("case-accent", "<p>LA VÍA</p><p>la via</p>", "la vía", [(0, 0, 6), (1, 0, 6)]),
    ("whitespace", "<p>la\n  vía</p>", "la   via", [(0, 0, 6)]),
    ("no-straddle", "<p>la</p><p>via</p>", "la via", []),
    ("inline", "<p>la <em>v</em>ía x</p>", "la vía", [(0, 0, 6)]),
    ("offsets-in-rendered-text", "<p>¿Qué  pasa?</p>", "que pasa", [(0, 1, 9)]),
    ("repeated", "<p>uno uno</p>", "uno", [(0, 0, 3), (0, 4, 7)]),
    ("empty-term", "<p>uno</p>", "  ", []),
]


@pytest.mark.parametrize("html,term,expected", [c[1:] for c in FIND], ids=[c[0] for c in FIND])
def test_find_all(html, term, expected):
    found = find_all(read_page(html), term)
    assert [(m.start_block, m.start, m.end) for m in found] == expected
    assert all(m.start_block == m.end_block for m in found)


def test_match_reports_blocks_and_anchors():
    page = read_page('<p id="a">uno dos</p><p id="b">tres</p><div id="c"><p>cuatro</p></div>')
    hit = match_directive(page, TextDirective("dos", "cuatro"))
    assert (hit.start_block, hit.start, hit.end_block, hit.end) == (0, 4, 2, 6)
    assert (hit.start_anchor, hit.end_anchor, hit.target) == ("a", "c", None)
    assert repr(hit) == "Match(0:4-2:6 #None)"


def test_first_match_wins_over_later_better_ones():
    page = read_page('<p id="a">la vía pública</p><p id="b">la vía</p>')
    assert match_directive(page, TextDirective("la vía")).target == "a"


@pytest.mark.parametrize("html,directive,found", [
    ("<p>a b c</p>", TextDirective("a  b c"), False),
    ("<p>a&nbsp; b c</p>", TextDirective("a b c"), False),
    ("<p>a b c</p>", TextDirective("a\u00a0b c"), True),
    ("<p>a b c</p>", TextDirective("a\tb c"), False),
    ("<p>a b c</p>", TextDirective(" a b c"), False),
    ("<p>x a b c</p>", TextDirective(" a b c"), True),
    ("<p>dos</p><p>uno dos</p>", TextDirective("dos", prefix="uno "), True),
    ("<p>dos</p><p>dos tres</p>", TextDirective("dos", suffix=" tres"), False),
], ids=["doubled-space", "nbsp-plus-space", "nbsp-term", "tab-term", "leading-space-at-start",
        "leading-space-mid-block", "prefix-trailing-space", "suffix-leading-space"])
def test_directive_whitespace_is_exact(html, directive, found):
    assert (match_directive(read_page(html), directive) is not None) is found


def test_find_all_is_whitespace_run_insensitive():
    assert len(find_all(read_page("<p>a&nbsp; b</p>"), "a\n b")) == 1


def test_prefix_retries_after_a_failed_candidate():
    page = read_page('<p id="a">uno cinco</p><p id="b">uno dos</p>')
    assert match_directive(page, TextDirective("dos", prefix="uno")).target == "b"


def test_a_searched_page_is_freed_without_the_cycle_collector():
    """A page's remembered searches (page.memo) point back at it weakly: a page `citavial
    check` read is freed when dropped, not left as a cycle for the collector (issue 26)."""
    import gc
    import weakref
    page = read_page('<p id="a">uno dos tres</p><p id="b">uno dos</p>')
    assert match_directive(page, TextDirective("dos", prefix="uno", suffix="tres")) is not None
    assert page.memo
    gone = weakref.ref(page)
    was = gc.isenabled()
    gc.disable()
    try:
        del page
        assert gone() is None
    finally:
        if was:
            gc.enable()


def _reference_span(page, d: TextDirective):
    """The spec's loops as written, one search per occurrence: no memo, no jump (what
    match.match_span and match._extend must equal)."""
    from citavial.build.gate.fragments.match import _find, _skip_space, _term
    start, end, prefix, suffix = _term(d.start), _term(d.end), _term(d.prefix), _term(d.suffix)
    must_end = end is not None or suffix is None
    search = 0
    while True:
        if prefix is not None:
            hit = _find(page, prefix, search, True, False)
            if hit is None:
                return None
            search = hit[0] + 1
            at = _skip_space(page, hit[1])
            found = None if at is None else _find(page, start, at, False, must_end)
            if found is None:
                return None
            if found[0] != at or start.lead:
                continue
        else:
            found = _find(page, start, search, True, must_end)
            if found is None:
                return None
            search = found[0] + 1
        stop = end_from = found[1]
        while True:
            if end is not None:
                hit = _find(page, end, end_from, True, suffix is None)
                if hit is None:
                    return None
                stop = end_from = hit[1]
            if suffix is None:
                return found[0], stop
            at = _skip_space(page, stop)
            hit = None if at is None else _find(page, suffix, at, False, True)
            if hit is None:
                return None
            if hit[0] == at and not suffix.lead:
                return found[0], stop
            if end is None:
                break


_CELLS = ("uno", "dos", "uno dos", "tres", "90", "dos tres", "Opcional")
_TERMS = ("uno", "dos", "tres", "90", "uno dos", "dos tres", "Opcional", "nada")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_CELLS), min_size=1, max_size=4), min_size=1,
                max_size=12),
       st.sampled_from(_TERMS), st.none() | st.sampled_from(_TERMS),
       st.none() | st.sampled_from(_TERMS), st.none() | st.sampled_from(_TERMS))
def test_prefix_and_end_loops_equal_the_spec_loops(rows, start, end, prefix, suffix):
    """The matcher's loops skip occurrences that must fail like the last one (a page without
    hidden regions): on pages of many repeats, the span is the one-by-one search's."""
    html = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    page = read_page(f"<table>{html}</table><p>uno dos tres 90 Opcional</p>")
    d = TextDirective(start, end, prefix, suffix)
    found = match_directive(page, d)
    assert (None if found is None else (found.pos, found.end_pos)) == _reference_span(page, d)
