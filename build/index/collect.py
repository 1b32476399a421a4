"""Collect: the Regulation's citable blocks → Passage values, plus each passage's context.

A letter "b) Por travesías." says little on its own; its apartado's lead ("4. Se prohíbe circular
con vehículos de movilidad personal:") says what it is about. ``contexts`` gives every passage the
text of what it hangs from, computed from refs and document order only, so that the index can be
built from Passage values alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from citavial.build import patterns as P
from citavial.build.models import Passage, Regulation
from citavial.build.refs import Ref

MAX_SUBHEADING = 200   # characters; longer numbered annex paragraphs are rules, not headings


def collect(reg: Regulation) -> tuple[Passage, ...]:
    """Every citable passage of ``reg`` in document order."""
    out = []
    for unit in reg.units:
        for block in unit.passages:
            assert block.ref is not None   # Unit.passages keeps only blocks with a ref
            out.append(Passage(ref=block.ref, unit_ref=unit.ref, page=unit.page,
                               anchor=Ref.parse(block.ref).anchor, kind=block.kind,
                               text=block.text, label=unit.label, title=unit.title,
                               table=block.table))
    return tuple(out)


def parent_ref(ref: str, known: set[str]) -> str | None:
    """The nearest passage ``ref`` hangs from: art48.1.a.1o → art48.1.a; art36.3.p2 → art36.3."""
    up = Ref.parse(ref).parent
    while up is not None:
        if str(up) in known:
            return str(up)
        up = up.parent
    return None


def _is_subheading(text: str) -> bool:
    return len(text) <= MAX_SUBHEADING and P.ANNEX_SUBHEADING.match(text) is not None


def contexts(passages: Sequence[Passage]) -> dict[str, str]:
    """ref → the text of the passages it hangs from (its parents, or in an annex section the
    subheading above it and, for a continuation paragraph, the designated paragraph it follows)."""
    by_ref = {p.ref: p for p in passages}
    known = set(by_ref)
    out: dict[str, str] = {}
    heading: dict[str, str] = {}     # unit_ref → last subheading seen
    opener: dict[str, str] = {}      # unit_ref → last designated paragraph seen
    for p in passages:
        parts: list[str] = []
        parent = parent_ref(p.ref, known)
        flat = parent is None or parent == p.unit_ref
        if not flat:
            while parent is not None and len(parts) < 3:
                parts.append(by_ref[parent].text)
                parent = parent_ref(parent, known)
        else:
            if _is_subheading(p.text) or P.DESIGNATED.match(p.text):
                opener[p.unit_ref] = p.text
            elif opener.get(p.unit_ref) and opener[p.unit_ref] != heading.get(p.unit_ref):
                parts.append(opener[p.unit_ref])
            if _is_subheading(p.text):
                heading[p.unit_ref] = p.text
            elif p.unit_ref in heading:
                parts.append(heading[p.unit_ref])
        out[p.ref] = " ".join(reversed(parts))
    return out


def groups(passages: Sequence[Passage]) -> list[str]:
    """The roll-up key of each passage: its unit, except in the long annex sections numbered
    by paragraph (ANEXO I §5 has 260), where each subheading opens a group of its own, so that
    a catalogue section cannot hide every other topic of its annex behind one passage."""
    known = {p.ref for p in passages}
    out = []
    current: dict[str, str] = {}
    for p in passages:
        parent = parent_ref(p.ref, known)
        if (parent is None or parent == p.unit_ref) and _is_subheading(p.text):
            current[p.unit_ref] = p.ref
        flat = parent is None or parent == p.unit_ref
        out.append(current.get(p.unit_ref, p.unit_ref) if flat and p.unit_ref in current
                   else p.unit_ref)
    return out
