"""The general rule before a special case: a figure question that names no case is answered by
the rule stated for every case, not by one stated for some.

"¿Cuál es la velocidad máxima en una travesía?" names a road and no vehicle. Art. 50.4 ("…en
travesías, los vehículos que transporten mercancías peligrosas circularán como máximo a 40
km/h") shares more of its words ("máximo") than art. 50.5 ("El límite genérico de velocidad en
travesías es de 50 km/h para todo tipo de vehículos"), but it is a side rule for one kind of
vehicle. So when the chosen clause states no general rule and another clause read does —
it says so ("genérico", "para todo tipo de vehículos", "con carácter general"), holds a figure
with the same unit, and holds every word of the question the chosen one holds beyond those that
only ask for a figure ("velocidad", "máxima": vague.GENERIC) — that clause is the answer. A
question that names the case ("…con mercancías peligrosas…") keeps the clause that states it:
the general one lacks those words. The span's score, which the answer gate reads, is kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from citavial.build.models import AllowlistEntry
from citavial.build.text import fold, stems
from citavial.worker.answer.quantity import quantities
from citavial.worker.answer.question import NUMBER, Question
from citavial.worker.answer.span import Piece, Span, clauses, emphasis
from citavial.worker.answer.vague import GENERIC

__all__ = ["general_rule", "GENERAL"]

# Folded words by which a clause states its rule for every case.
GENERAL = re.compile(r"\b(?:generic[oa]s?|para todo tipo de vehiculos|con caracter general)\b")


def general_rule(q: Question, entries: Sequence[AllowlistEntry], span: Span,
                 lead_in: Callable[[str], AllowlistEntry | None]) -> Span:
    """``span``, or the clause of ``entries`` that states its rule in general (see the module
    docstring) when ``span`` states it for a special case."""
    if q.kind != NUMBER or span.cells or span.lead_in is not None \
            or GENERAL.search(fold(span.main.text)):
        return span
    units = {x.unit for x in quantities(span.main.text)}
    named = (q.terms - GENERIC) & set(stems(span.main.text))
    if not units or not named:
        return span
    for rank, e in enumerate(entries):
        for a, b in clauses(e.text):
            text = e.text[a:b]
            if (e.ref, a) == (span.main.ref, span.main.start) or not GENERAL.search(fold(text)):
                continue
            if units & {x.unit for x in quantities(text)} and named <= set(stems(text)):
                lead = lead_in(e.ref) if a == 0 else None
                return Span(Piece(e.ref, text, a, b), span.score, rank, emphasis=emphasis(text),
                            lead_in=None if lead is None else
                            Piece(lead.ref, lead.text, 0, len(lead.text)))
    return span
