"""Give every citable block its canonical ref.

Articles (and dispositions, and ANEXO II's articles): apartados are a leading "1. " inside a
paragraph; letters "a) " and ordinals "1.º " are separate paragraphs continuing the unit above.
A block's ref is the unit ref plus its open designators: ``art48.1.a.1o``. An unnumbered paragraph
continues the innermost open unit; the k-th block (k >= 2) at the same path gets ``.p{k}``, so
refs are unique by construction even when quoted text restarts a numbering.

Annex sections (ANEXO I §1–§5, ANEXO III's sections, ANEXO IV) mix several numbering styles that
repeat ("1. Introducción" in each tomo), so their blocks are numbered in order: ``anexoI.5.p37``.
"""

from __future__ import annotations

from dataclasses import replace

from citavial.build.models import IN_FORCE, REPEALED, SUPPRESSED, Block
from citavial.build.patterns import (
    APARTADO,
    APARTADO_WORD,
    LABEL_ONLY,
    LETRA,
    ORDINAL,
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

    def open(self, text: str) -> str:
        """Update from a paragraph's leading designator; return the text after it."""
        for pattern, level in ((APARTADO, "apartado"), (APARTADO_WORD, "apartado"),
                               (LETRA, "letra"), (ORDINAL, "ordinal")):
            m = pattern.match(text)
            if not m:
                continue
            if level == "apartado":
                self.apartado = str(WORD_NUMBERS.get(m.group(1), m.group(1)))
                self.letra = self.ordinal = None
            elif level == "letra":
                self.letra, self.ordinal = m.group(1), None
            else:
                self.ordinal = m.group(1) + ("o" if m.group(2) == "º" else "a")
            return text[m.end():]
        return text

    def segments(self) -> tuple[str, ...]:
        return tuple(s for s in (self.apartado, self.letra, self.ordinal) if s)


def assign_article_refs(unit_ref: str, blocks: list[Block]) -> list[Block]:
    """Refs for the blocks of an article-like unit (see module doc)."""
    path = _Path()
    seen: dict[tuple[str, ...], int] = {}
    out: list[Block] = []
    for block in blocks:
        if block.kind not in CITABLE_KINDS:
            out.append(block)
            continue
        if block.kind == "paragraph" and LABEL_ONLY.match(block.text):
            path.open(block.text + " ")
            out.append(replace(block, kind="label"))
            continue
        rest = path.open(block.text) if block.kind == "paragraph" else block.text
        segments = path.segments()
        seen[segments] = seen.get(segments, 0) + 1
        ref = ".".join((unit_ref,) + segments)
        if seen[segments] > 1:
            ref += f".p{seen[segments]}"
        out.append(replace(block, ref=ref, status=_status_of(rest.strip())))
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
