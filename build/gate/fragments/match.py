"""Find text-fragment terms and directives in a PageText, the way Chromium does.

Terms compare by ``normalize`` (case-, accent- and whitespace-run-insensitive), must start and
end at word boundaries (``wordbreak.is_boundary``) and never straddle two blocks. A directive
``prefix-,start,end,-suffix`` follows the spec's "find a range from a text directive" algorithm,
which Chromium 156 was measured to implement exactly (tests/browser):

- the FIRST match in document order wins; a missing prefix, suffix or end returns no match at
  all (an end term is searched only after the FIRST start match);
- a range ``start,end`` may span blocks; each term sits inside one block;
- ``prefix`` must start at a word boundary but need not end at one, ``suffix`` must end at one
  but need not start at one; the start term need not start at a word boundary after a prefix,
  and need not end at one when a suffix follows and there is no end term;
- context is adjacent modulo whitespace, and the whitespace skip crosses block boundaries and
  skips anything not rendered as text (img, input, hidden elements): ``uno-,dos`` matches
  ``<td>uno</td><td>dos</td>`` and ``uno<br>dos``, but not ``uno, dos``;
- whitespace inside a directive's terms is NOT run-insensitive: each whitespace character of a
  term must meet exactly one in the rendered text (``a%20%20b`` does not match ``a b``, ``a b``
  does not match ``a&nbsp; b``), a tab or newline only meets itself, and NBSP and the other
  spaces meet a space. Leading or trailing whitespace in a term must be on the page too, and a
  start term after a prefix, or a suffix, may not begin with whitespace.

- the whitespace skip does not enter a hidden-until-found region (the body of a closed
  ``<details>``, ``hidden=until-found``) other than the one it starts in, although terms do
  match inside such regions (Chromium reveals them).

``find_all`` is the gate's occurrence counter and stays whitespace-run-insensitive (it finds at
least every occurrence the browser would find).

Positions are offsets into ``PageText.joined``; ``Match`` reports block indexes and offsets into
the blocks' rendered ``text`` as well.
"""

from __future__ import annotations

import bisect
import re
import weakref
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from citavial.build.gate.fragments.textmodel import Block, PageText
from citavial.build.gate.fragments.wordbreak import is_boundary
from citavial.build.normalize import normalize

# Unicode White_Space; a tab or a newline only equals itself, the others equal a space.
_WS = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
      "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_WS_CLASS = {"\t": "t", "\n": "n", "\r": "n", "\v": "v", "\f": "f"}
_WS_CLASSES = str.maketrans({ch: _WS_CLASS.get(ch, "s") for ch in _WS})
_WS_RUN = re.compile(f"[{re.escape(_WS)}]+")

__all__ = ["Match", "TextDirective", "boundary_at", "find_all", "folded", "make_match",
           "match_directive", "match_span", "source_text"]


@dataclass(frozen=True)
class TextDirective:
    """The parsed terms of one ``text=`` directive (decoded, not normalized)."""

    start: str
    end: str | None = None
    prefix: str | None = None
    suffix: str | None = None


@dataclass(frozen=True, repr=False)
class Match:
    """A matched range. ``pos``/``end_pos`` are offsets into ``PageText.joined``."""

    pos: int
    end_pos: int
    start_block: int
    start: int  # offset into blocks[start_block].text
    end_block: int
    end: int  # exclusive offset into blocks[end_block].text
    start_anchor: str | None  # anchor of the block where the match starts
    end_anchor: str | None  # anchor of the block where the match ends
    target: str | None  # id of the closest element with an id around the whole range (:target)
    targetable: bool = True  # False: no observable :target (in a <textarea>; across text nodes
    #                          directly under a <details>, where :target is a UA shadow slot)

    def __repr__(self) -> str:
        where = f"{self.start_block}:{self.start}-{self.end_block}:{self.end}"
        return f"Match({where} #{self.target})"


def boundary_at(page: PageText, pos: int) -> bool:
    """Is ``joined`` offset ``pos`` a word boundary of the block it falls in?"""
    b = page.block_at(pos)
    block = page.blocks[b]
    local = pos - page.starts[b]
    if local <= 0 or local >= len(block.norm):
        return True
    return is_boundary(block.text, block.offsets[local])


