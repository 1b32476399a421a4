"""Metrics: pure functions over ranked lists (recall@k, MRR, nDCG@k), bootstrap intervals and
the separation of positives from negatives (AUC, best threshold)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citavial.build.refs import Ref

SEED = 20261129      # bootstrap resampling seed: the report is reproducible
BOOTSTRAP = 1000


def apartado_key(ref: str, unit_ref: str) -> str:
    """The apartado a ref belongs to: art48.1.a.1o → art48.1; anexoI.5.p37 → itself (annex
    sections are numbered by paragraph); art48 (a lead paragraph) → art48."""
    r, unit = Ref.parse(ref), Ref.parse(unit_ref)
    if r == unit or not unit.contains(r):
        return ref
    return str(Ref(r.norm, r.parts[:len(unit.parts) + 1]))


def first_hit(ranked_keys: Sequence[str], relevant: set[str]) -> int:
    """1-based rank of the first relevant key, 0 if none."""
    for i, key in enumerate(ranked_keys, 1):
        if key in relevant:
            return i
    return 0


def ndcg(ranked_keys: Sequence[str], relevant: set[str], k: int) -> float:
    """Binary-gain nDCG@k; a relevant key counts once (at its first occurrence)."""
    seen: set[str] = set()
    dcg = 0.0
    for i, key in enumerate(ranked_keys[:k], 1):
        if key in relevant and key not in seen:
            seen.add(key)
            dcg += 1.0 / np.log2(i + 1)
    ideal = sum(1.0 / np.log2(i + 1) for i in range(1, min(len(relevant), k) + 1))
    return dcg / ideal if ideal else 0.0


def summarize(first: np.ndarray, ndcg10: np.ndarray, ks: Sequence[int]) -> dict[str, float]:
    """recall@k (share of questions with a relevant item in the top k), MRR, nDCG@10."""
    out = {f"recall@{k}": float(np.mean((first > 0) & (first <= k))) for k in ks}
    out["mrr"] = float(np.mean(np.where(first > 0, 1.0 / np.maximum(first, 1), 0.0)))
    out["ndcg@10"] = float(np.mean(ndcg10))
    return out


def bootstrap(first: np.ndarray, ndcg10: np.ndarray, ks: Sequence[int],
              n: int = BOOTSTRAP, seed: int = SEED) -> dict[str, tuple[float, float]]:
    """95% percentile intervals of every summary metric, resampling questions."""
    rng = np.random.default_rng(seed)
    samples: dict[str, list[float]] = {}
    for _ in range(n):
        idx = rng.integers(0, len(first), len(first))
        for name, value in summarize(first[idx], ndcg10[idx], ks).items():
            samples.setdefault(name, []).append(value)
    return {name: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5)))
            for name, v in samples.items()}


def auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties counting one half (Mann–Whitney)."""
    p = np.asarray(pos, dtype=np.float64)[:, None]
    q = np.asarray(neg, dtype=np.float64)[None, :]
    if p.size == 0 or q.size == 0:
        return float("nan")
    return float(np.mean((p > q) + 0.5 * (p == q)))


def best_threshold(pos: Sequence[float], neg: Sequence[float]) -> dict[str, float]:
    """The threshold t maximising TPR − FPR (Youden's J) for "answer if score ≥ t"; ties
    between thresholds go to the smallest t (abstain less)."""
    p, q = np.asarray(pos, np.float64), np.asarray(neg, np.float64)
    best = {"threshold": 0.0, "tpr": 1.0, "fpr": 1.0, "j": 0.0}
    for t in np.unique(np.concatenate([p, q])):
        tpr, fpr = float(np.mean(p >= t)), float(np.mean(q >= t))
        if tpr - fpr > best["j"] + 1e-12:
            best = {"threshold": float(t), "tpr": tpr, "fpr": fpr, "j": tpr - fpr}
    return best
