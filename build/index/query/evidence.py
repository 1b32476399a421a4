"""Evidence: named features of one retrieval, for the worker's abstention gate.

Each is a float where larger means "more likely answerable from this regulation" — lexical only:
the embedding channels are not computed on the default search path (lexical.py); `citavial
eval` measures how well each separates the golden set's positives from its negatives (AUC) and
suggests a threshold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypedDict

import numpy as np

from citavial.build.index.bm25 import Bm25Matrix

FEATURES = ("lexical_top", "bm25_top", "bm25_norm", "terms_known", "hooks_lex_top",
            "fused_top")


class ChannelScores(TypedDict):
    """Searcher.channel_scores: each channel's score of every passage, plus (underscored) the
    question's terms and the raw hook-level scores the evidence reads."""

    bm25: np.ndarray
    vector: np.ndarray
    hooks_lex: np.ndarray
    hooks_cos: np.ndarray
    lexical: np.ndarray
    _terms: list[str]
    _hook_lex: np.ndarray
    _hook_cos: np.ndarray


class Index(Protocol):
    """What the evidence reads of a Searcher (search.py imports this module, not the reverse)."""

    term_ids: dict[str, int]
    bm25: Bm25Matrix
    lexical: Mapping[str, Any]


def features(searcher: Index, scores: ChannelScores, ranks: dict[str, np.ndarray],
             fused: np.ndarray) -> tuple[tuple[str, float], ...]:
    terms = scores["_terms"]
    ids = [searcher.term_ids[t] for t in terms if t in searcher.term_ids]
    bm25_top = float(scores["bm25"].max(initial=0.0))
    bound = searcher.bm25.max_score(ids)
    values = {
        "lexical_top": float(scores["lexical"].max(initial=0)) / searcher.lexical["scale"],
        "bm25_top": bm25_top,
        "bm25_norm": bm25_top / bound if bound > 0 else 0.0,
        "terms_known": len(ids) / len(terms) if terms else 0.0,
        "hooks_lex_top": float(scores["_hook_lex"].max(initial=0.0)),
        "fused_top": float(fused.max(initial=0.0)),
    }
    return tuple((name, round(values[name], 6)) for name in FEATURES)
