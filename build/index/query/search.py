"""Search: one question → ranked passages with the evidence of each channel.

Channels: "bm25" (passages with their article label, title and context), "vector" (cosine of
model2vec embeddings) and "hooks" (the question matched against hook questions, lexically and by
cosine; a passage scores its best hook). They are fused by Reciprocal Rank Fusion and rolled up
by article (see fuse.py). The evidence returned with each result is what the worker's abstention
gate reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from citavial.build.errors import BuildError
from citavial.build.index import signmatch
from citavial.build.index.analyze import analyze, is_exact
from citavial.build.index.bm25 import Bm25Matrix
from citavial.build.index.embed import Embedder
from citavial.build.index.hooks import best_per_passage
from citavial.build.index.query import fuse, lexical
from citavial.build.index.query.evidence import ChannelScores, features
from citavial.build.models import SearchHit, SearchResult, SignHit
from citavial.build.refs import Ref

CHANNELS = ("bm25", "vector", "hooks")
REF_SCORE = 1.0   # above any RRF score: a question that is a reference gets that reference first


@dataclass(frozen=True)
class Settings:
    """How channels are combined; the defaults are stored in the index manifest."""

    # Chosen on the golden set's odd ids without near-duplicate hooks (tests/bench/
    # bench_search.py --sweep): BM25 in the fusion lowered recall there, so it only acts
    # through ``exact_bonus`` and the evidence; collapsing after fusion beat before.
    weights: tuple[tuple[str, float], ...] = (("bm25", 0.0), ("hooks", 1.0), ("vector", 0.5))
    rrf_k: int = 30
    depth: int = 100          # how deep each channel's ranking enters the fusion
    collapse: str = "after"   # "after" or "before" fusion (see fuse.py)
    per_unit: int = 1         # passages of one roll-up group allowed in the head of the list
    head: int = 5             # how many places the roll-up applies to
    # A question naming something exactly (analyze.is_exact: "art. 94", "M-6.3", "50 km/h")
    # is answered by the passages that contain it, however few channels agree: each such
    # passage gets this many rank-1 votes (scaled by the share of exact terms it holds).
    exact_bonus: float = 2.0
    # "lexical": the shared lexical ranking (lexical.py: BM25 over passages expanded with their
    # hooks), chosen on the dev split; "fusion": the channels above fused by RRF (kept to score
    # each channel alone in `citavial eval`).
    ranker: str = "lexical"

    def __repr__(self) -> str:
        return f"Settings({dict(self.weights)}, {self.collapse}, per_unit={self.per_unit})"

    def as_json(self) -> dict[str, Any]:
        return {"weights": dict(self.weights), "rrf_k": self.rrf_k, "depth": self.depth,
                "collapse": self.collapse, "per_unit": self.per_unit, "head": self.head,
                "exact_bonus": self.exact_bonus, "ranker": self.ranker}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "Settings":
        return cls(weights=tuple(sorted(obj["weights"].items())), rrf_k=int(obj["rrf_k"]),
                   depth=int(obj["depth"]), collapse=obj["collapse"],
                   per_unit=int(obj["per_unit"]), head=int(obj["head"]),
                   exact_bonus=float(obj["exact_bonus"]), ranker=obj.get("ranker", "fusion"))


def _bm25(arrays: dict[str, np.ndarray], prefix: str, vocab: list[str]) -> Bm25Matrix:
    return Bm25Matrix(vocab=tuple(vocab), indptr=arrays[f"{prefix}_indptr"],
                      docs=arrays[f"{prefix}_docs"], weights=arrays[f"{prefix}_weights"],
                      n_docs=int(arrays[f"{prefix}_ndocs"][0]))


def _sorted_rank(keys: list[str]) -> np.ndarray:
    """Position of each key in sorted order: the tie-break of every ranking."""
    rank = np.empty(len(keys), dtype=np.int64)
    rank[np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)] = \
        np.arange(len(keys))
    return rank


class Searcher:
    """A loaded index. Build with ``Searcher.load(index_dir)``; thread-safe (read-only)."""

    def __init__(self, manifest: dict[str, Any], docs: dict[str, Any],
                 arrays: dict[str, np.ndarray], embedder: Embedder) -> None:
        p = docs["passages"]
        self.manifest = manifest
        self.version = manifest["version"]
        self.backend = manifest["backend"]
        self.settings = Settings.from_json(manifest["settings"])
        self.refs, self.urls = p["refs"], p["urls"]
        self.ref_row = {r: i for i, r in enumerate(self.refs)}
        self.fragments = [lexical.ref_key(r) for r in self.refs]
        self.labels, self.texts = p["labels"], p["texts"]
        self.tables: dict[str, list] = p.get("tables", {})
        self.units: list[str] = p["units"]
        self.unit_of = np.asarray(p["unit_of"], dtype=np.int64)
        self.group_of = np.asarray(p["group_of"], dtype=np.int64)
        self.tiebreak = _sorted_rank(self.refs)
        self.unit_tiebreak = _sorted_rank(self.units)
        self.bm25 = _bm25(arrays, "bm25", docs["terms"]["passages"])
        self.term_ids = self.bm25.term_ids()
        self.hooks_bm25 = _bm25(arrays, "hooks_bm25", docs["terms"]["hooks"])
        self.hook_term_ids = self.hooks_bm25.term_ids()
        self.hook_questions: list[str] = docs["hooks"]["questions"]
        self.hook_passage = arrays["hook_passage"].astype(np.int64)
        self.embedder = embedder
        self.passage_vecs = arrays["passage_vecs"].astype(np.float32)
        self.hook_vecs = arrays["hook_vecs"].astype(np.float32)
        self.lexical = docs["lexical"]
        self.lex_stem_id = {s: i for i, s in enumerate(self.lexical["stems"])}
        self.lex_postings = lexical.postings_arrays(self.lexical)
        self.signs = tuple(signmatch.sign_entry(o) for o in docs.get("signs", []))
        self.lex_stop = frozenset(self.lexical["stop"])

    def __repr__(self) -> str:
        return f"Searcher({self.backend}, {len(self.refs)} passages, v{self.version})"

    @classmethod
    def load(cls, index_dir: Path) -> "Searcher":
        from citavial.build.index.embed import load_embedder
        from citavial.build.index.store import FIX, read_index
        manifest, docs, arrays = read_index(index_dir)
        try:
            model = manifest["model"]
            folder = Path(index_dir) / "model" if model.get("bundled") else model["path"]
            embedder = load_embedder(folder)
            return cls(manifest, docs, arrays, embedder)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise BuildError(str(Path(index_dir) / "manifest.json"),
                             f"search index is incomplete or from another citavial version "
                             f"({type(err).__name__}: {err})", FIX) from None

    def channel_scores(self, question: str, vectors: bool = True) -> ChannelScores:
        """Each channel's score of every passage, plus the raw hook-level scores. Without
        ``vectors`` (the default lexical ranking needs none) the embedding channels are zero."""
        terms = analyze(question)
        n = len(self.refs)
        hook_lex = self.hooks_bm25.score([self.hook_term_ids[t] for t in terms
                                          if t in self.hook_term_ids])
        if vectors:
            qv = self.embedder.encode([question])[0]
            vector, hook_cos = self.passage_vecs @ qv, self.hook_vecs @ qv
        else:
            vector, hook_cos = np.zeros(n, np.float32), np.zeros(len(self.hook_passage))
        return {"bm25": self.bm25.score([self.term_ids[t] for t in terms if t in self.term_ids]),
                "vector": vector,
                "hooks_lex": best_per_passage(hook_lex, self.hook_passage, n),
                "hooks_cos": best_per_passage(hook_cos, self.hook_passage, n),
                "lexical": lexical.scores(self.lex_postings, self.lexical, self.lex_stem_id,
                                          question, n),
                "_terms": terms, "_hook_lex": hook_lex, "_hook_cos": hook_cos}

    def exact_bonus(self, terms: list[str]) -> np.ndarray:
        """Per passage, the share of the question's exact terms it contains."""
        exact = sorted({self.term_ids[t] for t in terms if t in self.term_ids and is_exact(t)})
        share = np.zeros(len(self.refs), dtype=np.float64)
        for t in exact:
            lo, hi = self.bm25.indptr[t], self.bm25.indptr[t + 1]
            share[self.bm25.docs[lo:hi]] += 1.0 / len(exact)
        return share

    def named(self, question: str) -> np.ndarray:
        """The passages a question that is only a reference names ("artículo 82.2", "anexo I,
        5"): the ref itself and what hangs from it, in document order."""
        from citavial.build.refs import RefError, parse_ref
        if len(question) > 60:
            return np.zeros(0, dtype=np.int64)
        try:
            ref = parse_ref(question.strip().rstrip("?.").lstrip("¿"))
        except RefError:
            return np.zeros(0, dtype=np.int64)
        named = Ref.parse(ref)
        return np.array([i for i, r in enumerate(self.refs) if named.contains(Ref.parse(r))],
                        dtype=np.int64)

    def rankings(self, scores: ChannelScores, depth: int) -> dict[str, np.ndarray]:
        tb = self.tiebreak
        out = {"bm25": fuse.order(scores["bm25"], tb, depth),
               "vector": fuse.order(scores["vector"], tb, depth)}
        lex = fuse.order(scores["hooks_lex"], tb, depth)
        cos = fuse.order(scores["hooks_cos"], tb, depth)
        hooks = fuse.rrf({"lex": lex, "cos": cos}, len(self.refs), {"lex": 1.0, "cos": 1.0})
        out["hooks"] = fuse.order(hooks, tb, depth)
        return out

    def search(self, question: str, k: int = 10, settings: Settings | None = None) -> SearchResult:
        """The ``k`` best passages, rolled up (one per group at the head), ties by ref; a
        question that is a bare reference gets that passage first. ``settings`` overrides the
        index's fusion (the evaluation scores each channel alone this way)."""
        s = settings or self.settings
        scores = self.channel_scores(question, vectors=s.ranker != "lexical")
        ranks = self.rankings(scores, s.depth)
        if s.ranker == "lexical":
            fused: np.ndarray = scores["lexical"].astype(np.float64) / self.lexical["scale"]
            first = lexical.named(self.fragments, question)
            ranked = np.array(lexical.rank(scores["lexical"], self.tiebreak,
                                           self.lexical["groups"], first=first), dtype=np.int64)
            if first:   # a reference-only question: its passages score above any other
                fused = fused.copy()
                fused[first] = fused.max(initial=0.0) + REF_SCORE
            return self._result(question, k, scores, ranks, fused, ranked)
        weights = dict(s.weights)
        fused = fuse.rrf(ranks, len(self.refs), weights, s.rrf_k)
        if s.exact_bonus:
            fused += self.exact_bonus(scores["_terms"]) * (s.exact_bonus / (s.rrf_k + 1))
        if s.collapse == "before":
            ranked = fuse.collapse_before({c: r for c, r in ranks.items() if weights.get(c)},
                                          fused, self.unit_of, len(self.units),
                                          self.unit_tiebreak, self.tiebreak, weights, s.rrf_k)
        else:
            ranked = fuse.order(fused, self.tiebreak)
        ranked = fuse.diversify(ranked, self.group_of, s.per_unit, s.head)
        named = self.named(question)
        if len(named):
            fused = fused.copy()
            fused[named] = REF_SCORE
            ranked = np.concatenate([named, ranked[~np.isin(ranked, named)]])
        return self._result(question, k, scores, ranks, fused, ranked)

    def _result(self, question: str, k: int, scores: ChannelScores,
                ranks: dict[str, np.ndarray], fused: np.ndarray,
                ranked: np.ndarray) -> SearchResult:
        ranked = ranked[:k]
        positions = {c: _positions(r, len(self.refs)) for c, r in ranks.items()}
        hits = tuple(
            SearchHit(ref=self.refs[i], unit_ref=self.units[self.unit_of[i]], url=self.urls[i],
                      score=round(float(fused[i]), 6), rank=n + 1, label=self.labels[i],
                      text=self.texts[i],
                      channels=tuple((c, int(positions[c][i])) for c in CHANNELS))
            for n, i in enumerate(ranked.tolist()))
        return SearchResult(query=question, hits=hits, backend=self.backend,
                            index_version=self.version,
                            evidence=features(self, scores, ranks, fused),
                            signs=self.sign_hits(question))

    def sign_hits(self, question: str) -> tuple[SignHit, ...]:
        """The signs ``question`` names by code or name (signmatch.py), best first."""
        if not self.signs:
            return ()
        found = signmatch.match(signmatch.prepare(self.lexical), question, self.lex_stop)
        return tuple(SignHit(self.signs[row], how) for row, how in found)


def _positions(ranked: np.ndarray, n: int) -> np.ndarray:
    pos = np.zeros(n, dtype=np.int64)
    pos[ranked] = np.arange(1, len(ranked) + 1)
    return pos
