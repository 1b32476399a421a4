"""The verdicts of one `citavial check` run, kept cheap for a hostile note (issue 26).

A note of 200,000 malformed lines must not cost 200,000 finding and result objects before a
single line is printed: a malformed citation's verdict is the same words whatever the line, so
a note keeps only their number and the text they are found in, and each becomes a ``Result``
only when a report reads it (the human and GitHub reports read at most a few per file,
check/report.py). ``Results`` is the sequence of every verdict in note order, malformed
ones included, with exact counts that read nothing.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from heapq import merge
from itertools import islice
from operator import attrgetter
from typing import overload

from citavial.build.check.scan import loose_spans
from citavial.build.models import Citation

MALFORMED = "malformed"
MALFORMED_REASON = ("malformed citation: write [«exact words»](cita:art48.1.a) or «exact words» "
                    "<!-- cita: art48.1.a --> (no « » [ ] inside the quote)")


@dataclass(frozen=True)
class Found:
    """One citation as written: where (offsets into the file text, 1-based column) and how."""

    citation: Citation
    col: int
    start: int
    end: int
    form: str        # "link", "linked", "comment" or MALFORMED
    link: str = ""   # the link target of a "linked" citation

    def __repr__(self) -> str:
        return f"Found({self.citation.file}:{self.citation.line}:{self.col} {self.form})"


@dataclass(frozen=True)
class Result:
    """The verdict on one citation: ``code`` is "" when it passes; ``url`` is its proven deep
    link relative to the site root (empty when it failed)."""

    found: Found
    code: str
    reason: str
    url: str = ""
    renamed_to: str = ""   # a renamed ref's current name, when its quote passes under it

    @property
    def ok(self) -> bool:
        return not self.code

    def __repr__(self) -> str:
        return f"Result({self.found!r}, {self.code or 'ok'})"


def malformed_found(file: str, starts: Sequence[int], start: int, end: int) -> Found:
    """The finding of a malformed citation at ``start`` (``starts``: the lines' offsets)."""
    line = bisect_right(starts, start)           # 1-based: starts[line - 1] <= start
    return Found(Citation(file, line, "", "", ""), start - starts[line - 1] + 1, start, end,
                 MALFORMED)


def _malformed(file: str, rest: str, limit: int | None) -> Iterator[Result]:
    """The results of the malformed citations in ``rest``, in order; lines counted on from one
    to the next (linear: no index of every line is built to place a few)."""
    line, pos = 1, 0
    for a, b in islice(loose_spans(rest), limit):
        line += rest.count("\n", pos, a)
        col = a - rest.rfind("\n", 0, a)   # reads back to the line's start only; -1 on line 1
        pos = a
        yield Result(Found(Citation(file, line, "", "", ""), col, a, b, MALFORMED), MALFORMED,
                     MALFORMED_REASON)


@dataclass(frozen=True)
class FileResults:
    """One note's verdicts: the judged citations in order, and how many malformed ones its
    text holds (``rest``: the text with its code and judged citations blanked, where
    ``loose_spans`` finds them)."""

    file: str
    judged: tuple[Result, ...]
    rest: str = ""
    n_malformed: int = 0

    def __repr__(self) -> str:
        return f"FileResults({self.file}: {len(self.judged)} judged, {self.n_malformed} malformed)"

    def __iter__(self) -> Iterator[Result]:
        return self.iter()

    def iter(self, malformed_limit: int | None = None) -> Iterator[Result]:
        """Every verdict in note order; only the first ``malformed_limit`` malformed ones."""
        bad = _malformed(self.file, self.rest, malformed_limit) if self.n_malformed else ()
        return merge(self.judged, bad, key=_START)

    @property
    def failed(self) -> int:
        return self.n_malformed + sum(not r.ok for r in self.judged)


_START = attrgetter("found.start")


class Results(Sequence[Result]):
    """Every verdict of a run, file by file in note order; length and failure count exact
    without building a malformed citation's result."""

    def __init__(self, files: Sequence[FileResults] = ()) -> None:
        self.files = tuple(files)
        self._len = sum(len(f.judged) + f.n_malformed for f in self.files)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[Result]:
        return (r for f in self.files for r in f)

    @overload
    def __getitem__(self, i: int) -> Result: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Result]: ...
    def __getitem__(self, i: int | slice) -> Result | Sequence[Result]:
        return tuple(self)[i]   # tests and tools index; reports iterate

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __repr__(self) -> str:
        return f"Results({len(self.files)} files, {self._len} verdicts)"

    @property
    def failed(self) -> int:
        return sum(f.failed for f in self.files)

    def judged(self) -> Iterator[Result]:
        """The judged (well-formed) citations' verdicts, malformed ones left out."""
        return (r for f in self.files for r in f.judged)

    def map_judged(self, fn: Callable[[Result], Result]) -> Results:
        """The same verdicts with ``fn`` applied to each judged one (malformed ones stay)."""
        return Results([FileResults(f.file, tuple(map(fn, f.judged)), f.rest, f.n_malformed)
                        for f in self.files])
