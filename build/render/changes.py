"""What changed: a word-level diff between consecutive wordings of every unit.

The BOE XML keeps every wording (<version>) of a block. For each unit with more than one, the
paragraphs of consecutive wordings are aligned (difflib over the paragraph texts, so an inserted
apartado does not shift every later comparison) and each changed pair is diffed word by word.
Refs shown are those of the newer wording, assigned exactly as the ingest assigns them.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from datetime import date

from citavial.build.ingest.structure import assign_article_refs, assign_sequential_refs
from citavial.build.ingest.wordings import Wording, Wordings
from citavial.build.models import Block, Regulation, Unit, Version

EQUAL, DELETED, INSERTED = "eq", "del", "ins"


@dataclass(frozen=True)
class ParagraphDiff:
    """One paragraph that changed: ``ops`` are (kind, words) runs; ``ref`` is the newer
    wording's ref ("" when the paragraph was deleted)."""

    ref: str
    ops: tuple[tuple[str, str], ...]

    def __repr__(self) -> str:
        return f"ParagraphDiff({self.ref or '(deleted)'}, {len(self.ops)} runs)"


@dataclass(frozen=True)
class Change:
    """From wording ``before`` to wording ``after`` of one unit."""

    unit_ref: str
    before: Version
    after: Version
    paragraphs: tuple[ParagraphDiff, ...]

    @property
    def in_force(self) -> date:
        return self.after.in_force

    def __repr__(self) -> str:
        return f"Change({self.unit_ref} on {self.after.in_force}, {len(self.paragraphs)} paragraphs)"


def word_diff(old: str, new: str) -> tuple[tuple[str, str], ...]:
    """Runs of equal, deleted and inserted words (whitespace-separated), adjacent kinds merged."""
    a, b = old.split(), new.split()
    runs: list[tuple[str, str]] = []

    def add(kind: str, words: list[str]) -> None:
        if not words:
            return
        if runs and runs[-1][0] == kind:
            runs[-1] = (kind, runs[-1][1] + " " + " ".join(words))
        else:
            runs.append((kind, " ".join(words)))

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            add(EQUAL, a[i1:i2])
        else:
            add(DELETED, a[i1:i2])
            add(INSERTED, b[j1:j2])
    return tuple(runs)


def _paragraphs(unit: Unit, wording: Wording) -> list[Block]:
    """The citable blocks of one wording, with refs as the ingest assigns them."""
    if unit.kind in ("annex", "annex_section"):
        body = [b for b in wording.blocks if b.kind != "heading"]
        return [b for b in assign_sequential_refs(unit.ref, body) if b.ref]
    body = [b for b in wording.blocks if b.source_class != "articulo"]
    return [b for b in assign_article_refs(unit.ref, body) if b.ref]


