"""The linear scanner of `citavial check` (issue 26): it finds exactly what ``finditer`` of
CITATION_LINKED, CITATION, CITATION_COMMENT, CODE_SPAN and LOOSE_CHECK_CITATION (build/patterns.py)
finds, in time linear in the note.

Why not the patterns themselves: from every opener a backtracking pattern rescans the run that
follows it, and many openers share one run — 20,000 ``[«x»](`` ran 61 s, a line of 300 backticks
then ``a`a`…`` took longer the more backticks it has (the code span's ticks are tried at each
length, each to the end of the line). Here each primitive — ``str.find``, a search for one
character class, a pattern whose runs stop at the next opener (LINK_OPENER, LINKED_OPENER) or
that is linear as it stands (CITATION_COMMENT, CODE_SPAN on a line without three backticks in a
row) — starts where the last one of its kind stopped, or reuses its answer: a run is read once
whatever the number of openers in it. ``Work.steps`` counts the characters each primitive spans
from where it starts to where it stops (a model of the work: the patterns' insides cannot be
counted, hence the runs bounded by construction), so tests check that the work stays linear
without timing anything (tests/test_check_scan.py, which also compares the scanner with the
patterns on generated notes).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate
from typing import NamedTuple

from citavial.build.patterns import (
    BACKTICKS,
    CITATION_COMMENT,
    CODE_SPAN_SPLIT,
    FIRST_LOOSE_ON_LINE,
    LINK_BLANKS,
    LINK_OPENER,
    LINK_REF_END,
    LINK_URL_END,
    LINKED_OPENER,
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


def _next_opener(s: str, p: int, stop: int, work: Work) -> int:
    """Where to search on after the opener at ``p`` failed on the run ending at ``stop``: every
    opener whose run starts before ``stop`` shares that run's end, and fails alike. Only the last
    "[" before ``stop`` may open a citation whose run starts after it (a quote holds no "[")."""
    f = s.rfind("[", p + 1, stop)
    work.steps += stop - max(f, p) + 1
    return f if f >= 0 else max(stop, p + 1)


def link_hits(s: str, work: Work) -> list[Hit]:
    """CITATION.finditer: [«quote»](cita:REF)."""
    hits, i, ref_end = [], 0, _RunEnd(s, LINK_REF_END, work)
    while (m := LINK_OPENER.search(s, i)) is not None:
        work.steps += m.end() - i + 1   # a failed opener's quote stops at the next "["
        if m.group("ref"):
            hits.append(Hit(m.start(), m.end(), m.group("quote"), m.group("ref")))
            i = m.end()
            continue
        rs = m.end()   # the ref runs into a "[" or stops at a blank: read its whole run
        e = ref_end(rs)
        if e > rs and s.startswith(")", e):
            hits.append(Hit(m.start(), e + 1, m.group("quote"), s[rs:e]))
            i = e + 1
        else:
            i = _next_opener(s, m.start(), e, work)
    work.steps += len(s) - i + 1
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
    """CITATION_LINKED.finditer: [«quote»](URL "cita:REF"). What follows a URL depends only on
    where it ends, so openers whose URLs end alike pass or fail together."""
    hits, i, url_end = [], 0, _RunEnd(s, LINK_URL_END, work)
    while (m := LINKED_OPENER.search(s, i)) is not None:
        work.steps += m.end() - i + 1
        us = m.end()
        ue = url_end(us)
        tail = _title(s, ue, work) if ue > us else None
        if tail:
            hits.append(Hit(m.start(), tail[1] + 2, m.group("quote"), s[tail[0]:tail[1]],
                            s[us:ue]))
            i = tail[1] + 2
        else:
            i = _next_opener(s, m.start(), ue, work)
    work.steps += len(s) - i + 1
    return hits


def comment_hits(s: str, work: Work) -> list[Hit]:
    """CITATION_COMMENT.finditer, whose work is already linear: an attempt starts only at a «,
    its quote ends at the next « » [ ], its tail (possessive) cannot hold « or », so no
    character is read by more than two attempts; the steps count the text once."""
    work.steps += 2 * len(s) + 1
    if "<!--" not in s:   # a note without comments: no attempt at each of its «
        return []
    hits = [Hit(m.start(), m.end(), m.group("quote"), m.group("ref"))
            for m in CITATION_COMMENT.finditer(s)]
    return hits


def loose_spans(s: str, work: Work | None = None) -> Iterator[tuple[int, int]]:
    """LOOSE_CHECK_CITATION: the (start, end) of the first opener on each line, in one pass of
    FIRST_LOOSE_ON_LINE (its variable parts, the run before the opener and the blanks of
    ``<!--[ \\t]*cita:``, are each read once; the steps count the text twice)."""
    if work is not None:
        work.steps += 2 * len(s) + 1
    return (m.span(1) for m in FIRST_LOOSE_ON_LINE.finditer(s))


def loose_count(s: str, work: Work) -> int:
    """How many ``loose_spans`` there are, with no Python object per opener (``subn`` counts
    in C: a match object each cost a note of 200,000 malformed lines a third of its time)."""
    work.steps += 2 * len(s) + 1
    if "cita:" not in s and "[«" not in s:   # every opener holds one: the pattern finds none
        return 0
    return FIRST_LOOSE_ON_LINE.subn("", s)[1]


def loose_hits(s: str, starts: list[int], work: Work) -> list[tuple[int, int, int]]:
    """``loose_spans`` with each opener's 1-based line (``starts``: the lines' start offsets),
    as (start, end, line)."""
    return [(a, b, bisect_right(starts, a)) for a, b in loose_spans(s, work)]


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


def blank_code_spans(s: str, work: Work) -> str:
    """``s`` with its code spans blanked (CODE_SPAN.sub). CODE_SPAN itself is linear on a line
    without three backticks in a row (a failed closer search can only happen for the last run of
    two on the line), and runs in C: it blanks those lines; code_spans pairs the others."""
    out, pos = [], 0
    while (t := _find(s, "```", pos, work)) >= 0:
        a = s.rfind("\n", pos, t) + 1 if t > pos else pos
        b = _find(s, "\n", t, work)
        b = len(s) if b < 0 else b
        work.steps += t - a + 1
        out.append(_blank_by_pattern(s[pos:a], work))
        # pair runs up to the last of three or more; the pattern takes the rest of the line
        spans: list[tuple[int, int]] = []
        stop, tail = _paired_part(s, b, work)
        runs = [m.span() for m in BACKTICKS.finditer(s, a, stop)]
        work.steps += stop - a + 1
        rest = _line_spans(runs, spans, work, short_rest=True, tail=tail)
        out.append(blanked(s[a:rest], [(x - a, y - a) for x, y in spans]))
        pos = rest
    out.append(_blank_by_pattern(s[pos:], work))
    return "".join(out)


def _paired_part(s: str, b: int, work: Work) -> tuple[int, int]:
    """Where the runs a line ending at ``b`` needs paired end, and the longest run after that:
    past its last run of three or more only runs of one or two follow, and a span opened
    before can close no later than the first run of two there (or the first single one) —
    a line of 200,000 runs of one after its long run is not read into runs (issue 26)."""
    last = s.rfind("```", 0, b) + 3   # the line holds one: the end of its last long run
    two = s.find("``", last, b)
    one = s.find("`", last, b)
    stop = two + 2 if two >= 0 else one + 1 if one >= 0 else last
    work.steps += b - last + 1
    tail = 2 if s.find("``", stop, b) >= 0 else 1 if s.find("`", stop, b) >= 0 else 0
    return stop, tail


def _blank_by_pattern(s: str, work: Work) -> str:
    """CODE_SPAN.sub blanking each span, without a Python call per span: split() gives the text
    between spans, each span and its ticks; the spans are swapped for as many spaces."""
    work.steps += 2 * len(s) + 1
    if "`" not in s:
        return s
    parts = CODE_SPAN_SPLIT.split(s)
    parts[1::3] = map(" ".__mul__, map(len, parts[1::3]))
    del parts[2::3]
    return "".join(parts)


def _line_spans(runs: list[tuple[int, int]], spans: list[tuple[int, int]], work: Work,
                short_rest: bool = False, tail: int = 0) -> int:
    """The spans CODE_SPAN matches on one line, from its runs of backticks. At ``p``, with ``r``
    backticks from ``p`` to the end of its run, the pattern tries ticks of r, r-1, … 1, each
    closed by the first later ``ticks`` backticks at least one character on: inside the run
    itself (at most (r-1)//2 ticks fit, closing at once) or in a later run as long (at most
    min(r, the longest later run) ticks, closing at the first run that long). The longest that
    fits wins; a tie goes to the run itself, whose closer comes first. With ``short_rest``, stops
    where no run of three backticks is left (the pattern is linear there); returns where it
    stopped (the line's end otherwise), ``tail`` the longest run after ``runs``."""
    # later[k]: the longest run from run k on (accumulated in C: 200,000 runs on one line)
    lengths = [b - a for a, b in runs]
    later = list(accumulate(reversed(lengths), max, initial=tail))[::-1]
    work.steps += len(runs) + 1
    k, p = 0, runs[0][0] if runs else 0
    while k < len(runs):
        p = max(p, runs[k][0])
        r = runs[k][1] - p
        if short_rest and r <= 2 and later[k + 1] <= 2:
            return p
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
            break   # no closer for any ticks: nothing later on the line has one either
        spans.append((p, end))
        p = end
        if p >= runs[k][1]:
            k += 1
    if short_rest:   # the runs may stop short of the line (tail: the longest run after)
        return p
    return runs[-1][1] if runs else 0


def blanked(s: str, spans: list[tuple[int, int]]) -> str:
    """``s`` with each (start, end) span replaced by as many spaces (offsets kept)."""
    if not spans:
        return s
    pieces: list[str] = []
    pos = 0
    for a, b in spans:
        pieces += (s[pos:a], " " * (b - a))
        pos = b
    pieces.append(s[pos:])
    return "".join(pieces)
