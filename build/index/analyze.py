"""Analyze: Spanish text → search terms, the same way for passages, hooks and questions.

Folding, stop words and Snowball stemming come from build/text.py (the gate's fold, ñ kept); numbers and units kept as terms of their own ("50 km/h" → "50", "km/h", "50km/h"), so
a question about 50 km/h does not match every passage that mentions a speed; article, annex and
sign designators kept ("art. 48" → "art48", "anexo II" → "anexoii", "R-301" → "r-301").
"""

from __future__ import annotations

import unicodedata

from citavial.build import patterns as P
from citavial.build.text import STOP_WORDS, fold, stem, words

__all__ = ["analyze", "words", "is_exact", "fold", "stem", "STOP_WORDS", "UNITS"]

# Canonical unit of each spelling the SEARCH_NUMBER pattern accepts (keys are folded).
UNITS = {
    "km/h": "km/h", "kilometro por hora": "km/h", "kilometros por hora": "km/h",
    "km": "km", "kilometro": "km", "kilometros": "km",
    "cm": "cm", "centimetro": "cm", "centimetros": "cm",
    "mm": "mm", "milimetro": "mm", "milimetros": "mm",
    "m": "m", "metro": "m", "metros": "m",
    "kg": "kg", "kilogramo": "kg", "kilogramos": "kg",
    "t": "t", "tonelada": "t", "toneladas": "t",
    "mg/l": "mg/l", "miligramo por litro": "mg/l", "miligramos por litro": "mg/l",
    "g/l": "g/l", "gramo por litro": "g/l", "gramos por litro": "g/l",
    "%": "%", "por ciento": "%", "kw": "kw", "cc": "cm3", "cm3": "cm3", "cv": "cv",
}

def _mask(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _designators(text: str, out: list[tuple[int, str]]) -> str:
    """Collect article, annex and sign designators; return the text with them blanked out."""
    lower = text.lower()   # each pattern opens with its word: a text without it is not scanned
    for m in list(P.SEARCH_ARTICLE.finditer(text)) if "art" in lower else ():
        out.append((m.start(), "art" + m.group(1) + (m.group(2) or "").lower()))
        text = _mask(text, m.start(), m.end())
    for m in list(P.SEARCH_ANNEX.finditer(text)) if "anexo" in lower else ():
        out.append((m.start(), "anexo" + m.group(1).lower()))
        text = _mask(text, m.start(), m.end())
    if "-" not in text and "\u2011" not in text:   # a sign code has one of these hyphens
        return text
    for m in list(P.SEARCH_SIGN.finditer(text)):
        out.append((m.start(), f"{m.group(1).lower()}-{m.group(2).lower()}"))
        text = _mask(text, m.start(), m.end())
    return text


def _numbers(text: str, out: list[tuple[int, str]]) -> str:
    """Collect numbers (thousands dots dropped, decimal comma kept) and number+unit terms."""
    if P.TEXT_NUMBER.search(text) is None:   # no digit: no number (a quicker scan)
        return text
    for m in list(P.SEARCH_NUMBER.finditer(text)):
        num = m.group(1)
        if "." in num:
            num = num.replace(".", "")
        out.append((m.start(), num))
        if m.group(2):
            unit = UNITS[" ".join(fold(m.group(2)).split())]
            out.append((m.start() + 1, unit))
            out.append((m.start() + 2, num + unit))
        text = _mask(text, m.start(), m.end())
    return text


# Words a memo keeps at most (as text.stem's cache): a build's texts share a vocabulary of a
# few ten thousand words, and a long-running worker must not grow with every word it is sent.
MEMO_LIMIT = 200_000


class _WordTerms(dict):
    """A folded word → its term: the stem, or "" for a stop word or a one-letter word
    (filled on first sight, up to MEMO_LIMIT words)."""

    def __missing__(self, word: str) -> str:
        term = stem(word) if len(word) > 1 and word not in STOP_WORDS else ""
        if len(self) < MEMO_LIMIT:
            self[word] = term
        return term


_WORD_TERM = _WordTerms()


def analyze(text: str) -> list[str]:
    """The search terms of ``text`` in reading order (duplicates kept: BM25 counts them)."""
    text = unicodedata.normalize("NFC", text)
    found: list[tuple[int, str]] = []
    rest = _numbers(_designators(text, found), found)
    term = _WORD_TERM.__getitem__
    if not found:   # words alone: already in reading order
        return [t for t in map(term, P.SEARCH_WORD.findall(fold(rest))) if t]
    for m in P.SEARCH_WORD.finditer(fold(rest)):
        t = term(m.group(0))
        if t:
            found.append((m.start(), t))
    found.sort(key=lambda t: t[0])
    return [t for _, t in found]


def is_exact(term: str) -> bool:
    """Whether a term names something exactly: an article or annex designator, a sign code, a
    number with its unit or a decimal ("art48", "anexoii", "m-6.3", "50km/h", "0,5"); plain
    integers are too common to count."""
    if term.startswith("art") and term[3:4].isdigit():
        return True
    if term.startswith("anexo") and len(term) > 5:
        return True
    return any(c.isdigit() for c in term) and not term.isdigit()
