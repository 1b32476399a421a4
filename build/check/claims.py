"""Claims: does the sentence around a citation say what the cited passage says?

The gate proves that a quote is literal; it says nothing about the author's own words beside it.
``citavial check --claims`` also reads the sentence that carries each citation (the quote itself
removed) against the passage it cites, with the prose check's two rules (content/prose.py):

* ``claim-number`` — a number, amount, unit or age in the sentence that the passage does not
  state (with its unit): "a 100 km/h" beside a passage that says 90;
* ``claim-absolute`` — "siempre", "nunca", "en ningún caso", "solo"… that the passage does not
  back with the same word or an equivalent (a rule with conditions is not "siempre").

This is a softer verdict than the gate's and is reported apart from it: a finding means "read
this sentence again", not "this quote is false". Measured on pairs made from the real DGT bank
(stem + the key option follows from the labelled deciding passage; stem + another option does
not; tests/bench/bench_claims.py): on the dev split a flag was right 0.878 of the time and caught
0.291 of the options that do not follow (n = 1,007 pairs). Negation and modality are not judged:
word rules read them wrongly too often to flag an author's sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from citavial.build.content.prose import absolutes, backs, quantities
from citavial.build.text import fold


class ClaimCode(str, Enum):
    NUMBER = "claim-number"
    ABSOLUTE = "claim-absolute"


@dataclass(frozen=True)
class ClaimFinding:
    code: ClaimCode
    shown: str          # the number or absolute as the sentence writes it
    reason: str         # plain English, naming what to check

    def __repr__(self) -> str:
        return f"ClaimFinding({self.code.value}, {self.shown!r})"


def judge_claim(sentence: str, passages: Sequence[str], given: str = "") -> list[ClaimFinding]:
    """What in ``sentence`` the cited ``passages`` do not back. ``given`` holds words whose
    numbers are the premise, not the claim (an exam question's stem)."""
    out: list[ClaimFinding] = []
    have = [quantities(t) for t in passages]
    premise = {q.value for q in quantities(given)}
    for q in quantities(sentence):
        if q.value in premise and q.unit != "code":
            continue
        if not any(any(h.value == q.value for h in qs)
                   and (not q.unit or any(h.unit == q.unit for h in qs)) for qs in have):
            out.append(ClaimFinding(ClaimCode.NUMBER, q.shown,
                                    f"«{q.shown}» is not stated by the cited passage"))
    folded = [fold(t) for t in passages]
    for word in dict.fromkeys(absolutes(sentence)):
        if not any(backs(word, t) for t in folded):
            out.append(ClaimFinding(ClaimCode.ABSOLUTE, word,
                                    f"«{word}» is not backed by the cited passage"))
    return out


@dataclass(frozen=True)
class ClaimResult:
    """A finding on the sentence of one passing citation (file, line and column of the
    citation; the sentence as read, the quote removed)."""

    file: str
    line: int
    col: int
    ref: str
    sentence: str
    finding: ClaimFinding

    def __repr__(self) -> str:
        return f"ClaimResult({self.file}:{self.line}:{self.col} {self.finding.code.value})"


def claims_of(texts: dict[str, str], cited: Sequence[tuple[str, int, int, int, int, str]],
              passage: Callable[[str], str]) -> tuple[ClaimResult, ...]:
    """Findings for each passing citation ``(file, line, col, start, end, ref)`` of a note
    whose text is ``texts[file]``; ``passage(ref)`` is the cited passage's text (with its
    lead-ins)."""
    out = []
    for file, line, col, start, end, ref in cited:
        sentence = sentence_around(texts[file], start, end)
        for f in judge_claim(sentence, [passage(ref)]):
            out.append(ClaimResult(file, line, col, ref, sentence, f))
    return tuple(out)


_SENTENCE_END = re.compile(r"[.!?;:](?=\s)|\n\s*\n")


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` that holds ``text[start:end]`` (a citation), the citation
    itself removed: from the previous sentence end (or blank line) to the next one."""
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    left = before[-1] if before else 0
    m = _SENTENCE_END.search(text, end)
    right = m.start() if m else len(text)
    return " ".join((text[left:start] + " " + text[end:right]).split())
