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
from citavial.build.gate.fragments.cells import blocks_fragment, cell_blocks
from citavial.build.gate.fragments.directive import deep_link
from citavial.build.gate.fragments.textmodel import PageText, read_page
from citavial.build.models import AllowlistEntry

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
        each proven alone to first match exactly its cell (fragments.cells), or None."""
        page = self._page(entry.page)
        grid = None if page is None else cell_blocks(page, entry.anchor, _texts(rows))
        if page is None or grid is None or not at:
            return None
        blocks = [grid[r][c] if 0 <= r < len(grid) and 0 <= c < len(grid[r]) else None
                  for r, c in at]
        found = [b for b in blocks if b is not None]
        fragment = blocks_fragment(page, entry.anchor, found) if len(found) == len(at) else None
        return None if fragment is None else f"{entry.page}#{fragment}"


def _texts(rows: Rows) -> list[list[str]]:
    return [[text for text, _ in row] for row in rows]


def cell_block(page: PageText, anchor: str, rows: Rows, row: int, column: int) -> int | None:
    """Index of the page block that renders ``rows[row][column]`` inside the element ``anchor``
    (fragments.cells.cell_blocks: None when the page does not read as the table)."""
    grid = cell_blocks(page, anchor, _texts(rows))
    if grid is None or not 0 <= row < len(grid) or not 0 <= column < len(grid[row]):
        return None
    return grid[row][column]
