"""Word boundaries the way Chromium's text-fragment finder checks them.

A term must start and end at a word boundary ("range" never matches inside "orange"). Chromium
uses ICU's UAX #29 word segmentation; this is an approximation of those rules restricted to what
matters for Latin-script text, with every rule below measured in Chromium 156:

- letters (L*, Nl, so also ``º ª`` and CJK), digits (Nd) and connectors (``_``) form one word:
  ``12º``, ``5a``, ``abc_def``, ``vías`` are single words;
- ``'`` ``’`` ``‘`` join letters with letters and digits with digits (``l'auto``, ``5'5``) but
  not a letter with a digit (``a'5`` breaks);
- ``·`` joins letters (``col·lecció``), not digits;
- ``.`` joins digits only (``5.1`` is one word; ``a.b``, ``e.g``, ``R.D.`` break between letters,
  which differs from plain UAX #29); ``,`` ``;`` ``⁄`` (fraction slash) join digits only;
- ``:`` never joins (ICU drops it from MidLetter);
- combining marks and format characters (ZWJ, ZWNJ, word joiner, LRM, BOM) are transparent: no
  boundary before them, and they are skipped when looking at the neighbours;
- soft hyphen and ZERO WIDTH SPACE are NOT transparent: they break words (``ab<shy>cd`` has a
  boundary after ``ab``) although they are ignored when comparing text;
- every other character (spaces, punctuation, symbols like ``²``, ``´``) breaks.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["is_boundary"]

_LETTER, _DIGIT, _CONNECT, _MID_LETTER, _MID_BOTH, _MID_NUM, _TRANSPARENT, _OTHER = range(8)
_MID_LETTER_CHARS = frozenset("\u00b7\u0387\u055f\u05f4\u2027")
_MID_BOTH_CHARS = frozenset("'\u2018\u2019\u2024\ufe52\uff07")
_MID_NUM_CHARS = frozenset(
    ".,;\u037e\u0589\u060c\u060d\u066c\u07f8\u2044\ufe10\ufe14\uff0c\uff0e\uff1b")
_BREAKING_FORMAT = frozenset("\u00ad\u200b")  # soft hyphen, zero width space


@lru_cache(maxsize=4096)
def _cls(ch: str) -> int:
    if ch in _MID_BOTH_CHARS:
        return _MID_BOTH
    if ch in _MID_NUM_CHARS:
        return _MID_NUM
    if ch in _MID_LETTER_CHARS:
        return _MID_LETTER
    if ch in _BREAKING_FORMAT:
        return _OTHER
    cat = unicodedata.category(ch)
    if cat[0] == "L" or cat == "Nl":
        return _LETTER
    if cat == "Nd":
        return _DIGIT
    if cat == "Pc":
        return _CONNECT
    if cat in ("Mn", "Me", "Mc", "Cf"):
        return _TRANSPARENT
    return _OTHER


def _prev(text: str, i: int) -> int:
    """Index of the last non-transparent character before ``i``, or -1."""
    i -= 1
    while i >= 0 and _cls(text[i]) == _TRANSPARENT:
        i -= 1
    return i


def _next(text: str, i: int) -> int:
    """Index of the first non-transparent character at or after ``i``, or len(text)."""
    while i < len(text) and _cls(text[i]) == _TRANSPARENT:
        i += 1
    return i


def _joins(text: str, a: int, b: int) -> bool:
    """True if the characters at ``a`` < ``b`` (non-transparent neighbours) are one word."""
    ca, cb = _cls(text[a]), _cls(text[b])
    word = (_LETTER, _DIGIT, _CONNECT)
    if ca in word and cb in word:
        return True
    if cb in (_MID_LETTER, _MID_BOTH, _MID_NUM) and ca in (_LETTER, _DIGIT):
        after = _next(text, b + 1)
        return after < len(text) and _mid_joins(ca, cb, _cls(text[after]))
    if ca in (_MID_LETTER, _MID_BOTH, _MID_NUM) and cb in (_LETTER, _DIGIT):
        before = _prev(text, a)
        return before >= 0 and _mid_joins(_cls(text[before]), ca, cb)
    return False


def _mid_joins(left: int, mid: int, right: int) -> bool:
    if left != right:
        return False
    if left == _LETTER:
        return mid in (_MID_LETTER, _MID_BOTH)
    return left == _DIGIT and mid in (_MID_NUM, _MID_BOTH)


def is_boundary(text: str, i: int) -> bool:
    """True if offset ``i`` of ``text`` (one rendered block) is a word boundary.

    The block's edges are always boundaries. ``i`` indexes the rendered text, not its
    normalized form: soft hyphens and zero-width spaces break words although ``normalize``
    removes them.
    """
    if i <= 0 or i >= len(text):
        return True
    if _cls(text[i]) == _TRANSPARENT:
        return False
    a = _prev(text, i)
    if a < 0:
        return True
    return not _joins(text, a, i)
