"""Channels: how one question scores every passage, each channel on its own.

"bm25" (passages with their article label, title and context), "vector" (cosine of model2vec
embeddings), "hooks_lex"/"hooks_cos" (the question matched against hook questions, lexically and
by cosine; a passage scores its best hook) and "lexical" (lexical.py: BM25 over passages
expanded with their hooks, the default ranking). The rankers (rankers.py) combine them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from citavial.build.index.analyze import analyze, is_exact
from citavial.build.index.bm25 import Bm25Matrix
from citavial.build.index.embed import Embedder
from citavial.build.index.hooks import best_per_passage
from citavial.build.index.query import fuse, lexical

PASSAGE_CHANNELS = ("bm25", "vector", "hooks_lex", "hooks_cos", "lexical")


@dataclass(frozen=True, eq=False)
class ChannelScores:
    """One question's scores: ``passages`` maps each of PASSAGE_CHANNELS to a score per passage,
    ``hooks`` maps "lex"/"cos" to a score per hook question, ``terms`` are the question's
    analysed terms (analyze.analyze)."""

    passages: Mapping[str, np.ndarray]
    hooks: Mapping[str, np.ndarray]
    terms: tuple[str, ...]


def _bm25(arrays: Mapping[str, np.ndarray], prefix: str, vocab: list[str]) -> Bm25Matrix:
    return Bm25Matrix(vocab=tuple(vocab), indptr=arrays[f"{prefix}_indptr"],
                      docs=arrays[f"{prefix}_docs"], weights=arrays[f"{prefix}_weights"],
                      n_docs=int(arrays[f"{prefix}_ndocs"][0]))


@dataclass(frozen=True, eq=False)
class Channels:
    """The scoring data of a loaded index: two BM25 matrices (passages, hook questions), the
    embeddings and the lexical ranking's postings."""

    bm25: Bm25Matrix
    term_ids: Mapping[str, int]
    hooks_bm25: Bm25Matrix
    hook_term_ids: Mapping[str, int]
    embedder: Embedder
    passage_vecs: np.ndarray
    hook_vecs: np.ndarray
    hook_passage: np.ndarray          # the Documents' array: hook row → passage row
    lexical: Mapping[str, Any]        # lexical.build_lexical's data, as stored
    lex_stem_id: Mapping[str, int]
    lex_postings: Sequence[tuple[np.ndarray, np.ndarray]]

    @classmethod
    def from_index(cls, docs: Mapping[str, Any], arrays: Mapping[str, np.ndarray],
                   embedder: Embedder, hook_passage: np.ndarray) -> Channels:
        bm25 = _bm25(arrays, "bm25", docs["terms"]["passages"])
        hooks_bm25 = _bm25(arrays, "hooks_bm25", docs["terms"]["hooks"])
        lex = docs["lexical"]
        return cls(bm25=bm25, term_ids=bm25.term_ids(), hooks_bm25=hooks_bm25,
                   hook_term_ids=hooks_bm25.term_ids(), embedder=embedder,
                   passage_vecs=arrays["passage_vecs"].astype(np.float32),
                   hook_vecs=arrays["hook_vecs"].astype(np.float32), hook_passage=hook_passage,
                   lexical=lex, lex_stem_id={s: i for i, s in enumerate(lex["stems"])},
                   lex_postings=lexical.postings_arrays(lex))

    @property
    def n_passages(self) -> int:
        return self.bm25.n_docs

    def scores(self, question: str, vectors: bool = True) -> ChannelScores:
        """Every channel's score of every passage. Without ``vectors`` (the default lexical
        ranking needs none) the embedding channels are zero."""
        terms = analyze(question)
        n = self.n_passages
        hook_lex = self.hooks_bm25.score([self.hook_term_ids[t] for t in terms
                                          if t in self.hook_term_ids])
        if vectors:
            qv = self.embedder.encode([question])[0]
            vector, hook_cos = self.passage_vecs @ qv, self.hook_vecs @ qv
        else:
            vector, hook_cos = np.zeros(n, np.float32), np.zeros(len(self.hook_passage))
        passages = {
            "bm25": self.bm25.score([self.term_ids[t] for t in terms if t in self.term_ids]),
            "vector": vector,
            "hooks_lex": best_per_passage(hook_lex, self.hook_passage, n),
            "hooks_cos": best_per_passage(hook_cos, self.hook_passage, n),
            "lexical": lexical.scores(self.lex_postings, self.lexical, self.lex_stem_id,
                                      question, n)}
        return ChannelScores(passages=passages, hooks={"lex": hook_lex, "cos": hook_cos},
                             terms=tuple(terms))

    def exact_share(self, terms: Sequence[str]) -> np.ndarray:
        """Per passage, the share of the question's exact terms (analyze.is_exact) it contains."""
        exact = sorted({self.term_ids[t] for t in terms if t in self.term_ids and is_exact(t)})
        share = np.zeros(self.n_passages, dtype=np.float64)
        for t in exact:
            lo, hi = self.bm25.indptr[t], self.bm25.indptr[t + 1]
            share[self.bm25.docs[lo:hi]] += 1.0 / len(exact)
        return share

    def meaning(self, question: str, rows: Sequence[int]) -> list[float]:
        """Each passage row's cosine with ``question`` plus the best cosine of its hook
        questions (the bundled static embeddings)."""
        qv = self.embedder.encode([question])[0]
        best = best_per_passage(self.hook_vecs @ qv, self.hook_passage, self.n_passages)
        return [float(self.passage_vecs[r] @ qv) + float(best[r]) for r in rows]

def rankings(scores: ChannelScores, tiebreak: np.ndarray, depth: int) -> dict[str, np.ndarray]:
    """Each fused channel's passages, best first, cut at ``depth``; "hooks" fuses the lexical
    and cosine matches of the hook questions."""
    p = scores.passages
    out = {"bm25": fuse.order(p["bm25"], tiebreak, depth),
           "vector": fuse.order(p["vector"], tiebreak, depth)}
    lex = fuse.order(p["hooks_lex"], tiebreak, depth)
    cos = fuse.order(p["hooks_cos"], tiebreak, depth)
    hooks = fuse.rrf({"lex": lex, "cos": cos}, len(tiebreak), {"lex": 1.0, "cos": 1.0})
    out["hooks"] = fuse.order(hooks, tiebreak, depth)
    return out
