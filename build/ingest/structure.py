"""Give every citable block its canonical ref.

Articles (and dispositions, and ANEXO II's articles): apartados are a leading "1. " inside a
paragraph; letters "a) " and ordinals "1.º " are separate paragraphs continuing the unit above.
A block's ref is the unit ref plus its open designators: ``art48.1.a.1o``. An unnumbered paragraph
continues the innermost open unit; the k-th block (k >= 2) at the same path gets ``.p{k}``, so
refs are unique by construction even when quoted text restarts a numbering.

Quoted text of another norm ("Dos. Se modifican … en los siguientes términos:" followed by
"«62. Autovía. …", "a) …", "c) ….»") belongs to the apartado that quotes it: inside a quotation
that opens a paragraph with «, a leading "76. " or "Tres. " opens no apartado (letters and
ordinals still nest), and when the quotation closes (», possibly paragraphs later) the path
returns to where it was when the quotation opened.

Annex sections (ANEXO I §1–§5, ANEXO III's sections, ANEXO IV) mix several numbering styles that
repeat ("1. Introducción" in each tomo), so their blocks are numbered in order: ``anexoI.5.p37``.
"""

from __future__ import annotations

from dataclasses import replace

from citavial.build.errors import BuildError
from citavial.build.models import IN_FORCE, REPEALED, SUPPRESSED, Block
from citavial.build.patterns import (
    APARTADO,
    APARTADO_WORD,
    GUILLEMET,
    LABEL_ONLY,
    LETRA,
    ORDINAL,
    QUOTATION_START,
    WORD_NUMBERS,
)
from citavial.build.patterns import REPEALED as REPEALED_RE
from citavial.build.patterns import SUPPRESSED as SUPPRESSED_RE

CITABLE_KINDS = frozenset({"paragraph", "table"})


def _status_of(rest: str) -> str:
    if REPEALED_RE.match(rest):
        return REPEALED
    if SUPPRESSED_RE.match(rest):
        return SUPPRESSED
    return IN_FORCE


class _Path:
    """The open designators while walking an article: apartado › letra › ordinal."""

    def __init__(self) -> None:
        self.apartado: str | None = None
        self.letra: str | None = None
        self.ordinal: str | None = None

    def open(self, text: str, quoted: bool = False) -> str:
        """Update from a paragraph's leading designator; return the text after it. In
        ``quoted`` text a number opens no apartado (it is the quoted norm's numbering)."""
        for pattern, level in ((APARTADO, "apartado"), (APARTADO_WORD, "apartado"),
                               (LETRA, "letra"), (ORDINAL, "ordinal")):
            m = pattern.match(text)
            if not m or (quoted and level == "apartado"):
                continue
            if level == "apartado":
                self.apartado = str(WORD_NUMBERS.get(m.group(1), m.group(1)))
                self.letra = self.ordinal = None
            elif level == "letra":
                self.letra, self.ordinal = m.group(1) + (m.group(2) or ""), None
            else:
                self.ordinal = m.group(1) + ("o" if m.group(2) == "º" else "a")
            return text[m.end():]
        return text

    def segments(self) -> tuple[str, ...]:
        return tuple(s for s in (self.apartado, self.letra, self.ordinal) if s)

    def save(self) -> tuple[str | None, str | None, str | None]:
        return self.apartado, self.letra, self.ordinal

    def restore(self, saved: tuple[str | None, str | None, str | None]) -> None:
        self.apartado, self.letra, self.ordinal = saved


class _Quotation:
    """Whether the paragraphs being read are inside a quotation that opened a paragraph."""

    def __init__(self) -> None:
        self.depth = 0
        self.saved: tuple[str | None, str | None, str | None] | None = None

    def enter(self, text: str, path: _Path) -> bool:
        """Before a paragraph: is it quoted text? (Saves the path when a quotation opens.)"""
        if self.depth == 0 and QUOTATION_START.match(text):
            self.saved = path.save()
        return self.depth > 0 or self.saved is not None

    def leave(self, text: str, path: _Path) -> None:
        """After a quoted paragraph: count its guillemets; restore the path on the close."""
        marks = GUILLEMET.findall(text)
        self.depth += marks.count("«") - marks.count("»")
        if self.depth <= 0 and self.saved is not None:
            path.restore(self.saved)
            self.depth, self.saved = 0, None


def assign_article_refs(unit_ref: str, blocks: list[Block]) -> list[Block]:
    """Refs for the blocks of an article-like unit (see module doc)."""
    path, quote = _Path(), _Quotation()
    seen: dict[tuple[str, ...], int] = {}
    out: list[Block] = []
    for block in blocks:
        if block.kind not in CITABLE_KINDS:
            out.append(block)
            continue
        quoted = block.kind == "paragraph" and quote.enter(block.text, path)
        if block.kind == "paragraph" and LABEL_ONLY.match(block.text):
            path.open(block.text + " ", quoted)
            out.append(replace(block, kind="label"))
            continue
        rest = path.open(block.text, quoted) if block.kind == "paragraph" else block.text
        segments = path.segments()
        seen[segments] = seen.get(segments, 0) + 1
        ref = ".".join((unit_ref,) + segments)
        if seen[segments] > 1:
            ref += f".p{seen[segments]}"
        out.append(replace(block, ref=ref, status=_status_of(rest.strip())))
        if quoted:
            quote.leave(block.text, path)
    if quote.saved is not None:
        raise BuildError(unit_ref, "a quotation opened by « at the start of a paragraph never "
                         "closes with »", "check the BOE XML; extend build/ingest/structure.py")
    return out


def assign_sequential_refs(unit_ref: str, blocks: list[Block]) -> list[Block]:
    """Refs ``{unit}.p{k}`` in document order, for annex sections."""
    out: list[Block] = []
    k = 0
    for block in blocks:
        if block.kind in CITABLE_KINDS:
            k += 1
            out.append(replace(block, ref=f"{unit_ref}.p{k}", status=_status_of(block.text)))
        else:
            out.append(block)
    return out
