"""Text directives: percent-encoding, parsing, and the deep link for a passage.

Syntax (URL Fragment Text Directives): ``#id:~:text=[prefix-,]start[,end][,-suffix]``. Terms are
UTF-8 percent-encoded; only ``[A-Za-z0-9]`` and ``! $ ' ( ) * + . / : ; = ? @ _ ~`` stay raw, so
``-``, ``,``, ``&``, ``%``, spaces and every non-ASCII byte are always encoded. Parsing is strict
as in Chromium 156 (measured): a raw ``-`` inside a term, an empty term, more than two non-context
terms, a malformed ``%`` escape or invalid UTF-8 make the directive invalid; ``+`` is a literal
plus, not a space.

``directive_for`` builds the link for one passage and proves it with ``match.py``: the FIRST match
of the directive it returns is exactly the passage. Chromium 156 does NOT fall back to the element
id in front of ``:~:`` when the text does not match (measured: no scroll, no ``:target``), so when
no directive can single the passage out the result is the bare ``#id`` fragment instead.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from itertools import islice
from urllib.parse import quote

from citavial.build.errors import BuildError
from citavial.build.gate.fragments.match import (
    TextDirective,
    boundary_at,
    folded,
    make_match,
    match_span,
    source_text,
)
from citavial.build.gate.fragments.textmodel import PageText

__all__ = [
    "DeepLink", "TextDirective", "context_after", "context_before", "decode_term", "deep_link",
    "deep_link_at", "directive_for", "encode_id", "encode_term",
    "format_directive", "parse_directive", "parse_fragment",
]

log = logging.getLogger(__name__)

_RAW = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!$'()*+./:;=?@_~")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
MAX_EXACT = 300  # longer passages use a start,end range (spec guidance)
_RANGE_WORDS = (3, 4, 5, 6, 8, 10)  # words tried for each end of a range
_CONTEXT_WORDS = (1, 2, 3, 5)  # words tried for prefix / suffix context


# Each byte's form in a term: itself if raw-safe, else %XX (upper-case hex, as quote() writes)
_BYTE_FORMS = tuple(chr(b) if b in _RAW else f"%{b:02X}" for b in range(256))


def encode_term(text: str) -> str:
    """Percent-encode one term: UTF-8, every byte outside the spec's raw-safe ASCII
    (``_RAW``) as %XX in upper-case hex, as urllib's ``quote`` with "-" escaped too writes
    (tests/test_fragments_directive.py); a table, not a Python call per byte."""
    return "".join(map(_BYTE_FORMS.__getitem__, text.encode("utf-8")))


def decode_term(raw: str) -> str:
    """Decode one raw term; ValueError if empty, with a raw ``-``, a bad escape or bad UTF-8."""
    if not raw or "-" in raw:
        raise ValueError(f"invalid text directive term {raw!r}")
    if "%" in _ESCAPE.sub("", raw):
        raise ValueError(f"malformed percent escape in {raw!r}")
    data = _ESCAPE.sub(lambda m: f"\x00{m.group(1)}", raw)
    out = bytearray()
    i = 0
    while i < len(data):
        if data[i] == "\x00":
            out.append(int(data[i + 1:i + 3], 16))
            i += 3
        else:
            out += data[i].encode("utf-8")
            i += 1
    return out.decode("utf-8")  # UnicodeDecodeError is a ValueError


def parse_directive(value: str) -> TextDirective | None:
    """Parse the value of ``text=``; None if the browser would ignore it."""
    tokens = value.split(",")
    if not 1 <= len(tokens) <= 4:
        return None
    try:
        prefix = decode_term(tokens.pop(0)[:-1]) if tokens[0].endswith("-") else None
        suffix = decode_term(tokens.pop()[1:]) if tokens and tokens[-1].startswith("-") else None
        if len(tokens) not in (1, 2):
            return None
        start = decode_term(tokens[0])
        end = decode_term(tokens[1]) if len(tokens) == 2 else None
    except ValueError:
        return None
    return TextDirective(start, end, prefix, suffix)


def format_directive(d: TextDirective) -> str:
    """The ``text=`` value for a directive (without ``text=``)."""
    parts = [] if d.prefix is None else [encode_term(d.prefix) + "-"]
    parts.append(encode_term(d.start))
    if d.end is not None:
        parts.append(encode_term(d.end))
    if d.suffix is not None:
        parts.append("-" + encode_term(d.suffix))
    return ",".join(parts)


def parse_fragment(fragment: str) -> tuple[str, tuple[TextDirective | None, ...]]:
    """Split a URL fragment (with or without ``#``) into (element id, its text directives).

    Invalid directives are kept as None so callers can tell "no directive" from "ignored one".
    """
    fragment = fragment.removeprefix("#")
    element, sep, directives = fragment.partition(":~:")
    element_id = _percent_decode_lenient(element)
    if not sep:
        return element_id, ()
    items = directives.split("&")
    found = [parse_directive(item[5:]) for item in items if item.startswith("text=")]
    return element_id, tuple(found)


def _percent_decode_lenient(s: str) -> str:
    try:
        return decode_term(s.replace("-", "%2D")) if s else ""
    except ValueError:
        return s


def encode_id(element_id: str) -> str:
    """The element id as it stands in front of ``:~:``."""
    # ":" is escaped so that an id can never form the ":~:" delimiter.
    return quote(element_id, safe="-._!$'()*+,;=@/?")


@dataclass(frozen=True)
class DeepLink:
    """The fragment for a passage and how it was obtained."""

    fragment: str  # "id:~:text=..." or, for "fallback", just "id" (no leading '#')
    kind: str  # "exact" | "range" | "fallback"
    context: bool = False  # prefix/suffix were needed

    def __repr__(self) -> str:
        frag = self.fragment if len(self.fragment) <= 60 else self.fragment[:57] + "..."
        return f"DeepLink({self.kind}{'+context' if self.context else ''}, {frag!r})"


def directive_for(page: PageText, anchor_id: str, text: str) -> str:
    """``{anchor_id}:~:text=...`` selecting exactly ``text`` inside the element ``anchor_id``.

    Returns the bare (encoded) ``anchor_id`` when no directive selects it first; that case is
    logged and can be counted as ``":~:" not in result`` (or use ``deep_link().kind``).
    """
    return deep_link(page, anchor_id, text).fragment


def deep_link(page: PageText, anchor_id: str, text: str) -> DeepLink:
    """Like ``directive_for`` but says whether the link is exact, a range, or the fallback.

    Raises BuildError if the element has no searchable text or ``text`` is not inside it.
    """
    return deep_link_at(page, anchor_id, *locate(page, anchor_id, text))


def deep_link_at(page: PageText, anchor_id: str, start: int, end: int) -> DeepLink:
    """The link whose FIRST match is exactly ``joined[start:end]`` (the caller knows which
    occurrence it means, e.g. one table cell among equal ones), or the ``#id`` fallback.
    Remembered per page: a table row the gate could not link is tried again by its place
    (cells.row_fragment), over the same span, and a failed span tries every candidate."""
    key = ("deep_link", anchor_id, start, end)
    known = page.memo.get(key)
    if known is None:
        known = page.memo[key] = _deep_link_at(page, anchor_id, start, end)
    return known


def _deep_link_at(page: PageText, anchor_id: str, start: int, end: int) -> DeepLink:
    span = (start, end)
    for directive, kind in _candidates(page, *span):
        if match_span(page, directive) == span and make_match(page, *span).targetable:
            fragment = f"{encode_id(anchor_id)}:~:text={format_directive(directive)}"
            context = directive.prefix is not None or directive.suffix is not None
            return DeepLink(fragment, kind, context)
    log.info("no text directive selects the passage in #%s first; linking the id only",
                anchor_id)
    return DeepLink(encode_id(anchor_id), "fallback")


# ---------------------------------------------------------------------------------------------
# Locating the passage and proposing directives. Positions are offsets into PageText.joined.

def locate(page: PageText, anchor_id: str, text: str) -> tuple[int, int]:
    """[start, end) of ``text`` inside the element ``anchor_id``, widened to whole words."""
    extent = page.extent(anchor_id)
    if extent is None:
        raise BuildError(f"#{anchor_id}", "has no searchable text on the rendered page",
                         "link to an element that exists and contains visible text")
    needle = folded(text)
    lo, hi = extent
    hay = page.joined[lo:hi].replace("\n", " ")
    first = hay.find(needle) if needle else -1
    if first < 0:
        raise BuildError(f"#{anchor_id}", f"does not contain the passage {text[:80]!r}",
                         "quote the text exactly as the page renders it")
    i = first
    while i >= 0 and not (boundary_at(page, lo + i) and boundary_at(page, lo + i + len(needle))):
        i = hay.find(needle, i + 1)
    start, end = (lo + first, lo + first + len(needle)) if i < 0 else (lo + i, lo + i + len(needle))
    joined = page.joined
    while start > lo and joined[start - 1] not in " \n" and not boundary_at(page, start):
        start -= 1
    while end < hi and joined[end] not in " \n" and not boundary_at(page, end):
        end += 1
    return start, end


_WORD = re.compile("[^ \n]+")


def _words(joined: str, start: int, end: int) -> list[tuple[int, int]]:
    """Whitespace-delimited words of ``joined[start:end]`` as (start, end) pairs."""
    return [m.span() for m in _WORD.finditer(joined, start, end)]


def _head(joined: str, start: int, end: int, k: int) -> tuple[int, int] | None:
    """The first ``k`` words from ``start``, cut at the first block boundary."""
    stop = joined.find("\n", start, end)
    words = [m.span() for m in islice(_WORD.finditer(joined, start, end if stop < 0 else stop), k)]
    return (start, words[-1][1]) if words else None


def _tail(joined: str, start: int, end: int, k: int) -> tuple[int, int] | None:
    """The last ``k`` words ending at ``end``, cut at the last block boundary."""
    stop = joined.rfind("\n", start, end)
    lo, width = (start if stop < 0 else stop + 1), 64
    while True:  # a window back from ``end``: with more than k words, the last k are whole
        a = max(lo, end - width)
        words = _words(joined, a, end)
        if a == lo or len(words) > k:
            break
        width *= 4
    return (words[-min(k, len(words))][0], end) if words else None


def context_before(page: PageText, pos: int, k: int) -> str | None:
    """A prefix for a match at ``pos``: the last ``k`` words of the block before it."""
    joined = page.joined
    i = pos
    while i > 0 and joined[i - 1] in " \n":
        i -= 1
    b = page.block_at(max(i - 1, 0))
    span = _tail(joined, page.starts[b], i, k) if i > 0 else None
    return None if span is None else source_text(page, *span)


def context_after(page: PageText, pos: int, k: int) -> str | None:
    """A suffix for a match ending at ``pos``: the first ``k`` words of the block after it."""
    joined = page.joined
    i = pos
    while i < len(joined) and joined[i] in " \n":
        i += 1
    if i >= len(joined):
        return None
    b = page.block_at(i)
    span = _head(joined, i, page.starts[b] + len(page.blocks[b].norm), k)
    return None if span is None else source_text(page, *span)


def _bases(page: PageText, start: int, end: int):
    """Context-free directives for the passage, preferred first."""
    joined = page.joined
    if "\n" not in joined[start:end]:
        exact = source_text(page, start, end)
        if len(exact) <= MAX_EXACT:
            yield TextDirective(exact), "exact"
            return
    seen = set()
    for k in _RANGE_WORDS:
        head, tail = _head(joined, start, end, k), _tail(joined, start, end, k)
        if head is None or tail is None or head[1] >= tail[0] or (head, tail) in seen:
            continue
        seen.add((head, tail))
        yield TextDirective(source_text(page, *head), source_text(page, *tail)), "range"


def _candidates(page: PageText, start: int, end: int):
    """Directives to try, in order of preference: no context first, then growing context."""
    bases: list[tuple[TextDirective, str]] = []
    for base in _bases(page, start, end):   # lazily: the first one most often selects it
        bases.append(base)
        yield base
    for k in _CONTEXT_WORDS:
        prefix, suffix = context_before(page, start, k), context_after(page, end, k)
        for base, kind in bases[:3]:
            if suffix is not None:
                yield TextDirective(base.start, base.end, None, suffix), kind
            if prefix is not None:
                yield TextDirective(base.start, base.end, prefix, None), kind
            if prefix is not None and suffix is not None:
                yield TextDirective(base.start, base.end, prefix, suffix), kind
