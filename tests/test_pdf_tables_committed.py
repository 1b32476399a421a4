"""RD 818/2009's tables, read from its PDF once and committed beside it
(corpus/norms/BOE-A-2009-9481.tables.json, build/ingest/markdown/pdftables.py): builds take them
instead of running poppler, only when they were read from these very bytes by this very code,
and they are what poppler reads today."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from support import AS_OF, CORPUS

from citavial.build.corpus.norms import verify_norms
from citavial.build.errors import BuildError
from citavial.build.ingest.markdown import TABLES, _pages, ingest_norm, pdftables

NEEDS_POPPLER = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                   reason="needs poppler-utils (pdftotext, pdftocairo)")
COPY = verify_norms(CORPUS)["RD-818/2009"]
PDF = COPY.pdf
PAGES = _pages("RD-818/2009")
STALE = (f"{pdftables.committed_path(PDF).relative_to(CORPUS.parent)} is not what this code "
         f"reads from the PDF: run `citavial fetch {COPY.boe_id} --tables` and commit it")


def test_the_committed_tables_are_current():
    """They record this PDF's sha256 and this module's: a build takes them (no poppler)."""
    assert pdftables.committed_tables(PDF, PAGES) is not None, STALE


@NEEDS_POPPLER
def test_the_committed_tables_are_what_poppler_reads():
    """Read again from the PDF with poppler: the very cells committed, every page a table."""
    fresh = pdftables.extract(PDF, PAGES)
    assert all(fresh[p] for p in PAGES)
    assert pdftables.committed_tables(PDF, PAGES) == fresh, STALE


def test_a_build_reads_them_without_poppler(monkeypatch):
    """poppler-utils need not be installed to build: the ingest of RD 818/2009 takes the
    committed tables, and its table passages hold their cells."""
    def no_poppler(args, *_rest, **_kw):
        raise BuildError(args[0], "is not installed; RD 818/2009's tables are read from its PDF",
                         "install poppler-utils (apt-get install poppler-utils)")

    monkeypatch.setattr(pdftables, "_poppler", no_poppler)
    reg = ingest_norm(COPY, AS_OF)
    tables = [b.table for u in reg.units for b in u.blocks if b.source_class == "pdf-table"]
    assert len(tables) >= len(TABLES["RD-818/2009"])   # a table, or a passage per row
    committed = pdftables.committed_tables(PDF, PAGES)
    texts = {c[4] for grids in committed.values() for grid in grids for c in grid if c[4]}
    assert {c.text for t in tables for row in t.rows for c in row if c.text} <= texts


def _committed() -> dict:
    return json.loads(pdftables.committed_path(PDF).read_text("utf-8"))


def _stale(doc: dict, what: str) -> dict:
    doc = json.loads(json.dumps(doc))
    if what == "other-pdf":
        doc["pdf_sha256"] = hashlib.sha256(b"another PDF").hexdigest()
    elif what == "other-code":
        doc["extractor_sha256"] = hashlib.sha256(b"another reader").hexdigest()
    elif what == "page-missing":
        del doc["pages"][str(PAGES[-1])]
    elif what == "cell-not-text":
        doc["pages"][str(PAGES[0])][0][0][4] = 12
    elif what == "cell-short":
        doc["pages"][str(PAGES[0])][0][0] = [0, 0, 1, "x"]
    elif what == "other-schema":
        doc["schema"] = "citavial-pdf-tables/0"
    return doc


@pytest.mark.parametrize("what", ["other-pdf", "other-code", "page-missing", "cell-not-text",
                                  "cell-short", "other-schema", "not-json"])
def test_stale_or_malformed_tables_are_read_again_from_the_pdf(tmp_path, monkeypatch, what):
    """Tables recorded for other bytes or other code, or of the wrong shape, are not taken:
    the PDF is read again (here a stand-in for poppler), never half of them used."""
    pdf = tmp_path / PDF.name
    shutil.copyfile(PDF, pdf)
    path = pdftables.committed_path(pdf)
    path.write_text("{" if what == "not-json" else json.dumps(_stale(_committed(), what)),
                    encoding="utf-8")
    assert pdftables.committed_tables(pdf, PAGES) is None
    read_again = {p: [] for p in PAGES}
    monkeypatch.setattr(pdftables, "extract", lambda *_a: read_again)
    assert pdftables.read_tables(pdf, PAGES, None) is read_again


def test_a_copy_of_the_committed_file_is_taken(tmp_path, monkeypatch):
    """The same check passes for an unchanged copy (the stale cases above mean something)."""
    pdf = tmp_path / PDF.name
    shutil.copyfile(PDF, pdf)
    shutil.copyfile(pdftables.committed_path(PDF), pdftables.committed_path(pdf))
    monkeypatch.setattr(pdftables, "extract", lambda *_a: pytest.fail("read from the PDF"))
    assert pdftables.read_tables(pdf, PAGES, None) == pdftables.committed_tables(PDF, PAGES)


@NEEDS_POPPLER
def test_fetch_tables_writes_them(tmp_path, capsys):
    """`citavial fetch <id> --tables` reads them with poppler into the file builds take."""
    from citavial.worker.cli import main
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS / "norms", corpus / "norms")
    written = pdftables.committed_path(corpus / "norms" / PDF.name)
    written.unlink()
    assert main(["fetch", COPY.boe_id, "--tables", "--corpus", str(corpus)]) == 0
    assert f"{len(PAGES)} pages of {PDF.name}" in capsys.readouterr().out
    assert pdftables.committed_tables(written.with_name(PDF.name), PAGES) \
        == pdftables.committed_tables(PDF, PAGES)
    doc = json.loads(written.read_text("utf-8"))
    assert doc["pages"] == _committed()["pages"] and doc["pdf"] == PDF.name


def test_fetch_tables_names_the_copies_that_have_them(tmp_path, capsys):
    from citavial.worker.cli import main
    assert main(["fetch", "BOE-A-2015-11722", "--tables", "--corpus", str(CORPUS)]) == 1
    err = capsys.readouterr().err
    assert "BOE-A-2015-11722: is not a copy in corpus/norms/ whose tables are read from its PDF" \
        in err and f"name one of: {COPY.boe_id}" in err


def test_committed_file_is_one_cell_per_line():
    """A diff of a re-read shows the cells that changed."""
    text = pdftables.committed_path(PDF).read_text("utf-8")
    cells = sum(len(grid) for grids in _committed()["pages"].values() for grid in grids)
    assert sum(1 for line in text.splitlines() if line.startswith("    [")) == cells
    assert text.endswith("}\n") and Path(PDF).name in text


def test_check_renders_again_when_the_tables_change(tmp_path):
    """`citavial check` keys its rendered pages by the corpus manifests, which do not list the
    committed tables: their bytes are in its key too."""
    from support import SITE_SRC

    from citavial.build.check.cache import cache_key
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS / "norms", corpus / "norms")
    shutil.copyfile(CORPUS / "MANIFEST.json", corpus / "MANIFEST.json")
    before = cache_key(corpus, SITE_SRC, AS_OF)
    assert cache_key(corpus, SITE_SRC, AS_OF) == before
    tables = pdftables.committed_path(corpus / "norms" / PDF.name)
    tables.write_text(tables.read_text("utf-8").replace("Clase de permiso", "Clase"), "utf-8")
    assert cache_key(corpus, SITE_SRC, AS_OF) != before


def test_stale_tables_without_poppler_say_what_to_do(tmp_path, monkeypatch):
    """A reader edited since the file was written, on a machine without poppler: the error
    names the committed file, why it is not taken, and the command that rewrites it."""
    pdf = tmp_path / PDF.name
    shutil.copyfile(PDF, pdf)
    pdftables.committed_path(pdf).write_text(json.dumps(_stale(_committed(), "other-code")),
                                             encoding="utf-8")

    def no_poppler(args, *_rest, **_kw):
        raise pdftables.PopplerMissing(args[0], "is not installed", "install poppler-utils")

    monkeypatch.setattr(pdftables, "_poppler", no_poppler)
    with pytest.raises(BuildError) as err:
        pdftables.read_tables(pdf, PAGES, None)
    assert err.value.where == str(pdftables.committed_path(pdf))
    assert "was not written from this PDF by this reader's code" in err.value.problem
    assert "is not installed" in err.value.problem and "--tables" in err.value.fix
    pdftables.committed_path(pdf).unlink()   # no committed file: poppler's own error
    with pytest.raises(pdftables.PopplerMissing):
        pdftables.read_tables(pdf, PAGES, None)
