"""Does a sentence say what its cited passage says? A lexical support score.

``support(sentence, passage)`` is, in [0, 1], the mean of two shares: of the sentence's content
words (stop words dropped, compared by Snowball stem after build/text.py's fold) that
occur in the passage, and of its consecutive content-word pairs that occur, in that order, in
the passage. The pairs catch a sentence stitched from the passage's words in a new order
("prohibido … brazo extendido"). The scale is the same for every answer, so the score is
reported with each citation. Every number of
the sentence must also occur in the passage ("120", "3.500", "0,5"): a sentence that changes a
figure is unsupported whatever its score. The threshold is calibrated (worker/answer/calibration.json).

What it cannot see: a sentence that reuses the passage's words with the opposite meaning
("no está prohibido…") scores as well as a faithful one. docs/answers.md says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from citavial.build.text import numbers, stem, words
from citavial.worker.lead.sanitize import OMITTED

# Filler a short answer uses on top of the Spanish stop words; it says nothing about support.
FILLER = frozenset("""
aqui asi aun bajo cada dicho dicha dos puede pueden debe deben respuesta pregunta segun sino
solo tal tan toda todas referencia omitida
""".split())

@dataclass(frozen=True)
class Support:
    """The verdict on one (sentence, passage) pair."""

    score: float                       # share of content words found in the passage, 0..1
    supported: bool
    reason: str                        # "supported", "low_support", "number_not_in_passage", "no_content"
    missing_numbers: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"Support({self.score:.2f}, {self.reason})"


def stem_sequence(text: str) -> list[str]:
    """The content words of ``text`` in order, as Snowball stems."""
    return [stem(w) for w in words(text) if w not in FILLER]


def stems(text: str) -> set[str]:
    return set(stem_sequence(text))


def _pairs(seq: list[str]) -> set[tuple[str, str]]:
    return set(zip(seq, seq[1:], strict=False))


def support(sentence: str, passage: str, threshold: float) -> Support:
    """Score ``sentence`` against ``passage``; supported iff score ≥ threshold and no new number."""
    sentence = sentence.replace(OMITTED, " ")
    seq = stem_sequence(sentence)
    content = set(seq)
    said = numbers(sentence)
    if not content and not said:
        return Support(0.0, False, "no_content")
    passage_seq = stem_sequence(passage)
    have = numbers(passage)
    words = (len(content & set(passage_seq)) + len(said & have)) / (len(content) + len(said))
    pairs = _pairs(seq)
    ordered = len(pairs & _pairs(passage_seq)) / len(pairs) if pairs else words
    score = round((words + ordered) / 2, 4)
    missing = tuple(sorted(said - have))
    if missing:
        return Support(score, False, "number_not_in_passage", missing)
    if score < threshold:
        return Support(score, False, "low_support")
    return Support(score, True, "supported")
