"""How much of a pasted option a clause holds: a score that helps choose the answer's clause.

The share of the option's own content stems found in the clause, minus every number of the
option the clause does not contain. Stems the option shares with the question stem do not count.
This only helps pick which clause to show (span.py: the clause that tells the options apart);
it never names an option — word overlap cannot tell a distractor built from the law's own words
from the key (worker/answer/judge.py decides that, on stated words only).
"""

from __future__ import annotations

from citavial.build.text import numbers, stems
from citavial.worker.answer.question import Question

PREFIX = 5


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
