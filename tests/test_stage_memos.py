"""The finer build-cache entries (issue 27): the norms' pages (render/normcache.py), the quotes
that passed (gate/linkcache.QuoteMemo), the clean prose items (content/prosememo.py) and the
pages free of inline code (web/inline.py). Each invalidates exactly what it must: a guide or
practice edit keeps the norms' pages; a template, a static file, the corpus, the code or the
options re-render them; a memo from other inputs is empty; a failure is never remembered."""

from __future__ import annotations

import os
import shutil

import pytest
from support import AS_OF, CORPUS, SITE_SRC

from citavial.build import stagecache
from citavial.build.atomic import write_staged
from citavial.build.content.prose import ProseItem
from citavial.build.content.prosememo import ProseMemo, item_digest
from citavial.build.errors import BuildError
from citavial.build.gate.linkcache import QuoteMemo
from citavial.build.gate.verify import QuoteCheck, Reason
from citavial.build.models import Citation
from citavial.build.render.normcache import norms_key
from citavial.build.stagecache import StageCache
from citavial.build.web import inline

INPUTS = "a" * 64


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("normcache") / "site_src"
    shutil.copytree(SITE_SRC, root)
    return root


def _append(path, text=" "):
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _first_guide(site):
    return sorted(p for p in (site / "content").glob("*.md") if p.name != "README.md")[0]


@pytest.mark.parametrize("edit, same", [
    pytest.param(lambda s: _append(_first_guide(s), "\nConviene repasarlo.\n"), True,
                 id="guide-edit"),
    pytest.param(lambda s: (s / "content" / "nueva.md").write_text("x"), True, id="new-guide"),
    pytest.param(lambda s: _append(sorted((s / "practice").rglob("*.*"))[0], "\n"), True,
                 id="practice-edit"),
    pytest.param(lambda s: _append(s / "templates" / "unit.html"), False, id="template-edit"),
    pytest.param(lambda s: _append(s / "static" / "site.css", "\n"), False, id="static-edit"),
    pytest.param(lambda s: (s / "templates" / "nuevo.html").write_text("x"), False,
                 id="new-template"),
    pytest.param(lambda s: _append(s / "ERRATA.md", "\n"), False, id="top-level-file"),
])
def test_the_norms_key_follows_what_the_norm_pages_read(tmp_path, edit, same):
    work = tmp_path / "site_src"
    shutil.copytree(SITE_SRC, work)
    before = norms_key(INPUTS, work, "")
    assert norms_key(INPUTS, work, "") == before
    edit(work)
    assert (norms_key(INPUTS, work, "") == before) is same


def test_the_norms_key_follows_the_inputs_and_the_options(site):
    keys = {norms_key(i, site, url) for i, url in [(INPUTS, ""), ("b" * 64, ""),
                                                   (INPUTS, "https://a.example/")]}
    assert len(keys) == 3
    assert norms_key("", site, "") == ""   # the cache off: no key, nothing kept


def test_the_inputs_digest_follows_the_corpus_and_the_code_version(tmp_path, monkeypatch):
    """Every memo is keyed under the inputs digest: a corpus byte or the build's code changed
    is another digest, so no entry of the old one is read."""
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    before = stagecache.inputs_digest(corpus, AS_OF)
    _append(next(p for p in sorted((corpus / "hooks").rglob("*")) if p.is_file()), "\n")
    edited = stagecache.inputs_digest(corpus, AS_OF)
    assert edited != before
    monkeypatch.setattr(stagecache, "code_version", lambda: "another build")
    assert stagecache.inputs_digest(corpus, AS_OF) not in (before, edited)


def _check(ref, quote, url="", code=None, reason=""):
    return QuoteCheck(Citation("g.md", 3, ref, quote, ""), reason, url, code)


def test_only_passed_quotes_are_remembered_under_their_pages_key(tmp_path):
    cache = StageCache(tmp_path)
    memo = QuoteMemo(cache, "k" * 64)
    assert memo == {}
    memo.save([_check("RD-1428/2003#art48.1", "los turismos", "art48.html#:~:text=x"),
               _check("RD-1428/2003#art49", "no está", code=Reason.NOT_FOUND,
                      reason="not found")])
    assert QuoteMemo(cache, "k" * 64) == {("RD-1428/2003#art48.1", "los turismos"):
                                          "art48.html#:~:text=x"}
    assert QuoteMemo(cache, "j" * 64) == {}   # other pages: nothing
    assert QuoteMemo(StageCache(None), "k" * 64) == {}


