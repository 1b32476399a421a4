"""BM25: the frozen postings matrix against rank-bm25 and against a brute-force scorer written
from the formula (Okapi BM25 with rank-bm25's idf floor: eps · mean idf for negative idfs)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from citavial.build.index.bm25 import EPSILON, K1, B, build_bm25, build_bm25_parts


def brute_force(docs, query, k1=K1, b=B, eps=EPSILON):
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / n
    vocab = {t for d in docs for t in d}
    df = {t: sum(1 for d in docs if t in d) for t in vocab}
    idf = {t: math.log(n - df[t] + 0.5) - math.log(df[t] + 0.5) for t in vocab}
    floor = eps * sum(idf.values()) / len(idf)
    idf = {t: (floor if v < 0 else v) for t, v in idf.items()}
    scores = []
    for d in docs:
        s = 0.0
        for q in query:
            tf = d.count(q)
            if tf:
                s += idf[q] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avgdl))
        scores.append(s)
    return scores


def score(matrix, query):
    ids = matrix.term_ids()
    return matrix.score([ids[t] for t in query if t in ids])


DOCS = [["velocidad", "autopista", "turismo"], ["velocidad", "velocidad", "ciclomotor"],
        ["adelantar", "curva"], ["turismo", "remolque", "autopista", "velocidad", "km/h"]]


@pytest.mark.parametrize("query", [
    pytest.param(["velocidad"], id="common-term-floored-idf"),
    pytest.param(["autopista", "turismo"], id="two-terms"),
    pytest.param(["curva", "curva"], id="repeated-term-counts-twice"),
    pytest.param(["inexistente"], id="unknown-term"),
    pytest.param([], id="empty"),
])
def test_table_against_rank_bm25_and_brute_force(query):
    m = build_bm25(DOCS)
    got = score(m, query)
    assert np.allclose(got, BM25Okapi(DOCS, k1=K1, b=B, epsilon=EPSILON).get_scores(query),
                       rtol=1e-5, atol=1e-6)
    assert np.allclose(got, brute_force(DOCS, query), rtol=1e-5, atol=1e-6)


words = st.sampled_from(["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"])


@settings(max_examples=150, deadline=None)
@given(docs=st.lists(st.lists(words, min_size=1, max_size=12), min_size=1, max_size=15),
       query=st.lists(words, max_size=5))
def test_random_corpora_match_brute_force(docs, query):
    assert np.allclose(score(build_bm25(docs), query), brute_force(docs, query),
                       rtol=1e-4, atol=1e-5)


def test_max_score_bounds_every_document():
    m = build_bm25(DOCS)
    ids = [m.term_ids()[t] for t in ("velocidad", "autopista")]
    assert m.max_score(ids) >= m.score(ids).max() > 0


def test_empty_corpus_scores_zero():
    m = build_bm25([[], []])
    assert m.vocab == () and m.score([]).tolist() == [0.0, 0.0]


def test_real_index_agrees_with_rank_bm25():
    """The shipped matrix, on the real passages, equals rank-bm25 built on the same tokens."""
    from index_helpers import passages

    from citavial.build.index.analyze import analyze
    from citavial.build.index.collect import contexts
    ps = passages()[:300]
    ctx = contexts(ps)
    docs = [analyze(f"{p.label}. {p.title}") + analyze(ctx[p.ref]) + analyze(p.text) for p in ps]
    query = analyze("¿A qué velocidad puede circular un turismo por autopista a 120 km/h?")
    expected = BM25Okapi(docs, k1=K1, b=B, epsilon=EPSILON).get_scores(query)
    assert np.allclose(score(build_bm25(docs), query), expected, rtol=1e-5, atol=1e-5)
    assert expected.max() > 0


def _frozen_by_rank_bm25(docs, k1=K1, b=B, eps=EPSILON):
    """The matrix as the build froze it from rank-bm25's own dicts (before it was vectorised)."""
    bm = BM25Okapi([list(d) for d in docs], k1=k1, b=b, epsilon=eps)
    vocab = tuple(sorted(bm.idf))
    ids = {t: i for i, t in enumerate(vocab)}
    rows = [[] for _ in vocab]
    for d, freqs in enumerate(bm.doc_freqs):
        norm = k1 * (1 - b + b * bm.doc_len[d] / bm.avgdl)
        for term, tf in freqs.items():
            rows[ids[term]].append((d, bm.idf[term] * tf * (k1 + 1) / (tf + norm)))
    flat = [p for r in rows for p in r]
    return (vocab, np.cumsum([0] + [len(r) for r in rows]).astype(np.int32),
            np.array([d for d, _ in flat], np.int32), np.array([w for _, w in flat], np.float32))


@pytest.mark.parametrize("docs", [
    pytest.param([["a", "b", "a"], ["b"], [], ["c", "a"]], id="small-with-empty-doc"),
    pytest.param([["x"] * 3 + ["y"], ["x", "z"], ["x"]], id="negative-idf-floor"),
    pytest.param("real-passages", id="real-passages"),
])
def test_vectorised_matrix_is_bit_identical_to_rank_bm25(docs):
    """The numpy build writes the very bytes rank-bm25's per-word dicts gave (the index files
    must not change): same vocabulary, postings and float32 weights."""
    if docs == "real-passages":
        from index_helpers import passages

        from citavial.build.index.analyze import analyze
        docs = [analyze(f"{p.label}. {p.title} {p.text}") for p in passages()[:400]]
    m = build_bm25(docs)
    vocab, indptr, rows, weights = _frozen_by_rank_bm25(docs)
    assert m.vocab == vocab
    assert m.indptr.tobytes() == indptr.tobytes()
    assert m.docs.tobytes() == rows.tobytes()
    assert m.weights.tobytes() == weights.tobytes()


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.sampled_from("abcdefg"), min_size=0, max_size=6), min_size=2,
                max_size=10),
       st.integers(min_value=1, max_value=9),
       st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=4))
def test_parts_score_as_separate_collections(docs, cut, query):
    """Each norm is its own collection: the merged matrix scores every document exactly as the
    BM25 of its own part does (a term absent from a part scores 0 there)."""
    cut = min(cut, len(docs) - 1)
    merged = build_bm25_parts(docs, ["RGC"] * cut + ["Ley"] * (len(docs) - cut))
    expected = []
    for part in (docs[:cut], docs[cut:]):
        m = build_bm25(part)
        expected.append(m.score([m.term_ids()[t] for t in query if t in m.term_ids()]))
    ids = merged.term_ids()
    got = merged.score([ids[t] for t in query if t in ids])
    assert np.array_equal(got, np.concatenate(expected))


def test_parts_must_be_contiguous():
    with pytest.raises(ValueError, match="contiguous"):
        build_bm25_parts([["a"], ["b"], ["a"]], ["RGC", "Ley", "RGC"])
