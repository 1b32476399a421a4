"""The citation gate: every quote is judged on the RENDERED page, the way a browser searches it.

A quote passes only if, on the page of the ref it cites, it occurs exactly once (case-, accent-
and whitespace-insensitive, word-bounded, inside one block — build/gate/fragments), and that one
occurrence lies inside the cited passage (or, for an article/apartado ref, inside one of its
passages). The gate also computes the deep link of every citable passage: dist/allowlist.json.
It collects every failure, reports them all with file:line, and the build writes nothing.
"""

from __future__ import annotations

import functools
import gc
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import ParamSpec, TypeVar

from citavial.build.errors import BuildError, BuildErrors
from citavial.build.gate.fragments import PageText, deep_link, find_all, read_page
from citavial.build.gate.fragments.match import source_text
from citavial.build.models import IN_FORCE, AllowlistEntry, Block, Citation, Regulation, Unit
from citavial.build.normalize import normalize
from citavial.build.patterns import LITERAL_WHITESPACE
from citavial.build.refs import Ref, RefError, anchor, fragment, human_label

MIN_WORDS = 4
MIN_CHARS = 20
# Literal comparison: exact characters; only whitespace runs (incl. U+00A0, which renders as a
# space) compare as one space. Case, accents, NFD forms, homoglyphs, zero-width and bidi
# characters all make a quote non-literal, even where a browser would still match it.
_LITERAL_WS = LITERAL_WHITESPACE
P = ParamSpec("P")
T = TypeVar("T")
ROW_SEPARATOR = " | "  # a quote of consecutive table cells of one row: "Autopista y autovía | 120"


class Reason(StrEnum):
    """Every reason the gate gives, by its stable code (``citavial check --format json``, GitHub
    annotation titles, the worker's dist gate). A failed QuoteCheck carries one; its message
    (``QuoteCheck.reason``) is for people and is never parsed."""

    REF_UNKNOWN = "ref-unknown"
    REF_RENAMED = "ref-renamed"
    REF_REPEALED = "ref-repealed"
    TOO_SHORT = "too-short"
    ROW_NOT_FOUND = "row-not-found"
    ROW_AMBIGUOUS = "row-ambiguous"
    ROW_SPANS_PASSAGES = "row-spans-passages"
    ROW_NOT_SELECTABLE = "row-not-selectable"
    AMBIGUOUS = "ambiguous"
    OUTSIDE_PASSAGE = "outside-passage"
    NOT_LITERAL = "not-literal"
    STRADDLES_BLOCKS = "straddles-blocks"
    NOT_WORD_BOUNDED = "not-word-bounded"
    NOT_FOUND = "not-found"


@dataclass(frozen=True)
class QuoteCheck:
    """The verdict on one quote: ``code`` is None and ``reason`` empty when it passes (``url`` is
    then its deep link); a failure has both, the code for programs, the reason for people."""

    citation: Citation
    reason: str = ""
    url: str = ""
    code: Reason | None = None

    def __post_init__(self) -> None:
        if bool(self.reason) != (self.code is not None):
            raise ValueError(f"QuoteCheck({self.citation.ref}): a failure needs both a code and "
                             f"a reason, a pass neither (code={self.code!r}, reason={self.reason!r})")

    @property
    def code_str(self) -> str:
        """The code as text, "" when the quote passed."""
        return self.code.value if self.code else ""

    def __repr__(self) -> str:
        return f"QuoteCheck({self.citation.ref}, {'ok' if not self.reason else self.reason})"


class GateError(BuildError):
    """A quote the gate refused, with the Reason code of its verdict."""

    def __init__(self, where: str, problem: str, fix: str, code: Reason) -> None:
        self.code = code
        super().__init__(where, problem, fix)


