"""Build caches (issue 27): the index's embeddings are kept in the user's cache between builds
(build/index/make/analysis.py) and a cached build writes the very bytes of an uncached one."""

from __future__ import annotations

import re

import numpy as np
import pytest
from support import AS_OF, CORPUS, SITE_SRC, tree_hash

from citavial.build.index.embed import corpus_model, load_embedder
from citavial.build.index.hooks import load_hooks, promoted_hooks
from citavial.build.index.make.analysis import CACHE_PREFIX, Analysis

TEXTS = ["¿Puedo adelantar en un paso de peatones?", "Circular por el arcén",
         "¿Puedo adelantar en un paso de peatones?", "zzz qqq", ""]


@pytest.fixture(scope="module")
def embedder():
    return load_embedder(corpus_model(CORPUS))


def test_shared_analysis_returns_what_the_embedder_returns(embedder):
    """Each distinct text is embedded once; the rows are the embedder's own, byte for byte."""
    analysis = Analysis(embedder)
    got = analysis.encode(TEXTS)
    assert got.tobytes() == embedder.encode(TEXTS).tobytes()
    assert analysis.embedded == len(set(TEXTS))
    assert analysis.encode(TEXTS[:2]).tobytes() == got[:2].tobytes()
    assert analysis.embedded == len(set(TEXTS))


def test_vectors_come_back_from_the_cache_unchanged(embedder, tmp_path):
    first = Analysis(embedder, tmp_path)
    vecs = first.encode(TEXTS)
    first.save()
    assert [p.name.startswith(CACHE_PREFIX) for p in tmp_path.iterdir()] == [True]
    again = Analysis(embedder, tmp_path)
    assert again.encode(TEXTS).tobytes() == vecs.tobytes()
    assert again.embedded == 0


def test_terms_come_back_from_the_cache_unchanged(embedder, tmp_path):
    from citavial.build.index.analyze import analyze
    from citavial.build.index.query.lexical import doc_terms, form_tokens
    first = Analysis(embedder, tmp_path)
    for t in TEXTS:
        first.terms(t), first.doc_terms(t)
    first.save()
    again = Analysis(embedder, tmp_path)
    assert again.store is not None and again.store.terms and again.store.docs
    for t in TEXTS:
        assert again.terms(t) == analyze(t)
        assert again.doc_terms(t) == doc_terms(t)
        assert again.form_tokens(t) == form_tokens(t)


@pytest.mark.parametrize("content", [
    pytest.param(b"", id="empty-file"),
    pytest.param(b"PK\x03\x04 truncated", id="truncated-zip"),
    pytest.param(b"not a cache at all", id="garbage"),
])
def test_unreadable_cache_is_recomputed_not_an_error(embedder, tmp_path, content):
    store = Analysis(embedder, tmp_path).store
    assert store is not None
    store.path.write_bytes(content)
    analysis = Analysis(embedder, tmp_path)
    assert analysis.encode(TEXTS).tobytes() == embedder.encode(TEXTS).tobytes()
    assert analysis.embedded == len(set(TEXTS))


def test_stale_keys_are_dropped_on_save(embedder, tmp_path):
    (tmp_path / f"{CACHE_PREFIX}0000older.npz").write_bytes(b"old model")
    analysis = Analysis(embedder, tmp_path)
    analysis.encode(TEXTS[:1])
    analysis.save()
    assert sorted(p.name for p in tmp_path.iterdir()) == [analysis.store.path.name]
    with np.load(analysis.store.path) as data:
        assert data["keys"].shape == (1, 32)


@pytest.mark.slow
def test_cached_build_is_byte_identical_to_an_uncached_one(built_site, tmp_path):
    """One extra build, reading a cache that already holds every hook question's vector (filled
    here without a build), against THE test build (no cache): the same tree, and the hooks were
    read from the cache, not embedded."""
    from citavial.build.pipeline import build_site
    fill = Analysis(load_embedder(corpus_model(CORPUS)), tmp_path / "cache")
    citable = set(re.findall(r'"ref": "([^"]+)"', (built_site / "allowlist.json").read_text()))
    for dev_clean in (False, True):
        hooks, _ = load_hooks(promoted_hooks(CORPUS, dev_clean=dev_clean), citable)
        fill.encode([h.question for h in hooks])
    fill.save()
    report = build_site(corpus_dir=CORPUS, out_dir=tmp_path / "dist", as_of=AS_OF,
                        site_src=SITE_SRC, cache_dir=tmp_path / "cache")
    embedded = int(re.search(r"(\d+) texts embedded", report).group(1))
    n_passages = int(re.search(r"(\d+) citable passages", report).group(1))
    assert 0 < embedded <= n_passages < fill.embedded
    assert tree_hash(tmp_path / "dist") == tree_hash(built_site)
