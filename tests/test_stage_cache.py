"""The stage cache (build/stagecache.py, issue 27): the site and the index stage kept by the hash
of their inputs, as plain data validated on load; a cached build writes the very bytes of an
uncached one."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time

import pytest
from support import AS_OF, CORPUS, SITE_SRC, tree_hash

from citavial.build import paths, stagecache
from citavial.build.stagecache import BLOBS, Key, StageCache, listing, written

FILES = {"index.html": b"<p>hola</p>\n", "index/manifest.json": b"{}\n", "empty.txt": b"",
         "a/b/c.js": b"x" * 5000}
KEY = Key("test").text("input", "one").hexdigest()


@pytest.fixture
def src(tmp_path):
    root = tmp_path / "src"
    for rel, data in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


@pytest.fixture
def stored(tmp_path, src):
    cache = StageCache(tmp_path / "cache")
    cache.store("site", KEY, src, sorted(FILES), note="4 files")
    return cache


def test_stored_files_come_back_byte_for_byte(tmp_path, stored, src):
    entry = stored.restore("site", KEY, tmp_path / "out")
    assert entry is not None and entry.note == "4 files"
    assert tree_hash(tmp_path / "out") == tree_hash(src)


def test_an_entry_is_json_and_content_addressed_blobs(stored):
    assert stored.root is not None
    (manifest,) = stored.root.glob("site-*.json")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    assert data["schema"] == stagecache.SCHEMA and data["key"] == KEY
    assert sorted(p.name for p in (stored.root / BLOBS).iterdir()) == sorted(
        f[2] for f in data["files"])


@pytest.mark.parametrize("inputs", [
    pytest.param(("input", "two"), id="another-value"),
    pytest.param(("other", "one"), id="another-label"),
])
def test_other_inputs_are_another_key(inputs):
    assert Key("test").text(*inputs).hexdigest() != KEY


def test_a_missing_entry_is_a_miss(tmp_path):
    assert StageCache(tmp_path / "cache").restore("site", KEY, tmp_path / "out") is None
    assert not (tmp_path / "out").exists()


def _manifest(cache: StageCache):
    assert cache.root is not None
    (path,) = cache.root.glob("site-*.json")
    return path, json.loads(path.read_text(encoding="utf-8"))


def _rewrite(cache: StageCache, change) -> None:
    path, data = _manifest(cache)
    path.write_text(json.dumps(change(data)), encoding="utf-8")


def _first_file(data: dict, field: int, value) -> dict:
    data["files"][0][field] = value
    return data


BAD_MANIFESTS = [
    pytest.param(lambda d: {**d, "schema": "citavial-stage-cache/0"}, id="other-schema"),
    pytest.param(lambda d: {**d, "key": "0" * 64}, id="another-keys-entry"),
    pytest.param(lambda d: {**d, "stage": "index"}, id="another-stages-entry"),
    pytest.param(lambda d: {**d, "note": 3}, id="note-not-text"),
    pytest.param(lambda d: {**d, "files": {}}, id="files-not-a-list"),
    pytest.param(lambda d: _first_file(d, 0, "../escape.html"), id="path-climbs-out"),
    pytest.param(lambda d: _first_file(d, 0, "/etc/passwd"), id="absolute-path"),
    pytest.param(lambda d: _first_file(d, 0, "a//b.html"), id="unnormalised-path"),
    pytest.param(lambda d: _first_file(d, 1, -1), id="negative-size"),
    pytest.param(lambda d: _first_file(d, 1, True), id="size-not-an-int"),
    pytest.param(lambda d: _first_file(d, 2, "../../x"), id="blob-name-not-a-sha256"),
    pytest.param(lambda d: _first_file(d, 2, "f" * 64), id="blob-absent"),
    pytest.param(lambda d: {**d, "files": d["files"] + d["files"][:1]}, id="duplicate-path"),
    pytest.param(lambda d: [d], id="not-an-object"),
]


@pytest.mark.parametrize("change", BAD_MANIFESTS)
def test_a_foreign_or_corrupt_manifest_is_a_miss(tmp_path, stored, change):
    _rewrite(stored, change)
    assert stored.restore("site", KEY, tmp_path / "out") is None
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("content", [
    pytest.param(b"", id="empty"),
    pytest.param(b'{"schema": "citavial-stage-cache/1", "files": [', id="truncated-json"),
    pytest.param(b"\x80\x04\x95 pickle-like bytes", id="binary"),
])
def test_an_unreadable_manifest_is_a_miss(tmp_path, stored, content):
    path, _ = _manifest(stored)
    path.write_bytes(content)
    assert stored.restore("site", KEY, tmp_path / "out") is None


@pytest.mark.parametrize("damage", [
    pytest.param(lambda b: b"y" + b[1:], id="same-size-other-bytes"),
    pytest.param(lambda b: b[:-1], id="truncated"),
])
def test_a_damaged_blob_is_a_miss_and_is_dropped(tmp_path, stored, damage):
    _, data = _manifest(stored)
    sha = next(f[2] for f in data["files"] if f[0] == "a/b/c.js")
    blob = stored.root / BLOBS / sha
    blob.write_bytes(damage(blob.read_bytes()))
    assert stored.restore("site", KEY, tmp_path / "out") is None
    assert not blob.exists()   # the next build writes it again
    stored.store("site", KEY, tmp_path / "src", sorted(FILES))
    assert stored.restore("site", KEY, tmp_path / "out") is not None


def test_a_new_key_replaces_the_stages_entry_and_its_blobs(tmp_path, stored, src):
    (src / "index.html").write_bytes(b"<p>adios</p>\n")
    other = Key("test").text("input", "two").hexdigest()
    stored.store("site", other, src, sorted(FILES))
    assert [p.name for p in stored.root.glob("site-*.json")] == [f"site-{other}.json"]
    assert stored.restore("site", KEY, tmp_path / "old") is None
    assert len(list((stored.root / BLOBS).iterdir())) == len(FILES)


def test_no_cache_reads_and_writes_nothing(tmp_path, src):
    off = StageCache(None)
    assert off.stash(src, sorted(FILES)) == []
    off.commit([], "site", KEY)
    assert off.restore("site", KEY, tmp_path / "out") is None
    _off, inputs, key = stagecache.site_entry(None, CORPUS, SITE_SRC, paths.REPORTS, AS_OF, "",
                                              False)
    assert (inputs, key) == ("", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_written_lists_new_and_changed_files(src):
    before = listing(src)
    (src / "index.html").write_bytes(b"<p>otro contenido</p>\n")
    (src / "new.txt").write_bytes(b"n")
    assert written(before, listing(src)) == ["index.html", "new.txt"]


@pytest.mark.parametrize("edit", [
    pytest.param(lambda s, c: (s / "templates" / "base.html").write_text(
        (s / "templates" / "base.html").read_text(encoding="utf-8") + " "), id="template"),
    pytest.param(lambda s, c: (s / "content" / "nueva.md").write_text("x"), id="new-guide"),
    pytest.param(lambda s, c: (c / "hooks" / "extra.txt").write_text("x"), id="corpus-file"),
])
def test_the_site_key_follows_every_input(tmp_path, edit):
    site, corpus = tmp_path / "site_src", tmp_path / "corpus"
    shutil.copytree(SITE_SRC, site)
    shutil.copytree(CORPUS, corpus)
    key = lambda: stagecache.site_entry(tmp_path / "cache", corpus, site, paths.REPORTS,
                                        AS_OF, "", False)[2]
    before = key()
    assert before == key()
    edit(site, corpus)
    assert key() != before


def test_the_site_key_follows_the_options(tmp_path):
    keys = {stagecache.site_entry(tmp_path, CORPUS, SITE_SRC, paths.REPORTS, as_of, url,
                                  only)[2]
            for as_of, url, only in [(AS_OF, "", False), (AS_OF, "https://a.example/", False),
                                     (AS_OF, "", True), (AS_OF.replace(day=1), "", False)]}
    assert len(keys) == 4


def _cli_build(tmp_path, monkeypatch, *extra):
    """`citavial build` with the pipeline replaced by a stub that writes one marker page."""
    import citavial.build.pipeline as pipeline
    from citavial.worker.cli import main
    calls = []

    def fake_build(**kw):
        calls.append(kw)
        (kw["out_dir"]).mkdir(parents=True, exist_ok=True)
        (kw["out_dir"] / "index.html").write_text("built")
        return "built"

    monkeypatch.setattr(pipeline, "build_site", fake_build)
    assert main(["build", "--as-of", AS_OF.isoformat(), "--out", str(tmp_path / "dist"),
                 *extra]) == 0
    return calls


def _poison(tmp_path) -> None:
    """A valid cache entry for the committed inputs whose site is one page, "cached"."""
    cache, _inputs, key = stagecache.site_entry(paths.build_cache_root(), CORPUS, SITE_SRC,
                                                paths.REPORTS, AS_OF, "", False)
    page = tmp_path / "poison"
    page.mkdir()
    (page / "index.html").write_text("cached")
    cache.store("site", key, page, ["index.html"], note="1 page")


def test_cli_swaps_in_the_cached_site_without_the_pipeline(tmp_path, monkeypatch):
    _poison(tmp_path)
    assert _cli_build(tmp_path, monkeypatch) == []
    assert (tmp_path / "dist" / "index.html").read_text() == "cached"


def test_cli_no_cache_reads_and_writes_no_cache(tmp_path, monkeypatch):
    _poison(tmp_path)
    before = tree_hash(paths.build_cache_root())
    calls = _cli_build(tmp_path, monkeypatch, "--no-cache")
    assert [c["cache_dir"] for c in calls] == [None]
    assert (tmp_path / "dist" / "index.html").read_text() == "built"
    assert tree_hash(paths.build_cache_root()) == before


def test_cli_builds_when_the_cached_entry_is_corrupt(tmp_path, monkeypatch):
    _poison(tmp_path)
    for manifest in (paths.build_cache_root() / stagecache.STAGES).glob("site-*.json"):
        manifest.write_bytes(manifest.read_bytes()[:-2])
    calls = _cli_build(tmp_path, monkeypatch)
    assert [c["cache_dir"] for c in calls] == [paths.build_cache_root()]
    assert (tmp_path / "dist" / "index.html").read_text() == "built"


def test_the_tests_never_use_the_users_cache():
    assert paths.build_cache_root() != paths.cache_root() / "build"


def _edit_guide(site) -> None:
    guide = sorted(p for p in (site / "content").glob("*.md") if p.name != "README.md")[0]
    guide.write_text(guide.read_text(encoding="utf-8") + "\nConviene repasar esta guía.\n",
                     encoding="utf-8")


@pytest.fixture(scope="module")
def cold_cached(built_site, tmp_path_factory):
    """One build that fills an empty stage cache, beside embeddings that already hold every
    hook question's vector (filled here without a build): (its folder, the cache, its report).
    Shared by the tests below, so the suite pays one cold cached build for both proofs."""
    from citavial.build.index.embed import corpus_model, load_embedder
    from citavial.build.index.hooks import load_hooks, promoted_hooks
    from citavial.build.index.make.analysis import Analysis
    from citavial.build.pipeline import build_site
    root = tmp_path_factory.mktemp("cold-cached")
    fill = Analysis(load_embedder(corpus_model(CORPUS)), root / "cache")
    citable = set(re.findall(r'"ref": "([^"]+)"', (built_site / "allowlist.json").read_text()))
    for dev_clean in (False, True):
        hooks, _ = load_hooks(promoted_hooks(CORPUS, dev_clean=dev_clean), citable)
        fill.encode([h.question for h in hooks])
    fill.save()
    report = build_site(corpus_dir=CORPUS, out_dir=root / "cold", as_of=AS_OF,
                        site_src=SITE_SRC, cache_dir=root / "cache")
    return root, root / "cache", report, fill.embedded


@pytest.mark.slow
def test_hook_vectors_come_from_the_embeddings_cache(built_site, cold_cached):
    """The cold build read every hook question's vector from the cache (only passages were
    embedded) and wrote the very bytes of THE test build (no cache)."""
    root, _cache, report, filled = cold_cached
    embedded = int(re.search(r"(\d+) texts embedded", report).group(1))
    n_passages = int(re.search(r"(\d+) citable passages", report).group(1))
    assert 0 < embedded <= n_passages < filled
    assert tree_hash(root / "cold") == tree_hash(built_site)


@pytest.mark.slow
def test_cached_builds_are_byte_identical_to_uncached_ones(built_site, cold_cached,
                                                           monkeypatch):
    """THE test build (no cache) against: a build that fills the cache, a build served whole
    from it, and — after one guide edit — a build that copies the index and the deep links
    from it (and so never starts the index's child process: build/index/job.py), against an
    uncached build of the edited sources; then a template edit, whose norm pages are rendered
    again, against an uncached build of that."""
    from citavial.build.index.job import IndexJob
    from citavial.build.pipeline import build_site
    started: list[bool] = []
    start = IndexJob.start
    monkeypatch.setattr(IndexJob, "start", lambda job: (start(job), started.append(job.started)))
    tmp_path, cache, cold, _filled = cold_cached
    build = lambda out, site, cache_dir: build_site(corpus_dir=CORPUS, out_dir=tmp_path / out,
                                                    as_of=AS_OF, site_src=site,
                                                    cache_dir=cache_dir)
    assert "from the build cache" not in cold
    assert tree_hash(tmp_path / "cold") == tree_hash(built_site)
    assert re.search(r"from the build cache \(inputs unchanged", build("warm", SITE_SRC, cache))
    assert tree_hash(tmp_path / "warm") == tree_hash(built_site)
    _tampered_dist_is_not_served(build, tmp_path, cache, built_site)
    site = tmp_path / "site_src"
    shutil.copytree(SITE_SRC, site)
    _edit_guide(site)
    entries = lambda stage: sorted((cache / stagecache.STAGES).glob(f"{stage}-*.json"))
    kept = {s: entries(s) for s in ("links", "norms", "corpus", "icons")}
    pages = [json.loads(p.read_bytes())["note"] for p in entries("pages")]
    started.clear()
    edited = build("edit", site, cache)
    assert "(from the build cache);" in edited and "inputs unchanged" not in edited
    assert started == []   # the deep links came from the cache: no index child was begun
    assert {s: entries(s) for s in kept} == kept and all(kept.values())   # hits
    proven, norms = kept["links"], kept["norms"]
    assert [json.loads(p.read_bytes())["note"] for p in entries("pages")] != pages   # the edit
    build("edit-uncached", site, None)
    assert tree_hash(tmp_path / "edit") == tree_hash(tmp_path / "edit-uncached")
    assert tree_hash(tmp_path / "edit") != tree_hash(built_site)
    # a template edit: the norms' pages are rendered again (another entry), the same bytes
    base = site / "templates" / "base.html"
    base.write_text(base.read_text(encoding="utf-8").replace("</main>", "</main>\n", 1),
                    encoding="utf-8")
    started.clear()
    template = build("template", site, cache)
    assert entries("norms") != norms and entries("links") != proven
    # new deep links: the index's child was begun, then ended when the index (the same URLs)
    # came from the cache
    assert len(started) == 1 and "(from the build cache);" in template
    build("template-uncached", site, None)
    assert tree_hash(tmp_path / "template") == tree_hash(tmp_path / "template-uncached")
    assert tree_hash(tmp_path / "template") != tree_hash(tmp_path / "edit")


def _tampered_dist_is_not_served(build, tmp_path, cache, built_site) -> None:
    """Every blob stamped (blobstamps.py: aged first, so none is too young), then a dist/ file
    written in place through its blob's hard link, its mtime put back: the next build finds
    the blob changed (its ctime moved) and writes the true bytes again."""
    old = time.time_ns() - 3600 * 10**9
    for blob in (cache / stagecache.STAGES / BLOBS).iterdir():
        os.utime(blob, ns=(old, old))
    assert "inputs unchanged" in build("warm", SITE_SRC, cache)   # hashes and stamps them
    page = tmp_path / "warm" / "index.html"
    st = page.stat()
    with open(page, "r+b") as fh:
        fh.write(b"<!-- x -->")
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert "inputs unchanged" not in build("tampered", SITE_SRC, cache)
    assert tree_hash(tmp_path / "tampered") == tree_hash(built_site)


def test_a_blob_gone_while_restoring_is_a_miss_with_nothing_left(tmp_path, stored):
    found = stored.lookup("site", KEY)
    assert found is not None
    os.unlink(found[1][-1])   # another build's clean-up, between the check and the link
    assert stagecache.unpack(found, tmp_path / "out") is None
    assert [p for p in (tmp_path / "out").rglob("*") if p.is_file()] == []


def _entry_dict(**change):
    from citavial.build.models import AllowlistEntry
    names = [f for f in AllowlistEntry.__dataclass_fields__]
    return {**{n: f"v-{n}" for n in names}, **change}


def _allowlist(entries) -> str:
    return json.dumps({"schema": "citavial-allowlist/1", "entries": entries}, indent=1,
                      sort_keys=True)


@pytest.mark.parametrize("raw, ok", [
    pytest.param(_allowlist([_entry_dict()]), True, id="one-entry"),
    pytest.param(_allowlist([]), True, id="no-entries"),
    pytest.param("", False, id="empty"),
    pytest.param("[]", False, id="not-an-object"),
    pytest.param(_allowlist({}), False, id="entries-not-a-list"),
    pytest.param(_allowlist([_entry_dict(url=3)]), False, id="value-not-text"),
    pytest.param(_allowlist([{**_entry_dict(), "extra": "x"}]), False, id="extra-field"),
    pytest.param(_allowlist([{k: v for k, v in _entry_dict().items() if k != "url"}]), False,
                 id="missing-field"),
])
def test_cached_allowlist_is_checked_field_by_field(raw, ok):
    from citavial.build.gate.linkcache import entries_from_allowlist
    got = entries_from_allowlist(raw.encode("utf-8"))
    assert (got is not None) == ok
    if ok and got:
        assert got[0].__dict__ == _entry_dict()


@pytest.mark.parametrize("held", [
    pytest.param(set(), id="every-file-read"),
    pytest.param({"index.html", "a/b/c.js"}, id="some-bytes-held"),
    pytest.param(set(FILES), id="every-file-held"),
])
def test_files_stashed_with_their_bytes_held_are_linked_and_named_alike(tmp_path, src, held):
    """The build gives ``stash`` the bytes publish read or wrote last: those files are linked
    unread, under the same names and sizes as files read from disk."""
    by_path = StageCache(tmp_path / "one").stash(src, sorted(FILES))
    cache = StageCache(tmp_path / "two")
    items = cache.stash(src, sorted(FILES), {rel: FILES[rel] for rel in held})
    assert items == by_path
    for rel, _size, sha in items:
        blob = tmp_path / "two" / "stages" / BLOBS / sha
        assert blob.read_bytes() == FILES[rel] and blob.stat().st_ino == (src / rel).stat().st_ino


def _gzip_filled(tmp_path):
    from citavial.build.web.assets import gzip_all
    from citavial.build.web.gzcache import GzipMemo
    datas = [b"<p>hola</p>" * 50, b"uno dos tres " * 80]
    first = GzipMemo(StageCache(tmp_path))
    expected = gzip_all(datas, first)
    first.save()
    return datas, expected


def test_gzip_results_come_back_from_the_cache(tmp_path):
    from citavial.build.web.assets import gzip_all
    from citavial.build.web.gzcache import GzipMemo
    datas, expected = _gzip_filled(tmp_path)
    again = GzipMemo(StageCache(tmp_path))
    assert gzip_all(datas, again) == expected and again.reused == len(datas)


def test_a_gzip_result_that_is_not_its_content_is_not_used(tmp_path):
    """A manifest and blob that check out, but whose bytes unpack to something else."""
    import gzip as gz

    from citavial.build.web.assets import gzip_all
    from citavial.build.web.gzcache import STAGE, GzipMemo
    datas, expected = _gzip_filled(tmp_path)
    memo = GzipMemo(StageCache(tmp_path))
    cache = StageCache(tmp_path)
    named = {f"{hashlib.sha256(d).hexdigest()}.gz": gz.compress(b"otra cosa")
             for d in datas}
    cache.commit(cache.stash_data(named), STAGE, memo.key)
    again = GzipMemo(StageCache(tmp_path))
    assert gzip_all(datas, again) == expected and again.reused == 0


def test_a_written_gzip_twin_is_kept_as_that_file_and_comes_back(tmp_path):
    """A cold build's .gz twins are linked into the cache (no second file per twin), and a
    later build reads each back as the gzip of its content."""
    import gzip as gz

    from citavial.build.web.assets import gzip_all
    from citavial.build.web.gzcache import GzipMemo
    data = "<p>circulación por la derecha</p>".encode() * 40
    stage = tmp_path / "stage"
    stage.mkdir()
    memo = GzipMemo(StageCache(tmp_path / "cache"))
    [packed] = gzip_all([data], memo)
    memo.twin(data, packed, stage / "a.html.gz")
    memo.save()
    twin = (stage / "a.html.gz").stat()
    blobs = [p for p in (tmp_path / "cache").rglob("*") if p.is_file() and p.stat().st_ino
             == twin.st_ino]
    assert twin.st_nlink == 2 and len(blobs) == 1
    again = GzipMemo(StageCache(tmp_path / "cache"))
    assert gzip_all([data], again) == [packed] and again.reused == 1
    assert gz.decompress(packed) == data


def test_gzip_memo_without_a_cache_writes_nothing(tmp_path):
    from citavial.build.web.assets import gzip_all
    from citavial.build.web.gzcache import GzipMemo
    memo = GzipMemo(StageCache(None))
    gzip_all([b"x" * 100], memo)
    memo.save()
    assert list(tmp_path.iterdir()) == []


def test_a_cache_that_cannot_be_written_is_turned_off_not_an_error(tmp_path, src, capsys):
    (tmp_path / "file").write_text("not a folder")
    cache = StageCache(tmp_path / "file")
    cache.store("site", KEY, src, sorted(FILES))
    assert cache.root is None and cache.restore("site", KEY, tmp_path / "out") is None
    assert "cannot be written" in capsys.readouterr().err



def test_library_versions_are_the_installed_ones():
    """stagekeys reads them from the dist-info folders' names, importlib.metadata's answer."""
    from importlib import metadata

    from citavial.build import stagekeys
    names = (*stagekeys._LIBRARIES, "no-such-library-citavial")
    assert stagekeys._versions(names) == {
        **{lib: metadata.version(lib) for lib in stagekeys._LIBRARIES},
        "no-such-library-citavial": "-"}


def test_a_build_from_the_cache_imports_no_network_or_metadata_code():
    """What `citavial build` imports before a guide edit's work (the pipeline, the code
    version) leaves out urllib.request (with http, ssl, email) and importlib.metadata: ~0.06 s
    of CPU a build from the cache does not need."""
    import subprocess
    import sys
    code = ("import sys, citavial.worker.cli, citavial.build.pipeline; "
            "from citavial.build.stagekeys import code_version; code_version(); "
            "print(sorted(m for m in ('urllib.request', 'importlib.metadata', 'email') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