def gc_paused(fn: Callable[P, T]) -> Callable[P, T]:
    """Run ``fn`` with the cyclic garbage collector off (as it was, after): the gate's text
    models and matches are ~10^6 small acyclic objects that start collections whose every
    traversal finds nothing (~0.15 s of a build's gate); reference counting frees them."""
    @functools.wraps(fn)
    def paused(*args: P.args, **kwargs: P.kwargs) -> T:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()
    return paused


def _fail(cit: Citation, code: Reason, reason: str) -> QuoteCheck:
    return QuoteCheck(cit, reason, "", code)


class Pages:
    """Rendered pages of a staged site, each read once into the browser's text model."""

    def __init__(self, site_dir: Path) -> None:
        self.site_dir = Path(site_dir)
        self._cache: dict[str, PageText] = {}
        self._by_norm: dict[str, dict[str, list[int]]] = {}

    def __getitem__(self, page: str) -> PageText:
        if page not in self._cache:
            self._cache[page] = read_page((self.site_dir / page).read_bytes())
        return self._cache[page]

    def blocks_by_norm(self, page: str) -> dict[str, list[int]]:
        """{block norm: indexes of the blocks with exactly that norm, in order} of ``page``: a
        row quote's first cell, found without a scan of every block for each of ~1,100 rows."""
        if page not in self._by_norm:
            index: dict[str, list[int]] = {}
            for block in self[page].blocks:
                index.setdefault(block.norm, []).append(block.index)
            self._by_norm[page] = index
        return self._by_norm[page]


def unit_of(reg: Regulation, ref: str) -> Unit | None:
    """The unit (page) a ref belongs to: the unit whose ref equals it or is a dotted prefix."""
    try:
        r: Ref | None = Ref.parse(ref)
    except RefError:
        return None   # not a ref: no unit is its dotted prefix
    units = _units_by_ref(reg)
    while r is not None:   # the longest prefix first: the ref itself, then its ancestors
        unit = units.get(r)
        if unit is not None:
            return unit
        r = r.parent
    return None


_UNIT_MAPS: dict[int, tuple[Regulation, dict[Ref, Unit]]] = {}


def _units_by_ref(reg: Regulation) -> dict[Ref, Unit]:
    """Each unit by its parsed ref (the first of equal refs, as a scan in order finds it),
    computed once per Regulation: the gate and the prose check ask ~5,000 times."""
    hit = _UNIT_MAPS.get(id(reg))
    if hit is None or hit[0] is not reg:
        units: dict[Ref, Unit] = {}
        for u in reg.units:
            units.setdefault(Ref.parse(u.ref), u)
        if len(_UNIT_MAPS) >= 4:
            _UNIT_MAPS.clear()
        hit = _UNIT_MAPS[id(reg)] = (reg, units)
    return hit[1]


_SUBTREES: dict[tuple[int, str], tuple[Unit, tuple[Block, ...]]] = {}


def subtree(unit: Unit, ref: str) -> list[Block]:
    """Blocks of ``unit`` that a citation of ``ref`` may quote: the ref and its descendants.
    Kept per unit and ref: each row of a table is checked against the table's ref, and a scan
    of a large annex's blocks per row made the row links quadratic."""
    hit = _SUBTREES.get((id(unit), ref))
    if hit is None or hit[0] is not unit:
        r = Ref.parse(ref)
        if len(_SUBTREES) >= 1024:
            _SUBTREES.clear()
        hit = _SUBTREES[(id(unit), ref)] = (unit, tuple(
            b for b in unit.blocks if b.ref and r.contains(Ref.parse(b.ref))))
    return list(hit[1])


_ANCHORS: dict[tuple[int, str], tuple[Unit, frozenset[str]]] = {}


def _in_force_anchors(unit: Unit, ref: str) -> frozenset[str]:
    """The anchors of the blocks in force that a citation of ``ref`` may land in, kept per
    unit and ref like ``subtree``: built for every quote, they were most of the gate's time
    on a note of many quotes citing a large annex (issue 26)."""
    hit = _ANCHORS.get((id(unit), ref))
    if hit is None or hit[0] is not unit:
        if len(_ANCHORS) >= 1024:
            _ANCHORS.clear()
        hit = _ANCHORS[(id(unit), ref)] = (unit, frozenset(
            anchor(b.ref) for b in subtree(unit, ref) if b.status == IN_FORCE and b.ref is not None))
    return hit[1]


