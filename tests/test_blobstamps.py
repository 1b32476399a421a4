"""Blobs proven by their stamp instead of their sha256 (build/blobstamps.py, issue 27): a blob
untouched since it was hashed is not read again; a blob written in place — even with its
mtime put back — a copied cache, a young blob or a forged stamps file is hashed again, and a
wrong blob is a miss. The gzip entry this cache wrote itself is trusted without decompressing
it; anyone else's is checked."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import time

import pytest
from support import tree_hash

from citavial.build import blobstamps
from citavial.build.stagecache import BLOBS, Key, StageCache

FILES = {"a.html": b"<p>hola</p>\n" * 40, "sub/b.js": b"x" * 3000}
KEY = Key("test").text("input", "one").hexdigest()
OLD = time.time_ns() - 3600 * 10**9   # an hour ago: far from racy


def _store(tmp_path):
    src = tmp_path / "src"
    for rel, data in FILES.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(data)
    cache = StageCache(tmp_path / "cache")
    cache.store("site", KEY, src, sorted(FILES))
    for blob in (cache.root / BLOBS).iterdir():   # written long ago
        os.utime(blob, ns=(OLD, OLD))
    return cache


class _Reads:
    """Counts the files hashed (hashlib.file_digest) while patched in."""

    def __init__(self, monkeypatch) -> None:
        self.n = 0
        real = hashlib.file_digest

        def counted(fh, name):
            self.n += 1
            return real(fh, name)
        monkeypatch.setattr(hashlib, "file_digest", counted)


def _stamped(tmp_path):
    """A cache whose blobs were hashed by one build and stamped at its end."""
    cache = _store(tmp_path)
    first = StageCache(cache.root.parent)
    assert first.lookup("site", KEY) is not None
    first.release()
    return cache


def _blob(cache, rel):
    data = json.loads(next(cache.root.glob("site-*.json")).read_bytes())
    return cache.root / BLOBS / next(f[2] for f in data["files"] if f[0] == rel)


def test_a_stamped_blob_is_not_read_again(tmp_path, monkeypatch):
    cache = _stamped(tmp_path)
    reads = _Reads(monkeypatch)
    again = StageCache(cache.root.parent)
    assert again.restore("site", KEY, tmp_path / "out") is not None
    assert reads.n == 0
    assert {rel: (tmp_path / "out" / rel).read_bytes() for rel in FILES} == FILES
    again.release()   # the links just made changed the blobs' ctime: stamped again
    third = StageCache(cache.root.parent)
    assert third.lookup("site", KEY) is not None and reads.n == 0


def _write_in_place(path, data, keep_mtime):
    st = os.stat(path)
    with open(path, "r+b") as fh:   # through the inode, as an editor saving a dist/ file may
        fh.write(data)
    if keep_mtime:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("keep_mtime", [False, True], ids=["mtime-moved", "mtime-put-back"])
def test_a_blob_written_in_place_is_hashed_and_is_a_miss(tmp_path, monkeypatch, keep_mtime):
    cache = _stamped(tmp_path)
    blob = _blob(cache, "sub/b.js")
    _write_in_place(blob, b"y", keep_mtime)   # same size, other bytes
    reads = _Reads(monkeypatch)
    again = StageCache(cache.root.parent)
    assert again.restore("site", KEY, tmp_path / "out") is None
    assert reads.n >= 1 and not blob.exists()   # dropped: the next build writes it again


def test_a_dist_file_written_in_place_between_builds_is_not_restored(tmp_path):
    """dist/ files are hard links to their blobs: writing one in place writes the blob."""
    cache = _stamped(tmp_path)
    out = tmp_path / "dist"
    restoring = StageCache(cache.root.parent)
    assert restoring.restore("site", KEY, out) is not None
    restoring.release()
    _write_in_place(out / "a.html", b"<p>HOLA", keep_mtime=True)
    assert StageCache(cache.root.parent).restore("site", KEY, tmp_path / "again") is None


def test_a_copied_cache_is_hashed_again(tmp_path, monkeypatch):
    cache = _stamped(tmp_path)
    copy = tmp_path / "copy"
    shutil.copytree(cache.root.parent, copy)   # copy2: mtimes kept, not inodes or ctimes
    reads = _Reads(monkeypatch)
    assert StageCache(copy).lookup("site", KEY) is not None
    assert reads.n == len(FILES)


def test_a_forged_stamp_is_no_proof(tmp_path, monkeypatch):
    """Every field right but the ctime (which no call can set): the blob is hashed."""
    cache = _stamped(tmp_path)
    blob = _blob(cache, "a.html")
    sha = blob.name
    path = cache.root / blobstamps.FILE
    data = json.loads(path.read_bytes())
    blob.write_bytes(b"z" * len(FILES["a.html"]))   # other bytes, same size
    st = os.stat(blob)
    data["stamps"][sha] = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                           st.st_ctime_ns - 1]
    path.write_text(json.dumps(data))
    reads = _Reads(monkeypatch)
    assert StageCache(cache.root.parent).lookup("site", KEY) is None and reads.n >= 1


@pytest.mark.parametrize("content", [b"", b"{", b"[]", b'{"schema": "other", "stamps": {}}',
                                     b'{"schema": "citavial-blob-stamps/1", "stamps": '
                                     b'{"zz": [1, 2, 3, 4, 5]}}'])
def test_an_unreadable_stamps_file_means_hashing(tmp_path, monkeypatch, content):
    cache = _stamped(tmp_path)
    (cache.root / blobstamps.FILE).write_bytes(content)
    reads = _Reads(monkeypatch)
    assert StageCache(cache.root.parent).lookup("site", KEY) is not None
    assert reads.n == len(FILES)


def test_a_young_blob_is_not_stamped(tmp_path):
    """Hashed less than RACY_NS after its last write: a write right after the hash could keep
    its mtime, so it is hashed again next time."""
    cache = _store(tmp_path)
    young = _blob(cache, "a.html")
    os.utime(young)   # now
    first = StageCache(cache.root.parent)
    assert first.lookup("site", KEY) is not None
    first.release()
    stamps = json.loads((cache.root / blobstamps.FILE).read_bytes())["stamps"]
    assert young.name not in stamps and _blob(cache, "sub/b.js").name in stamps


def test_a_staged_hard_link_to_a_proven_blob_is_stashed_unread(tmp_path, monkeypatch):
    cache = _stamped(tmp_path)
    again = StageCache(cache.root.parent)
    stage = tmp_path / "stage"
    assert again.restore("site", KEY, stage) is not None
    (stage / "new.txt").write_bytes(b"nuevo")   # a file this build wrote: hashed
    reads = _Reads(monkeypatch)
    items = again.stash(stage, sorted([*FILES, "new.txt"]))
    assert reads.n == 1
    assert {rel: sha for rel, _size, sha in items} == {
        rel: hashlib.sha256(data).hexdigest()
        for rel, data in {**FILES, "new.txt": b"nuevo"}.items()}
    (stage / "a.html").unlink()   # replaced, as write_staged does: another inode
    (stage / "a.html").write_bytes(b"<p>adios</p>\n" * 40)
    got = {rel: sha for rel, _size, sha in again.stash(stage, ["a.html"])}
    assert got == {"a.html": hashlib.sha256(b"<p>adios</p>\n" * 40).hexdigest()}


# --- the gzip memo's own entry (web/gzcache.py) --------------------------------------------------

DATAS = [b"<p>hola</p>" * 50, b"uno dos tres " * 80]


def _gzip_entry(tmp_path):
    from citavial.build.web.assets import gzip_all
    from citavial.build.web.gzcache import GzipMemo
    cache = StageCache(tmp_path / "cache")
    memo = GzipMemo(cache)
    expected = gzip_all(DATAS, memo)
    memo.save()
    cache.release()
    return expected


def _no_decompress(monkeypatch):
    def refuse(_data):
        raise AssertionError("decompressed")
    monkeypatch.setattr(gzip, "decompress", refuse)


def test_our_own_gzip_entry_is_not_decompressed_again(tmp_path, monkeypatch):
    from citavial.build.web.assets import gzip_all
    from citavial.build.web.gzcache import GzipMemo
    expected = _gzip_entry(tmp_path)
    _no_decompress(monkeypatch)
    again = GzipMemo(StageCache(tmp_path / "cache"))
    assert gzip_all(DATAS, again) == expected and again.reused == len(DATAS)


def test_a_gzip_entry_written_by_another_is_checked(tmp_path, monkeypatch):
    """The entry rewritten by hand (a copy of its bytes: same content, another file) and the
    stamps file copied along: not ours, so each result is decompressed and compared."""
    from citavial.build.web.assets import gzip_all
    from citavial.build.web.gzcache import GzipMemo
    expected = _gzip_entry(tmp_path)
    manifest = next((tmp_path / "cache" / "stages").glob("gzip-*.json"))
    data = manifest.read_bytes()
    manifest.unlink()
    manifest.write_bytes(data)
    _no_decompress(monkeypatch)
    with pytest.raises(AssertionError, match="decompressed"):
        gzip_all(DATAS, GzipMemo(StageCache(tmp_path / "cache")))
    monkeypatch.undo()
    again = GzipMemo(StageCache(tmp_path / "cache"))
    assert gzip_all(DATAS, again) == expected and again.reused == len(DATAS)


def test_a_forged_gzip_entry_in_our_file_is_not_ours(tmp_path):
    """Other results written into the very manifest file (its inode kept): its bytes are not
    the ones recorded, so the results are checked, found wrong and computed again."""
    from citavial.build.web.assets import gzip_all
    from citavial.build.web.gzcache import STAGE, GzipMemo
    expected = _gzip_entry(tmp_path)
    cache = StageCache(tmp_path / "cache")
    memo = GzipMemo(cache)
    named = {f"{hashlib.sha256(d).hexdigest()}.gz": gzip.compress(b"otra cosa") for d in DATAS}
    forged = json.dumps({"schema": "citavial-stage-cache/1", "stage": STAGE, "key": memo.key,
                         "note": "", "files": cache.stash_data(named)}).encode()
    manifest = next((tmp_path / "cache" / "stages").glob("gzip-*.json"))
    with open(manifest, "r+b") as fh:
        fh.truncate(0)
        fh.write(forged)
    again = GzipMemo(StageCache(tmp_path / "cache"))
    assert gzip_all(DATAS, again) == expected and again.reused == 0


def test_placing_a_blob_replaces_the_target_whole_or_not_at_all(tmp_path):
    cache = _stamped(tmp_path)
    blob = _blob(cache, "a.html")
    stage = tmp_path / "stage"
    stage.mkdir()
    (stage / "a.html").write_bytes(b"old")
    cache.place(blob, stage / "a.html")
    cache.place(blob, stage / "a.html")   # already that very blob: rename does nothing
    assert sorted(p.name for p in stage.iterdir()) == ["a.html"]
    assert (stage / "a.html").read_bytes() == FILES["a.html"]
    (stage / "b.js").write_bytes(b"kept")
    with pytest.raises(OSError):
        cache.place(cache.root / BLOBS / ("0" * 64), stage / "b.js")   # a blob gone meanwhile
    assert (stage / "b.js").read_bytes() == b"kept"
    assert sorted(p.name for p in stage.iterdir()) == ["a.html", "b.js"]


# --- publishing the files linked from the cache unread (gzcache.GzipMemo.sized) -----------------

def _linked(tmp_path):
    """A stage whose files are hard links to proven blobs (a restored site entry) and a gzip
    memo whose own entry holds their results: (stage, memo)."""
    from citavial.build.web.assets import gzip_all
    from citavial.build.web.gzcache import GzipMemo
    cache = _stamped(tmp_path)
    first = GzipMemo(cache)
    gzip_all(list(FILES.values()), first)
    first.save()
    cache.release()
    again = StageCache(cache.root.parent)
    stage = tmp_path / "stage"
    assert again.restore("site", KEY, stage) is not None
    return stage, GzipMemo(again)


class _FileReads:
    """The stage files read through Path.read_bytes while patched in."""

    def __init__(self, monkeypatch) -> None:
        from pathlib import Path
        self.paths: list[str] = []
        real = Path.read_bytes

        def counted(path):
            if path.parent.name != BLOBS:   # the gzip results it reads back are not counted
                self.paths.append(path.name)
            return real(path)
        monkeypatch.setattr(Path, "read_bytes", counted)


def _plain_copy(stage, to):
    shutil.copytree(stage, to)   # other inodes: nothing known about them
    return to


def _sw_site(tmp_path):
    site = tmp_path / "site_src"
    (site / "pwa").mkdir(parents=True)
    (site / "pwa" / "sw.js").write_text('const BUILD = "__CITAVIAL_BUILD__";\n')
    return site


def test_linked_files_are_precompressed_and_precached_unread(tmp_path, monkeypatch):
    """Their sha256 and sizes come from the blobs' proof, their gzip from the memo's own
    entry (a hard link to its blob); the same sw.js, figures and .gz bytes as from reading."""
    from datetime import date
    from types import SimpleNamespace

    from citavial.build.web import assets, pwa
    stage, memo = _linked(tmp_path)
    plain = _plain_copy(stage, tmp_path / "plain")
    reg, site = SimpleNamespace(as_of=date(2026, 1, 1)), _sw_site(tmp_path)
    reads = _FileReads(monkeypatch)
    pre = pwa.write_service_worker(stage, site, reg, "hoy", memo, {})
    got = assets.precompress(stage, memo)
    assert reads.paths == ["sw.js"]   # the one file written since: precompressed from its bytes
    assert memo.reused == 0   # nothing went through the content-keyed memo either
    monkeypatch.undo()
    assert pre == pwa.write_service_worker(plain, site, reg, "hoy", {}, {})
    assert got == assets.precompress(plain, {})
    assert tree_hash(stage) == tree_hash(plain)
    twin = os.stat(stage / "sub" / "b.js.gz")
    assert twin.st_nlink > 1   # the gzip entry's blob, linked
    memo.save()   # the results reused unread are kept, by the entry's own names
    again = StageCache(memo.cache.root.parent)
    from citavial.build.web.gzcache import GzipMemo
    assert sorted(GzipMemo(again)._known) == sorted(
        hashlib.sha256(d).hexdigest() for d in FILES.values())


def test_a_file_written_in_the_stage_or_a_foreign_gzip_entry_is_read(tmp_path, monkeypatch):
    from citavial.build.atomic import write_staged_bytes
    from citavial.build.web import assets
    from citavial.build.web.gzcache import GzipMemo
    stage, memo = _linked(tmp_path)
    write_staged_bytes(stage / "a.html", b"<p>otra</p>\n" * 40)   # another inode
    assert memo.sized(str(stage / "a.html")) is None
    assert memo.sized(str(stage / "sub" / "b.js")) is not None
    manifest = next(memo.cache.root.glob("gzip-*.json"))
    data = manifest.read_bytes()
    manifest.unlink()
    manifest.write_bytes(data)   # the same entry, rewritten by someone else: not ours
    foreign = GzipMemo(StageCache(memo.cache.root.parent))
    assert foreign.sized(str(stage / "sub" / "b.js")) is None
    reads = _FileReads(monkeypatch)
    plain = _plain_copy(stage, tmp_path / "plain")
    assert assets.precompress(stage, foreign) == assets.precompress(plain, {})
    assert sorted(reads.paths) == ["a.html", "a.html", "b.js", "b.js"]
    monkeypatch.undo()
    assert tree_hash(stage) == tree_hash(plain)
