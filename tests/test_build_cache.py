"""Build caches (issue 27): the index's embeddings (build/index/make/analysis.py) and the tables
read from RD 818/2009's PDF (build/ingest/markdown/pdftables.py) are kept in the user's cache
between builds, and a cached build writes the very bytes of an uncached one."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from support import AS_OF, CORPUS

from citavial.build.corpus.norms import verify_norms
from citavial.build.index.embed import corpus_model, load_embedder
from citavial.build.index.make.analysis import CACHE_PREFIX, Analysis
from citavial.build.ingest.markdown import pdftables

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


def test_what_two_indexes_share_is_computed_once_for_the_same_objects(embedder):
    """Analysis.shared: the product and dev-clean indexes are given the very same passages and
    URLs, so what they compute from the passages alone is computed once; other objects (even
    equal ones) are computed afresh."""
    analysis = Analysis(embedder)
    passages, urls, calls = ("p1", "p2"), {"p1": "u"}, []

    def compute():
        calls.append(1)
        return len(calls)

    assert analysis.shared((passages, urls), compute) == 1
    assert analysis.shared((passages, urls), compute) == 1
    assert analysis.shared((passages, dict(urls)), compute) == 2
    assert len(calls) == 2


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


# A cached build's bytes, with every hook question's vector read from the cache: one cold cached
# build shared with the stage cache's proofs (tests/test_stage_cache.py, cold_cached).


_NEEDS_POPPLER = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils")


@pytest.fixture
def uncommitted(monkeypatch):
    """As if the tables committed beside the PDF were stale (tests/test_pdf_tables_committed.py):
    the cache's own behaviour."""
    monkeypatch.setattr(pdftables, "committed_tables", lambda *_a: None)


@_NEEDS_POPPLER
def test_pdf_tables_come_back_from_the_cache_unchanged(tmp_path, monkeypatch, uncommitted):
    """The RD 818/2009 tables read from its PDF are kept by the PDF's hash: the second read is
    the first's, and no page is read from the PDF again. The first read takes each run of
    consecutive pages' words from one pdftotext: the very tables of one run per page."""
    pdf = verify_norms(CORPUS)["RD-818/2009"].pdf
    assert pdf is not None
    pages = [12, 13, 47]
    first = pdftables.read_tables(pdf, pages, tmp_path)
    assert first == {p: pdftables.page_tables(pdf, p) for p in pages}
    assert all(first[p] for p in pages)   # a table on each page: the comparison means something
    assert [p.name.startswith("pdftables-") for p in tmp_path.iterdir()] == [True]

    def no_poppler(*_args):
        raise AssertionError("a cached page was read from the PDF again")

    monkeypatch.setattr(pdftables, "page_tables", no_poppler)
    monkeypatch.setattr(pdftables, "_run_words", no_poppler)
    monkeypatch.setattr(pdftables, "_rules", no_poppler)
    assert pdftables.read_tables(pdf, pages, tmp_path) == first


@_NEEDS_POPPLER
@pytest.mark.parametrize("content", [
    pytest.param("", id="empty-file"),
    pytest.param('{"12": [[["x"]]]', id="truncated-json"),
    pytest.param('{"99": []}', id="other-pages"),
])
def test_unreadable_pdf_tables_cache_is_read_again_not_an_error(tmp_path, content, uncommitted):
    pdf = verify_norms(CORPUS)["RD-818/2009"].pdf
    assert pdf is not None
    expected = pdftables.read_tables(pdf, [12], None)
    pdftables.read_tables(pdf, [12], tmp_path)
    (cache,) = tmp_path.iterdir()
    cache.write_text(content, encoding="utf-8")
    assert pdftables.read_tables(pdf, [12], tmp_path) == expected


@_NEEDS_POPPLER
def test_tables_begun_before_the_ingest_give_the_same_norms():
    """The read stage begins reading RD 818/2009's PDF tables while it parses the XML
    (ingest/read.py: start_tables): the norms are those of reading them in turn."""
    from citavial.build.ingest.markdown import ingest_norms, start_tables
    copies = list(verify_norms(CORPUS).values())
    with ThreadPoolExecutor(max_workers=1) as pool:
        tables = start_tables(copies, pool)
        assert set(tables) == {"RD-818/2009"}   # the one norm with tables in its PDF
        early = ingest_norms(copies, AS_OF, None, tables)
    assert early == ingest_norms(copies, AS_OF)


def test_a_table_read_begun_early_fails_the_build_with_its_own_error(monkeypatch):
    """A failure in the background read (poppler missing) is the ingest's error, unchanged,
    not a second read on the ingest's own thread."""
    import threading

    from citavial.build.errors import BuildError
    from citavial.build.ingest import markdown

    read = markdown.read_tables

    def no_poppler(*args):   # only the read begun early fails: it must not be read again
        if threading.current_thread() is threading.main_thread():
            return read(*args)
        raise BuildError("pdftotext", "is not installed; RD 818/2009's tables are read from "
                         "its PDF", "install poppler-utils (apt-get install poppler-utils)")

    monkeypatch.setattr(markdown, "read_tables", no_poppler)
    copies = list(verify_norms(CORPUS).values())
    with ThreadPoolExecutor(max_workers=1) as pool:
        tables = markdown.start_tables(copies, pool)
        with pytest.raises(BuildError, match="pdftotext: is not installed"):
            markdown.ingest_norms(copies, AS_OF, None, tables)
