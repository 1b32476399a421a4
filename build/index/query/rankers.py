"""Rankers: the channels' scores of one question → one ordered list of passages.

Two, behind one protocol: ``LexicalRanker`` (the default: lexical.py's integer ranking, which
the static search page reproduces) and ``FusionRanker`` (the channels fused by Reciprocal Rank
Fusion and rolled up by article, fuse.py; kept to score each channel alone in `citavial eval`).
``Settings.ranker`` names the one a search uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from citavial.build.index.query import fuse, lexical
from citavial.build.index.query.channels import Channels, ChannelScores
from citavial.build.index.query.documents import Documents
from citavial.build.refs import Ref, RefError, parse_ref

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
    def from_json(cls, obj: dict[str, Any]) -> Settings:
        return cls(weights=tuple(sorted(obj["weights"].items())), rrf_k=int(obj["rrf_k"]),
                   depth=int(obj["depth"]), collapse=obj["collapse"],
                   per_unit=int(obj["per_unit"]), head=int(obj["head"]),
                   exact_bonus=float(obj["exact_bonus"]), ranker=obj.get("ranker", "fusion"))


@dataclass(frozen=True, eq=False)
class Ranked:
    """A ranker's answer: ``scores`` per passage (the hits' scores) and ``order``, the passage
    rows best first."""

    scores: np.ndarray
    order: np.ndarray


class Ranker(Protocol):
    """``vectors``: whether it reads the embedding channels (they are computed only then);
    ``rank`` gets the question, its channel scores and the channels' rankings (channels.py)."""

    @property
    def vectors(self) -> bool: ...

    def rank(self, question: str, scores: ChannelScores,
             ranks: Mapping[str, np.ndarray]) -> Ranked: ...


@dataclass(frozen=True, eq=False)
class LexicalRanker:
    """lexical.py's ranking; a reference-only question gets its passages first."""

    docs: Documents
    lexical: Mapping[str, Any]
    fragments: tuple[str, ...]    # lexical.ref_key of each passage

    vectors = False

    @classmethod
    def of(cls, docs: Documents, channels: Channels) -> LexicalRanker:
        return cls(docs, channels.lexical, tuple(lexical.ref_key(r) for r in docs.refs))

    def rank(self, question: str, scores: ChannelScores,
             ranks: Mapping[str, np.ndarray]) -> Ranked:
        score = scores.passages["lexical"]
        fused: np.ndarray = score.astype(np.float64) / self.lexical["scale"]
        first = lexical.named(self.fragments, question)
        order = np.array(lexical.rank(score, self.docs.tiebreak, self.lexical["groups"],
                                      first=first), dtype=np.int64)
        if first:   # a reference-only question: its passages score above any other
            fused[first] = fused.max(initial=0.0) + REF_SCORE
        return Ranked(fused, order)


@dataclass(frozen=True, eq=False)
class FusionRanker:
    """The channels' rankings fused by RRF with ``settings``' weights, plus the exact-term
    bonus, rolled up (fuse.py); a question that is a bare reference gets that passage first."""

    docs: Documents
    channels: Channels
    settings: Settings

    vectors = True

    def rank(self, question: str, scores: ChannelScores,
             ranks: Mapping[str, np.ndarray]) -> Ranked:
        s, d = self.settings, self.docs
        weights = dict(s.weights)
        fused = fuse.rrf(ranks, len(d), weights, s.rrf_k)
        if s.exact_bonus:
            fused += self.channels.exact_share(scores.terms) * (s.exact_bonus / (s.rrf_k + 1))
        if s.collapse == "before":
            order = fuse.collapse_before({c: r for c, r in ranks.items() if weights.get(c)},
                                         fused, d.unit_of, len(d.units), d.unit_tiebreak,
                                         d.tiebreak, weights, s.rrf_k)
        else:
            order = fuse.order(fused, d.tiebreak)
        order = fuse.diversify(order, d.group_of, s.per_unit, s.head)
        named = self.named(question)
        if len(named):
            fused[named] = REF_SCORE
            order = np.concatenate([named, order[~np.isin(order, named)]])
        return Ranked(fused, order)

    def named(self, question: str) -> np.ndarray:
        """The passages a question that is only a reference names ("artículo 82.2", "anexo I,
        5"): the ref itself and what hangs from it, in document order."""
        if len(question) > 60:
            return np.zeros(0, dtype=np.int64)
        try:
            ref = parse_ref(question.strip().rstrip("?.").lstrip("¿"))
        except RefError:
            return np.zeros(0, dtype=np.int64)
        named = Ref.parse(ref)
        return np.array([i for i, r in enumerate(self.docs.refs) if named.contains(Ref.parse(r))],
                        dtype=np.int64)

