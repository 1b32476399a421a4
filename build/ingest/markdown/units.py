"""Items of a Markdown copy → units, headings and the table of contents, in one pass.

Like the XML ingest (build/ingest/walk.py): two numbering spaces share the file — the approving
decree's preceptos ("rd": ``rd.artunico``, ``rd.df``) until the approved text's title ("TEXTO
REFUNDIDO …", "REGLAMENTO GENERAL DE …"), then the norm's own articles, dispositions and annexes.
Notes after a structural heading belong to that heading; inside a unit, modification notes are its
history and editorial notes and expired wording its notes — never its blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from citavial.build.errors import BuildError
from citavial.build.ingest.markdown import inline
from citavial.build.ingest.markdown.criteria import assign_criteria_refs
from citavial.build.ingest.markdown.lines import Item
from citavial.build.ingest.markdown.norms import (
    NormSpec,
    article_fragment,
    disposition_fragment,
    page_of,
)
from citavial.build.ingest.markdown.points import assign_points_refs
from citavial.build.ingest.markdown.syntax import (
    ANNEX,
    ARTICLE,
    CAPITULO,
    DISPOSITION,
    MAIN_TEXT,
    SECCION,
    SIGNATURE,
    SUBSECCION,
    TITULO,
)
from citavial.build.ingest.markdown.tables import table, table_text
from citavial.build.ingest.structure import assign_article_refs, assign_sequential_refs
from citavial.build.models import (
    IN_FORCE,
    REPEALED,
    SUPPRESSED,
    Block,
    Heading,
    Note,
    Table,
    TocEntry,
    Unit,
)
from citavial.build.patterns import REPEALED as REPEALED_RE
from citavial.build.patterns import SUPPRESSED as SUPPRESSED_RE

LEVELS = {"part": 0, "anexo": 0, "titulo": 1, "capitulo": 2, "seccion": 3, "subseccion": 4}
STRUCTURAL = (("titulo", TITULO), ("capitulo", CAPITULO), ("seccion", SECCION),
              ("subseccion", SUBSECCION))
SOURCE_CLASS = "markdown"


@dataclass
class _Open:
    """The unit being read."""

    fragment: str
    kind: str
    space: str
    label: str
    title: str
    path: tuple[str, ...]
    blocks: list[Block] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    history: list[Note] = field(default_factory=list)
    signed: bool = False            # after "Dado en …": the signature, not a precept
    needs_title: bool = False       # RD 818/2009: "ANEXO I" then its title as the next paragraph


@dataclass
class Walk:
    spec: NormSpec
    space: str = "rd"
    stack: list[Heading] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    toc: list[TocEntry] = field(default_factory=list)
    initial: list[Note] = field(default_factory=list)
    preamble: list[str] = field(default_factory=list)
    expired: list[Item] = field(default_factory=list)
    current: _Open | None = None
    heading_notes: dict[int, list[Note]] = field(default_factory=dict)  # toc index → notes
    # Tables the copy lost, recovered from the PDF: unit fragment → (paragraph it follows, table).
    recovered: dict[str, list[tuple[str, Table]]] = field(default_factory=dict)

    def run(self, items: list[Item]) -> None:
        for item in items:
            self.step(item)
        self.close()

    def step(self, item: Item) -> None:
        if item.kind == "expired":
            self.expired.append(item)
            self.note(Note("previous", tuple(inline.plain(t) for t in _expired_text(item))))
        elif item.kind == "note":
            self.note(Note("history" if item.note_kind == "history" else "editorial",
                           (inline.plain(item.text),), inline.links(item.text)))
        elif item.kind == "table":
            self.table(item)
        else:
            text = inline.plain(item.text)
            if not (item.kind == "heading" and item.level == 1) and \
                    (text or inline.images(item.text)):
                self.text(item, text)

    # --- structure ------------------------------------------------------------------------

    def text(self, item: Item, text: str) -> None:
        if MAIN_TEXT.match(text) and self.space == "rd":
            self.close()
            # The numbering space of the approved text, named as the XML ingest names the RGC's.
            self.space = "ley" if text.startswith("TEXTO REFUNDIDO") else "reglamento"
            self.stack = []
            self.heading("part", text, "")
            return
        if self.current is not None and self.current.needs_title and item.kind == "para":
            self.current.title, self.current.needs_title = text, False
            return
        for level, pattern in STRUCTURAL:
            m = pattern.match(text)
            if m and (item.kind == "heading" or level == "titulo"):
                self.close()
                self.heading(level, m.group("label"), m.group("title"))
                return
        if self.unit_heading(item, text):
            return
        if item.kind == "heading" and self.current is None:
            self.preamble.append(text)
        elif item.kind == "heading":
            self.block(Block(kind="heading", text=text, source_class=SOURCE_CLASS,
                             runs=inline.runs(item.text)))
        elif self.current is None:
            self.preamble.append(text)
        else:
            self.paragraph(item, text)

    def unit_heading(self, item: Item, text: str) -> bool:
        rd = "rd." if self.space == "rd" else ""
        m = ARTICLE.match(text) if item.kind == "heading" else None
        if m:
            label = text[: m.start("title")].rstrip(". ")
            self.open(rd + article_fragment(m.group("n"), m.group("suffix")), "article", label,
                      m.group("title"))
            return True
        m = DISPOSITION.match(text) if item.kind == "heading" else None
        if m:
            label = text[: m.start("title")].rstrip(". ")
            frag = rd + disposition_fragment(m.group("kind"), m.group("ordinal"), m.group("suffix"))
            self.open(frag, "disposition", label, m.group("title"))
            return True
        m = ANNEX.match(text) if self.space != "rd" else None
        if m and (item.kind == "heading" or not m.group("title")):
            self.close()
            self.stack = []
            number = "unico" if m.group("n").upper() in ("ÚNICO", "UNICO") else m.group("n")
            self.open(f"anexo{number}", "annex", f"ANEXO {m.group('n')}", m.group("title"))
            assert self.current is not None
            self.current.needs_title = not m.group("title")
            return True
        return False

    def heading(self, level: str, label: str, title: str) -> None:
        depth = LEVELS[level]
        while self.stack and LEVELS[self.stack[-1].level] >= depth and self.stack[-1].level != "part":
            self.stack.pop()
        h = Heading(level=level, label=label, title=title, block_id="")
        self.stack.append(h)
        self.toc.append(TocEntry(depth=len(self.stack) - 1, heading=h))
        self.heading_notes[len(self.toc) - 1] = []

    def open(self, fragment: str, kind: str, label: str, title: str) -> None:
        self.close()
        if self.space == "rd":
            kind = "rd_precept"
        elif kind == "disposition":
            del self.stack[1:]   # as in the XML ingest: dispositions belong to no título
        space = self.space if kind != "annex" else fragment
        self.current = _Open(fragment=fragment, kind=kind, space=space, label=label, title=title,
                             path=tuple(h.label for h in self.stack))
        self.toc.append(TocEntry(depth=len(self.stack), unit_ref=self.spec.ref(fragment)))

    # --- content --------------------------------------------------------------------------

    def note(self, note: Note) -> None:
        if self.current is not None:
            (self.current.history if note.kind == "history" else self.current.notes).append(note)
        elif self.toc and self.toc[-1].heading is not None:
            self.heading_notes[len(self.toc) - 1].append(note)
        else:
            self.initial.append(note)

    def paragraph(self, item: Item, text: str) -> None:
        assert self.current is not None
        images = inline.images(item.text)
        if SIGNATURE.match(text):
            self.current.signed = True
        if images and not inline.plain(inline.IMAGE.sub("", item.text)):
            self.block(Block(kind="figure", text="", source_class=SOURCE_CLASS, images=images))
            return
        kind = "signature" if self.current.signed else "paragraph"
        self.block(Block(kind=kind, text=text, source_class=SOURCE_CLASS,
                         runs=inline.runs(item.text), images=images))

    def table(self, item: Item) -> None:
        t = table(item.rows)
        self.block(Block(kind="table", text=table_text(t), source_class=SOURCE_CLASS + "-table",
                         table=t, images=tuple(i for row in t.rows for c in row for i in c.images)))

    def block(self, block: Block) -> None:
        if self.current is None:
            self.preamble.append(block.text)
        else:
            self.current.blocks.append(block)

    def close(self) -> None:
        cur, self.current = self.current, None
        if cur is None:
            return
        unit_ref = self.spec.ref(cur.fragment)
        placed: dict[str, int] = {}   # tables after the same block keep their order
        for after, t in self.recovered.get(cur.fragment, []):
            cur.blocks = _insert_after(unit_ref, cur.blocks, after, t, placed.get(after, 0))
            placed[after] = placed.get(after, 0) + 1
        if cur.kind == "annex" and cur.fragment == self.spec.points_annex:
            blocks = assign_points_refs(unit_ref, cur.blocks)
        elif cur.kind == "annex" and cur.fragment == self.spec.criteria_annex:
            blocks = assign_criteria_refs(unit_ref, cur.blocks)
        elif cur.kind == "annex":
            blocks = assign_sequential_refs(unit_ref, cur.blocks)
        else:
            blocks = assign_article_refs(unit_ref, cur.blocks)
        self.units.append(Unit(
            ref=unit_ref, kind=cur.kind, space=cur.space, label=cur.label, title=cur.title,
            block_id="", status=_unit_status(cur.title, blocks), page=page_of(self.spec.norm, cur.fragment),
            version=None, versions=(), blocks=tuple(blocks), notes=tuple(cur.notes),
            history=tuple(cur.history), path=cur.path))

    def frozen_toc(self) -> tuple[TocEntry, ...]:
        """The TOC with each heading's notes attached (Heading is frozen)."""
        out = []
        for i, entry in enumerate(self.toc):
            notes = self.heading_notes.get(i)
            if entry.heading is not None and notes:
                entry = replace(entry, heading=replace(entry.heading, notes=tuple(notes)))
            out.append(entry)
        return tuple(out)


