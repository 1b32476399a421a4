"""A page's leading chrome, walked once for every page that has the same (issue 27).

The children of ``<body>`` before its ``<main>`` (on the site: the skip link, the site header
with its menu, the breadcrumbs) are the same bytes on most pages: ~15 of a page's ~53 blocks,
walked into blocks on every page (remembering them reads the site's 612 pages ~10 % faster:
docs/architecture.md, session 43). What that walk appends
to the walker — element serials, Blocks, text-node numbers, <details> and <summary> serials —
is a function of those children and of the walker's state when it begins: the element context,
the serials, blocks and text nodes before them, and no inline text pending. So the walk is
remembered by the children's exact serialisation (tags, attributes, text, tails and comments:
everything it reads) with that state, and appended again on a page where both are equal. A page
without a ``<main>``, or with inline text pending before its chrome, is walked as before.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from lxml import etree


class Walked(NamedTuple):
    """What walking the leading children appended (Blocks are frozen: shared between pages)."""

    ids: tuple[str | None, ...]
    blocks: tuple[Any, ...]
    nodes: int
    details: frozenset[int]
    summaries: frozenset[int]


# Bounded: a worker reads pages for as long as it runs; a site has a few headers (one per
# section of its menu), not hundreds.
_MEMO: dict[tuple, Walked] = {}
MEMO_MAX = 64


def lead_of(body: Any) -> list[Any]:
    """The children of ``body`` before its first ``<main>`` ([] when it has none)."""
    lead: list[Any] = []
    for child in body:
        tag = child.tag
        if isinstance(tag, str) and tag.lower() == "main":
            return lead
        lead.append(child)
    return []


def walk_lead(walker: Any, lead: list[Any], ctx: tuple, blocks: frozenset[str]) -> None:
    """Walk ``lead`` (children of the element whose context is ``ctx``) with ``walker``
    (``_Walker.walk_children``: each child and its tail), in groups that each end with an
    element whose tag is in ``blocks`` (the skip link with the header; the breadcrumbs, which
    change from page to page, apart): a group is appended as an earlier walk of the same
    children from the same state appended it, or walked."""
    group: list[Any] = []
    for child in lead:
        group.append(child)
        tag = child.tag
        if isinstance(tag, str) and tag.lower() in blocks:
            _walk_group(walker, group, ctx)
            group = []
    if group:
        _walk_group(walker, group, ctx)


def _walk_group(walker: Any, group: list[Any], ctx: tuple) -> None:
    key = None if walker.run else (
        ctx, len(walker.ids), len(walker.blocks), walker.node,
        b"".join(etree.tostring(child, with_tail=True) for child in group))
    known = None if key is None else _MEMO.get(key)
    if known is not None:
        walker.ids.extend(known.ids)
        walker.blocks.extend(known.blocks)
        walker.node += known.nodes
        walker.details |= known.details
        walker.summaries |= known.summaries
        return
    ids, blocks, node = len(walker.ids), len(walker.blocks), walker.node
    walker.walk_children(group, ctx)
    if key is not None and not walker.run:   # nothing pending: the next group starts afresh
        if len(_MEMO) >= MEMO_MAX:
            _MEMO.clear()
        _MEMO[key] = Walked(tuple(walker.ids[ids:]), tuple(walker.blocks[blocks:]),
                            walker.node - node,
                            frozenset(s for s in walker.details if s >= ids),
                            frozenset(s for s in walker.summaries if s >= ids))
