"""Inline Markdown of the legalize renderer → plain text, emphasis runs and image placeholders.

The renderer writes only a few inline forms: ``**strong**``, ``*em*``, ``<sub>``/``<sup>`` (kept as
text: "V<sub>xx</sub>" reads "Vxx", as the BOE's HTML does without styles), links ``[label](url)``
(the label is the text) and images ``![name](https://www.boe.es/…)`` (no bytes offline: an Image
placeholder linking to the BOE). Parsing by hand: a Markdown library would also interpret text
the BOE wrote literally (numbered lists, "1." at a paragraph start), which must stay text.
"""

from __future__ import annotations

import re

from citavial.build.ingest.blocks import collapse
from citavial.build.models import Image

IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>https?://[^)\s]+)\)")
LINK = re.compile(r"(?<!!)\[(?P<label>[^\]]*)\]\((?P<url>[^)\s]+)\)")
SUB_SUP = re.compile(r"</?(?:sub|sup)>")
# Emphasis: ** before *, no nesting in these files (no "***" occurs).
_WS = re.compile(r"[ \t\n\r\f]+")   # as collapse(): ASCII whitespace only, U+00A0 kept
_MARKUP = re.compile(r"[*<\[!]")
EMPHASIS = re.compile(r"\*\*(?P<strong>[^*]+?)\*\*|\*(?P<em>[^*\s](?:[^*]*?[^*\s])?)\*")


def images(text: str) -> tuple[Image, ...]:
    return tuple(Image(src=m.group("src"), alt=m.group("alt")) for m in IMAGE.finditer(text))


def links(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((m.group("label"), m.group("url")) for m in LINK.finditer(text))


def runs(markdown: str) -> tuple[tuple[str, str], ...]:
    """(style, text) pairs whose texts concatenate to :func:`plain` of ``markdown``."""
    if not _MARKUP.search(markdown):           # most lines: plain text, one run
        text = collapse(markdown)
        return (("", text),) if text else ()
    source = SUB_SUP.sub("", LINK.sub(lambda m: m.group("label"), IMAGE.sub("", markdown)))
    out: list[tuple[str, str]] = []
    pos = 0
    for m in EMPHASIS.finditer(source):
        if m.start() > pos:
            out.append(("", source[pos:m.start()]))
        out.append(("strong", m.group("strong")) if m.group("strong") is not None
                   else ("em", m.group("em")))
        pos = m.end()
    out.append(("", source[pos:]))
    return _collapsed(out)


def _collapsed(pieces: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Collapse whitespace across run borders exactly as ``collapse`` does on the joined text."""
    target = collapse("".join(t for _, t in pieces))
    result: list[tuple[str, str]] = []
    pos = 0
    for style, text in pieces:
        piece = _WS.sub(" ", text)
        if pos == 0:
            piece = piece.lstrip(" ")
        if result and result[-1][1].endswith(" ") and piece.startswith(" "):
            piece = piece[1:]
        piece = piece[: max(0, len(target) - pos)]
        if not piece:
            continue
        if result and result[-1][0] == style:
            result[-1] = (style, result[-1][1] + piece)
        else:
            result.append((style, piece))
        pos += len(piece)
    return tuple(result)


def plain(markdown: str) -> str:
    """The text a reader sees: emphasis markers, tags and link syntax removed, spaces collapsed."""
    return "".join(t for _, t in runs(markdown))