def check_quote(reg: Regulation, pages: Pages, cit: Citation) -> QuoteCheck:
    """Judge one citation; see the module docstring for the rules."""
    if cit.ref_error:
        return _fail(cit, Reason.REF_UNKNOWN, f"ref unknown: {cit.ref_error}")
    unit = unit_of(reg, cit.ref)
    blocks = subtree(unit, cit.ref) if unit else []
    if unit is None or (not blocks and cit.ref != unit.ref):
        if moved := reg.renames.get(cit.ref):
            return _fail(cit, Reason.REF_RENAMED, f"ref renamed: {fragment(cit.ref)} is now "
                                   f"{fragment(moved.new)} (since {moved.since}, "
                                   f"corpus/refs-renamed.json); cite {fragment(moved.new)}")
        return _fail(cit, Reason.REF_UNKNOWN, f"ref unknown: {cit.ref} is not a passage of "
                     f"{cit.ref.partition('#')[0].replace('-', ' ', 1)}")
    if not blocks:   # a unit whose text is only headings or images (e.g. anexoIV)
        return _fail(cit, Reason.REF_UNKNOWN, f"ref unknown: {cit.ref} has no citable passage on {unit.page}")
    if unit.status != IN_FORCE or not any(b.status == IN_FORCE for b in blocks):
        return _fail(cit, Reason.REF_REPEALED, f"ref repealed: {cit.ref} is {unit.status if unit.status != IN_FORCE else blocks[0].status} "
                               f"on {reg.as_of} and cannot be cited")
    norm = normalize(cit.quote)
    words = norm.split()
    if len(words) < MIN_WORDS or len(norm) < MIN_CHARS:
        return _fail(cit, Reason.TOO_SHORT, f"too short to be meaningful ({len(words)} words; at least "
                               f"{MIN_WORDS} words and {MIN_CHARS} characters)")
    page = pages[unit.page]
    allowed = _in_force_anchors(unit, cit.ref)
    if ROW_SEPARATOR in cit.quote:
        return _check_row(page, unit, cit, allowed, pages.blocks_by_norm(unit.page))
    if norm not in _flat(page):   # absent even across blocks: one search of the page, not two
        return _fail(cit, Reason.NOT_FOUND, _NOT_FOUND)
    matches = find_all(page, cit.quote)
    if not matches:
        return _fail(cit, *_diagnose_absent(page, norm))
    if len(matches) > 1:
        where = ", ".join(f"#{m.start_anchor or '?'}" for m in matches[:5])
        return _fail(cit, Reason.AMBIGUOUS, f"found {len(matches)} times on {unit.page} ({where}): a browser "
                               f"would land on the first; quote more words")
    m = matches[0]
    if m.start_anchor not in allowed or m.end_anchor not in allowed:
        return _fail(cit, Reason.OUTSIDE_PASSAGE, f"outside the cited passage: found in #{m.start_anchor} on "
                               f"{unit.page}, not in {Ref.parse(cit.ref).fragment}")
    literal = source_text(page, m.pos, m.end_pos)
    if not _same_literal(cit.quote, literal):
        return _fail(cit, Reason.NOT_LITERAL, f"not literal: the page reads «{literal}» (case, accents and "
                               f"every character must be copied exactly)")
    link = deep_link(page, m.start_anchor, cit.quote)
    return QuoteCheck(cit, "", f"{unit.page}#{link.fragment}")


def _same_literal(a: str, b: str) -> bool:
    return _LITERAL_WS.sub(" ", a).strip() == _LITERAL_WS.sub(" ", b).strip()


