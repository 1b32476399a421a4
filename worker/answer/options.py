"""Which pasted option does the cited passage support? Or: it cannot tell.

Each option is read against the cited words (the answer span, its lead-in and the rest of its
passage): the share of the option's own content stems found there, minus every number of the
option that the passage does not contain (an option that changes a figure is not supported).
Stems the option shares with the question stem do not count — they say nothing about which
option is right. The best option wins only when enough of its words are there and by a margin;
otherwise the answer says it cannot decide and shows the deciding words anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from citavial.build.text import numbers, stems
from citavial.worker.answer.question import Question

MARGIN = 0.2
# The best option must be supported by more than a third of its own words: below that, on the
# dev split and the practice bank, a named option was as often wrong as right, and a wrong
# option named to a student costs more than "no puedo decidir".
MIN_SUPPORT = 0.34
PREFIX = 5


@dataclass(frozen=True)
class Choice:
    letter: str | None        # None: cannot decide
    text: str
    scores: tuple[tuple[str, float], ...]

    def __repr__(self) -> str:
        return f"Choice({self.letter}, {dict(self.scores)})"


def option_score(q: Question, option: str, evidence: str) -> float:
    # stems compared by their first PREFIX letters: "detengan" (deteng) meets "detenerse" (deten)
    asked = {t[:PREFIX] for t in q.terms}
    own = {t[:PREFIX] for t in stems(option)} - asked
    have = {t[:PREFIX] for t in stems(evidence)}
    said, known = numbers(option), numbers(evidence)
    if not own and not said:
        return 0.0
    words = sum(1 for t in own if t in have) / len(own) if own else 1.0
    missing = len(said - known)
    return round(words - 0.5 * missing + (0.25 if said and not missing else 0.0), 4)


def choose(q: Question, evidence: str) -> Choice | None:
    """The option the evidence supports (None when the question has no options)."""
    if not q.options:
        return None
    scored = sorted(((option_score(q, text, evidence), letter, text)
                     for letter, text in q.options), key=lambda t: (-t[0], t[1]))
    scores = tuple((letter, s) for s, letter, _ in sorted(scored, key=lambda t: t[1]))
    best, runner = scored[0], scored[1] if len(scored) > 1 else (0.0, "", "")
    if best[0] < MIN_SUPPORT or best[0] - runner[0] < MARGIN:
        return Choice(None, "", scores)
    return Choice(best[1], best[2], scores)
