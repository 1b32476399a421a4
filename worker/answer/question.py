"""Read a student's question: the stem, pasted options, and what kind of fact it asks for.

Exam questions arrive as students paste them: a stem, often ending in "...", and three options
on the following lines ("a) …", "b) …", "c) …", or all on one line). The kind says what settles
the question: a number (speed, distance, age, amount), a yes/no permission or prohibition, an
exception ("¿siempre?", "salvo…"), or an open question (who/where/when/what).
"""

from __future__ import annotations

from dataclasses import dataclass

from citavial.build.text import fold, stems
from citavial.worker.patterns import OPTION_INLINE, OPTION_LINE, Q_EXCEPTION, Q_NUMBER, Q_YESNO

NUMBER, YESNO, EXCEPTION, OPEN = "number", "yesno", "exception", "open"


@dataclass(frozen=True)
class Question:
    raw: str
    stem: str                                   # the question without its options
    options: tuple[tuple[str, str], ...]        # (letter, text), letters lower case
    kind: str                                   # NUMBER | YESNO | EXCEPTION | OPEN
    terms: frozenset[str]                       # Snowball stems of the stem's content words

    def __repr__(self) -> str:
        return f"Question({self.kind}, {len(self.options)} options, {self.stem[:30]!r})"


def split_options(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(stem, options) of a pasted exam question; no options → (text, ())."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    found = [(m.group(1).lower(), m.group(2).strip()) for line in lines[1:]
             if (m := OPTION_LINE.match(line))]
    if len(found) >= 2 and len(found) == len(lines) - 1:
        return lines[0], tuple(found)
    parts = OPTION_INLINE.split(text.strip())
    if len(parts) >= 5:   # stem, letter, text, letter, text…
        opts = tuple((parts[i].lower(), parts[i + 1].strip(" ;,"))
                     for i in range(1, len(parts) - 1, 2))
        if [o[0] for o in opts] == list("abcd"[:len(opts)]):
            return parts[0].strip(), opts
    return text.strip(), ()


def kind_of(stem: str) -> str:
    folded = fold(stem)
    if Q_NUMBER.search(folded):
        return NUMBER
    if Q_EXCEPTION.search(folded):
        return EXCEPTION
    if Q_YESNO.search(folded):
        return YESNO
    return OPEN


def read_question(text: str) -> Question:
    stem, options = split_options(text)
    return Question(text, stem, options, kind_of(stem), frozenset(stems(stem)))
