"""Stage outputs kept between builds, keyed by the hash of their inputs (issue 27).

A stage's output is a function of its inputs (corpus bytes, site_src, the build's code and the
libraries that compute it, the options). ``Key`` hashes such inputs; ``StageCache`` keeps, per
stage, the files that stage wrote into the build's staging directory under the key of its
inputs, so a later build with the same key copies the files instead of computing them.

An entry is plain data, never code: ``<root>/<stage>-<key>.json`` (schema, stage, key, the note
the stage reported, every file's relative path, size and sha256) and the files' bytes under
``<root>/blobs/<sha256>`` (content-addressed, shared between entries). A restore parses JSON and
copies bytes: every field is validated and every blob checked against its sha256 (read and
hashed, or proven unchanged since it was by its stamp: blobstamps.py), so a corrupt,
truncated, foreign or tampered entry is a miss (the stage runs again and rewrites it), never an
error and never code run — a CI cache restored from a stranger's pull request included. Manifests
are written atomically; a blob is renamed into place whole. One entry per stage is kept:
committing a key removes that stage's other entries and the blobs no entry names any more (two
builds at once may cost each other a miss, never a wrong file).

Files are hard links to their blobs when the cache and ``dist/`` share a filesystem (copies
otherwise): a rebuild with nothing changed costs checking stamps and linking. A file written in
place afterwards (by a later stage, or in ``dist/`` by hand) changes its blob too: the output is
what was written; the next lookup finds the blob's stamp, then its hash, wrong, and rebuilds.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import stat
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import NamedTuple

from citavial.build import stagekeys
from citavial.build.atomic import staged_dir, write_bytes
from citavial.build.blobstamps import Stamps
from citavial.build.cachefiles import files as files
from citavial.build.cachefiles import holds, link_or_copy, put
from citavial.build.cachefiles import listing as listing
from citavial.build.cachefiles import safe_rel as safe_rel
from citavial.build.cachefiles import written as written
from citavial.build.stagekeys import SCHEMA as SCHEMA
from citavial.build.stagekeys import Key as Key
from citavial.build.stagekeys import code_version as code_version
from citavial.build.stagekeys import site_key as site_key
from citavial.build.stagekeys import tree_digest as tree_digest

STAGES = "stages"   # this module's folder inside the build cache (beside the embeddings)
BLOBS = "blobs"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_NAME = re.compile(r"[a-z][a-z0-9-]*")
def inputs_digest(corpus_dir: Path, as_of: date) -> str:
    """stagekeys.inputs_digest under this module's ``code_version``."""
    return stagekeys.inputs_digest(corpus_dir, as_of, code_version())


@dataclass(frozen=True)
class Entry:
    """A stage's cached output: (relative path, size, sha256) per file, and its report note."""

    stage: str
    key: str
    files: tuple[tuple[str, int, str], ...]
    note: str


