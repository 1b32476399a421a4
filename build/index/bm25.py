"""BM25: the lexical channel, built with rank-bm25 and frozen into a term → postings matrix.

rank-bm25 computes idf, lengths and term frequencies at build time; the per-(term, passage)
weights idf·tf·(k1+1)/(tf + k1·(1−b+b·dl/avgdl)) are then stored as a CSR matrix, so a query
is a sum of a few posting rows (microseconds) and loading needs no re-indexing. Scores equal
``BM25Okapi.get_scores`` (pinned by a differential test against a brute-force scorer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
    """Index tokenised documents with rank-bm25 and freeze the weights."""
    if not any(docs):   # rank-bm25 cannot index nothing; an empty index scores 0 everywhere
        return Bm25Matrix(vocab=(), indptr=np.zeros(1, np.int32), docs=np.zeros(0, np.int32),
                          weights=np.zeros(0, np.float32), n_docs=len(docs))
    from rank_bm25 import BM25Okapi  # build time only: a query process never needs it
    bm = BM25Okapi([list(d) for d in docs], k1=k1, b=b, epsilon=epsilon)
    vocab = tuple(sorted(bm.idf))
    ids = {t: i for i, t in enumerate(vocab)}
    rows: list[list[tuple[int, float]]] = [[] for _ in vocab]
    for d, freqs in enumerate(bm.doc_freqs):
        norm = k1 * (1 - b + b * bm.doc_len[d] / bm.avgdl)
        for term, tf in freqs.items():
            rows[ids[term]].append((d, bm.idf[term] * tf * (k1 + 1) / (tf + norm)))
    indptr = np.zeros(len(vocab) + 1, dtype=np.int32)
    indptr[1:] = np.cumsum([len(r) for r in rows])
    flat = [p for r in rows for p in r]
    return Bm25Matrix(vocab=vocab, indptr=indptr,
                      docs=np.array([d for d, _ in flat], dtype=np.int32),
                      weights=np.array([w for _, w in flat], dtype=np.float32),
                      n_docs=len(docs))
