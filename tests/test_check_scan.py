"""`citavial check`'s linear scanner (build/check/scan.py, issue 26) against the reference it
replaced: ``finditer`` of the five patterns of build/patterns.py over the note, and the full
markdown-it parse for code blocks. Same findings (offsets, line, column, form, quote, ref, link)
on generated and hand-picked hostile notes; and work counted in steps that stays linear in the
note where the patterns' backtracking was quadratic (nothing is timed)."""

from __future__ import annotations

from bisect import bisect_right

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from citavial.build.check import scan as S
from citavial.build.check.notes import (
    MALFORMED,
    Found,
    Result,
    _found,
    blank_code,
    fixed_text,
    scan,
)
from citavial.build.patterns import (
    CITATION,
    CITATION_COMMENT,
    CITATION_LINKED,
    CODE_SPAN,
    LOOSE_CHECK_CITATION,
)


def reference_blank_code(text: str) -> str:
    """The code blanked as before the scanner: the full CommonMark parse and CODE_SPAN.sub."""
    lines = text.split("\n")
    for tok in MarkdownIt("commonmark").parse(text):
        if tok.type in ("fence", "code_block") and tok.map:
            for i in range(tok.map[0], min(tok.map[1], len(lines))):
                lines[i] = " " * len(lines[i])
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), "\n".join(lines))


def reference_scan(text: str, file: str) -> list[Found]:
    """notes.scan as it was: each pattern's finditer, then one loose opener per line."""
    visible = reference_blank_code(text)
    starts = [0] + [i + 1 for i, ch in enumerate(visible) if ch == "\n"]
    found, rest = [], visible
    for form, pattern in (("linked", CITATION_LINKED), ("link", CITATION),
                          ("comment", CITATION_COMMENT)):
        pieces, pos = [], 0
        for m in pattern.finditer(rest):
            found.append(_found(starts, file, m.start(), m.end(), form, m.group("ref"),
                                m.group("quote"), m.groupdict().get("url") or ""))
            pieces += [rest[pos:m.start()], " " * (m.end() - m.start())]
            pos = m.end()
        rest = "".join(pieces) + rest[pos:]
    m = LOOSE_CHECK_CITATION.search(rest)
    while m:
        line = bisect_right(starts, m.start())
        found.append(_found(starts, file, m.start(), m.end(), MALFORMED, "", "", ""))
        m = LOOSE_CHECK_CITATION.search(rest, starts[line]) if line < len(starts) else None
    return sorted(found, key=lambda f: f.start)


def hits_by_pattern(pattern, s: str) -> list[S.Hit]:
    return [S.Hit(m.start(), m.end(), m.group("quote"), m.group("ref"),
                  m.groupdict().get("url") or "") for m in pattern.finditer(s)]


def same_as_reference(text: str) -> None:
    work = S.Work()
    assert S.code_spans(text, work) == [m.span() for m in CODE_SPAN.finditer(text)]
    assert S.link_hits(text, work) == hits_by_pattern(CITATION, text)
    assert S.linked_hits(text, work) == hits_by_pattern(CITATION_LINKED, text)
    assert S.comment_hits(text, work) == hits_by_pattern(CITATION_COMMENT, text)
    assert S.blank_code_spans(text, work) == CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
    assert blank_code(text) == reference_blank_code(text)
    got, want = scan(text, "n.md"), reference_scan(text, "n.md")
    assert got == want
    # --fix-links rewrites from the findings alone: the same findings, the same rewrite
    results = [Result(f, "", "", "art1.html#x") for f in got if f.form != MALFORMED]
    assert fixed_text(text, results, "") == fixed_text(text, [Result(f, "", "", "art1.html#x")
                                                             for f in want
                                                             if f.form != MALFORMED], "")


# Pieces of every form, whole and broken, and of what stops their runs.
TOKENS = ["[«", "«", "»", "](", "](cita:", "cita:", "(cita:", ")", '"', '"cita:', '")', " ", "\t",
          "\n", "a", "x y", "art48.1", "RDL-6/2015#art76.a", "<!--", "-->", "<!-- cita: ", "-",
          "`", "``", "```", "    ", "[", "]", "~~~", "\u00a0", "ñ", "/", "#",
          "[«a»](cita:r)", '[«a»](u "cita:r")', "«a» <!-- cita: r -->", "[«a»](u", "[«a»](",
          '[«a»](u "cita:', "«a» <!-- cita:", "«a»", '"cita:")', "`x`"]


@settings(max_examples=1500, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map("".join))
def test_scanner_matches_the_patterns_on_generated_notes(text):
    same_as_reference(text)


