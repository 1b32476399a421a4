"""Renamed refs: a passage whose words are unchanged but whose ref was corrected.

Data that names passages outlives a ref: the golden sets are append-only, the hooks files are
versioned and never edited in place, and authors' notes cite refs. When the ingest corrects how
a passage is numbered, the old ref is recorded in ``corpus/refs-renamed.json`` (schema
``citavial-ref-renames/1``) with its new ref, the date and the reason, and:

* the golden loader (``citavial.build.golden``) and the hooks loader
  (``citavial.build.index.hooks``) map old refs to new ones when they read a file;
* ``golden/validate.py`` and ``corpus/hooks/validate.py`` (standard library only) read the same
  file and accept an old ref only through it;
* the citation gate (``citavial.build.gate.verify``) answers an old ref with "ref renamed: … is now …",
  and ``citavial check --fix-links`` rewrites the citation to the new ref.

An old ref must never be a passage again (the mapping would be ambiguous): ``check_renames``
refuses that at build time. A rename may point at a ref that is itself renamed later; lookups
follow the chain.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path

from citavial.build.errors import BuildError
from citavial.build.patterns import CANONICAL_REF

SCHEMA = "citavial-ref-renames/1"
FILE_NAME = "refs-renamed.json"
_FIX = "fix corpus/refs-renamed.json (see build/renames.py)"


@dataclass(frozen=True)
class Rename:
    """One renamed ref: ``old`` → ``new`` since the ISO date ``since``, for ``reason``."""

    old: str
    new: str
    since: str
    reason: str


@dataclass(frozen=True)
class Renames:
    """The rename table; empty when the corpus has none."""

    items: tuple[Rename, ...] = ()

    @cached_property
    def by_old(self) -> dict[str, Rename]:
        return {r.old: r for r in self.items}

    def get(self, ref: str) -> Rename | None:
        """The rename of ``ref`` to its current name (following later renames), or None."""
        first = self.by_old.get(ref)
        if first is None:
            return None
        last = first
        while last.new in self.by_old:   # no cycles: load_renames refuses them
            last = self.by_old[last.new]
        return first if last is first else Rename(ref, last.new, last.since, last.reason)

    def current(self, ref: str) -> str:
        """``ref``'s current name: itself unless it was renamed."""
        found = self.get(ref)
        return found.new if found else ref

    def __repr__(self) -> str:
        return f"Renames({len(self.items)})"


def load_renames(corpus_dir: Path) -> Renames:
    """The table in ``corpus_dir``/refs-renamed.json (empty if the file does not exist)."""
    path = Path(corpus_dir) / FILE_NAME
    if not path.is_file():
        return Renames()
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BuildError(str(path), f"is not readable JSON ({err})", _FIX) from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA \
            or not isinstance(doc.get("renames"), dict):
        raise BuildError(str(path), f"is not a {SCHEMA} document with a 'renames' object", _FIX)
    renames = Renames(tuple(_rename(path, old, entry) for old, entry in doc["renames"].items()))
    for r in renames.items:
        seen = {r.old}
        while r.new in renames.by_old:
            if r.new in seen:
                raise BuildError(f"{path}: {r.old}", "renames form a cycle", _FIX)
            seen.add(r.new)
            r = renames.by_old[r.new]
    return renames


def _rename(path: Path, old: str, entry: object) -> Rename:
    where = f"{path}: {old}"
    if not isinstance(entry, dict) or set(entry) != {"new", "since", "reason"} \
            or not all(isinstance(v, str) and v for v in entry.values()):
        raise BuildError(where, "must map to {\"new\", \"since\", \"reason\"}, all non-empty "
                         "strings", _FIX)
    for ref in (old, entry["new"]):
        if not CANONICAL_REF.match(ref):
            raise BuildError(where, f"{ref!r} is not a canonical ref like "
                             "'RD-1428/2003#art82.2'", _FIX)
    if old == entry["new"]:
        raise BuildError(where, "is renamed to itself", _FIX)
    try:
        date.fromisoformat(entry["since"])
    except ValueError:
        raise BuildError(where, f"'since' {entry['since']!r} is not a date YYYY-MM-DD",
                         _FIX) from None
    return Rename(old, entry["new"], entry["since"], entry["reason"])


def check_renames(renames: Renames, citable: Iterable[str]) -> None:
    """Refuse a table whose old refs are passages again (the mapping would be ambiguous)."""
    clash = sorted(set(citable) & {r.old for r in renames.items})
    if clash:
        raise BuildError(FILE_NAME, f"old ref(s) {clash} are passages of this build again",
                         "remove those renames, or rename the passages")