class _Term(NamedTuple):
    norm: str  # normalize(raw)
    raw: str | None  # the decoded term, for the whitespace check; None: run-insensitive
    lead: str  # leading whitespace of raw
    trail: str  # trailing whitespace of raw


@lru_cache(maxsize=16384)   # a page's links try the same terms in many directives
def _term(raw: str | None, strict: bool = True) -> _Term | None:
    if raw is None:
        return None
    core = raw.strip(_WS)
    lead, trail = raw[:len(raw) - len(raw.lstrip(_WS))], raw[len(raw.rstrip(_WS)):]
    return _Term(folded(raw), core if strict else None, lead, trail)


# ``normalize``, remembered: a passage's deep link folds its text to find it (directive.locate)
# and again as the exact term it tries first; equal strings, made apart.
folded = lru_cache(maxsize=8192)(normalize)


def _ws_runs(text: str) -> str:
    """The whitespace runs of ``text``, each as classes: t(ab), n(ewline), s(pace-like), joined
    by "|" (runs are never empty, so equal strings mean equal runs; one translate per call)."""
    return "|".join(_WS_RUN.findall(text)).translate(_WS_CLASSES)


_term_runs = lru_cache(maxsize=4096)(_ws_runs)   # a term is checked at each of its occurrences


def _ws_ok(page: PageText, term: _Term, i: int, j: int) -> bool:
    """Does the rendered text at [i, j) have exactly the term's whitespace (Chromium is strict)?"""
    b = page.block_at(i)
    block, base = page.blocks[b], page.starts[b]
    s, e = _text_offset(block, i - base, False), _text_offset(block, j - base, True)
    if _term_runs(term.raw or "") != _ws_runs(block.text[s:e]):
        return False
    if not term.lead and not term.trail:
        return True   # what follows compares "" with "" then
    before = block.text[max(s - len(term.lead), 0):s] if term.lead else ""
    after = block.text[e:e + len(term.trail)] if term.trail else ""
    return _ws_runs(before) == _ws_runs(term.lead) and _ws_runs(after) == _ws_runs(term.trail) \
        and len(before) == len(term.lead) and len(after) == len(term.trail)


def _find(page: PageText, term: _Term, pos: int, start_bounded: bool, end_bounded: bool):
    """First (start, end) of ``term`` in ``joined`` at or after ``pos``, or None."""
    if not term.norm:
        return None
    joined, nterm = page.joined, term.norm
    while True:
        i = joined.find(nterm, pos)
        if i < 0:
            return None
        j = i + len(nterm)
        if (not start_bounded or term.lead or boundary_at(page, i)) and (
                not end_bounded or term.trail or boundary_at(page, j)) and (
                term.raw is None or _ws_ok(page, term, i, j)):
            return i, j
        pos = i + 1


class _Seek:
    """``_find`` of one term with fixed bounds on one page, remembering its answers: validity
    does not depend on where a search starts, so a search from any position between an earlier
    start and the match found from there (or after it, when none was) has that same answer.
    A page's deep links try many directives with the same terms, and a directive re-searches its
    start term after every prefix occurrence: most searches are answered here (see _seek)."""

    __slots__ = ("page", "term", "start_bounded", "end_bounded", "_froms", "_hits")

    def __init__(self, page: PageText, term: _Term, start_bounded: bool, end_bounded: bool):
        # weakly: the page keeps its _Seeks (page.memo), and a strong reference back made
        # every page a cycle that only the cycle collector could free (issue 26: check)
        self.page, self.term = weakref.ref(page), term
        self.start_bounded, self.end_bounded = start_bounded, end_bounded
        self._froms: list[int] = []   # sorted starts of earlier searches
        self._hits: list[tuple[int, int] | None] = []   # what each found

    def __call__(self, pos: int) -> tuple[int, int] | None:
        k = bisect.bisect_right(self._froms, pos) - 1
        if k >= 0:
            hit = self._hits[k]
            if hit is None or pos <= hit[0]:
                return hit
        page = self.page()
        assert page is not None   # a caller holds the page it searches
        hit = _find(page, self.term, pos, self.start_bounded, self.end_bounded)
        self._froms.insert(k + 1, pos)
        self._hits.insert(k + 1, hit)
        return hit