HOSTILE = [
    pytest.param("[«a»](cita:art1) [«b»](u \"cita:art2\") «c» <!-- cita: art3 -->", id="each-form"),
    pytest.param("[«x»](" * 40, id="linked-openers-one-run"),
    pytest.param("[«x»](cita:" * 40, id="link-openers-one-run"),
    pytest.param('[«x»](u "cita:' * 40, id="linked-titles-unclosed"),
    pytest.param('[«x»](u "cita:r")' * 5 + '[«x»](u "cita:r"' * 5, id="linked-then-unclosed"),
    pytest.param('[«q»](a[«b»](c "cita:r")', id="linked-url-holds-an-opener"),
    pytest.param("[«q»](cita:a[«b»](cita:c)", id="link-ref-holds-an-opener"),
    pytest.param("«x» <!-- cita: a b" * 30 + " -->", id="comment-words-unclosed"),
    pytest.param("«a «b» <!-- cita: r --> »", id="comment-nested-guillemet"),
    pytest.param("«a» <!-- cita: " + "w " * 11 + "w -->", id="comment-twelve-words"),
    pytest.param("«a» <!-- cita: x--->", id="comment-dash-before-close"),
    pytest.param('[«a»](u "cita:") [«a»](cita:) «a» <!-- cita: -->', id="empty-refs"),
    pytest.param('[«a»](u)[«b»](v "cita:r")', id="linked-after-a-closed-url"),
    pytest.param("[«a»](cita:x[«b c»](cita:r)", id="link-opener-straddles-a-run-end"),
    pytest.param('[«a»](x[«b c»](u "cita:r")', id="linked-opener-straddles-a-run-end"),
    pytest.param('[«»](cita:r) [«»](u "cita:r") «» <!-- cita: r -->', id="empty-quotes"),
    pytest.param('[«a»]( "cita:r") [«a»](u"cita:r") [«a»](u\n"cita:r")', id="linked-no-url-or-blank"),
    pytest.param('[«a»](u \t "cita:r" ) [«a»](u "cita:r"\t)', id="linked-blanks"),
    pytest.param("[«\n" * 30, id="openers-one-per-line"),
    pytest.param("(cita:" * 30 + "\n" + '"cita:<!-- cita:' * 5, id="loose-openers"),
    pytest.param("`" * 30 + "a`" * 30, id="ticks-then-single-ticks"),
    pytest.param("".join("`" * j + "a" for j in range(12, 0, -1)), id="ticks-decreasing"),
    pytest.param("".join("`" * j + "a" for j in range(1, 12)), id="ticks-increasing"),
    pytest.param("``a" * 30 + "\n" + "`" * 7 + "\n`x``y```z", id="ticks-runs"),
    pytest.param("```a``b`" + "c`" * 5 + "``d" * 3, id="long-run-then-twos-and-ones"),
    pytest.param("a```b" + "`c" * 6, id="long-run-then-ones"),
    pytest.param("````a``b```" + "x``" * 4 + "\n```", id="long-runs-then-twos"),
    pytest.param("``x```y``z``", id="two-then-long-then-twos"),
    pytest.param("`[«a»](cita:r)` [«b»](cita:r)", id="citation-in-code-span"),
    pytest.param("```\n[«a»](cita:r)\n```\n    [«b»](cita:r)\n[«c»](cita:r)", id="code-blocks"),
    pytest.param("```\n```\n" + "[«" * 30 + "*a" * 20, id="code-block-and-inline-markup"),
    pytest.param("[«a\nb»](cita:r)\n«c\nd» <!-- cita: r -->", id="quotes-across-lines"),
    # the substring pre-checks (issue 26, valid-citation speed): the marks present, no block
    pytest.param("texto    con\tblancos [«a»](cita:r)\n x\t    y", id="blank-runs-inside-lines"),
    pytest.param("«a» sin comentario [«b»](cita:r) (cita [ «", id="no-comment-no-loose-opener"),
    pytest.param("[«b»](cita:r)\n\tcódigo [«c»](cita:r)", id="tab-indented-block-only"),
]


@pytest.mark.parametrize("text", HOSTILE)
def test_scanner_matches_the_patterns_on_hostile_notes(text):
    same_as_reference(text)


# Notes of n repeated pieces whose every opener the patterns read to the end of the note (or of
# the line); the scanner reads each character a bounded number of times.
SHAPES = [
    pytest.param(lambda n: "[«x»](" * n, id="linked-openers"),
    pytest.param(lambda n: "[«x»](cita:" * n, id="link-openers"),
    pytest.param(lambda n: '[«x»](u "cita:' * n, id="linked-titles"),
    pytest.param(lambda n: "«x» <!-- cita: a b" * n, id="comments-unclosed"),
    pytest.param(lambda n: "[«\n" * n, id="openers-per-line"),
    pytest.param(lambda n: "(cita:" * n, id="loose-one-line"),
    pytest.param(lambda n: "`" * n + "a`" * n, id="ticks-then-single-ticks"),
    pytest.param(lambda n: ("``a" * 50 + "\n") * (n // 50), id="tick-pairs"),
    pytest.param(lambda n: "".join("`" * j + "a" for j in range(int(n ** 0.5), 0, -1)),
                 id="ticks-decreasing"),
    pytest.param(lambda n: "[«a»](cita:art1)\n" * n, id="valid-citations"),
]


@pytest.mark.parametrize("shape", SHAPES)
def test_scan_work_is_linear(shape):
    per_char = []
    for n in (500, 2000, 8000):
        text, work = shape(n), S.Work()
        scan(text, "n.md", work)
        per_char.append(work.steps / len(text))
    assert max(per_char) <= 12, per_char                  # a few looks at each character
    assert per_char[2] <= per_char[0] * 1.1 + 0.1, per_char   # not growing with the note
