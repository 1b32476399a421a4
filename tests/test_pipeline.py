"""The build is all-or-nothing: a failure leaves the previous dist/ byte-identical."""

from __future__ import annotations

import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest
from support import AS_OF, CORPUS, SITE_SRC, tree_hash

from citavial.build.pipeline import build_site
from citavial.worker.cli import main


@pytest.fixture
def previous_dist(tmp_path):
    out = tmp_path / "dist"
    out.mkdir()
    (out / "index.html").write_text("previous build")
    return out


def _break_corpus(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    xml = corpus / "BOE-A-2003-23514.xml"
    xml.write_bytes(xml.read_bytes()[:-100])
    return corpus, SITE_SRC


def _break_template(tmp_path):
    site = tmp_path / "site_src"
    shutil.copytree(SITE_SRC, site)
    tpl = site / "templates" / "unit.html"
    tpl.write_text(tpl.read_text().replace("{{ unit.label }}", "{{ unit.no_such_field }}", 1))
    return CORPUS, site


@pytest.mark.parametrize("breaker, message", [
    pytest.param(_break_corpus, "truncated", id="truncated-corpus"),
    pytest.param(_break_template, "no_such_field", id="template-missing-variable"),
])
def test_failed_build_leaves_dist_untouched(tmp_path, previous_dist, breaker, message):
    corpus, site = breaker(tmp_path)
    before = tree_hash(previous_dist)
    with pytest.raises(Exception) as err:
        build_site(corpus_dir=corpus, out_dir=previous_dist, as_of=AS_OF, site_src=site)
    assert message in str(err.value)
    assert tree_hash(previous_dist) == before
    leftovers = [p.name for p in previous_dist.parent.iterdir() if p.name.startswith(".dist.")]
    assert leftovers == []  # no staging directory left behind


def test_build_is_deterministic(cli_build, built_site):
    """Two cold builds of the same input, byte-identical: THE test build (build_site, earlier in
    this process) and this module's `citavial build --no-cache` (the command CI runs)."""
    out, _ = cli_build
    assert tree_hash(out) == tree_hash(built_site)


def test_cli_reports_one_line_error(tmp_path, capsys):
    corpus, _ = _break_corpus(tmp_path)
    code = main(["build", "--corpus", str(corpus), "--out", str(tmp_path / "dist"),
                 "--as-of", "2026-11-29"])
    assert code == 1
    err = capsys.readouterr().err
    assert "BOE-A-2003-23514.xml" in err and "truncated" in err and "fix:" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "dist").exists()


def test_cli_rejects_bad_as_of(capsys):
    with pytest.raises(SystemExit):
        main(["build", "--as-of", "29/11/2026"])
    assert "YYYY-MM-DD" in capsys.readouterr().err


def test_cli_as_of_changes_the_site(tmp_path):
    out = tmp_path / "dist"
    assert main(["build", "--out", str(out), "--as-of", "2026-09-30", "--regulation-only"]) == 0
    assert (out / "allowlist.json").exists() and not (out / "art151.html").exists()
    assert "30 de septiembre de 2026" in (out / "art48.html").read_text()


def _spy(monkeypatch, func) -> list[tuple]:
    """Record every call of ``func`` through any citavial module that holds it (a module that
    imported it by name holds its own reference), still calling it."""
    calls: list[tuple] = []

    def spy(*args, **kwargs):
        calls.append(args)
        return func(*args, **kwargs)

    for name, module in list(sys.modules.items()):
        if name.startswith("citavial.") and getattr(module, func.__name__, None) is func:
            monkeypatch.setattr(module, func.__name__, spy)
    return calls


@pytest.fixture(scope="module")
def cli_build(tmp_path_factory):
    """One `citavial build --no-cache` of the committed sources for AS_OF, every corpus read
    spied: (dist, {function name: its calls}). Shared by the tests of this module that need a
    whole build, so the module builds once."""
    import citavial.build.cli  # noqa: F401 - every module that may hold the spied functions
    import citavial.build.pipeline  # noqa: F401
    from citavial.build.corpus.integrity import verify_corpus
    from citavial.build.corpus.norms import verify_norms
    from citavial.build.ingest.markdown import ingest_report
    from citavial.build.safexml import parse_bytes
    out = tmp_path_factory.mktemp("cli-build") / "dist"
    with pytest.MonkeyPatch.context() as mp:
        spied = {f.__name__: _spy(mp, f)
                 for f in (verify_corpus, verify_norms, parse_bytes, ingest_report)}
        assert main(["build", "--out", str(out), "--as-of", AS_OF.isoformat(), "--no-cache"]) == 0
    return out, spied


def test_one_build_reads_the_corpus_once(cli_build):
    """`citavial build` verifies the manifests once and parses each corpus file once (the
    changes and signs pages read the ingest's typed wordings, not the XML)."""
    _, spied = cli_build
    parsed = Counter(Path(where).name for _, where in spied["parse_bytes"])
    assert parsed == {"BOE-A-2003-23514.xml": 1, "BOE-A-2003-23514.metadatos.xml": 1}
    assert len(spied["verify_corpus"]) == 1 and len(spied["verify_norms"]) == 1
    norms = Counter(copy.norm for copy, *_ in spied["ingest_report"])
    assert sorted(norms.values()) == [1, 1, 1]


@pytest.mark.parametrize("args, norms", [
    pytest.param(["art48.1", "Las velocidades máximas que no deberán ser rebasadas"], [],
                 id="reglamento"),
    pytest.param(["RD-818/2009#art4.2", "El permiso de conducción será de las siguientes clases"],
                 ["RD-818/2009"], id="other-norm"),
])
def test_verify_quote_reads_the_corpus_once(monkeypatch, capsys, args, norms):
    """`citavial verify-quote` verifies once, parses the XML once, and ingests only the
    norm it judges the quote on."""
    from citavial.build.corpus.integrity import verify_corpus
    from citavial.build.corpus.norms import verify_norms
    from citavial.build.ingest.markdown import ingest_report
    from citavial.build.safexml import parse_bytes
    spied = {f.__name__: _spy(monkeypatch, f)
             for f in (verify_corpus, verify_norms, parse_bytes, ingest_report)}
    assert main(["verify-quote", *args, "--as-of", AS_OF.isoformat()]) == 0, capsys.readouterr()
    parsed = Counter(Path(where).name for _, where in spied["parse_bytes"])
    assert parsed == {"BOE-A-2003-23514.xml": 1, "BOE-A-2003-23514.metadatos.xml": 1}
    assert len(spied["verify_corpus"]) == 1 and len(spied["verify_norms"]) == 1
    assert [copy.norm for copy, *_ in spied["ingest_report"]] == norms