def _parse(raw: bytes, stage: str, key: str) -> Entry | None:
    """The entry a manifest describes, or None when it is not one of ours for this key."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:   # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("stage") != stage \
            or data.get("key") != key or not isinstance(data.get("note"), str) \
            or not isinstance(data.get("files"), list):
        return None
    files = []
    for item in data["files"]:
        if not (isinstance(item, list) and len(item) == 3 and safe_rel(item[0])
                and type(item[1]) is int and item[1] >= 0
                and isinstance(item[2], str) and _HEX64.fullmatch(item[2])):
            return None
        files.append((item[0], item[1], item[2]))
    if len({f[0] for f in files}) != len(files):
        return None
    return Entry(stage, key, tuple(files), data["note"])


class Held(NamedTuple):
    """A file whose bytes the build holds: what it wrote there, or read back after its last
    write (``StageCache.stash``)."""

    path: str
    data: bytes


class StageCache:
    """The stage cache in ``<build cache>/stages``, or nothing at all when ``build_cache`` is
    None (``--no-cache``: every method is then a no-op that reads and writes nothing)."""

    def __init__(self, build_cache: Path | None) -> None:
        self.root = None if build_cache is None else Path(build_cache) / STAGES
        # blobs proven unchanged without reading them (blobstamps.py)
        self.stamps = Stamps((self.root or Path()) / BLOBS)
        self._names: dict[str, tuple[tuple[int, ...], set[str]]] = {}
        self.held = False   # hold(): unnamed blobs are dropped once, by release()

    def _manifest(self, stage: str, key: str) -> Path:
        assert self.root is not None and _NAME.fullmatch(stage) and _HEX64.fullmatch(key)
        return self.root / f"{stage}-{key}.json"

    def lookup(self, stage: str, key: str) -> tuple[Entry, list[str]] | None:
        """``stage``'s entry for ``key`` with its blobs' paths, each blob checked against its
        size and sha256; None on a miss (no entry, or one that fails a check: a bad blob is
        removed, so the next build writes it again)."""
        if self.root is None or not key:
            return None
        try:
            with open(self._manifest(stage, key), "rb") as fh:
                raw, st = fh.read(), os.fstat(fh.fileno())
            entry = _parse(raw, stage, key)
            if entry is None:
                return None
            self._names[f"{stage}-{key}.json"] = (_ident(st), {f[2] for f in entry.files})  # GC
            folder = os.path.join(self.root, BLOBS)
            blobs = [self._blob(folder, size, sha) for _rel, size, sha in entry.files]
        except OSError:
            return None
        good = [b for b in blobs if b is not None]
        return (entry, good) if len(good) == len(blobs) else None

    def ours(self, stage: str, key: str) -> bool:
        """Whether ``stage``'s manifest for ``key`` is, unchanged, one this cache wrote
        (blobstamps.Stamps.ours): a memo may then skip re-checking what it says."""
        return self.root is not None and bool(key) and self.stamps.ours(
            self._manifest(stage, key))

    def note(self, stage: str, key: str) -> object:
        """The JSON note of ``stage``'s entry for ``key`` (a memo's data); None on a miss or
        a note that is not JSON. Callers check its shape: the cache is read, not trusted."""
        found = self.lookup(stage, key)
        try:
            return None if found is None else json.loads(found[0].note)
        except ValueError:
            return None

    def _blob(self, folder: str, size: int, sha: str) -> str | None:
        """The blob ``sha`` in ``folder`` if it holds ``size`` bytes that hash to ``sha``: read
        and hashed, unless its stamp proves it unchanged since it was (blobstamps.py); None
        otherwise."""
        path = f"{folder}/{sha}"   # a string: ~4,000 blobs per edit build, no Path each
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size == size and self.stamps.fresh(sha, st):
            return path
        started = time.time_ns()
        with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as fh:
            st = os.fstat(fh.fileno())
            ok = st.st_size == size and hashlib.file_digest(fh, "sha256").hexdigest() == sha
        if not ok:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            return None
        self.stamps.hashed(sha, st, started)
        return path

    def restore(self, stage: str, key: str, dest: Path) -> Entry | None:
        """Put ``stage``'s files for ``key`` into ``dest`` (None on a miss: nothing written)."""
        found = self.lookup(stage, key)
        return None if found is None else unpack(found, dest)

    def stash(self, src: Path, files: list[str],
              read: Mapping[str, bytes] | None = None) -> list[list]:
        """Put ``files``' bytes (relative to ``src``) into the blob store; return what
        ``commit`` names them by. Nothing is written when the cache is off. ``read``: the
        bytes of some of them, as this build wrote or last read them: hashed from memory, the
        files linked unread."""
        read = {} if read is None else read
        return self._stash({rel: os.path.join(src, rel) if rel not in read
                            else Held(os.path.join(src, rel), read[rel]) for rel in files})

    def stash_data(self, named: Mapping[str, bytes | Held]) -> list[list]:
        """``stash`` for values held in memory: {relative path: bytes, or ``Held`` (a file
        holding them, linked: no new file; the bytes hashed)}."""
        return self._stash(dict(named))

    def _stash(self, sources: dict[str, str | bytes | Held]) -> list[list]:
        items: list[list] = []
        if self.root is None:
            return items
        try:
            folder = os.path.join(self.root, BLOBS)
            os.makedirs(folder, exist_ok=True)
            for rel, source in sorted(sources.items()):
                if isinstance(source, Held):
                    sha, size = hashlib.sha256(source.data).hexdigest(), len(source.data)
                    source = source.path
                elif isinstance(source, bytes):
                    sha, size = hashlib.sha256(source).hexdigest(), len(source)
                else:
                    sha, size = self.digest(source)
                blob = f"{folder}/{sha}"
                if not holds(blob, size):
                    put(source, blob)
                items.append([rel, size, sha])
        except OSError as err:
            self._give_up(err)
            return []
        return items

    def known(self, source: str | Path) -> tuple[str, int] | None:
        """``digest`` when it needs no read (``Stamps.sha_of``), else None."""
        st = os.stat(source)
        sha = self.stamps.sha_of(st)
        return None if sha is None else (sha, st.st_size)

    def digest(self, source: str | Path) -> tuple[str, int]:
        """(sha256, size) of a file: known without reading it when it is a blob proven during
        this build (a hard link from a restored entry) or a file hashed earlier in it, its
        inode, size and mtime unchanged since (blobstamps.Stamps.sha_of)."""
        sha = self.stamps.sha_of(st := os.stat(source))
        if sha is not None:
            return sha, st.st_size
        started = time.time_ns()
        with open(source, "rb") as fh:
            sha = hashlib.file_digest(fh, "sha256").hexdigest()
            st = os.fstat(fh.fileno())
        self.stamps.seen(sha, st, started)
        return sha, st.st_size

    @staticmethod
    def place(blob: str | Path, target: str | Path) -> None:
        """Put a blob that ``lookup`` returned at ``target`` in a staging directory (a hard
        link, or a copy), replacing what is there; on an OSError ``target`` is untouched."""
        try:
            os.link(blob, target)   # nothing there yet (a new .gz twin): one call
            return
        except OSError:   # something there, or no hard links here: link or copy, then rename
            pass
        head, name = os.path.split(target)
        tmp = os.path.join(head, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            link_or_copy(blob, tmp)
            os.replace(tmp, target)
        finally:   # still there when target was that very blob already (rename did nothing)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)

    def _give_up(self, err: OSError) -> None:
        """A cache that cannot be written never fails the build: it is off from here on."""
        print(f"citavial build: warning: the build cache {self.root} cannot be written "
              f"({err}); building without it (fix: make it writable, or set "
              f"CITAVIAL_BUILD_CACHE, or pass --no-cache)", file=sys.stderr)
        self.root = None

    def commit(self, items: list[list], stage: str, key: str, note: str = "") -> None:
        """Write ``stage``'s manifest for ``key`` (atomically), then drop its other entries and
        the blobs no manifest names."""
        if self.root is None or not key:
            return
        manifest = self._manifest(stage, key)
        data = json.dumps({"schema": SCHEMA, "stage": stage, "key": key, "note": note,
                           "files": items}, ensure_ascii=False, separators=(",", ":"))
        try:
            write_bytes(manifest, data.encode("utf-8"))
            self.stamps.wrote(manifest, data.encode("utf-8"))
            self._names[manifest.name] = (_ident(manifest.stat()), {f[2] for f in items})
            for old in self.root.glob(f"{stage}-*.json"):
                if old != manifest:
                    old.unlink(missing_ok=True)
            if not self.held:
                self._collect_garbage()
        except OSError as err:
            self._give_up(err)

    def hold(self) -> None:
        """Drop unnamed blobs once, at ``release``, not at each ``commit`` (a collection reads
        every manifest and lists every blob; a failed build leaves them to the next one)."""
        self.held = True

    def release(self) -> None:
        self.held = False
        try:
            if self.root is not None:
                self._collect_garbage()
                self.stamps.save()
        except OSError as err:
            self._give_up(err)

    def store(self, stage: str, key: str, src: Path, files: list[str], note: str = "") -> None:
        self.commit(self.stash(src, files), stage, key, note)

    def _collect_garbage(self) -> None:
        assert self.root is not None
        named: set[str] = set()
        for path in self.root.glob("*-*.json"):
            try:
                known = self._names.get(path.name)
                if known is not None and known[0] == _ident(path.stat()):
                    named |= known[1]   # read or written by this build, unchanged since
                    continue
                named.update(f[2] for f in json.loads(path.read_bytes())["files"])
            except (OSError, ValueError, KeyError, TypeError, IndexError):
                continue
        if not (self.root / BLOBS).is_dir():   # entries so far are notes only, no files
            return
        for blob in (self.root / BLOBS).iterdir():
            if blob.name not in named:
                blob.unlink(missing_ok=True)


def _ident(st: os.stat_result) -> tuple[int, ...]:
    """A manifest file's identity: replaced whole (``write_bytes``), it is another inode."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def unpack(found: tuple[Entry, list[str]], dest: Path) -> Entry | None:
    """Put a ``StageCache.lookup``'s files into ``dest`` (a staging directory). None when a blob
    went away meanwhile (another build's clean-up): a miss, and the files put so far are gone."""
    entry, blobs = found
    done: list[str] = []
    folders: set[str] = set()   # made already (one mkdir per folder, not per file)
    try:
        for (rel, _size, _sha), blob in zip(entry.files, blobs, strict=True):
            target = os.path.join(dest, rel)
            folder = os.path.dirname(target)
            if folder not in folders:
                os.makedirs(folder, exist_ok=True)
                folders.add(folder)
            link_or_copy(blob, target)
            done.append(target)
    except OSError:
        for target in done:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)
        return None
    return entry


def site_entry(build_cache: Path | None, corpus_dir: Path, site_src: Path, reports_dir: Path,
               as_of: date, base_url: str, regulation_only: bool) -> tuple[StageCache, str, str]:
    """(the stage cache, ``inputs_digest``, ``site_key``): "" digests when the cache is off."""
    cache = StageCache(build_cache)
    inputs = "" if cache.root is None else inputs_digest(Path(corpus_dir), as_of)
    return cache, inputs, site_key(inputs, site_src, reports_dir, base_url, regulation_only)


class _Gone(Exception):
    """A cached file went away between its check and its link."""


def restore_site(cache: StageCache, key: str, as_of: date, out_dir: Path,
                 started: tuple[float, float]) -> str | None:
    """Swap the cached site of ``key`` into ``out_dir`` (every input unchanged since it was
    built); its report line, or None on a miss (then nothing was written). Light on imports:
    `citavial build` calls it before it loads the pipeline (~0.5 s of imports).
    ``started``: the build's (perf_counter, process_time) at its start."""
    found = cache.lookup("site", key)
    if found is None:
        return None
    try:
        with staged_dir(Path(out_dir)) as stage:
            entry = unpack(found, stage)
            if entry is None:
                raise _Gone
    except _Gone:   # the stage is removed, out_dir untouched
        return None
    try:
        cache.stamps.save()   # the blobs just proven (blobstamps.py)
    except OSError:
        pass
    t, c = time.perf_counter() - started[0], time.process_time() - started[1]
    return (f"built {entry.note} as of {as_of.isoformat()} into {out_dir} from the build cache "
            f"(inputs unchanged: {len(entry.files)} files restored; publish {t:.2f} s; "
            f"total {t:.2f} s, CPU {c:.2f} s)")

