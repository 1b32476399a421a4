"""The searchable text of a built page, segmented the way Chromium's text-fragment finder sees it.

``read_page(html)`` parses HTML with lxml's HTML parser and returns a ``PageText``: the visible text as a
sequence of BLOCKS in document order. A text-fragment term matches inside one block only; inline
elements (a, em, strong, span, abbr, code, mark, sup, sub, q, ruby/rt, …) concatenate without
adding anything. Rules, each measured in Chromium 156 (tests/browser):

- Blocks: every element whose default display is not inline (p, div, li, td, th, tr, table,
  caption, h1-h6, section, header, footer, nav, figure, figcaption, blockquote, dl/dt/dd,
  details, summary, legend, fieldset, button, math, …) and every element whose inline
  ``style`` sets a non-inline display (block, inline-block, flex, grid, table-*, list-item…).
  Text directly inside a block around a nested block is its own block ("anonymous" text).
- ``<br>`` does NOT end a block: it is a "\\n" inside it (spaces around it are not rendered).
  A term matches across it only if the term itself has that newline (``uno%0Ados`` matches
  ``uno<br>dos``, ``uno%20dos`` does not), while context (prefix/suffix) skips it as
  whitespace. Newlines in ``<pre>`` (and ``white-space: pre``/``pre-line``) are the same.
- ``<input>`` and ``<hr>`` break blocks and contribute no text. ``<img>`` (alt text is NOT
  searchable), ``<select>``, ``<meter>``, ``<progress>``, ``<iframe>``, ``<video>``,
  ``<canvas>``, ``<object>`` contribute nothing and do NOT break (``uno <img> dos`` matches
  "uno dos"). ``<wbr>`` is nothing at all (``circu<wbr>lación`` is one word).
- Not searchable: head/title, script, style, template, noscript, the ``hidden`` attribute,
  inline ``display:none``, ``visibility:hidden`` (a descendant with ``visibility:visible`` is
  searchable), ``<dialog>`` without ``open``, ``<rp>``, CSS generated content (::before,
  list markers, ``<q>`` quotation marks).
- Searchable although not shown: the contents of a closed ``<details>`` and of
  ``hidden="until-found"`` (Chromium reveals them; blocks there record their ``region``,
  because a prefix/suffix whitespace skip does not enter such a region from outside it),
  ``aria-hidden`` and off-screen text, SVG ``<text>``.
- ``<textarea>`` content is searched but a match there targets nothing; its block has no anchor.
- Whitespace: runs of space/tab/newline collapse to one space and blocks are trimmed, as CSS
  ``white-space: normal`` renders them; NBSP and other spaces are kept as characters.

Stylesheets are not evaluated: only the ``hidden`` attribute and inline ``style`` can hide or
re-display an element. The parser is libxml2's HTML parser, not an HTML5 one: it keeps invalid
markup that a browser repairs differently (a ``<td>`` outside a table survives here but is
dropped by Chromium), so pages must be valid HTML; HTML5 void elements it does not know
(``<wbr>``, ``<source>``…) are handled. Each Block records its text, its normalized text with the offset map,
the id of its nearest ancestor-or-self element with an id (``anchor``), and per text run the chain
of ancestor elements with ids, from which a match's ``:target`` element is derived.

``:target`` (measured): Chromium sets it to the lowest common ancestor of the matched range in
the FLAT tree. Children of ``<details>`` are slotted into its UA shadow tree, so when a range
spans two text nodes whose common ancestor is a ``<details>`` (``<details>…<em>x uno</em> dos``)
the target is a shadow slot and ``document.querySelector(':target')`` is null (a range from
the ``<summary>`` into the body targets the details element itself). To model this,
chains also hold ``<details>`` elements and their element children (with a None id), and each
run records its text node.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import cached_property
from itertools import islice
from typing import NamedTuple

from lxml import etree

from citavial.build.gate.fragments import leading
from citavial.build.gate.fragments.collapse import Chain, Chunk, Segment, kept_spans, segments_of
from citavial.build.normalize import normalize_with_map

__all__ = ["Block", "PageText", "read_page"]


@dataclass(frozen=True, repr=False)
class Block:
    """One block of rendered text: terms never straddle two blocks."""

    index: int
    text: str  # rendered text: whitespace collapsed, trimmed; <br> / pre newlines are "\n"
    norm: str  # normalize(text)
    offsets: tuple[int, ...]  # normalize_with_map(text)[1]: norm offset -> text offset
    anchor: str | None  # id of the nearest ancestor-or-self of the block element with an id
    segments: tuple[Segment, ...]  # one per text node run, in order
    targetable: bool = True  # False for <textarea>: searched, but a match there targets nothing
    region: int = -1  # serial of the closed <details> / hidden=until-found holding it, or -1

    def __repr__(self) -> str:
        text = self.text if len(self.text) <= 40 else self.text[:37] + "..."
        return f"Block({self.index}, #{self.anchor}, {text!r})"

    def segment_at(self, offset: int) -> Segment:
        """The text-node run holding the character at ``offset`` of ``text``."""
        i = bisect.bisect_right(self.segments, offset, key=lambda s: s[0]) - 1
        return self.segments[max(i, 0)] if self.segments else (0, (), -1)

    def chain_at(self, offset: int) -> Chain:
        """Chain of the element holding the character at ``offset`` of ``text``."""
        return self.segment_at(offset)[1]


@dataclass(frozen=True, repr=False)
class PageText:
    """The searchable text of one page: blocks in document order."""

    blocks: tuple[Block, ...]
    ids: tuple[str | None, ...]  # per serial: element id (None: details/until-found w/o id)
    joined: str  # the blocks' norms joined with "\n" (never inside a norm)
    starts: tuple[int, ...]  # offset of each block's norm in ``joined``
    details: frozenset[int] = frozenset()  # serials of <details> elements
    summaries: frozenset[int] = frozenset()  # serials of the <summary> slotted in each details

    def closest_id(self, chain: Chain) -> str | None:
        """Id of the innermost element of ``chain`` that has one."""
        return next((self.ids[s] for s in reversed(chain) if self.ids[s] is not None), None)

    def __repr__(self) -> str:
        return f"PageText({len(self.blocks)} blocks, {len(self.joined)} chars)"

    def block_at(self, pos: int) -> int:
        """Index of the block whose norm contains (or ends at) ``joined`` offset ``pos``."""
        return max(bisect.bisect_right(self.starts, pos) - 1, 0)

    @cached_property
    def _blocks_holding(self) -> dict[int, list[int]]:
        """Per serial, the indexes of the blocks with text inside that element (in order)."""
        out: dict[int, list[int]] = {}
        for block in self.blocks:
            for serial in {s for _start, chain, _node in block.segments for s in chain}:
                out.setdefault(serial, []).append(block.index)
        return out

    def serial(self, element_id: str) -> int | None:
        """Serial of the first element with that id (the one a browser would pick)."""
        if not element_id:
            return None
        try:
            return self.ids.index(element_id)
        except ValueError:
            return None

    def extent(self, element_id: str) -> tuple[int, int] | None:
        """``joined`` offsets [start, end) spanned by the text inside the element with that id."""
        key = ("extent", element_id)   # a table's extent is asked once per row
        if key in self.memo:
            return self.memo[key]
        serial = self.serial(element_id)
        if serial is None:
            return None
        lo: int | None = None
        hi = 0
        for b in self._blocks_holding.get(serial, ()):
            block = self.blocks[b]
            bounds = _block_extent(block, serial)
            if bounds is None:
                continue
            base = self.starts[block.index]
            lo = base + bounds[0] if lo is None else lo
            hi = base + bounds[1]
        self.memo[key] = None if lo is None else (lo, hi)
        return self.memo[key]

    @cached_property
    def memo(self) -> dict:   # answers of pure functions of the page (extent, match._Seek)
        return {}


def _block_extent(block: Block, serial: int) -> tuple[int, int] | None:
    lo: int | None = None
    hi = 0
    segs = block.segments
    for k, (start, chain, _node) in enumerate(segs):
        if serial not in chain:
            continue
        end = segs[k + 1][0] if k + 1 < len(segs) else len(block.text)
        a = bisect.bisect_left(block.offsets, start, 0, len(block.offsets) - 1)
        b = bisect.bisect_left(block.offsets, end, 0, len(block.offsets) - 1)
        lo = a if lo is None else lo
        hi = b
    return None if lo is None or hi <= lo else (lo, hi)


# ---------------------------------------------------------------------------------------------
# The walk over the DOM.

_SKIP = frozenset(
    "head title script style template noscript noembed noframes iframe img image video audio "
    "canvas object embed picture select datalist meter progress rp map area source track param "
    "base link meta frame frameset".split()
)
# HTML5 void elements unknown to libxml2's HTML parser: it nests the content that follows them
# inside them (``a<wbr>b`` parses as ``a<wbr>b</wbr>``), so their "children" are really siblings.
_MISPARSED_VOID = frozenset("wbr source track embed keygen".split())
_BLOCK = frozenset(
    "html body address article aside blockquote button caption center col colgroup dd details "
    "dialog dir div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup "
    "legend li listing main math menu nav ol optgroup option p plaintext pre search section "
    "summary table tbody td tfoot th thead tr ul xmp".split()
)
_PRE = frozenset("pre listing xmp plaintext".split())
_NEW_CTX = _PRE | {"details"}  # tags whose element context differs from their parent's
_SKIP_K, _BREAK_K, _LINE_K, _BLOCK_K, _INLINE_K, _TEXTAREA_K, _SVG_K = range(7)


class _Ctx(NamedTuple):
    chain: Chain  # id chain of the current element
    block_chain: Chain  # id chain of the element whose block collects the current text
    ws: str  # "normal" | "pre" | "pre-line"
    visible: bool
    in_details: bool = False  # the current element is a <details>: its children are slotted
    region: int = -1  # serial of the enclosing hidden-until-found region (closed details body)


_NO_STYLE: dict[str, str] = {}   # shared, never written: most elements have no style


def _style(el) -> dict[str, str]:
    attr = el.get("style")
    if not attr:
        return _NO_STYLE
    out = {}
    for decl in attr.split(";"):
        name, sep, value = decl.partition(":")
        if sep:
            out[name.strip().lower()] = value.replace("!important", "").strip().lower()
    return out


def _kind(el, tag: str, style: dict[str, str], hidden: str | None) -> int:
    """``hidden``: the element's ``hidden`` attribute (read once by the caller)."""
    if tag in _SKIP or (hidden is not None and hidden.strip().lower() != "until-found"):
        return _SKIP_K
    if tag == "dialog" and el.get("open") is None:
        return _SKIP_K
    if tag == "input" and (el.get("type") or "").lower() == "hidden":
        return _SKIP_K
    display = style.get("display", "")
    if display == "none":
        return _SKIP_K
    if tag == "br":
        return _LINE_K
    if tag in ("input", "hr"):
        return _BREAK_K
    if tag == "textarea":
        return _TEXTAREA_K
    if tag == "svg":
        return _SVG_K
    if display in ("inline", "contents"):
        return _INLINE_K
    if display or tag in _BLOCK:
        return _BLOCK_K
    return _INLINE_K


