"""The linear scanner of `citavial check` (issue 26): it finds exactly what ``finditer`` of
CITATION_LINKED, CITATION, CITATION_COMMENT, CODE_SPAN and LOOSE_CHECK_CITATION (build/patterns.py)
finds, in time linear in the note.

Why not the patterns themselves: from every opener a backtracking pattern rescans the run that
follows it, and many openers share one run — 20,000 ``[«x»](`` ran 61 s, a line of 300 backticks
then ``a`a`…`` took longer the more backticks it has (the code span's ticks are tried at each
length, each to the end of the line). Here every primitive (``str.find``, a search for one
character class, an anchored match that cannot backtrack) starts where the last one of its kind
stopped, or reuses its answer: a run is read once whatever the number of openers in it.
``Work.steps`` counts the characters those primitives examine, so tests can check that the work
stays linear without timing anything (tests/test_check_scan.py, which also compares the scanner
with the patterns on generated notes).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import NamedTuple

from citavial.build.patterns import (
    BACKTICKS,
    COMMENT_TAIL,
    GUILLEMET,
    LINK_BLANKS,
    LINK_REF_END,
    LINK_URL_END,
    LOOSE_CHECK_CITATION,
    QUOTE_END,
    TITLE_REF_END,
)


class Work:
    """The characters examined by the scanner's primitives, summed."""

    __slots__ = ("steps",)

    def __init__(self) -> None:
        self.steps = 0


class Hit(NamedTuple):
    """One well-formed citation: its span, quote, ref as written, and link (linked form)."""

    start: int
    end: int
    quote: str
    ref: str
    url: str = ""


def _find(s: str, sub: str, i: int, work: Work) -> int:
    j = s.find(sub, i)
    work.steps += (j + len(sub) if j >= 0 else len(s)) - i + 1
    return j


def _first(pattern: re.Pattern[str], s: str, i: int, work: Work) -> int:
    """Where the first character ``pattern`` (one character class) matches from ``i`` on, or the
    text's length."""
    m = pattern.search(s, i)
    j = m.start() if m else len(s)
    work.steps += j - i + 1
    return j


class _RunEnd:
    """``_first`` for increasing starts: the run up to the last answer has no stop character, so
    a start inside it shares that answer (the run is scanned once, not once per opener)."""

    def __init__(self, s: str, stop: re.Pattern[str], work: Work) -> None:
        self.s, self.stop, self.work = s, stop, work
        self.lo = self.hi = -1

    def __call__(self, i: int) -> int:
        if not self.lo <= i <= self.hi:
            self.lo, self.hi = i, _first(self.stop, self.s, i, self.work)
        return self.hi


def _quote_end(s: str, p: int, opener: int, close: str, work: Work) -> int:
    """Where the quote opened at ``p`` ends if ``close`` follows it, else -1: a quote holds no
    « » [ ], so it ends at the first of them (quotes of successive openers never overlap)."""
    qe = _first(QUOTE_END, s, p + opener, work)
    return qe if qe > p + opener and s.startswith(close, qe) else -1


def link_hits(s: str, work: Work) -> list[Hit]:
    """CITATION.finditer: [«quote»](cita:REF)."""
    hits, i, ref_end = [], 0, _RunEnd(s, LINK_REF_END, work)
    while (p := _find(s, "[«", i, work)) >= 0:
        i = p + 1
        qe = _quote_end(s, p, 2, "»](cita:", work)
        if qe < 0:
            continue
        e = ref_end(qe + 8)
        if e > qe + 8 and s.startswith(")", e):
            hits.append(Hit(p, e + 1, s[p + 2:qe], s[qe + 8:e]))
            i = e + 1
    return hits


def _title(s: str, ue: int, work: Work) -> tuple[int, int] | None:
    """After a linked citation's URL (ending at ``ue``): ``[ \\t]+"cita:REF")`` → the ref's
    span, or None."""
    we = LINK_BLANKS.match(s, ue).end()   # type: ignore[union-attr]  # [ \t]*+ always matches
    work.steps += we - ue + 1
    if we == ue or not s.startswith('"cita:', we):
        return None
    e = _first(TITLE_REF_END, s, we + 6, work)
    return (we + 6, e) if e > we + 6 and s.startswith('")', e) else None


