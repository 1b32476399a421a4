"""Span links: a text-fragment link to exactly the words of an answer, proven at answer time.

The same matcher the build's gate uses (build/gate/fragments) reads the served page the way a browser
does; ``deep_link`` proposes directives and keeps only one that selects exactly the span, first
on the page, inside the cited passage's element. When none does (the words recur earlier on the
page), the answer falls back to the passage's allowlisted link. Pages are read from dist/ once.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from citavial.build.errors import BuildError
from citavial.build.gate.fragments.directive import deep_link, deep_link_at
from citavial.build.gate.fragments.textmodel import PageText, read_page
from citavial.build.models import AllowlistEntry
from citavial.build.normalize import normalize

Rows = Sequence[Sequence[tuple[str, bool]]]   # a table passage: [(cell text, is header), …]


class SpanLinker:
    """Proven links to substrings of allowlisted passages (thread-safe page cache)."""

    def __init__(self, dist_dir: Path) -> None:
        self.dist = Path(dist_dir)
        self._pages: dict[str, PageText | None] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SpanLinker({self.dist}, {len(self._pages)} pages read)"

    def _page(self, name: str) -> PageText | None:
        with self._lock:
            if name not in self._pages:
                try:
                    self._pages[name] = read_page((self.dist / name).read_bytes())
                except OSError:
                    self._pages[name] = None
            return self._pages[name]

    def link(self, entry: AllowlistEntry, span: str) -> str | None:
        """``page#anchor:~:text=…`` selecting exactly ``span`` inside ``entry``'s element, or None
        (then the caller shows the entry's own url). ``span`` must be a substring of the entry."""
        if not span.strip() or span not in entry.text:
            return None
        if span.strip() == entry.text.strip():
            return entry.url   # the whole passage: the allowlisted link is that proof
        page = self._page(entry.page)
        if page is None:
            return None
        try:
            found = deep_link(page, entry.anchor, span)
        except BuildError:
            return None
        if found.kind == "fallback":
            return None
        return f"{entry.page}#{found.fragment}"

    def cell_link(self, entry: AllowlistEntry, rows: Rows, row: int, column: int) -> str | None:
        """``page#table:~:text=…`` whose first match is exactly the cell ``rows[row][column]``
        of the table passage ``entry``, or None (unproven: the caller keeps its fallback)."""
        return self.cells_link(entry, rows, [(row, column)])

    def cells_link(self, entry: AllowlistEntry, rows: Rows,
                   at: Sequence[tuple[int, int]]) -> str | None:
        """``page#table:~:text=…&text=…``: one directive per cell ``(row, column)`` of ``at``,
        each proven alone to first match exactly its cell — Chromium matches every directive
        on its own, highlights each and scrolls to the first. None unless every cell is proven
        (a link that lights up some of the cells asked for would mislead)."""
        page = self._page(entry.page)
        if page is None or not at:
            return None
        terms = []
        for row, column in at:
            block = cell_block(page, entry.anchor, rows, row, column)
            if block is None:
                return None
            start = page.starts[block]
            found = deep_link_at(page, entry.anchor, start, start + len(page.blocks[block].norm))
            if found.kind == "fallback":
                return None
            head, _, directive = found.fragment.partition(":~:")
            terms.append(directive)
        return f"{entry.page}#{head}:~:{'&'.join(terms)}"


def cell_block(page: PageText, anchor: str, rows: Rows, row: int, column: int) -> int | None:
    """Index of the page block that renders ``rows[row][column]`` inside the element ``anchor``:
    the table's non-empty cells must be its last blocks one for one, text for text (None
    otherwise: a page that does not read as the table is never guessed at)."""
    extent = page.extent(anchor)
    if extent is None or not 0 <= row < len(rows) or not 0 <= column < len(rows[row]) \
            or not rows[row][column][0].strip():
        return None
    first, last = page.block_at(extent[0]), page.block_at(extent[1] - 1)
    blocks = [b for b in range(first, last + 1) if page.blocks[b].norm]
    cells = [(r, c, text) for r, line in enumerate(rows)
             for c, (text, _) in enumerate(line) if text.strip()]
    # A caption is a block of the table before its first row: the rows are its last blocks.
    if len(blocks) < len(cells):
        return None
    found = None
    for b, (r, c, text) in zip(blocks[len(blocks) - len(cells):], cells, strict=True):
        if page.blocks[b].norm != normalize(" ".join(text.split())):
            return None
        if (r, c) == (row, column):
            found = b
    return found