def _insert_after(unit_ref: str, blocks: list[Block], after: str, t: Table,
                  skip: int) -> list[Block]:
    """``blocks`` with ``t`` placed after the block reading ``after`` and ``skip`` tables."""
    at = next((k for k, b in enumerate(blocks) if b.text == after), None)
    starts = [k for k, b in enumerate(blocks) if b.text.startswith(after)]
    if at is None and len(starts) == 1:   # a long paragraph named by its first words
        at = starts[0]
    if at is None:
        raise BuildError(unit_ref, f"has no paragraph {after!r} (nor one paragraph beginning "
                         f"so; {len(starts)} do) to place the PDF's table after",
                         "check build/ingest/markdown/pdftables.py TABLES against the copy")
    block = Block(kind="table", text=table_text(t), source_class="pdf-table", table=t)
    at += 1 + skip
    return blocks[:at] + [block] + blocks[at:]


def _unit_status(title: str, blocks: list[Block]) -> str:
    body = [b for b in blocks if b.kind in ("paragraph", "table")]
    probe = title.strip() or (body[0].text.strip() if len(body) == 1 else "")
    if REPEALED_RE.match(probe):
        return REPEALED
    if SUPPRESSED_RE.match(probe):
        return SUPPRESSED
    return IN_FORCE


def _expired_text(item: Item) -> tuple[str, ...]:
    """The lines of an expired wording, as read from its Item (filled by the scanner)."""
    return item.texts