def test_verify_takes_a_remembered_pass_and_judges_the_rest(monkeypatch):
    from citavial.build.gate import verify as gate
    judged = []

    def judge(_reg, _pages, cit):
        judged.append(cit.quote)
        return QuoteCheck(cit, "", "judged.html")

    monkeypatch.setattr(gate, "check_quote", judge)
    monkeypatch.setattr(gate, "regulation_for", lambda *_a: None)
    cits = [Citation("g.md", 1, "RD-1428/2003#art48.1", "los turismos", ""),
            Citation("g.md", 2, "RD-1428/2003#art48.1", "otras palabras", "")]
    checks, allowlist = gate.verify(None, SITE_SRC, cits, pages=object(), with_allowlist=False,
                                    passed={("RD-1428/2003#art48.1", "los turismos"): "kept"})
    assert [c.url for c in checks] == ["kept", "judged.html"] and judged == ["otras palabras"]
    assert allowlist == []


def _item(text, line=1, quote="las palabras"):
    cit = Citation("g.md", line, "RD-1428/2003#art48.1", quote, "")
    return ProseItem("g.md", line, text, (cit,))


def test_a_prose_items_digest_is_its_words_and_citations_not_its_place():
    assert item_digest(_item("A 90 km/h.", 1)) == item_digest(_item("A 90 km/h.", 40))
    assert item_digest(_item("A 90 km/h.")) != item_digest(_item("A 100 km/h."))
    assert item_digest(_item("A 90 km/h.")) != item_digest(_item("A 90 km/h.", quote="otras"))


def test_prose_memo_skips_clean_items_and_checks_the_rest(tmp_path, monkeypatch):
    from citavial.build.content import prosememo
    seen = []

    def check(item, _passages):
        seen.append(item.text)
        return [BuildError("g.md:1", "bad number", "fix")] if "100" in item.text else []

    monkeypatch.setattr(prosememo, "check_item", check)
    cache = StageCache(tmp_path)
    items = [_item("A 90 km/h."), _item("A 100 km/h.")]
    assert len(ProseMemo(cache, INPUTS).check(None, items)) == 1
    seen.clear()
    assert len(ProseMemo(cache, INPUTS).check(None, items)) == 1   # the finding again
    assert seen == ["A 100 km/h."]                                 # the clean one skipped
    seen.clear()
    ProseMemo(cache, "b" * 64).check(None, items)                  # other inputs: all checked
    assert seen == ["A 90 km/h.", "A 100 km/h."]


def test_pages_free_of_inline_code_are_not_parsed_again_and_a_bad_one_still_fails(
        tmp_path, monkeypatch):
    stage, cache = tmp_path / "stage", StageCache(tmp_path / "cache")
    write_staged(stage / "a.html", "<p>hola</p>")
    write_staged(stage / "b.html", "<p>adiós</p>")
    assert inline.check_pages(stage, cache) == 2
    parsed = []
    real = inline.violations
    monkeypatch.setattr(inline, "violations", lambda html: parsed.append(html) or real(html))
    assert inline.check_pages(stage, cache) == 2 and parsed == []
    write_staged(stage / "b.html", '<p onclick="x()">adiós</p>')
    with pytest.raises(BuildError, match="b.html: line 1: event-handler"):
        inline.check_pages(stage, cache)
    assert parsed == ['<p onclick="x()">adiós</p>']


def test_writing_a_staged_file_never_writes_through_a_hard_link(tmp_path):
    """A page restored from the cache is a hard link to its blob: rewriting the page (publish
    rewrites every page's asset URLs) must leave the blob's bytes alone."""
    blob, page = tmp_path / "blob", tmp_path / "stage" / "p.html"
    blob.write_text("cached")
    page.parent.mkdir()
    os.link(blob, page)
    write_staged(page, "rewritten")
    assert blob.read_text() == "cached" and page.read_text() == "rewritten"
    assert os.stat(page).st_ino != os.stat(blob).st_ino


def test_a_staged_file_in_a_new_folder_is_written_with_its_folders(tmp_path):
    deep = tmp_path / "stage" / "vehiculos" / "anexos" / "p.html"
    write_staged(deep, "nuevo")
    write_staged(deep, "otra vez")   # an existing file of this build: replaced
    assert deep.read_text() == "otra vez"
    assert [p.name for p in (tmp_path / "stage").rglob("*")] == ["vehiculos", "anexos", "p.html"]
