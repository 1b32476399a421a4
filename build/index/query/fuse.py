"""Fuse: Reciprocal Rank Fusion of the channels, and the roll-up of passages into articles.

Every ordering breaks ties by ref (score desc, ref asc) so the same question always gives the
same list. ``collapse`` decides where an article's apartados are merged: "before" fusion (each
channel ranks units by their best passage, the unit rankings are fused) or "after" it (passages
are fused, then each unit keeps its best passage). Either way the head of the list (the top 5)
shows at most ``per_unit`` passages of one unit, so one long article cannot crowd it out.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

RRF_K = 60


def order(scores: np.ndarray, tiebreak: np.ndarray, depth: int | None = None) -> np.ndarray:
    """Indices with a positive score, by score desc then ``tiebreak`` asc (the ref's rank in
    sorted order), cut at ``depth``."""
    idx = np.flatnonzero(scores > 0)
    ranked = idx[np.lexsort((tiebreak[idx], -scores[idx]))]
    return ranked[:depth] if depth is not None else ranked


def rrf(rankings: Mapping[str, np.ndarray], n: int, weights: Mapping[str, float],
        k: int = RRF_K) -> np.ndarray:
    """Fused score of each of ``n`` items: Σ over channels of weight / (k + rank), rank from 1."""
    fused = np.zeros(n, dtype=np.float64)
    for name, ranked in rankings.items():
        w = weights.get(name, 0.0)
        if w and len(ranked):
            fused[ranked] += w / (k + np.arange(1, len(ranked) + 1, dtype=np.float64))
    return fused


def diversify(ranked: np.ndarray, group_of: np.ndarray, per_unit: int,
              head: int | None = None) -> np.ndarray:
    """Keep the order, but fill the first ``head`` places (all, if None) with at most
    ``per_unit`` passages of any group; the passages this skips follow, in their order, so an
    article's second apartado comes right after the head instead of after every other unit."""
    seen: dict[int, int] = {}
    top: list[int] = []
    rest: list[int] = []
    for p in ranked.tolist():
        g = int(group_of[p])
        if (head is None or len(top) < head) and seen.get(g, 0) < per_unit:
            seen[g] = seen.get(g, 0) + 1
            top.append(p)
        else:
            rest.append(p)
    return np.array(top + rest, dtype=np.int64)


def collapse_before(rankings: Mapping[str, np.ndarray], passage_fused: np.ndarray,
                    unit_of: np.ndarray, n_units: int, unit_tiebreak: np.ndarray,
                    tiebreak: np.ndarray, weights: Mapping[str, float],
                    k: int = RRF_K) -> np.ndarray:
    """Passages ordered by their unit's fused unit-level rank, then by passage-level fused score
    within the unit."""
    unit_rankings = {}
    for name, ranked in rankings.items():
        _, first = np.unique(unit_of[ranked], return_index=True)
        unit_rankings[name] = unit_of[ranked][np.sort(first)]
    ufused = rrf(unit_rankings, n_units, weights, k)
    units = order(ufused, unit_tiebreak)
    position = np.full(n_units, len(units), dtype=np.int64)
    position[units] = np.arange(len(units))
    cand = np.flatnonzero(passage_fused > 0)
    keys = (tiebreak[cand], -passage_fused[cand], position[unit_of[cand]])
    return cand[np.lexsort(keys)]