_MEMO_MAX = 20_000   # entries per page: a build uses at most ~1,000 on one page


def _seek(page: PageText, term: _Term, start_bounded: bool, end_bounded: bool) -> _Seek:
    """The page's one _Seek of ``term`` with these bounds (kept in ``page.memo``)."""
    key = ("seek", term, start_bounded, end_bounded)
    found = page.memo.get(key)
    if found is None:
        if len(page.memo) >= _MEMO_MAX:   # a worker keeps its pages for every answer
            page.memo.clear()
        found = page.memo[key] = _Seek(page, term, start_bounded, end_bounded)
    return found


_NOT_SPACE = re.compile("[^ \n]")


def _flat_regions(page: PageText) -> bool:
    """Is no block of ``page`` in a hidden-until-found region (most pages)? Then the whitespace
    skip never skips a block, and the first character after the spaces is where it stops."""
    flat = page.memo.get("flat-regions")
    if flat is None:
        flat = page.memo["flat-regions"] = all(b.region == -1 for b in page.blocks)
    return flat


def _skip_space(page: PageText, pos: int) -> int | None:
    """Advance past whitespace and block boundaries; None at the end of the page.

    Like Chromium, the advance does not enter a hidden-until-found region (the body of a closed
    <details>, ``hidden=until-found``) other than the one it starts in (measured).
    """
    joined, blocks = page.joined, page.blocks
    found = _NOT_SPACE.search(joined, pos)
    if found is None:
        return None
    if _flat_regions(page) or "\n" not in joined[pos:found.start()]:
        return found.start()   # spaces inside one block (a norm holds no "\n"): same region
    region = blocks[page.block_at(pos)].region if blocks else -1
    while pos < len(joined):
        if joined[pos] in " \n":
            pos += 1
            continue
        b = page.block_at(pos)
        if blocks[b].region in (-1, region):
            return pos
        pos = page.starts[b] + len(blocks[b].norm)  # skip the hidden block
    return None


def _text_offset(block: Block, local: int, is_end: bool) -> int:
    if not is_end:
        return block.offsets[local]
    end = block.offsets[min(local, len(block.norm))]
    while end > 0 and block.text[end - 1] in _WS:
        end -= 1
    return end


def source_text(page: PageText, pos: int, end_pos: int) -> str:
    """The rendered text behind ``joined[pos:end_pos]`` (a span inside one block)."""
    b = page.block_at(pos)
    block, base = page.blocks[b], page.starts[b]
    start = _text_offset(block, pos - base, False)
    return block.text[start:_text_offset(block, end_pos - base, True)]


def make_match(page: PageText, pos: int, end_pos: int) -> Match:
    """Describe the range [pos, end_pos) of ``joined`` as a Match."""
    sb, eb = page.block_at(pos), page.block_at(end_pos)
    if end_pos == page.starts[eb] and eb > sb:
        eb -= 1  # an end exactly at a block start belongs to the previous block
    s_block, e_block = page.blocks[sb], page.blocks[eb]
    start = _text_offset(s_block, pos - page.starts[sb], False)
    end = _text_offset(e_block, end_pos - page.starts[eb], True)
    _, s_chain, s_node = s_block.segment_at(start)
    _, e_chain, e_node = e_block.segment_at(max(end - 1, 0))
    common: list[int] = []
    for x, y in zip(s_chain, e_chain, strict=False):
        if x != y:
            break
        common.append(x)
    slotted = s_node != e_node and _in_details_body(page, tuple(common), s_chain, e_chain)
    targetable = s_block.targetable and e_block.targetable and not slotted
    return Match(pos, end_pos, sb, start, eb, end, s_block.anchor, e_block.anchor,
                 page.closest_id(tuple(common)), targetable)


