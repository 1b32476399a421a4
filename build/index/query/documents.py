"""Documents: what a loaded index says about its passages and hook questions — row ``i`` of
every field is passage ``i`` (or hook question ``i``) — and the tie-breaks every ranking uses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


def _sorted_rank(keys: tuple[str, ...]) -> np.ndarray:
    """Position of each key in sorted order: the tie-break of every ranking."""
    rank = np.empty(len(keys), dtype=np.int64)
    rank[np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)] = \
        np.arange(len(keys))
    return _frozen(rank)


def _frozen(array: np.ndarray) -> np.ndarray:
    """``array`` made read-only: a loaded index is shared by request threads."""
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class Documents:
    """The passages of an index (refs, deep links, labels, texts, tables, their unit and
    roll-up group) and its hook questions with the passage each was written for."""

    refs: tuple[str, ...]
    urls: tuple[str, ...]
    labels: tuple[str, ...]
    texts: tuple[str, ...]
    tables: Mapping[str, list]        # ref → rows of [cell text, is header], table passages only
    units: tuple[str, ...]
    unit_of: np.ndarray               # passage row → row in ``units``
    group_of: np.ndarray              # passage row → roll-up group (fuse.diversify)
    hook_questions: tuple[str, ...]
    hook_passage: np.ndarray          # hook row → passage row
    ref_row: Mapping[str, int]
    tiebreak: np.ndarray              # passage row → position of its ref in sorted order
    unit_tiebreak: np.ndarray         # the same for ``units``

    def __len__(self) -> int:
        return len(self.refs)

    @classmethod
    def from_index(cls, docs: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> Documents:
        """From store.read_index's documents and arrays (a missing key raises KeyError, which
        Searcher.load reports as an incomplete index)."""
        p = docs["passages"]
        refs, units = tuple(p["refs"]), tuple(p["units"])
        return cls(refs=refs, urls=tuple(p["urls"]), labels=tuple(p["labels"]),
                   texts=tuple(p["texts"]), tables=p.get("tables", {}), units=units,
                   unit_of=_frozen(np.asarray(p["unit_of"], dtype=np.int64)),
                   group_of=_frozen(np.asarray(p["group_of"], dtype=np.int64)),
                   hook_questions=tuple(docs["hooks"]["questions"]),
                   hook_passage=_frozen(arrays["hook_passage"].astype(np.int64)),
                   ref_row={r: i for i, r in enumerate(refs)},
                   tiebreak=_sorted_rank(refs), unit_tiebreak=_sorted_rank(units))
