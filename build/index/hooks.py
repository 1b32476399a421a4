"""Hooks: questions a passage answers, in a student's words, indexed to return that passage.

A user question is matched question-to-question (BM25 over the hook questions, and cosine of
their embeddings); a passage scores the best of its hooks. Hooks are versioned data in
corpus/hooks/hooks-vN.jsonl; the version in use is part of the index's backend name. A published
version is never edited, so a hook written for a ref that was later renamed is mapped to the
current ref when it is read (corpus/refs-renamed.json, ``citavial.build.renames``).
"""

from __future__ import annotations

import json
from collections.abc import Container, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from citavial.build import paths
from citavial.build.errors import BuildError
from citavial.build.renames import Renames, load_renames

# The promoted versions: the ones the product's search uses, together. A version is promoted
# only if `citavial eval --split dev` improves with it. hooks-v2 (v1's questions plus 2,870
# written blind to the golden set, decontaminated against its test split) beat v1 alone on dev;
# hooks-v4 (2,824 more in exam forms, blind, decontaminated against test and dev) beat v3 alone
# on the dev-clean index (search and answers, corpus/hooks/README.md); hooks-v5 (2,611 more,
# plain, yes/no and situational, the same way) beat v3 + v4 on its search and first citations.
# hooks-v6 (812 questions for the Ley, the Reglamentos de Vehículos and de Conductores, written
# from their passages, decontaminated against golden test and dev) is promoted since the real
# bank's dev questions were labelled over the four norms (golden/dgt-labels/agreed-norms.jsonl):
# at OTHER_NORM_PRIOR 0.8 their labelled article is first for 35 of 85 with it, 32 without,
# while the Reglamento's 343 labelled questions stay at R@1 0.79 (bench_norm_prior.py).
# hooks-v7 (the other norms' second blind round) is not promoted: it lifts the four-norm dev labels'
# R@5 67 -> 72 of 85 but costs golden dev answers (false abstention 0.118 -> 0.127) through the
# gate's other-norm margin (corpus/hooks/README.md).
PROMOTED = ("hooks-v2.jsonl", "hooks-v4.jsonl", "hooks-v5.jsonl", "hooks-v6.jsonl")
# The dev-clean versions: hooks-v3 is v2 without the 341 questions near a golden *dev* question
# (corpus/hooks/decontaminate.py). Everything measured or fitted on dev (`citavial eval --split
# dev`, `citavial calibrate`, the embedding model's training) reads an index built from these,
# dist/index-dev/: with v2, dev flattered every figure and the answer gate learnt to trust hook
# matches that unseen questions never get. The product keeps v2: the dropped questions are the
# most obvious ones ("¿Qué es una vía urbana?"), the ones users ask. hooks-v4 and v5 (written
# blind, decontaminated against dev too) are in both.
DEV_CLEAN = ("hooks-v3.jsonl", "hooks-v4.jsonl", "hooks-v5.jsonl", "hooks-v6.jsonl")
DEFAULT_HOOKS = tuple(paths.HOOKS / name for name in PROMOTED)
DEV_CLEAN_HOOKS = tuple(paths.HOOKS / name for name in DEV_CLEAN)
INDEX_DIR = "index"          # dist/index/: the product's index, read by the worker
DEV_INDEX_DIR = "index-dev"  # dist/index-dev/: the same passages, dev-clean hooks; not served


def promoted_hooks(corpus_dir: Path, *, dev_clean: bool = False) -> tuple[Path, ...]:
    """corpus_dir/hooks/<each promoted version> (``dev_clean``: each dev-clean version)."""
    return tuple(Path(corpus_dir) / "hooks" / name for name in (DEV_CLEAN if dev_clean
                                                                  else PROMOTED))


def index_dir_for(split: str | None) -> str:
    """The dist/ folder of the index a golden split is measured on: dev (and "all", which holds
    dev) on the dev-clean index, test on the product's."""
    return INDEX_DIR if split == "test" else DEV_INDEX_DIR


@dataclass(frozen=True)
class Hook:
    ref: str
    question: str

    def __repr__(self) -> str:
        return f"Hook({self.ref}, {self.question[:30]!r})"


def hooks_version(path: Path | Sequence[Path]) -> str:
    """"hooks-v1" for corpus/hooks/hooks-v1.jsonl; "hooks-v1+hooks-v2" for both."""
    if isinstance(path, (str, Path)):
        return Path(path).stem
    return "+".join(Path(p).stem for p in path)


def _parse_line(path: Path, lineno: int, line: str) -> tuple[str, list[str]]:
    where = f"{path}:{lineno}"
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as err:
        raise BuildError(where, f"is not valid JSON ({err.msg})",
                         "fix the line, or run corpus/hooks/validate.py") from None
    ref = obj.get("ref") if isinstance(obj, dict) else None
    questions = obj.get("questions") if isinstance(obj, dict) else None
    if not isinstance(ref, str) or not ref:
        raise BuildError(where, f"has no string 'ref' (got {ref!r})",
                         'write {"ref": "RD-1428/2003#art48.1", "questions": ["…?"]}')
    if (not isinstance(questions, list) or not questions
            or not all(isinstance(q, str) and q.strip() for q in questions)):
        raise BuildError(where, f"'questions' of {ref} must be a non-empty list of non-empty "
                         f"strings (got {questions!r})", "fix the line")
    return ref, questions


def load_hooks(path: Path | Sequence[Path], citable: Container[str],
               renames: Renames | None = None) -> tuple[tuple[Hook, ...], int]:
    """The hooks of ``path`` (one file or several, in order) whose ref is citable, in file
    order, and how many were skipped because their ref is not citable on this build's date (a
    malformed line is an error). A renamed ref counts as its new name (``renames``, default: the
    refs-renamed.json of the corpus folder holding the hooks folder)."""
    if not isinstance(path, (str, Path)):
        loaded = [load_hooks(p, citable, renames) for p in path]
        return tuple(h for hs, _ in loaded for h in hs), sum(n for _, n in loaded)
    path = Path(path)
    if not path.is_file():
        raise BuildError(str(path), "hooks file not found",
                         "restore it from git, or pass an existing corpus/hooks/hooks-vN.jsonl")
    renames = load_renames(path.parent.parent) if renames is None else renames
    hooks: list[Hook] = []
    skipped = 0
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        ref, questions = _parse_line(path, lineno, line)
        ref = renames.current(ref)
        if ref not in citable:
            skipped += len(questions)
            continue
        hooks.extend(Hook(ref, q.strip()) for q in questions)
    return tuple(hooks), skipped


def hook_questions(paths: Sequence[Path]) -> list[str]:
    """Every question of the hooks files ``paths`` as ``load_hooks`` gives it, whatever its
    ref: what the index's child analyses before the passages are known. A missing or
    malformed file gives none here (``load_hooks`` says what is wrong)."""
    out: list[str] = []
    for path in paths:
        try:
            out += [h.question for h in load_hooks(path, _EVERY_REF)[0]]
        except (OSError, UnicodeDecodeError, BuildError):
            continue
    return out


class _EveryRef:
    def __contains__(self, _ref: object) -> bool:
        return True


_EVERY_REF = _EveryRef()


def best_per_passage(hook_scores: np.ndarray, hook_passage: np.ndarray,
                     n_passages: int) -> np.ndarray:
    """A passage's score is the best score of its hooks (0 if it has none)."""
    out = np.zeros(n_passages, dtype=np.float32)
    np.maximum.at(out, hook_passage, hook_scores.astype(np.float32))
    return out