def _ws_mode(tag: str, style: dict[str, str], inherited: str) -> str:
    value = style.get("white-space", "")
    if value in ("pre", "pre-wrap", "break-spaces") or tag in _PRE:
        return "pre"
    if value == "pre-line":
        return "pre-line"
    if value in ("normal", "nowrap"):
        return "normal"
    return inherited


def _first_summary(details):
    return next((c for c in details if isinstance(c.tag, str) and c.tag.lower() == "summary"), None)


class _Walker:
    def __init__(self) -> None:
        self.ids: list[str | None] = []
        self.details: set[int] = set()
        self.summaries: set[int] = set()
        self.blocks: list[Block] = []
        self.run: list[Chunk] = []  # see fragments/collapse.py
        self.node = 0
        self.anchors: dict[Chain, str | None] = {}   # flush's anchor of each block chain

    def child_ctx(self, el, tag: str, style: dict[str, str], ctx: _Ctx,
                  hidden: str | None) -> _Ctx:
        el_id = el.get("id") or None
        if not (style or ctx.in_details or tag in _NEW_CTX or el_id or hidden is not None):
            return ctx  # a plain element changes nothing (most of a page; speed)
        chain = ctx.chain
        until_found = (hidden or "").strip().lower() == "until-found"
        region = ctx.region
        if el_id or tag == "details" or ctx.in_details or until_found:
            region = len(self.ids) if until_found else region
            if tag == "details":
                self.details.add(len(self.ids))
            elif tag == "summary" and ctx.in_details and el is _first_summary(el.getparent()):
                self.summaries.add(len(self.ids))
            chain = chain + (len(self.ids),)
            self.ids.append(el_id)
        visibility = style.get("visibility", "")
        visible = ctx.visible if visibility not in ("hidden", "collapse", "visible") else (
            visibility == "visible")
        return _Ctx(chain, ctx.block_chain, _ws_mode(tag, style, ctx.ws), visible,
                    tag == "details", region)

    def walk(self, el, ctx: _Ctx) -> None:
        tag = el.tag   # lxml makes a new string at each read of .tag, .text or .tail
        if not isinstance(tag, str):
            return  # comment or processing instruction (its tail is handled by the parent)
        tag = tag.lower()
        if tag in _MISPARSED_VOID:
            self.walk_content(el, ctx)
            return
        style, hidden = _style(el), el.get("hidden")
        kind = _kind(el, tag, style, hidden)
        if kind == _SKIP_K:
            return
        inner = self.child_ctx(el, tag, style, ctx, hidden)
        if kind == _LINE_K:
            self.node += 1
            self.run.append(("\n", "\n", ctx.chain, self.node, ctx.region))
        elif kind == _BREAK_K:
            self.flush(ctx.block_chain)
        elif kind == _TEXTAREA_K:
            self.flush(ctx.block_chain)
            self.text(_STRING(el), inner._replace(chain=(), block_chain=()))
            self.flush((), targetable=False)
        elif kind == _SVG_K:
            self.flush(ctx.block_chain)
            self.walk_svg(el, inner)
        elif kind == _BLOCK_K:
            self.flush(ctx.block_chain)
            block = _Ctx(inner.chain, inner.chain, inner.ws, inner.visible, inner.in_details,
                         inner.region)   # _replace is slow
            if tag == "body":
                self.walk_body(el, block)
            else:
                self.walk_content(el, block)
            self.flush(inner.chain)
        else:
            self.walk_content(el, inner)

    def walk_content(self, el, ctx: _Ctx) -> None:
        """Text and children of ``el``; a closed <details> hides all but its first <summary>."""
        body = ctx
        if ctx.in_details and el.get("open") is None:
            body = ctx._replace(region=ctx.chain[-1])
        summary = _first_summary(el) if ctx.in_details else None
        text = el.text
        if text:
            self.text(text, body)
        for child in el:
            self.walk(child, ctx if child is summary else body)
            tail = child.tail
            if tail:
                self.text(tail, body)

    def walk_body(self, el, ctx: _Ctx) -> None:
        """``walk_content`` of <body> (never a <details>): its children before <main>, the
        site's chrome, through leading.walk_lead (remembered from page to page)."""
        text = el.text
        if text:
            self.text(text, ctx)
        lead = leading.lead_of(el)
        leading.walk_lead(self, lead, ctx, _BLOCK)
        self.walk_children(islice(el, len(lead), None), ctx)

    def walk_children(self, children, ctx: _Ctx) -> None:
        """Each of ``children`` and its tail (outside a <details>: see walk_content)."""
        for child in children:
            self.walk(child, ctx)
            tail = child.tail
            if tail:
                self.text(tail, ctx)

    def walk_svg(self, el, ctx: _Ctx) -> None:
        """SVG renders text only inside <text>; each <text> is a block. foreignObject is HTML."""
        for child in el:
            if not isinstance(child.tag, str):
                continue
            tag = child.tag.lower()
            style, hidden = _style(child), child.get("hidden")
            if _kind(child, tag, style, hidden) == _SKIP_K or tag in ("title", "desc", "defs"):
                continue
            inner = self.child_ctx(child, tag, style, ctx, hidden)
            if tag == "text":
                self.walk_content(child, inner._replace(block_chain=inner.chain))
                self.flush(inner.chain)
            elif tag == "foreignobject":
                self.walk_content(child, inner._replace(block_chain=inner.chain))
                self.flush(inner.chain)
            else:
                self.walk_svg(child, inner)

    def text(self, s: str, ctx: _Ctx) -> None:
        if not ctx.visible:
            return
        self.node += 1
        s = s.replace("\r", "")
        if not s:
            return
        ws = ctx.ws
        if ws == "normal":
            s = view = s.replace("\t", " ").replace("\n", " ")
        elif ws == "pre-line":
            s = view = s.replace("\t", " ")
        else:  # pre: spaces and tabs are text
            view = s.replace(" ", "t").replace("\t", "t")
        if not self.run and not view.strip(" \n"):
            return   # a block's leading white space renders nothing (collapse.kept_spans);
            #          most of a page's text nodes are such, between its block elements
        self.run.append((s, view, ctx.chain, self.node, ctx.region))

    def flush(self, block_chain: Chain, targetable: bool = True) -> None:
        """Close the current run of inline text as a Block (if it has any text)."""
        chunks, self.run = self.run, []
        if not chunks:
            return
        if len(chunks) == 1:
            whole, view = chunks[0][0], chunks[0][1]
        else:
            whole, view = "".join([c[0] for c in chunks]), "".join([c[1] for c in chunks])
        key = (whole, view)
        known = _RENDERED.get(key)
        if known is None:
            if len(_RENDERED) >= _RENDERED_MAX:
                _RENDERED.clear()
            known = _RENDERED[key] = _rendered(whole, view)
        spans, text, norm, offsets = known
        if not norm:
            return   # only white space between blocks (most runs of a page): renders nothing
        segments, region = segments_of(chunks, spans)
        if block_chain in self.anchors:   # ids only grow: a chain's anchor never changes
            anchor = self.anchors[block_chain]
        else:
            anchor = self.anchors[block_chain] = next(
                (self.ids[s] for s in reversed(block_chain) if self.ids[s]), None)
        self.blocks.append(Block(len(self.blocks), text, norm, offsets, anchor,
                                 tuple(segments), targetable, region))


