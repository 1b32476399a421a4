"""The comparison form of text: how a browser's text-fragment search compares strings.

One function, used by the citation gate, the deep-link generator and the worker, so that they
agree by construction. Chromium compares text-fragment terms with an ICU collator at primary
strength (case- and accent-insensitive) after folding a few characters; ``normalize`` reproduces
that with the standard library. It is never *finer* than Chromium on the cases we measured and is
deliberately *coarser* in one respect (whitespace runs), which only ever makes the gate stricter
(more occurrences found, never fewer).

Per input character, in order:

1. Quote marks fold like Chromium's find buffer: ``‘ ’ ‚ ‛ ׳`` → ``'`` and ``“ ” „ ‟ ״`` → ``"``.
   Guillemets ``« »``, primes ``′ ″`` and ``‹ ›`` are NOT folded (measured).
2. Every ``White_Space`` character (space, tab, newline, NBSP, thin/ideographic spaces, …) is a
   space; a run of them becomes ONE space and the result is stripped.
3. Compatibility decomposition (NFKD): ``ﬁ`` → ``fi``, fullwidth ``１２`` → ``12``, ``º`` → ``o``,
   ``ª`` → ``a``, ``²`` → ``2``, ``…`` → ``...``, ``½`` → ``1⁄2`` (fraction slash, not ``/``),
   ``™`` → ``tm``. Spacing accents whose NFKD is "space + mark" (``´ ¨ ¸``) are kept as they
   are: Chromium does not equate ``a´b`` with ``a b``.
4. Ignorable characters are dropped: combining marks (Mn, Me; so ``vía`` == ``via``,
   ``ñ`` == ``n``, ``ü`` == ``u``, ``ç`` == ``c``), format characters (Cf: soft hyphen, ZWSP, ZWJ,
   ZWNJ, word joiner, LRM/RLM, BOM) and control characters that are not whitespace.
5. Full case folding (``ß`` → ``ss``, final sigma → sigma, ``İ`` → ``i``).
6. Letters that ICU's root collation treats as a base letter plus a secondary difference, as
   measured in Chromium: ``ø``→``o``, ``ł``→``l``, ``đ``→``d``, ``ð``→``d``, ``ħ``→``h``,
   ``æ``→``ae``, ``œ``→``oe``. (Measured NOT equal and kept: ``þ``, dotless ``ı``, ``ƀ ɨ ŧ ƶ ǥ``.)

Measured in Chromium 156 (see tests/browser): ``niño`` == ``nino``; ``１２`` == ``12``;
``1º`` == ``1o``; ``m²`` == ``m2``; ``ﬁnal`` == ``final``; ``straße`` == ``strasse``;
``art.&nbsp;5`` == ``art. 5`` (both directions); ``circu&shy;lación`` == ``circulación``;
curly quotes == straight quotes; ``«hola»`` != ``"hola"``; ``–`` != ``-``.

Where Chromium is finer than this function (it never collapses ``NBSP + space`` nor a doubled
space in a term; a tab or newline in a term never equals a space), a match found here may not
exist in the browser. Deep links are built from literal slices of the rendered text, so this never
produces a link that fails; it can only make a uniqueness check more cautious.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["normalize", "normalize_with_map"]

_QUOTES = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u05f3": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u05f4": '"',
}
# Unicode White_Space property.
_WHITESPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
_LETTERS = {"ø": "o", "ł": "l", "đ": "d", "ð": "d", "ħ": "h", "æ": "ae", "œ": "oe"}
_DROP_CATEGORIES = frozenset({"Mn", "Me", "Cf", "Cc"})


@lru_cache(maxsize=4096)
def fold_char(ch: str) -> str:
    """The comparison form of one character: "" (ignorable), " " (whitespace) or folded text."""
    quote = _QUOTES.get(ch)
    if quote is not None:
        return quote
    if ch in _WHITESPACE:
        return " "
    decomposed = unicodedata.normalize("NFKD", ch)
    if len(decomposed) > 1 and decomposed[0] == " ":
        return ch.casefold()  # spacing accents (´ ¨ ¸) keep their identity
    out = []
    for part in decomposed:
        for c in unicodedata.normalize("NFKD", part.casefold()):
            if c in _WHITESPACE:
                out.append(" ")
            elif unicodedata.category(c) not in _DROP_CATEGORIES:
                out.append(_LETTERS.get(c, c))
    return "".join(out)


_WORD = re.compile("[^ ]+")


_ONE_TO_ONE: dict[int, str] = {}  # translate table of every character seen that folds to one
_NOT_ONE_TO_ONE: set[str] = set()
_SEEN: set[str] = set()


def _one_to_one(text: str) -> bool:
    """Does every character of ``text`` fold to exactly one character (whitespace to " ")?
    Nearly all rendered text does; ``_ONE_TO_ONE`` then folds it with ``str.translate``."""
    chars = set(text)
    for ch in chars - _SEEN:
        _SEEN.add(ch)
        folded = fold_char(ch)
        if len(folded) == 1:
            _ONE_TO_ONE[ord(ch)] = folded
        else:
            _NOT_ONE_TO_ONE.add(ch)
    return chars.isdisjoint(_NOT_ONE_TO_ONE)


def _map_one_to_one(folded: str) -> tuple[str, list[int]]:
    """``normalize_with_map`` when folding is one-to-one (``folded`` aligns with the source):
    the general loop's result, computed per word instead of per character (speed: the gate)."""
    if "  " not in folded and folded[:1] != " " and folded[-1:] != " ":
        return folded, list(range(len(folded) + 1))  # already collapsed: the identity map
    words: list[str] = []
    offsets: list[int] = []
    prev_end = -1
    for m in _WORD.finditer(folded):
        a, b = m.span()
        if prev_end >= 0:
            offsets.append(prev_end)  # the collapsed space maps to its run's first character
        words.append(m.group())
        offsets.extend(range(a, b))
        prev_end = b
    offsets.append(max(prev_end, 0))
    return " ".join(words), offsets


