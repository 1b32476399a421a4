"""BM25: the lexical channel, rank-bm25's BM25Okapi frozen into a term → postings matrix.

The idf, lengths and term frequencies are computed as rank-bm25 computes them (vectorised here:
a test compares the weights bit for bit); the per-(term, passage) weights idf·tf·(k1+1)/(tf + k1·(1−b+b·dl/avgdl)) are then stored as a CSR matrix, so a query
is a sum of a few posting rows (microseconds) and loading needs no re-indexing. Scores equal
``BM25Okapi.get_scores`` (pinned by a differential test against a brute-force scorer).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

K1 = 1.2
B = 0.75
EPSILON = 0.25


@dataclass(frozen=True, eq=False)
class Bm25Matrix:
    """Postings of every term: rows ``indptr[t]:indptr[t+1]`` of ``docs``/``weights``."""

    vocab: tuple[str, ...]          # sorted terms; term id = position
    indptr: np.ndarray              # int32, len(vocab) + 1
    docs: np.ndarray                # int32 document ids
    weights: np.ndarray             # float32 BM25 contribution of the term in the document
    n_docs: int

    def __repr__(self) -> str:
        return f"Bm25Matrix({len(self.vocab)} terms, {self.n_docs} docs, {len(self.docs)} postings)"

    def term_ids(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.vocab)}

    def score(self, term_ids: Sequence[int]) -> np.ndarray:
        """BM25 score of every document for a query given as term ids (repeats count)."""
        scores = np.zeros(self.n_docs, dtype=np.float32)
        for t in term_ids:
            lo, hi = self.indptr[t], self.indptr[t + 1]
            scores[self.docs[lo:hi]] += self.weights[lo:hi]
        return scores

    def max_score(self, term_ids: Sequence[int]) -> float:
        """Upper bound of the query's score: the sum of each term's largest weight."""
        return float(sum(self.weights[self.indptr[t]:self.indptr[t + 1]].max(initial=0.0)
                         for t in term_ids))


def build_bm25(docs: Sequence[Sequence[str]], k1: float = K1, b: float = B,
               epsilon: float = EPSILON) -> Bm25Matrix:
    """Index tokenised documents and freeze the weights: rank-bm25's ``BM25Okapi`` formulas
    (tests/test_index_bm25.py compares them), computed with numpy over (term, document) pairs
    instead of rank-bm25's per-word dicts (which cost about a second per index)."""
    if not any(docs):   # nothing to index; an empty index scores 0 everywhere
        return Bm25Matrix(vocab=(), indptr=np.zeros(1, np.int32), docs=np.zeros(0, np.int32),
                          weights=np.zeros(0, np.float32), n_docs=len(docs))
    vocab = tuple(sorted(set(chain.from_iterable(docs))))
    ids = {t: i for i, t in enumerate(vocab)}
    lens = [len(d) for d in docs]
    flat = np.fromiter(map(ids.__getitem__, chain.from_iterable(docs)), dtype=np.int64,
                       count=sum(lens))
    doc_of = np.repeat(np.arange(len(docs), dtype=np.int64), lens)
    pairs, tf = np.unique(flat * len(docs) + doc_of, return_counts=True)   # term-major, docs asc
    term, doc = np.divmod(pairs, len(docs))
    idf = _idf(flat, np.bincount(term, minlength=len(vocab)), len(docs), epsilon)
    avgdl = sum(lens) / len(docs)
    norm = k1 * (1 - b + b * np.asarray(lens, dtype=np.float64) / avgdl)
    weights = idf[term] * tf * (k1 + 1) / (tf + norm[doc])
    indptr = np.zeros(len(vocab) + 1, dtype=np.int32)
    indptr[1:] = np.cumsum(np.bincount(term, minlength=len(vocab)))
    return Bm25Matrix(vocab=vocab, indptr=indptr, docs=doc.astype(np.int32),
                      weights=weights.astype(np.float32), n_docs=len(docs))


def _idf(flat: np.ndarray, nd: np.ndarray, n_docs: int, epsilon: float) -> np.ndarray:
    """rank-bm25's idf, bit for bit: math.log per term, and the epsilon floor of negative idfs
    from the average idf summed in the order terms first occur (float sums depend on order)."""
    _, first = np.unique(flat, return_index=True)
    idf = np.zeros(len(nd), dtype=np.float64)
    total = 0.0
    for t in np.argsort(first, kind="stable").tolist():
        freq = int(nd[t])
        idf[t] = math.log(n_docs - freq + 0.5) - math.log(freq + 0.5)
        total += float(idf[t])
    idf[idf < 0] = epsilon * (total / len(nd))
    return idf


def build_bm25_parts(docs: Sequence[Sequence[str]], parts: Sequence[str], k1: float = K1,
                     b: float = B, epsilon: float = EPSILON) -> Bm25Matrix:
    """One matrix over ``docs`` whose weights are those of a separate BM25 per part (each
    norm is its own collection: its idf and average length are its own, so adding a norm never
    changes how the others' passages rank among themselves). A part's documents must be
    contiguous in ``docs``; the merged postings keep documents ascending within each term."""
    bounds = [0] + [i for i in range(1, len(parts)) if parts[i] != parts[i - 1]] + [len(parts)]
    if len(set(parts[lo] for lo in bounds[:-1])) != len(bounds) - 1:
        raise ValueError("build_bm25_parts: each part's documents must be contiguous")
    pieces = [(lo, build_bm25(docs[lo:hi], k1, b, epsilon)) for lo, hi in zip(bounds, bounds[1:], strict=False)]
    vocab = tuple(sorted({t for _, m in pieces for t in m.vocab}))
    gid = {t: i for i, t in enumerate(vocab)}
    terms, rows, weights = [], [], []
    for lo, m in pieces:
        counts = np.diff(m.indptr).astype(np.int64)   # numpy's stub: diff of int64 is timedelta
        local = np.repeat(np.arange(len(m.vocab), dtype=np.int64), counts)
        terms.append(np.array([gid[t] for t in m.vocab], dtype=np.int64)[local])
        rows.append(m.docs.astype(np.int64) + lo)
        weights.append(m.weights)
    term, row, weight = np.concatenate(terms), np.concatenate(rows), np.concatenate(weights)
    order = np.lexsort((row, term))
    indptr = np.zeros(len(vocab) + 1, dtype=np.int32)
    indptr[1:] = np.cumsum(np.bincount(term, minlength=len(vocab)))
    return Bm25Matrix(vocab=vocab, indptr=indptr, docs=row[order].astype(np.int32),
                      weights=weight[order].astype(np.float32), n_docs=len(docs))
