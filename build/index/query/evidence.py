"""Evidence: named features of one retrieval, for the worker's abstention gate.

Each is a float where larger means "more likely answerable from this regulation" — lexical only:
the embedding channels are not computed on the default search path (lexical.py); `citavial
eval` measures how well each separates the golden set's positives from its negatives (AUC) and
suggests a threshold.
"""

from __future__ import annotations

import numpy as np

from citavial.build.index.query.channels import Channels, ChannelScores

FEATURES = ("lexical_top", "bm25_top", "bm25_norm", "terms_known", "hooks_lex_top",
            "fused_top")


def features(channels: Channels, scores: ChannelScores,
             fused: np.ndarray) -> tuple[tuple[str, float], ...]:
    """The FEATURES of one search: its channel ``scores`` and the ranker's ``fused`` scores."""
    terms = scores.terms
    ids = [channels.term_ids[t] for t in terms if t in channels.term_ids]
    bm25_top = float(scores.passages["bm25"].max(initial=0.0))
    bound = channels.bm25.max_score(ids)
    values = {
        "lexical_top": float(scores.passages["lexical"].max(initial=0)) / channels.lexical["scale"],
        "bm25_top": bm25_top,
        "bm25_norm": bm25_top / bound if bound > 0 else 0.0,
        "terms_known": len(ids) / len(terms) if terms else 0.0,
        "hooks_lex_top": float(scores.hooks["lex"].max(initial=0.0)),
        "fused_top": float(fused.max(initial=0.0)),
    }
    return tuple((name, round(values[name], 6)) for name in FEATURES)