def normalize_with_map(text: str) -> tuple[str, list[int]]:
    """``normalize(text)`` plus a map back to ``text``.

    Returns ``(norm, offsets)`` with ``len(offsets) == len(norm) + 1``: ``offsets[j]`` is the
    index in ``text`` of the character that produced ``norm[j]`` (several normalized characters
    may share one source, e.g. ``ß`` → ``ss``), and ``offsets[len(norm)]`` is the index just past
    the source of the last normalized character including the marks attached to it. So
    ``norm[a:b]`` comes from ``text[offsets[a]:offsets[b]]`` (which may include ignorable
    characters and collapsed whitespace at its end). ``offsets`` is non-decreasing.
    """
    if _one_to_one(text):
        return _map_one_to_one(text.translate(_ONE_TO_ONE))
    return _map_general(text)


def _map_general(text: str) -> tuple[str, list[int]]:
    """``normalize_with_map`` character by character: the reference for any folding."""
    norm: list[str] = []
    offsets: list[int] = []
    end = 0  # index just past the source of the last emitted non-space character
    pending_space = -1  # source index of a whitespace run not yet emitted
    for i, ch in enumerate(text):
        folded = fold_char(ch)
        for c in folded:
            if c == " ":
                if pending_space < 0 and norm:
                    pending_space = i
                continue
            if pending_space >= 0:
                norm.append(" ")
                offsets.append(pending_space)
                pending_space = -1
            norm.append(c)
            offsets.append(i)
        if folded.strip(" "):
            end = i + 1
        elif not folded and pending_space < 0 and norm:
            end = i + 1  # ignorable (e.g. a combining mark) attached to the previous character
    offsets.append(end if norm else 0)
    return "".join(norm), offsets


def normalize(text: str) -> str:
    """The comparison form of ``text`` (see the module docstring for the exact rules)."""
    if _one_to_one(text):   # _map_one_to_one's text, without building its offsets
        return " ".join([w for w in text.translate(_ONE_TO_ONE).split(" ") if w])
    return _map_general(text)[0]
