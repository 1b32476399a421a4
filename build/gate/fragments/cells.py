"""Links to table cells and rows found by position, for when the words alone cannot say which.

A table's cells recur ("90", "RD 2028/86.", a header repeated over four tables of one page), so
the gate's quote check — which finds a quote by its words and refuses one found twice — cannot
link such a row or cell. Here the caller knows which one it means: the table element's non-empty
cells are its last blocks, one for one and text for text (a caption comes first), so a cell's
block is known by its place. A link is kept only when the matcher proves its first match is
exactly that block (or that run of blocks): what Chromium would highlight.

Used by the copy-link row links (build/gate/deeplinks.py) and the worker's table answers
(worker/answer/spanlink.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from citavial.build.gate.fragments.directive import (
    context_after,
    context_before,
    deep_link_at,
    encode_id,
    format_directive,
)
from citavial.build.gate.fragments.match import TextDirective, match_directive, source_text
from citavial.build.gate.fragments.textmodel import PageText
from citavial.build.normalize import normalize

__all__ = ["cell_blocks", "blocks_fragment", "cover_fragment", "row_fragment", "whole_cells"]


def cell_blocks(page: PageText, anchor: str,
                rows: Sequence[Sequence[str]]) -> list[list[int | None]] | None:
    """The page block of every cell of the table element ``anchor`` (None for an empty cell),
    row by row; None when the page does not read as ``rows`` (never guessed at)."""
    extent = page.extent(anchor)
    if extent is None:
        return None
    first, last = page.block_at(extent[0]), page.block_at(extent[1] - 1)
    blocks = [b for b in range(first, last + 1) if page.blocks[b].norm]
    texts = [text for row in rows for text in row if text.strip()]
    if len(blocks) < len(texts):
        return None
    mine = iter(blocks[len(blocks) - len(texts):])
    out: list[list[int | None]] = []
    for row in rows:
        out.append([next(mine) if text.strip() else None for text in row])
        for text, b in zip(row, out[-1], strict=True):
            if b is not None and page.blocks[b].norm != normalize(" ".join(text.split())):
                return None
    return out


def _span(page: PageText, first: int, last: int) -> tuple[int, int]:
    return page.starts[first], page.starts[last] + len(page.blocks[last].norm)


def blocks_fragment(page: PageText, anchor: str, blocks: Sequence[int]) -> str | None:
    """``anchor:~:text=…&text=…``: one directive per block, each proven alone to first match
    exactly that block — Chromium matches every directive on its own, highlights each and
    scrolls to the first. None unless every one is proven (a link that lights up only some of
    the cells meant would mislead)."""
    terms, head = [], anchor
    for b in blocks:
        found = deep_link_at(page, anchor, *_span(page, b, b))
        if found.kind == "fallback":
            return None
        head, _, directive = found.fragment.partition(":~:")
        terms.append(directive)
    return f"{head}:~:{'&'.join(terms)}" if terms else None


def row_fragment(page: PageText, anchor: str, blocks: Sequence[int]) -> str | None:
    """A link to a table row's cells ``blocks`` (consecutive): one ``start,end`` range over the
    whole row when the matcher proves it, else one directive per cell, else the fewest
    whole-cell directives that cover the row (``cover_fragment``); None when none is."""
    if not blocks:
        return None
    found = deep_link_at(page, anchor, *_span(page, blocks[0], blocks[-1]))
    if found.kind != "fallback":
        return found.fragment
    return blocks_fragment(page, anchor, blocks) or cover_fragment(page, anchor, blocks)


# Context words taken from a neighbouring block: a table cell's all, a paragraph's last ones
# (a shorter link); then, if those are not enough, the whole block.
CONTEXT_WORDS = 12
WHOLE = 1 << 20


def whole_cells(page: PageText, blocks: Sequence[int], j: int, k: int,
                words: int = WHOLE) -> TextDirective:
    """The most telling directive for cells ``j..k`` of ``blocks``: the first and the last
    cell whole, the neighbouring blocks (their last or first ``words`` words) as prefix and
    suffix. With the whole neighbours, any other directive whose match is exactly those cells
    (its terms and context cut from the same blocks) also matches wherever this one does:
    when this one's first match is elsewhere, so is theirs."""
    start, end = _span(page, blocks[j], blocks[k])
    whole = [source_text(page, *_span(page, b, b)) for b in (blocks[j], blocks[k])]
    return TextDirective(whole[0], None if j == k else whole[1],
                         context_before(page, start, words), context_after(page, end, words))


def _lands(page: PageText, blocks: Sequence[int], j: int, k: int) -> TextDirective | None:
    for words in (CONTEXT_WORDS, WHOLE):
        directive = whole_cells(page, blocks, j, k, words)
        hit = match_directive(page, directive)
        if hit is not None and hit.targetable and \
                (hit.pos, hit.end_pos) == _span(page, blocks[j], blocks[k]):
            return directive
    return None


def cover_fragment(page: PageText, anchor: str, blocks: Sequence[int]) -> str | None:
    """A row whose cells recur with the same neighbours elsewhere on the page (the lamps of
    one vehicle category after another) can still be singled out piecewise: the fewest
    ``whole_cells`` directives, each proven to light up exactly its run of cells, whose runs
    together are the row (they may overlap). None when no set of them covers the row: then no
    text fragment lands on that row alone."""
    n = len(blocks)
    best: list[tuple[TextDirective, ...] | None] = [()] + [None] * n  # cover of cells [0, c)
    proven: dict[tuple[int, int], TextDirective | None] = {}
    for c in range(n):
        have = best[c]
        if have is None:
            continue
        for j in range(c + 1):
            for k in range(c, n):
                found = best[k + 1]
                if found is not None and len(found) <= len(have) + 1:
                    continue
                if (j, k) not in proven:
                    proven[j, k] = _lands(page, blocks, j, k)
                directive = proven[j, k]
                if directive is not None:
                    best[k + 1] = (*have, directive)
    cover = best[n]
    if not cover:
        return None
    return f"{encode_id(anchor)}:~:" + "&".join(f"text={format_directive(d)}" for d in cover)