def linked_hits(s: str, work: Work) -> list[Hit]:
    """CITATION_LINKED.finditer: [«quote»](URL "cita:REF"). Openers whose URLs end at the same
    character share what follows it, so the title is read once per URL end."""
    hits, i, url_end = [], 0, _RunEnd(s, LINK_URL_END, work)
    tail_at, tail = -1, None
    while (p := _find(s, "[«", i, work)) >= 0:
        i = p + 1
        qe = _quote_end(s, p, 2, "»](", work)
        if qe < 0:
            continue
        ue = url_end(qe + 3)
        if ue == qe + 3:
            continue
        if ue != tail_at:
            tail_at, tail = ue, _title(s, ue, work)
        if tail:
            hits.append(Hit(p, tail[1] + 2, s[p + 2:qe], s[tail[0]:tail[1]], s[qe + 3:ue]))
            i = tail[1] + 2
    return hits


def comment_hits(s: str, work: Work) -> list[Hit]:
    """CITATION_COMMENT.finditer: «quote» <!-- cita: REF -->. Its tail cannot hold « or », so
    it is matched only up to the next one (the same match: nothing beyond could be read)."""
    hits, i = [], 0
    while (p := _find(s, "«", i, work)) >= 0:
        i = p + 1
        qe = _quote_end(s, p, 1, "»", work)
        if qe < 0:
            continue
        m = COMMENT_TAIL.match(s, qe, _first(GUILLEMET, s, qe + 1, work))
        if m:
            hits.append(Hit(p, m.end(), s[p + 1:qe], m.group("ref")))
            i = m.end()
    return hits


def loose_hits(s: str, starts: list[int], work: Work) -> list[tuple[int, int]]:
    """LOOSE_CHECK_CITATION: the first opener left on each line (``starts``: the lines' start
    offsets), as (start, end). A search stops at its match: its one variable part, the blanks of
    ``<!--[ \\t]*cita:``, holds no character a match starts with."""
    out, i = [], 0
    while (m := LOOSE_CHECK_CITATION.search(s, i)) is not None:
        work.steps += m.end() - i + 1
        out.append((m.start(), m.end()))
        line = bisect_right(starts, m.start())   # 1-based line; starts[line]: the next one
        if line >= len(starts):
            return out
        i = starts[line]
    work.steps += len(s) - i + 1
    return out


def code_spans(s: str, work: Work) -> list[tuple[int, int]]:
    """CODE_SPAN.finditer as (start, end): each line with a backtick is read once into its runs
    of backticks, which are then paired (_line_spans)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while (p := _find(s, "`", pos, work)) >= 0:
        eol = _find(s, "\n", p, work)
        eol = len(s) if eol < 0 else eol
        runs = [m.span() for m in BACKTICKS.finditer(s, p, eol)]
        work.steps += eol - p + 1
        _line_spans(runs, spans, work)
        pos = eol + 1
    return spans


def _line_spans(runs: list[tuple[int, int]], spans: list[tuple[int, int]], work: Work) -> None:
    """The spans CODE_SPAN matches on one line, from its runs of backticks. At ``p``, with ``r``
    backticks from ``p`` to the end of its run, the pattern tries ticks of r, r-1, … 1, each
    closed by the first later ``ticks`` backticks at least one character on: inside the run
    itself (at most (r-1)//2 ticks fit, closing at once) or in a later run as long (at most
    min(r, the longest later run) ticks, closing at the first run that long). The longest that
    fits wins; a tie goes to the run itself, whose closer comes first."""
    later = [0] * (len(runs) + 1)   # later[k]: the longest run from run k on
    for k in range(len(runs) - 1, -1, -1):
        later[k] = max(later[k + 1], runs[k][1] - runs[k][0])
    work.steps += len(runs) + 1
    k, p = 0, runs[0][0] if runs else 0
    while k < len(runs):
        p = max(p, runs[k][0])
        r = runs[k][1] - p
        own, other = (r - 1) // 2, min(r, later[k + 1])
        work.steps += 1
        if own >= other and own > 0:
            end = p + 2 * own + 1
        elif other > 0:
            k2 = k + 1
            while runs[k2][1] - runs[k2][0] < other:   # the runs skipped are inside the span
                k2 += 1
            work.steps += k2 - k
            k, end = k2, runs[k2][0] + other
        else:
            return   # no closer for any ticks: nothing later on the line has one either
        spans.append((p, end))
        p = end
        if p >= runs[k][1]:
            k += 1


def blanked(s: str, spans: list[tuple[int, int]]) -> str:
    """``s`` with each (start, end) span replaced by as many spaces (offsets kept)."""
    if not spans:
        return s
    pieces, pos = [], 0
    for a, b in spans:
        pieces += (s[pos:a], " " * (b - a))
        pos = b
    pieces.append(s[pos:])
    return "".join(pieces)