def _in_details_body(page: PageText, common: tuple, s_chain: tuple, e_chain: tuple) -> bool:
    """Is the common ancestor the body slot of a <details>? (:target is then a UA shadow slot.)

    Chromium's :target is the range's common ancestor in the FLAT tree; children of a details
    element other than its summary are slotted into one shadow slot (measured).
    """
    if not common or common[-1] not in page.details:
        return False
    below = {*s_chain[len(common):len(common) + 1], *e_chain[len(common):len(common) + 1]}
    return not page.summaries & below


def find_all(page: PageText, term: str) -> tuple[Match, ...]:
    """Every occurrence of ``term`` as a whole text-fragment term (word-bounded, one block)."""
    parsed = _term(term, strict=False)
    if parsed is None:
        return ()
    nterm = parsed._replace(lead="", trail="")
    out = []
    pos = 0
    while (hit := _find(page, nterm, pos, True, True)) is not None:
        out.append(make_match(page, *hit))
        pos = hit[0] + 1
    return tuple(out)


def match_directive(page: PageText, directive: TextDirective) -> Match | None:
    """The range Chromium selects for ``directive``: the first match in document order."""
    span = match_span(page, directive)
    return None if span is None else make_match(page, *span)


def match_span(page: PageText, d: TextDirective) -> tuple[int, int] | None:
    """``match_directive``'s range as ``joined`` offsets, without describing it: a deep link
    tries directives until one selects its passage, and most that do not select elsewhere."""
    start, end, prefix, suffix = _term(d.start), _term(d.end), _term(d.prefix), _term(d.suffix)
    if start is None:
        return None
    must_end = end is not None or suffix is None
    seek_prefix = None if prefix is None else _seek(page, prefix, True, False)
    seek_start = _seek(page, start, prefix is None, must_end)
    seek_end = None if end is None else _seek(page, end, True, suffix is None)
    seek_suffix = None if suffix is None else _seek(page, suffix, False, True)
    search = 0
    while True:
        if seek_prefix is not None:
            hit = seek_prefix(search)
            if hit is None:
                return None
            search = hit[0] + 1
            at = _skip_space(page, hit[1])
            if at is None:
                return None
            found = seek_start(at)
            if found is None:
                return None
            if found[0] != at or start.lead:
                if found[0] > at and _flat_regions(page):
                    # no valid start lies in [at, found[0]): a later prefix that ends before
                    # the text ahead of it lands there too, and fails alike
                    search = max(search, _last_text(page.joined, found[0]) + 1
                                 - len(seek_prefix.term.norm))
                continue
        else:
            found = seek_start(search)
            if found is None:
                return None
            search = found[0] + 1
        span = _extend(page, found, seek_end, seek_suffix)
        if span != "continue":
            return span


def _last_text(joined: str, pos: int) -> int:
    """The offset of the last character before ``pos`` that is not a space or a block
    boundary (-1: none). On a page without hidden regions, a term that ends at or before it
    skips its spaces to a place before ``pos``: the jumps of ``match_span`` and ``_extend``."""
    q = pos - 1
    while q >= 0 and joined[q] in " \n":
        q -= 1
    return q


def _extend(page: PageText, found: tuple[int, int], seek_end: _Seek | None,
            seek_suffix: _Seek | None):
    """Apply the end term and suffix to a start match: a span, None, or "continue"."""
    begin, stop = found
    end_from = stop
    dead = -1   # an end at or before it fails the suffix as the last one did (see below)
    while True:
        if seek_end is not None:
            hit = seek_end(end_from)
            if hit is None:
                return None
            stop = end_from = hit[1]
            if stop <= dead:
                continue
        if seek_suffix is None:
            return begin, stop
        at = _skip_space(page, stop)
        if at is None:
            return None
        hit = seek_suffix(at)
        if hit is None:
            return None
        if hit[0] == at and not seek_suffix.term.lead:
            return begin, stop
        if seek_end is None:
            return "continue"
        if hit[0] > at and _flat_regions(page):
            # no valid suffix lies in [at, hit[0]): a later end (they only grow) whose spaces
            # skip to a place before it fails alike, without a search
            dead = _last_text(page.joined, hit[0])