def _check_row(page: PageText, unit: Unit, cit: Citation, allowed: frozenset[str],
               by_norm: dict[str, list[int]]) -> QuoteCheck:
    """A row quote: each " | "-separated segment is one whole cell, the cells consecutive.

    Browsers match a term inside one block, so a table row cannot be one term; it is linked as
    a ``start,end`` range from its first cell to its last, which the gate proves selects it.
    """
    segs = [normalize(s) for s in cit.quote.split(ROW_SEPARATOR)]
    k = len(segs)
    found = [i for i in by_norm.get(segs[0], ()) if i + k <= len(page.blocks)
             and all(page.blocks[i + j].norm == segs[j] for j in range(1, k))]
    if not found:
        return _fail(cit, Reason.ROW_NOT_FOUND, "table row not found: each ' | ' segment must be one whole cell, "
                               "the cells consecutive")
    if len(found) > 1:
        return _fail(cit, Reason.ROW_AMBIGUOUS, f"table row found {len(found)} times on {unit.page}; quote more cells")
    first, last = page.blocks[found[0]], page.blocks[found[0] + k - 1]
    cells = [page.blocks[found[0] + j].text for j in range(k)]
    if not all(_same_literal(q, c) for q, c in zip(cit.quote.split(ROW_SEPARATOR), cells, strict=False)):
        return _fail(cit, Reason.NOT_LITERAL, f"not literal: the row reads «{ROW_SEPARATOR.join(cells)}»")
    if first.anchor not in allowed or last.anchor not in allowed:
        return _fail(cit, Reason.OUTSIDE_PASSAGE, f"outside the cited passage: found in #{first.anchor} on "
                               f"{unit.page}, not in {Ref.parse(cit.ref).fragment}")
    row_text = " ".join(page.blocks[found[0] + j].text for j in range(k))
    try:
        link = deep_link(page, first.anchor, row_text)
    except BuildError:   # the cells run past the first cell's passage into the next one
        return _fail(cit, Reason.ROW_SPANS_PASSAGES, f"table row spans more than one passage (#{first.anchor} to "
                               f"#{last.anchor}); quote cells of one passage")
    if link.kind == "fallback":
        return _fail(cit, Reason.ROW_NOT_SELECTABLE, "table row cannot be selected by a text-fragment link on this "
                               "page; quote a different row or more cells")
    return QuoteCheck(cit, "", f"{unit.page}#{link.fragment}")


_NOT_FOUND = "not found on the cited page"


def _flat(page: PageText) -> str:
    """The page's text as one run (blocks joined by a space), made once per page."""
    flat = page.memo.get("flat")
    if flat is None:
        flat = page.memo["flat"] = page.joined.replace("\n", " ")
    return flat


def _diagnose_absent(page: PageText, needle: str) -> tuple[Reason, str]:
    """Why a quote (``needle``: normalized) has no word-bounded match inside one block."""
    if needle in _flat(page):
        if needle not in page.joined:
            return (Reason.STRADDLES_BLOCKS,
                    "straddles a block boundary (paragraphs or table cells): quote one block")
        return Reason.NOT_WORD_BOUNDED, "not word-bounded: the quote starts or ends inside a word"
    return Reason.NOT_FOUND, _NOT_FOUND


@gc_paused
def build_allowlist(reg: Regulation, pages: Pages, source_url: str) -> list[AllowlistEntry]:
    """A deep link for every citable passage, proven against the page's text model."""
    entries = []
    for unit in reg.units:
        for block in unit.passages:
            if block.ref is None:   # passages always carry a ref; the check narrows the type
                continue
            link = deep_link(pages[unit.page], anchor(block.ref), block.text)
            kind = {"fallback": "anchor"}.get(link.kind, "context" if link.context else link.kind)
            # the Markdown copies have no BOE block ids: their passages link the norm's page
            boe = f"{source_url}#{unit.block_id}" if unit.block_id else source_url
            entries.append(AllowlistEntry(
                ref=block.ref, url=f"{unit.page}#{link.fragment}", page=unit.page,
                anchor=anchor(block.ref), text=block.text,
                sha256=hashlib.sha256(block.text.encode("utf-8")).hexdigest(),
                as_of=reg.as_of.isoformat(), source_url=boe,
                source_license=reg.source.license, label=human_label(block.ref), directive=kind,
                norm=Ref.parse(block.ref).norm, boe_id=reg.source.norm_id,
                consolidated=reg.source.consolidated))
    return entries


