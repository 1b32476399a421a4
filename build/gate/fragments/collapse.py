"""How CSS collapses the white space of a run of inline text (``white-space: normal``,
``pre-line``, ``pre``), for the text model (textmodel.py), computed per text node with string
operations instead of per character — the citation gate reads every page through it.

Rules (measured in Chromium, see textmodel.py): leading and trailing whitespace and <br>s of a
block render nothing; between two texts a whitespace run renders its forced line breaks if it
has any (spaces before or after a line break are not rendered), or else one space.
"""

from __future__ import annotations

import re

Chain = tuple[int, ...]  # serials (indexes into PageText.ids) of ancestors with an id (+ details)
Segment = tuple[int, Chain, int]  # (text offset where a text node's run starts, chain, node no.)
Chunk = tuple[str, str, Chain, int, int]  # (text, view, chain, node, region): see below

# A run is a list of chunks, one per text node (or <br>): (text, view, chain, node, region). In
# ``view`` a " " is a collapsible space, a "\n" a forced line break and anything else text (in
# pre, where spaces are text, they are replaced in the view). Working per chunk with string
# operations instead of per character is what makes the gate fast.
_NON_TEXT = re.compile("[ \n]+")


def kept_spans(view: str) -> list[tuple[int, int]]:
    """[a, b) spans of the run that render, in order, as CSS collapses white space: leading and
    trailing whitespace and <br>s go; between two texts a whitespace run keeps its forced newlines
    (spaces before or after a line break are not rendered), or else its first space."""
    if "\n" not in view and "  " not in view:
        # single spaces only (the common case): only a leading and a trailing one go; the
        # spaces between words stay inside one span (adjacent spans render alike)
        a = 1 if view[:1] == " " else 0
        b = len(view) - (1 if view[-1:] == " " and len(view) > a else 0)
        return [(a, b)] if b > a else []
    spans: list[tuple[int, int]] = []
    pos, n = 0, len(view)
    for m in _NON_TEXT.finditer(view):
        a, b = m.span()
        if a > pos:
            spans.append((pos, a))
        pos = b
        if a == 0 or b == n:
            continue
        run = m.group()
        if "\n" in run:
            spans.extend((a + i, a + i + 1) for i, k in enumerate(run) if k == "\n")
        else:
            spans.append((a, a + 1))
    if pos < n:
        spans.append((pos, n))
    return spans


def segments_of(chunks: list[Chunk], spans: list[tuple[int, int]]) -> tuple[list[Segment], int]:
    """One segment per chunk with rendered text: (its first offset in the block's text, chain,
    node); and the region of the block's first character."""
    segments: list[Segment] = []
    region = -1
    out_starts, total = [], 0
    for a, b in spans:
        out_starts.append(total)
        total += b - a
    si, g0 = 0, 0
    for text, _view, chain, node, chunk_region in chunks:
        g1 = g0 + len(text)
        while si < len(spans) and spans[si][1] <= g0:
            si += 1
        if si < len(spans) and spans[si][0] < g1:
            if not segments:
                region = chunk_region
            segments.append((out_starts[si] + max(spans[si][0], g0) - spans[si][0], chain, node))
        g0 = g1
    return segments, region
