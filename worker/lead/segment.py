"""Streaming sentence segmentation of the (already safe) answer text, with citation placement.

Each piece of text and each citation is given the index of the sentence it belongs to, as it
streams, so a client can wrap sentences and strike one out when it is retracted. A sentence
ends at ``. ! ? …`` followed by whitespace and then a character that can open a sentence
(capital, digit, ``¿ ¡``).

Where a citation written between two sentences ("… 50 km/h. [[REF:2]] La …") belongs depends on
the prompt's convention: with ``slots="after"`` it closes the sentence it follows; with
``slots="before"`` it opens the next one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from citavial.worker.patterns import SENTENCE_END, SENTENCE_OPEN, WORDS


@dataclass
class Sentence:
    """A sentence being written: its text and the source numbers it cites, in order."""

    index: int
    text: str = ""
    cites: list[int] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Sentence({self.index}, {self.text[:30]!r}, cites={self.cites})"


class Segmenter:
    """Feed safe text and citations; get (sentence index, text) pieces and closed sentences."""

    def __init__(self, slots: str = "after") -> None:
        self.slots = slots
        self.sentences: list[Sentence] = [Sentence(0)]
        self._after_end = False   # the last non-space character ended a sentence
        self._held = ""           # whitespace after a sentence end, not yet assigned

    @property
    def current(self) -> Sentence:
        return self.sentences[-1]

    def text(self, text: str) -> tuple[list[tuple[int, str]], list[Sentence]]:
        """Return the pieces to send now (index, text) and the sentences this text closed."""
        pieces: list[tuple[int, str]] = []
        closed: list[Sentence] = []
        for ch in text:
            if self._held or (self._after_end and ch.isspace()):
                if ch.isspace():
                    self._held += ch
                    continue
                if SENTENCE_OPEN.match(ch) and _has_words(self.current.text):
                    closed.append(self.current)
                    self.sentences.append(Sentence(len(self.sentences)))
                self._append(pieces, self._held)
                self._held = ""
            self._after_end = ch in SENTENCE_END or (self._after_end and ch in ")»\"'")
            self._append(pieces, ch)
        return _merge(pieces), closed

    def cite(self, n: int) -> tuple[int, list[Sentence]]:
        """Attach citation ``n`` to the sentence it belongs to; return that sentence's index
        and the sentence it closed, if it opens a new one."""
        closed = []
        if self.slots == "before" and self._after_end and _has_words(self.current.text):
            closed.append(self.current)
            self.sentences.append(Sentence(len(self.sentences)))
            self._after_end = False
        self.current.cites.append(n)
        return self.current.index, closed

    def finish(self) -> tuple[list[tuple[int, str]], list[Sentence]]:
        """End of the answer: the last sentence closes (trailing whitespace is dropped)."""
        self._held = ""
        last = self.current
        return [], ([last] if last.text.strip() or last.cites else [])

    def _append(self, pieces: list[tuple[int, str]], text: str) -> None:
        if text:
            self.current.text += text
            pieces.append((self.current.index, text))


def _has_words(text: str) -> bool:
    """A designator such as "1." or "a)" that opens a copied passage is not a sentence."""
    return bool(WORDS.search(text))


def _merge(pieces: list[tuple[int, str]]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for index, text in pieces:
        if out and out[-1][0] == index:
            out[-1] = (index, out[-1][1] + text)
        else:
            out.append((index, text))
    return out
