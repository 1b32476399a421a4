"""Proof that a build-cache blob still holds the bytes its name says, without reading it.

The stage cache names each blob by the sha256 of its bytes and used to read and hash every
blob of every entry it looked up (~4,100 files, ~30 MB: a third of a guide edit's publish).
Now a blob whose sha256 was checked gets a stamp, ``(device, inode, size, mtime_ns,
ctime_ns)``, kept in ``<stages>/stamps.json``, and a later lookup whose blob shows the very same
stamp trusts it without reading it. Why that is safe:

- ``ctime`` is set by the kernel on every change to the inode (a write, a truncate, chmod,
  utime, a link or an unlink) and no user call can set it back, so an equal ctime means the
  inode was not touched since the stamp was recorded. A cache copied or restored from an archive
  (a CI cache, ``cp -a``) has new inodes and new ctimes: no stamp matches and every blob is
  hashed once again; a forged stamps file would have to guess ctimes to the nanosecond.
- This build's own links and unlinks (restoring an entry into the stage, the old ``dist/``
  removed by the swap) change ctime too, so at the end of a build (``save``) the stamps of the
  blobs proven during it are recorded again with their new ctime — only when their device,
  inode, size and mtime are still those seen when they were proven. A write in place meanwhile
  (a hand edit of a ``dist/`` file, a hard link to its blob) moves mtime: the blob is not
  stamped, and the next lookup hashes it, finds it wrong and drops it. (What this leaves out:
  a write in place during a build that also puts the blob's mtime back to the nanosecond.)
- A blob is stamped only when its mtime is older than the moment its bytes were hashed by more
  than ``RACY_NS`` (the coarsest file-time granularity of a common filesystem, FAT's 2 s): a
  write after the hash then necessarily gives a later mtime. A younger blob is hashed again on
  its next lookup (as git treats a "racily clean" index entry).

A stamp that cannot be read (missing, corrupt, foreign schema) is no stamp: the blob is hashed,
as before. Nothing here decides what a blob holds; it only spares reading one whose inode did
not change since its bytes were checked.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path

from citavial.build.atomic import write_bytes

FILE = "stamps.json"
SCHEMA = "citavial-blob-stamps/1"
RACY_NS = 2_000_000_000
_HEX64 = re.compile(r"[0-9a-f]{64}")

Stamp = tuple[int, int, int, int, int]   # (st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)


def _stamp(st: os.stat_result) -> Stamp:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _read(path: Path) -> dict[str, Stamp]:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("schema") != SCHEMA \
            or not isinstance(data.get("stamps"), dict):
        return {}
    out: dict[str, Stamp] = {}
    for sha, stamp in data["stamps"].items():
        if not (_HEX64.fullmatch(sha) and isinstance(stamp, list) and len(stamp) == 5
                and all(type(n) is int for n in stamp)):
            return {}
        out[sha] = (stamp[0], stamp[1], stamp[2], stamp[3], stamp[4])
    return out


def _read_manifests(path: Path) -> dict[str, tuple[str, int, int, int]]:
    try:
        data = json.loads(path.read_bytes()).get("manifests")
    except (OSError, ValueError, AttributeError):
        return {}
    out: dict[str, tuple[str, int, int, int]] = {}
    for name, item in data.items() if isinstance(data, dict) else ():
        if not (isinstance(name, str) and isinstance(item, list) and len(item) == 4
                and isinstance(item[0], str) and _HEX64.fullmatch(item[0])
                and all(type(n) is int for n in item[1:])):
            return {}
        out[name] = (item[0], item[1], item[2], item[3])
    return out


class Stamps:
    """The stamps of the blobs in ``blobs`` (a StageCache's blob folder), read once."""

    def __init__(self, blobs: Path) -> None:
        self.blobs = blobs
        self._known: dict[str, Stamp] | None = None
        self._proven: dict[str, Stamp] = {}   # this build's: sha -> stamp when proven
        self._inodes: dict[tuple[int, int], tuple[str, int, int]] = {}
        # manifests this cache wrote: name -> (sha256 of their bytes, st_dev, st_ino, ctime)
        self._manifests: dict[str, tuple[str, int, int, int]] | None = None

    def wrote(self, manifest: Path, data: bytes) -> None:
        """This build wrote ``data`` as ``manifest`` (renamed into place whole)."""
        st = os.stat(manifest)
        self.manifests()[manifest.name] = (hashlib.sha256(data).hexdigest(), st.st_dev,
                                           st.st_ino, st.st_ctime_ns)

    def manifests(self) -> dict[str, tuple[str, int, int, int]]:
        if self._manifests is None:
            self._manifests = _read_manifests(self.blobs.parent / FILE)
        return self._manifests

    def ours(self, manifest: Path) -> bool:
        """Whether ``manifest`` holds the very bytes a build with this cache wrote there, in
        the very file it wrote (same inode, ctime unchanged): what it says was then computed or
        checked by this code, not merely read. A copied or restored cache has other inodes and
        ctimes, and a forged record would have to guess them to the nanosecond."""
        known = self.manifests().get(manifest.name)
        if known is None:
            return False
        try:
            with open(manifest, "rb") as fh:
                st, data = os.fstat(fh.fileno()), fh.read()
        except OSError:
            return False
        return known == (hashlib.sha256(data).hexdigest(), st.st_dev, st.st_ino,
                         st.st_ctime_ns)

    def fresh(self, sha: str, st: os.stat_result) -> bool:
        """Whether ``st`` (the blob's lstat) shows the stamp recorded when its bytes were
        found to hash to ``sha``; if so the blob counts as proven again."""
        if self._known is None:
            self._known = _read(self.blobs.parent / FILE)
        if self._known.get(sha) != _stamp(st):
            return False
        self._prove(sha, st)
        return True

    def hashed(self, sha: str, st: os.stat_result, started_ns: int) -> None:
        """The blob's bytes were found to hash to ``sha``, read from ``started_ns`` on (a
        ``time.time_ns()``); ``st``: its fstat then. Stamped unless its mtime is too recent."""
        if st.st_mtime_ns < started_ns - RACY_NS:
            self._prove(sha, st)

    def _prove(self, sha: str, st: os.stat_result) -> None:
        self._proven[sha] = _stamp(st)
        self._inodes[(st.st_dev, st.st_ino)] = (sha, st.st_size, st.st_mtime_ns)

    def seen(self, sha: str, st: os.stat_result, started_ns: int) -> None:
        """Another file was found to hash to ``sha`` (as in ``hashed``): ``sha_of`` knows it for
        the rest of the build, unless its mtime is too recent. Not a stamp: it is not saved.
        The same rule makes a reused inode harmless: a file created after the hash has a later
        mtime than one written ``RACY_NS`` before it."""
        if st.st_mtime_ns < started_ns - RACY_NS:
            self._inodes[(st.st_dev, st.st_ino)] = (sha, st.st_size, st.st_mtime_ns)

    def sha_of(self, st: os.stat_result) -> str | None:
        """The sha256 of a file that is (a hard link to) a blob proven during this build, or
        that ``seen`` was told of, its size and mtime unchanged since: no need to read it."""
        known = self._inodes.get((st.st_dev, st.st_ino))
        if known is None or known[1:] != (st.st_size, st.st_mtime_ns):
            return None
        return known[0]

    def save(self) -> None:
        """Record the stamps of the blobs proven during this build, with their current ctime
        (only those whose device, inode, size and mtime did not change since)."""
        if not self._proven and self._manifests is None:
            return
        out: dict[str, list[int]] = {}
        folder = os.fspath(self.blobs)
        for sha, stamp in sorted(self._proven.items()):
            try:
                st = os.lstat(f"{folder}/{sha}")
            except OSError:
                continue
            now = _stamp(st)
            if now[:4] == stamp[:4]:
                out[sha] = list(now)
        manifests = {}
        for name, (sha, dev, ino, ctime) in sorted(self.manifests().items()):
            try:
                st = os.stat(self.blobs.parent / name)
            except OSError:
                continue
            if (st.st_dev, st.st_ino, st.st_ctime_ns) == (dev, ino, ctime):
                manifests[name] = [sha, dev, ino, ctime]
        write_bytes(self.blobs.parent / FILE, json.dumps(
            {"schema": SCHEMA, "stamps": out, "manifests": manifests},
            separators=(",", ":")).encode("ascii"))
        self._known = {sha: (s[0], s[1], s[2], s[3], s[4]) for sha, s in out.items()}


def now_ns() -> int:
    return time.time_ns()