# A block's rendered text from its raw text and whitespace view, remembered: most blocks of a
# site are its chrome (the menu, the footer, "Índice"), the same on every page (62 % of the
# blocks of a build repeat one seen before). Bounded: a worker reads pages for as long as it runs.
_RENDERED: dict[tuple[str, str], tuple[list[tuple[int, int]], str, str, tuple[int, ...]]] = {}
_RENDERED_MAX = 50_000


def _rendered(whole: str, view: str) -> tuple[list[tuple[int, int]], str, str, tuple[int, ...]]:
    """(kept spans, rendered text, its norm, norm -> text offsets); an empty norm when
    nothing renders."""
    spans = kept_spans(view)
    if not spans:
        return spans, "", "", ()
    text = whole if spans == [(0, len(whole))] else "".join([whole[a:b] for a, b in spans])
    norm, offsets = normalize_with_map(text)
    return spans, text, norm, tuple(offsets)


# lxml.html's parser is this one plus a Python lookup of an element class per element (a tenth
# of a page's reading); the walk reads only the plain element API, and text_content() is this.
_PARSER = etree.HTMLParser()
_STRING = etree.XPath("string()")


def read_page(html: str | bytes) -> PageText:
    """Parse built HTML and return its searchable text as blocks (see the module docstring)."""
    if isinstance(html, bytes):
        try:
            html = html.decode("utf-8-sig")
        except UnicodeDecodeError:
            pass  # let lxml sniff the declared encoding
    walker = _Walker()
    if (html.strip() if isinstance(html, str) else html.strip()):
        root = etree.fromstring(html, _PARSER)
        if root is None:   # what lxml.html.document_fromstring raises on
            raise etree.ParserError("Document is empty")
        walker.walk(root, _Ctx((), (), "normal", True))
        walker.flush(())
    blocks = tuple(walker.blocks)
    starts, pos = [], 0
    for block in blocks:
        starts.append(pos)
        pos += len(block.norm) + 1
    joined = "\n".join(block.norm for block in blocks)
    return PageText(blocks, tuple(walker.ids), joined, tuple(starts), frozenset(walker.details),
                    frozenset(walker.summaries))
