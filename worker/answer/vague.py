"""A question too vague for the table it touches: "¿Puedo ir a 100?" names a speed, but not the
road nor the vehicle that art. 48's table tells apart — and a clause that happens to hold "100"
("…el titular de la vía podrá fijar un límite máximo de 100 km/h…") is a side rule, not the
answer.

A question that names a figure (or asks for one) and nothing else a passage could tell apart —
only words like "puedo", "ir", "circular", "velocidad", "km/h" — is answered with the speed table
itself, every cell of it (each a literal cell, as span.py answers a table), and the answer event
asks which road and which vehicle (cite.py, ``clarify``). A question that names the road or the
vehicle is not vague: span.py answers it with that row or column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from citavial.build.models import AllowlistEntry
from citavial.build.text import fold, stems
from citavial.worker import patterns as P
from citavial.worker.answer.allowlist import Allowlist
from citavial.worker.answer.question import NUMBER, Question
from citavial.worker.answer.span import Piece, Span, table_cells

__all__ = ["vague_figure", "reframe"]

# Words that ask about a speed without naming anything a table distinguishes.
GENERIC = frozenset(stems(
    "puedo puede pueden podemos podría permitido permite legal ir voy vas va vamos circular "
    "circulo circula circulamos conducir conduzco conduce velocidad velocidades máxima máximo "
    "máximas límite km hora horas kilómetros"))
MOTION = frozenset(stems("ir circular conducir velocidad km kilómetros"))


class Tables(Protocol):
    """What this module reads (cite.Reader has it)."""

    allowlist: Allowlist
    order: list[str]

    def lead_in(self, ref: str) -> AllowlistEntry | None: ...

    def table(self, ref: str) -> list: ...


def vague_figure(q: Question) -> bool:
    """The question names a speed ("¿Puedo ir a 100?") or asks for one ("¿A cuánto puedo
    ir?") and holds no word beyond GENERIC: nothing that picks a row or a column."""
    figure = P.Q_FIGURE.search(q.stem) is not None or q.kind == NUMBER
    return figure and bool(q.terms & MOTION) and q.terms <= GENERIC


def _speed_table(entries: Sequence[AllowlistEntry],
                 tables: Tables) -> tuple[int | None, AllowlistEntry] | None:
    """The table of speed limits: its place among ``entries``, or (None, entry) from the whole
    allowlist when retrieval did not bring it."""
    def speeds(ref: str) -> bool:
        if not tables.table(ref):   # cheap first: three tables in the whole allowlist
            return False
        lead = tables.lead_in(ref)
        return lead is not None and "velocidad" in fold(lead.text)
    for rank, e in enumerate(entries):
        if speeds(e.ref):
            return rank, e
    for ref in tables.order:
        entry = tables.allowlist.get(ref)
        if entry is not None and speeds(ref):
            return None, entry
    return None


def reframe(q: Question, entries: Sequence[AllowlistEntry], span: Span,
            tables: Tables) -> tuple[tuple[AllowlistEntry, ...], Span] | None:
    """(entries, the speed table as the answer) for a vague figure question, else None. The
    span keeps the score the answer gate read."""
    if span.cells or not vague_figure(q):
        return None
    found = _speed_table(entries, tables)
    if found is None:
        return None
    rank, table = found
    out = tuple(entries)
    if rank is None:
        rank, out = len(out), (*out, table)
    lead = tables.lead_in(table.ref)
    context = (lead.text if lead is not None else "") + " " + table.text
    cells = table_cells(q, tables.table(table.ref), context, whole=True)
    if not cells:
        return None
    lead_piece = None if lead is None else Piece(lead.ref, lead.text, 0, len(lead.text))
    return out, Span(Piece(table.ref, table.text, 0, len(table.text)), span.score, rank,
                     lead_in=lead_piece, cells=cells)
