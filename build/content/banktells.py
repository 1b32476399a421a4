"""Tells of the practice bank: patterns that let a student pick the right option without knowing
the rule. ``python -m citavial.build.content.banktells [PRACTICE_DIR]`` prints the report;
tests/test_practice_bank.py fails CI when a tell crosses its limit.

With three options, chance is 1/3 for every "the correct one is the …" share. The tells:

* **longest** — the correct option is strictly the longest (characters): 20–40 % (below 20 %,
  "never pick the longest" would be the tell);
* **most specific** — it has strictly the most content words plus numbers and qualifiers
  ("salvo", "si", "cuando"…), the usual mark of a hand-written right answer: 20–40 %;
* **shortest** — strictly the shortest: 15–45 %;
* **only number** — of questions where exactly one option has a number, that one is correct:
  ≤ 50 %;
* **only qualifier** — of questions where exactly one option has a qualifier, that one is
  correct: ≤ 50 %;
* **absolutes** — of options saying "siempre", "nunca", "solo", "en ningún caso"…, the share
  that is correct: between 15 % and 60 % ("siempre"/"nunca" always wrong is the classic tell);
* **letters** — each correct letter between 28 % and 39 % of the bank.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from citavial.build.content.practice import Question, read_bank
from citavial.build.patterns import OPTION_ABSOLUTE, OPTION_QUALIFIER, PROSE_QUANTITY
from citavial.build.text import fold, words


@dataclass(frozen=True)
class Tell:
    name: str
    k: int          # questions (or options) showing the tell
    n: int          # out of
    low: float      # allowed share, inclusive
    high: float

    @property
    def share(self) -> float:
        return self.k / self.n if self.n else 0.0

    @property
    def ok(self) -> bool:
        return self.low <= self.share <= self.high

    def __str__(self) -> str:
        verdict = "ok" if self.ok else "OVER THE LIMIT"
        return (f"{self.name}: {self.k} of {self.n} = {self.share:.1%} "
                f"(allowed {self.low:.0%}–{self.high:.0%}) {verdict}")


def specificity(option: str) -> int:
    """Content words + numbers + qualifiers: how much an option commits to."""
    folded = fold(option)
    return (len(words(option)) + len(PROSE_QUANTITY.findall(folded))
            + len(OPTION_QUALIFIER.findall(folded)))


def _strict_max(values: list[int], i: int) -> bool:
    return all(values[i] > v for j, v in enumerate(values) if j != i)


def _only(bank: list[Question], has) -> tuple[int, int]:
    """(questions where exactly one option ``has`` it and it is the correct one, such questions)."""
    k = n = 0
    for q in bank:
        marked = [i for i, o in enumerate(q.options) if has(fold(o))]
        if len(marked) == 1:
            n += 1
            k += marked[0] == q.correct
    return k, n


def tells(bank: list[Question]) -> list[Tell]:
    n = len(bank)
    longest = sum(_strict_max([len(o) for o in q.options], q.correct) for q in bank)
    specific = sum(_strict_max([specificity(o) for o in q.options], q.correct) for q in bank)
    shortest = sum(_strict_max([-len(o) for o in q.options], q.correct) for q in bank)
    absolute = [(q, i) for q in bank for i, o in enumerate(q.options)
                if OPTION_ABSOLUTE.search(fold(o))]
    out = [
        Tell("correct option is the longest", longest, n, 0.20, 0.40),
        Tell("correct option is the most specific", specific, n, 0.20, 0.40),
        Tell("correct option is the shortest", shortest, n, 0.15, 0.45),
        Tell("only option with a number is the correct one",
             *_only(bank, lambda o: bool(PROSE_QUANTITY.search(o))), 0.0, 0.50),
        Tell("only option with a qualifier is the correct one",
             *_only(bank, lambda o: bool(OPTION_QUALIFIER.search(o))), 0.0, 0.50),
        Tell("options with an absolute that are correct",
             sum(q.correct == i for q, i in absolute), len(absolute), 0.15, 0.60),
    ]
    for letter in range(3):
        out.append(Tell(f"correct letter {'abc'[letter]}",
                        sum(q.correct == letter for q in bank), n, 0.28, 0.39))
    return out


def report(bank: list[Question]) -> str:
    by_topic: dict[str, list[Question]] = {}
    for q in bank:
        by_topic.setdefault(q.topic, []).append(q)
    lines = [f"{len(bank)} questions in {len(by_topic)} topics"]
    lines += [str(t) for t in tells(bank)]
    lines.append("per topic: questions, correct option the longest")
    for topic, qs in sorted(by_topic.items()):
        lines.append(f"  {topic}: {len(qs)}, {tells(qs)[0].share:.0%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from citavial.build.paths import SITE_SRC

    args = sys.argv[1:] if argv is None else argv
    bank = read_bank(Path(args[0]) if args else SITE_SRC / "practice")
    print(report(bank))
    return 0 if all(t.ok for t in tells(bank)) else 1


if __name__ == "__main__":
    sys.exit(main())