def gate_counts(checks: list[QuoteCheck], allowlist: list[AllowlistEntry]) -> dict:
    """The gate's figures (dist/gate-report.json, the "Por qué" page), counted from its verdicts:
    quotes checked and failed, citable passages, deep links by kind."""
    directives: dict[str, int] = {}
    norms: dict[str, dict] = {}
    for e in allowlist:
        directives[e.directive] = directives.get(e.directive, 0) + 1
        per = norms.setdefault(e.norm, {"passages": 0, "directives": {}})
        per["passages"] += 1
        per["directives"][e.directive] = per["directives"].get(e.directive, 0) + 1
    for per in norms.values():
        per["directives"] = dict(sorted(per["directives"].items()))
    return {"checked": len(checks), "failed": sum(1 for c in checks if c.reason),
            "passages": len(allowlist), "directives": dict(sorted(directives.items())),
            "norms": dict(sorted(norms.items()))}


def regulation_for(ref: str, reg: Regulation, others: tuple[Regulation, ...] = ()) -> Regulation:
    """The Regulation whose passages ``ref`` names, by its norm prefix (``RDL-6/2015#art76.a``
    → the Ley sobre Tráfico); ``reg`` (the Reglamento) for its own refs and for a string that
    is not a ref, whose check then fails as ``ref-unknown``."""
    norm = ref.partition("#")[0]
    return next((o for o in others if o.units and Ref.parse(o.units[0].ref).norm == norm), reg)


@gc_paused
def verify(reg: Regulation, site_dir: Path, citations: list[Citation],
           allow_empty: bool = False,
           others: tuple[Regulation, ...] = (),
           pages: Pages | None = None,
           with_allowlist: bool = True,
           passed: dict[tuple[str, str], str] | None = None,
           ) -> tuple[list[QuoteCheck], list[AllowlistEntry]]:
    """Run the gate over ``citations`` on the staged site; raise BuildErrors listing every
    failure. A citation of another norm (``others``: the Ley, the RGV, the RGC) is judged on
    that norm's pages by the same rules. A run that checked zero quotes is itself an error —
    the gate never passes silently — unless the caller explicitly built the regulation alone
    (``allow_empty``). The allowlist returned is ``reg``'s. ``pages``: the site's pages already
    read (the build reads each page once for every stage that judges it); by default they are
    read from ``site_dir``. ``with_allowlist=False``: the caller has it already (the build
    cache: gate/linkcache.py), and [] is returned in its place. ``passed``: {(ref, quote): deep
    link} of quotes that passed on these very pages (linkcache.QuoteMemo), taken as passes."""
    pages = Pages(site_dir) if pages is None else pages
    known = passed or {}
    checks = [QuoteCheck(c, url=known[(c.ref, c.quote)])
              if not c.ref_error and (c.ref, c.quote) in known
              else check_quote(regulation_for(c.ref, reg, others), pages, c) for c in citations]
    failures: list[BuildError] = [
        GateError(f"{c.citation.file}:{c.citation.line}",
                  f"{c.citation.ref} «{c.citation.quote}»: {c.reason}",
                  "copy the words exactly from the cited passage on the built page", c.code)
        for c in checks if c.code is not None]
    if not citations and not allow_empty:
        failures.append(BuildError("site_src/content, site_src/practice",
                                   "the gate checked zero quotes",
                                   "a build must verify at least one quote; restore the guides"))
    if failures:
        raise BuildErrors(failures)
    return checks, build_allowlist(reg, pages, reg.source.html_url) if with_allowlist else []
