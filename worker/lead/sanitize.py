"""Model text → safe plain text, as it streams.

What the model writes is prose only. Before any of it reaches a client this filter, word by word:

* drops every word that is or carries a link (scheme, ``www.``, e-mail, bare domain, web file,
  path) or a canonical ref / norm number (``RD-1428/2003#art48``, ``#art48``, ``18/2009``);
* replaces a reference written in prose ("artículo 48", "art. 48.1", "apartado 2",
  "disposición adicional primera", "Ley 18/2009") by ``OMITTED``: the model never names a
  precept — code attaches the citations;
* removes markup and quotation characters (HTML, markdown, quotes): the model can neither
  format nor quote, so a quotation can only come from the allowlist;
* removes control characters and characters outside the BMP.

It holds back at most the current (unfinished) word and a trailing reference trigger whose next
word is not known yet, so tokens still reach the client as they are generated.
"""

from __future__ import annotations

import unicodedata

from citavial.build.text import fold as text_fold
from citavial.worker.patterns import (
    BARE_DOMAIN,
    BARE_IP,
    BARE_IPV6,
    CANONICAL_IN_PROSE,
    EMAIL,
    MARKUP_CHARS,
    REF_DESIGNATOR,
    REF_GLUED,
    REF_TRIGGER,
    UNSAFE_CHARS,
    URL_SCHEME,
    URL_WWW,
    WEB_FILE,
)

OMITTED = "(referencia omitida)"
# Words that continue a reference already omitted ("artículo 14 bis", "disposición final cuarta").
_CONTINUATIONS = frozenset({
    "bis", "ter", "quater", "unica", "primera", "segunda", "tercera", "cuarta", "quinta", "sexta",
    "septima", "octava", "novena", "decima", "primero", "segundo", "tercero",
})


# Full stops NFKC leaves as they are, but that a reader (or a browser's address bar) takes for
# a dot: ideographic, halfwidth ideographic; and the middle dots a reader takes for one
# ("evil·com", "evil‧com", "evil・com").
_DOTS = str.maketrans({"\u3002": ".", "\uff61": ".", "\ufe12": ".", "\u00b7": ".",
                       "\u2027": ".", "\u30fb": ".", "\uff65": "."})


def detection_form(word: str) -> str:
    """What link detection reads: controls dropped, NFKC (fullwidth "．ｃｏｍ" → ".com"), the
    other full stops made dots — so "evil。com" is the domain it looks like. Only for
    detection: the word shown keeps its own characters ("1.º" stays "1.º")."""
    return unicodedata.normalize("NFKC", UNSAFE_CHARS.sub("", word)).translate(_DOTS)


def clean_word(word: str) -> str:
    """The safe form of one whitespace-free word ("" when nothing of it may be shown)."""
    seen = detection_form(word)
    for form in (word, seen):
        if (URL_SCHEME.search(form) or URL_WWW.search(form) or EMAIL.search(form)
                or WEB_FILE.search(form) or CANONICAL_IN_PROSE.search(form)
                or form.lstrip("(¿¡").startswith("/")):
            return ""
    cleaned = UNSAFE_CHARS.sub("", MARKUP_CHARS.sub("", word))
    bare = MARKUP_CHARS.sub("", seen)
    if BARE_DOMAIN.search(bare) or BARE_IP.search(seen) or BARE_IPV6.search(bare):
        return ""
    if REF_GLUED.match(fold(cleaned)):
        return OMITTED + cleaned[len(cleaned.rstrip(".,;:")):]
    return cleaned


def _bare(word: str) -> str:
    return UNSAFE_CHARS.sub("", MARKUP_CHARS.sub("", word))


def fold(word: str) -> str:
    """Lowercase, accents dropped, edge punctuation (but a final '.') removed: for word lists."""
    return text_fold(_bare(word)).replace("ñ", "n").strip("(¿¡,;:!?)")


def is_trigger(word: str) -> bool:
    return bool(REF_TRIGGER.match(fold(word)))


def is_designator(word: str) -> bool:
    w = _bare(word).lstrip("(")
    return bool(REF_DESIGNATOR.match(w)) or fold(w).rstrip(".") in _CONTINUATIONS


class TextSanitizer:
    """Feed model text (without slots); get back the part that is safe to show, in order."""

    def __init__(self) -> None:
        self._partial = ""           # the word being written (no whitespace seen after it yet)
        self._space = False          # whitespace precedes the partial word
        self._words: list[tuple[bool, str]] = []   # complete words not yet judged
        self._in_ref = False         # the last emitted output was an omitted reference
        self._emitted = False

    def feed(self, text: str) -> str:
        for ch in text:
            if ch.isspace():
                if self._partial:
                    self._words.append((self._space, self._partial))
                    self._partial = ""
                self._space = True
            else:
                self._partial += ch
        return self._drain(final=False)

    def flush(self) -> str:
        """A boundary (a citation or the end): the partial word is complete; judge everything."""
        if self._partial:
            self._words.append((self._space, self._partial))
            self._partial = ""
        self._space = False
        return self._drain(final=True)

    def _drain(self, final: bool) -> str:
        out: list[str] = []
        words = self._words
        while words:
            space, word = words[0]
            if is_trigger(word):
                if len(words) < 2 and not final:
                    break  # wait for the next word: it decides whether this is a reference
                if len(words) > 1 and is_designator(words[1][1]):
                    self._omit(out, space, words[1][1])
                    del words[:2]
                    continue
            elif self._in_ref and is_designator(word):
                del words[0]
                continue
            self._in_ref = False
            self._emit(out, space, clean_word(word))
            del words[0]
        return "".join(out)

    def _omit(self, out: list[str], space: bool, designator: str) -> None:
        trailing = designator[len(designator.rstrip(".,;:")):]
        if self._in_ref:
            # "artículo 48, apartado 2": one omission for the whole chain
            if trailing:
                out.append(trailing)
            return
        self._emit(out, space, OMITTED + trailing)
        self._in_ref = True

    def _emit(self, out: list[str], space: bool, word: str) -> None:
        if not word:
            return
        out.append((" " if space and self._emitted else "") + word)
        self._emitted = True
