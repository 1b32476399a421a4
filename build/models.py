"""Cross-stage data: frozen, typed values passed between ingest, render, verify, index and worker.

Every stage takes and returns these plain values; none holds a reference to another stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from citavial.build.renames import Renames

NORM = "RD-1428/2003"  # the ref prefix of every passage of this regulation

# Unit and passage status. Only IN_FORCE text is citable.
IN_FORCE = "in_force"
REPEALED = "repealed"       # "(Derogado)"
SUPPRESSED = "suppressed"   # "(Suprimido)"
EXPIRED = "expired"         # fecha_caducidad <= as-of
NOT_YET = "not_yet"         # no version in force yet on the as-of date


@dataclass(frozen=True)
class Version:
    """One wording of a BOE block: the amending norm and the date it took effect."""

    norm_id: str
    published: date
    in_force: date

    def __repr__(self) -> str:
        return f"Version({self.norm_id} from {self.in_force})"


@dataclass(frozen=True)
class Image:
    """An image of the BOE text; only its address is known offline."""

    src: str   # absolute URL on the BOE server
    alt: str

    def __repr__(self) -> str:
        return f"Image({self.src.rsplit('/', 1)[-1]})"


@dataclass(frozen=True)
class Cell:
    text: str
    header: bool
    images: tuple[Image, ...] = ()
    colspan: int = 1
    rowspan: int = 1

    def __repr__(self) -> str:
        return f"Cell({self.text[:20]!r})"


@dataclass(frozen=True)
class Table:
    rows: tuple[tuple[Cell, ...], ...]
    caption: str = ""    # the BOE's <caption> ("Grupo 1. Vialidades"); regulation text

    def __repr__(self) -> str:
        return f"Table({len(self.rows)} rows)"


@dataclass(frozen=True)
class Block:
    """A paragraph-level block of a unit in document order.

    kind: "paragraph", "table", "figure", "heading" (a heading inside an annex section) or
    "label" (a bare designator such as "a)" that opens a letter but says nothing itself).
    ``ref`` is set only on citable blocks (passages); ``status`` marks "(Suprimido)" paragraphs.
    ``runs`` keeps inline emphasis as (style, text) pairs whose texts concatenate to ``text``.
    """

    kind: str
    text: str
    source_class: str
    ref: str | None = None
    status: str = IN_FORCE
    runs: tuple[tuple[str, str], ...] = ()
    table: Table | None = None
    images: tuple[Image, ...] = ()

    def __repr__(self) -> str:
        return f"Block({self.kind}, {self.ref or '-'}, {self.text[:30]!r})"


@dataclass(frozen=True)
class Note:
    """Text about the regulation that is not regulation text.

    kind: "history" (a modification note), "editorial" ("Téngase en cuenta…"), "previous"
    (a "Redacción anterior" quote) or "initial" (the BOE's nota inicial).
    ``links`` are BOE cross-references (refPost) as (label, url).
    """

    kind: str
    paragraphs: tuple[str, ...]
    links: tuple[tuple[str, str], ...] = ()

    def __repr__(self) -> str:
        return f"Note({self.kind}, {self.paragraphs[0][:30] if self.paragraphs else ''!r})"


@dataclass(frozen=True)
class Heading:
    """A structural heading (TÍTULO, CAPÍTULO, Sección, ANEXO…) of the table of contents."""

    level: str   # "part", "titulo", "capitulo", "seccion", "subseccion", "anexo"
    label: str   # "TÍTULO II", "CAPÍTULO I", "Sección 1.ª", "ANEXO II"
    title: str
    block_id: str
    notes: tuple[Note, ...] = ()

    def __repr__(self) -> str:
        return f"Heading({self.label})"


@dataclass(frozen=True)
class Unit:
    """A page of the site: an article, a disposition, an annex or an annex section.

    ``ref`` is the canonical ref of the unit, e.g. "RD-1428/2003#art48"; ``page`` its file name.
    ``path`` holds the labels of the headings above it (for breadcrumbs).
    """

    ref: str
    kind: str       # "article", "disposition", "rd_precept", "annex", "annex_section", "annex_article"
    space: str      # numbering space: "rd", "reglamento", "anexoI", "anexoII", …
    label: str      # "Artículo 48", "Disposición final primera", "ANEXO I, 5"
    title: str      # "Velocidades máximas en vías fuera de poblado."
    block_id: str   # the BOE block id ("a48", "a1-3", "A5")
    status: str
    page: str
    version: Version | None
    versions: tuple[Version, ...]
    blocks: tuple[Block, ...]
    notes: tuple[Note, ...]
    history: tuple[Note, ...]
    path: tuple[str, ...]
    expires: date | None = None

    @property
    def passages(self) -> tuple[Block, ...]:
        """The citable blocks: those with a ref whose wording is in force."""
        return tuple(b for b in self.blocks if b.ref is not None and b.status == IN_FORCE)

    def __repr__(self) -> str:
        return f"Unit({self.ref}, {self.status}, {len(self.passages)} passages)"


@dataclass(frozen=True)
class TocEntry:
    """One line of the table of contents: a heading or a unit, with its nesting depth."""

    depth: int
    heading: Heading | None = None
    unit_ref: str | None = None

    def __repr__(self) -> str:
        return f"TocEntry({self.depth}, {self.heading or self.unit_ref})"


@dataclass(frozen=True)
class Source:
    """Where the text comes from: shown on every page."""

    norm_id: str
    title: str
    consolidated: str        # BOE fecha_actualizacion, ISO date
    eli: str
    html_url: str
    api_url: str
    license: str

    def __repr__(self) -> str:
        return f"Source({self.norm_id}, consolidated {self.consolidated})"


@dataclass(frozen=True)
class Regulation:
    """The regulation as in force on ``as_of``: its units (in force or not) and contents."""

    as_of: date
    source: Source
    units: tuple[Unit, ...]
    toc: tuple[TocEntry, ...]
    initial_notes: tuple[Note, ...] = field(default=())
    preamble: tuple[str, ...] = field(default=())
    inactive: tuple[Unit, ...] = field(default=())  # expired or not yet in force on as_of
    renames: Renames = field(default=Renames())     # old refs of passages (corpus/refs-renamed.json)
    # False when the source keeps only the last wording of each block (the Markdown copies of
    # corpus/norms/): units then have no versions, and pages must say there is no history.
    per_date_history: bool = True

    def unit(self, ref: str) -> Unit:
        for u in self.units:
            if u.ref == ref:
                return u
        raise KeyError(ref)

    def __repr__(self) -> str:
        return f"Regulation(as of {self.as_of}, {len(self.units)} units)"


@dataclass(frozen=True)
class Passage:
    """A citable passage as the later stages see it (flattened from Unit/Block)."""

    ref: str
    unit_ref: str
    page: str
    anchor: str
    kind: str
    text: str
    label: str       # human label of the unit, e.g. "Artículo 48"
    title: str
    table: Table | None = None   # a table passage keeps its rows and cells

    def __repr__(self) -> str:
        return f"Passage({self.ref}, {self.text[:30]!r})"


@dataclass(frozen=True)
class Citation:
    """One quote bound to a ref, where an author wrote it (guides, practice bank, CLI)."""

    file: str
    line: int
    ref: str          # canonical, or the raw text when it did not parse
    quote: str
    ref_error: str = ""

    def __repr__(self) -> str:
        return f"Citation({self.file}:{self.line} {self.ref} {self.quote[:25]!r})"


# The allowlist's schema id: written by the build (pipeline.py), checked by the worker.
ALLOWLIST_SCHEMA = "citavial-allowlist/1"


@dataclass(frozen=True)
class AllowlistEntry:
    """One citable passage as published in dist/allowlist.json — the only source of links and
    quotes the worker may emit. ``url`` is the deep link relative to the site root."""

    ref: str
    url: str
    page: str
    anchor: str
    text: str
    sha256: str
    as_of: str
    source_url: str
    source_license: str
    label: str
    directive: str   # "exact", "range", "context" or "anchor" (id-only fallback)
    norm: str        # the ref's norm prefix ("RD-1428/2003", "RDL-6/2015", …)
    boe_id: str      # the norm's BOE id ("BOE-A-2015-11722")
    consolidated: str   # the BOE consolidated text's update date, ISO

    def __repr__(self) -> str:
        return f"AllowlistEntry({self.ref}, {self.directive})"


@dataclass(frozen=True)
class SearchHit:
    """One ranked passage. ``score`` is the fused score of this query (comparable only within
    one result list); ``channels`` holds (channel, rank) pairs, rank 0 = not retrieved."""

    ref: str
    unit_ref: str
    url: str
    score: float
    rank: int
    label: str
    text: str
    channels: tuple[tuple[str, int], ...] = ()

    def __repr__(self) -> str:
        return f"SearchHit({self.rank}. {self.ref} {self.score:.4f})"


@dataclass(frozen=True)
class SignEntry:
    """One code of the signs page (build/render/signpage.py), as the search and the worker see it.

    ``name`` is in-force text only for road markings (``name_in_force``: ANEXO I §5 defines
    them in words, ``definition`` is that passage's ref); a vertical sign's name comes from the
    previous (2003) catalogue and must never be shown as a quote. ``mentions``: refs of in-force
    passages that mention the code."""

    code: str             # "R-101"
    name: str
    group: str
    url: str              # "senales.html#senal-R-101"
    name_in_force: bool
    definition: str       # ref of the defining passage, "" when the text in force has none
    mentions: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"SignEntry({self.code})"


@dataclass(frozen=True)
class SignHit:
    """A sign a question names by code or name (build/index/signmatch.py): not a citation, a
    pointer to the signs page. ``how``: "code", "family" (P-13 → P-13a), "name", "partial"."""

    sign: SignEntry
    how: str

    def __repr__(self) -> str:
        return f"SignHit({self.sign.code} by {self.how})"


@dataclass(frozen=True)
class SearchResult:
    """A ranked list plus the retrieval evidence the worker's abstention gate reads."""

    query: str
    hits: tuple[SearchHit, ...]
    backend: str          # e.g. "bm25+model2vec(citavial-static-v1)+hooks-v1"
    index_version: str
    evidence: tuple[tuple[str, float], ...] = ()   # named features, e.g. ("bm25_top", 12.3)
    signs: tuple[SignHit, ...] = ()   # signs the question names, shown above the passages

    def __repr__(self) -> str:
        return f"SearchResult({self.query[:30]!r}, {len(self.hits)} hits)"
