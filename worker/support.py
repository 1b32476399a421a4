"""Does a sentence say what its cited passage says? A lexical support score.

``support(sentence, passage)`` is the share of the sentence's content words (stopwords dropped,
compared by a 5-letter stem after ``build.normalize.normalize``) that occur in the passage, in
[0, 1]: the same scale for every answer, so it is reported with each citation. Every number of
the sentence must also occur in the passage ("120", "3.500", "0,5"): a sentence that changes a
figure is unsupported whatever its score. The threshold is calibrated (worker/calibration.json).

What it cannot see: a sentence that reuses the passage's words with the opposite meaning
("no está prohibido…") scores as well as a faithful one. The README says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from build.normalize import normalize

from .sanitize import OMITTED

STEM = 5
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[a-z]{2,}")
# Spanish function words and the filler a short answer uses; they say nothing about support.
STOPWORDS = frozenset("""
a al algo alguna alguno algunos algunas ante antes aqui asi aun bajo cada como con contra cual
cuales cuando cuanto de del desde donde dos durante e el ella ellas ellos en entre era es esa
esas ese eso esos esta estas este esto estos fue ha han hasta hay la las le les lo los mas me
mi muy ni no o os otra otro otros otras para pero poco por porque que quien se sea segun ser si
sin sino sobre solo su sus tal tambien tan tanto te tiene tienen toda todo todos todas tu un
una unas uno unos usted y ya puede pueden debe deben dicho dicha cual respuesta pregunta segun
referencia omitida
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


def numbers(text: str) -> set[str]:
    """Numbers in canonical form: thousands dots dropped, decimal comma → dot."""
    out = set()
    for raw in _NUMBER.findall(text):
        if re.fullmatch(r"\d{1,3}(?:\.\d{3})+", raw):
            raw = raw.replace(".", "")
        out.add(raw.replace(",", "."))
    return out


def stems(text: str) -> set[str]:
    words = _WORD.findall(normalize(text))
    return {w[:STEM] for w in words if w not in STOPWORDS}


def support(sentence: str, passage: str, threshold: float) -> Support:
    """Score ``sentence`` against ``passage``; supported iff score ≥ threshold and no new number."""
    sentence = sentence.replace(OMITTED, " ")
    content = stems(sentence)
    said = numbers(normalize(sentence))
    if not content and not said:
        return Support(0.0, False, "no_content")
    found = content & stems(passage)
    have = numbers(normalize(passage))
    score = round((len(found) + len(said & have)) / (len(content) + len(said)), 4)
    missing = tuple(sorted(said - have))
    if missing:
        return Support(score, False, "number_not_in_passage", missing)
    if score < threshold:
        return Support(score, False, "low_support")
    return Support(score, True, "supported")