def _pairs(old: list[Block], new: list[Block]) -> list[ParagraphDiff]:
    out = []
    matcher = difflib.SequenceMatcher(None, [b.text for b in old], [b.text for b in new],
                                      autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        olds, news = old[i1:i2], new[j1:j2]
        for k in range(max(len(olds), len(news))):
            before = olds[k].text if k < len(olds) else ""
            after = news[k] if k < len(news) else None
            ops = word_diff(before, after.text if after else "")
            if any(kind != EQUAL for kind, _ in ops):
                out.append(ParagraphDiff(after.ref if after and after.ref else "", ops))
    return out


def unit_changes(wordings: Wordings, reg: Regulation) -> dict[str, tuple[Change, ...]]:
    """{unit ref: its changes in date order} for every unit shown on the site, from the
    wordings the ingest read (ingest/wordings.py), in the blocks' document order."""
    units = {u.block_id: u for u in reg.units}
    out: dict[str, tuple[Change, ...]] = {}
    for block_id, unit_wordings in wordings.items():
        unit = units.get(block_id)
        if unit is None:
            continue
        read = [(w.version, _paragraphs(unit, w)) for w in unit_wordings]
        changes = [Change(unit.ref, v0, v1, tuple(_pairs(p0, p1)))
                   for (v0, p0), (v1, p1) in zip(read, read[1:], strict=False)]
        out[unit.ref] = tuple(c for c in changes if c.paragraphs)
    return out


def passage_changed(changes: dict[str, tuple[Change, ...]], as_of: date) -> dict[str, date]:
    """{passage ref: the last date its words changed, on or before ``as_of``}."""
    out: dict[str, date] = {}
    for unit_changes_ in changes.values():
        for c in unit_changes_:
            if c.in_force > as_of:
                continue
            for p in c.paragraphs:
                if p.ref:
                    out[p.ref] = max(out.get(p.ref, c.in_force), c.in_force)
    return out


def latest_change(ref: str, recent: dict[str, date]) -> date | None:
    """When the words of passage ``ref`` itself last changed (per ``recent``), or None.

    Only the passage itself: a change in a sub-apartado does not touch the quoted words."""
    return recent.get(ref)


CONTEXT_WORDS = 8   # unchanged words kept on each side of a change in the compact view


def compact(ops: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """Shorten long unchanged runs to CONTEXT_WORDS words around each change ("…" marks a cut)."""
    out = []
    for i, (kind, text) in enumerate(ops):
        words = text.split()
        if kind != EQUAL or len(words) <= 2 * CONTEXT_WORDS:
            out.append((kind, text))
        elif i == 0:
            out.append((kind, "… " + " ".join(words[-CONTEXT_WORDS:])))
        elif i == len(ops) - 1:
            out.append((kind, " ".join(words[:CONTEXT_WORDS]) + " …"))
        else:
            out.append((kind, " ".join(words[:CONTEXT_WORDS]) + " … "
                        + " ".join(words[-CONTEXT_WORDS:])))
    return tuple(out)


REWRITTEN = 0.5   # below this share of kept words, a paragraph reads better as before/after


def sides(ops: tuple[tuple[str, str], ...]) -> tuple[str, str] | None:
    """(old wording, new wording) when most words of the paragraph changed, else None: a
    word-by-word diff of a rewritten paragraph is a patchwork of <del>/<ins> that nobody can
    read, so the page shows the two wordings side by side instead."""
    kept = sum(len(t.split()) for k, t in ops if k == EQUAL)
    old = " ".join(t for k, t in ops if k != INSERTED)
    new = " ".join(t for k, t in ops if k != DELETED)
    longest = max(len(old.split()), len(new.split()))
    if not longest or kept >= REWRITTEN * longest or not old or not new:
        return None
    return old, new


def change_id(c: Change) -> str:
    """The anchor of a change on cambios.html: ``c-art48-20261001``."""
    return f"c-{c.unit_ref.split('#', 1)[1].replace('.', '-')}-{c.in_force.strftime('%Y%m%d')}"


def history_links(changes: dict[str, tuple[Change, ...]]) -> dict[str, dict[str, str]]:
    """{unit ref: {"<norm id> <ISO date>": anchor on cambios.html}}: what render() takes as
    ``change_links`` for the unit pages' "qué cambió" links, in the build and in `citavial check`
    (tests/test_check.py compares the pages `citavial check` renders with the site's)."""
    return {ref: {f"{c.after.norm_id} {c.in_force.isoformat()}": change_id(c) for c in cs}
            for ref, cs in changes.items()}


def by_date(reg: Regulation, changes: dict[str, tuple[Change, ...]]) -> list[dict]:
    """The Cambios recientes page: dates newest first, each with its units in document order."""
    order = {u.ref: i for i, u in enumerate(reg.units)}
    units = {u.ref: u for u in reg.units}
    days: dict[date, list[Change]] = {}
    for cs in changes.values():
        for c in cs:
            days.setdefault(c.in_force, []).append(c)
    return [{"date": d, "future": d > reg.as_of, "changes": [
        {"id": change_id(c), "unit": units[c.unit_ref], "norm": c.after.norm_id,
         "before": c.before, "paragraphs": [
             {"ref": p.ref, "ops": compact(p.ops), "sides": sides(p.ops)}
             for p in c.paragraphs]}
        for c in sorted(days[d], key=lambda c: order[c.unit_ref])]}
        for d in sorted(days, reverse=True)]
