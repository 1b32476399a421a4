"""Evidence: named features of one retrieval, for the worker's abstention gate.

Each is a float where larger means "more likely answerable from this regulation"; `citavial
eval` measures how well each separates the golden set's positives from its negatives (AUC) and
suggests a threshold.
"""

from __future__ import annotations

from typing import Any

import numpy as np

FEATURES = ("lexical_top", "bm25_top", "bm25_norm", "terms_known", "vector_top", "hooks_cos_top",
            "hooks_lex_top", "agreement", "fused_top")


def _top_unit(searcher: Any, ranked: np.ndarray) -> int:
    return int(searcher.unit_of[ranked[0]]) if len(ranked) else -1


def features(searcher: Any, scores: dict[str, Any], ranks: dict[str, np.ndarray],
             fused: np.ndarray) -> tuple[tuple[str, float], ...]:
    terms = scores["_terms"]
    ids = [searcher.term_ids[t] for t in terms if t in searcher.term_ids]
    bm25_top = float(scores["bm25"].max(initial=0.0))
    bound = searcher.bm25.max_score(ids)
    tops = [_top_unit(searcher, ranks[c]) for c in ("bm25", "vector", "hooks")]
    pairs = [(a, b) for i, a in enumerate(tops) for b in tops[i + 1:]]
    agree = sum(1 for a, b in pairs if a == b and a >= 0) / len(pairs)
    values = {
        "lexical_top": float(scores["lexical"].max(initial=0)) / searcher.lexical["scale"],
        "bm25_top": bm25_top,
        "bm25_norm": bm25_top / bound if bound > 0 else 0.0,
        "terms_known": len(ids) / len(terms) if terms else 0.0,
        "vector_top": float(scores["vector"].max(initial=0.0)),
        "hooks_cos_top": float(scores["_hook_cos"].max(initial=0.0)),
        "hooks_lex_top": float(scores["_hook_lex"].max(initial=0.0)),
        "agreement": agree,
        "fused_top": float(fused.max(initial=0.0)),
    }
    return tuple((name, round(values[name], 6)) for name in FEATURES)
