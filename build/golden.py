"""The golden evaluation set: loading, and the fixed rule that assigns each question a split.

The rule was written down before any figure on the new questions was seen, and is never changed:

* every question of golden-v1 (ids up to ``g0381``) is ``dev``: earlier sessions read those
  questions, tuned the search on them and wrote hooks beside them, so they can only be in-sample;
* every later question is ``test`` when the sha256 of its id, read as an integer, is 0, 1 or 2
  modulo 5 (about 60 %), else ``dev``.

``dev`` is for tuning, calibrating and reading failures; ``test`` is sealed — only reported. Code
that tunes reads ``load_golden(..., split="dev")`` and nothing else (tests/test_golden.py proves the
tuning output does not change when the test questions are removed).

A negative of reason ``other_law`` written when only the Reglamento was covered may name, in its
note, a norm the site now covers (the Ley sobre Tráfico, the Reglamento General de Vehículos or de
Conductores): ``covered_by`` lists those norms, read from the note by their BOE short id or title.
Such a question is no longer a negative (its answer may be in that norm) but it has no labelled
passage either: the evaluations leave it out of both counts and report whether an answer to it
cites the named norm.

Golden files are append-only, so a question written against a ref that was later renamed keeps
its old ref on disk; ``load_golden`` maps it to the current ref (``citavial.build.renames``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from citavial.build import paths
from citavial.build.errors import BuildError
from citavial.build.models import NORM
from citavial.build.refs import NORMS
from citavial.build.renames import Renames, load_renames
from citavial.build.text import iter_jsonl

LAST_V1_ID = 381
SPLITS = ("dev", "test")
STYLES = ("plain", "stem", "situational", "options", "yesno")
_ID = re.compile(r"g(\d{4,})")
# How golden notes name a covered norm besides its title and short id ("RD 818/2009").
_ALIASES = {"RDL-6/2015": ("Ley de Tráfico",)}


def split_of(qid: str) -> str:
    """``dev`` or ``test`` for a golden id (see the module docstring)."""
    m = _ID.fullmatch(qid)
    if m is None:
        raise BuildError(f"golden id {qid!r}", "is not g + at least four digits", "fix the id")
    if int(m.group(1)) <= LAST_V1_ID:
        return "dev"
    return "test" if int(hashlib.sha256(qid.encode()).hexdigest(), 16) % 5 < 3 else "dev"


@dataclass(frozen=True)
class Question:
    """One golden question as the evaluations see it."""

    id: str
    question: str
    expected: tuple[str, ...]
    topic: str
    kind: str                  # "positive" | "negative"
    style: str = "plain"
    answer: str = ""           # the reference answer (new questions only)
    negative: str = ""         # why a negative is one: other_law | out_of_domain | not_in_regulation
    split: str = "dev"
    covered_by: tuple[str, ...] = ()   # other_law negatives: covered norms the note names

    def __repr__(self) -> str:
        return f"Question({self.id}, {self.split}, {self.question[:30]!r})"

    @property
    def scored(self) -> bool:
        """Whether the question counts as a positive or a negative (see the module docstring)."""
        return not self.covered_by


def covered_by(note: str) -> tuple[str, ...]:
    """The covered norms (other than the Reglamento) a negative's note names, in NORMS order."""
    folded = note.casefold()
    return tuple(prefix for prefix, norm in NORMS.items() if prefix != NORM and any(
        name.casefold() in folded
        for name in (norm.title, prefix.replace("-", " "), *_ALIASES.get(prefix, ()))))


def load_golden(path: Path, split: str | None = None,
                renames: Renames | None = None) -> tuple[Question, ...]:
    """The questions of ``path`` (all, or one split), in file order, their expected refs under
    their current names (``renames``, default: the project corpus's refs-renamed.json)."""
    if split is not None and split not in SPLITS:
        raise BuildError(f"split {split!r}", "is not a golden split", f"use one of {SPLITS}")
    renames = load_renames(paths.CORPUS) if renames is None else renames
    out = []
    for lineno, o in iter_jsonl(Path(path)):
        try:
            if not isinstance(o, dict):   # caught below, as indexing a list or a str would be
                raise TypeError(f"a JSON {type(o).__name__}, not an object")
            expected = tuple(renames.current(r) for r in o["expected"])
            negative = o.get("negative", "")
            q = Question(o["id"], o["question"], expected, o["topic"], o["kind"],
                         o.get("style", "plain"), o.get("answer", ""), negative,
                         split_of(o["id"]), covered_by(o.get("note", ""))
                         if negative == "other_law" else ())
        except (KeyError, TypeError, AttributeError) as err:
            raise BuildError(f"{path}:{lineno}", f"is not a golden question ({err!r})",
                             "run golden/validate.py on the file") from None
        if split is None or q.split == split:
            out.append(q)
    return tuple(out)
