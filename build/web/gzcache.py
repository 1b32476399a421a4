"""gzip -9 results kept between builds, by the sha256 of what was compressed (issue 27).

Publishing compresses every text file of the site (the precache's sizes, the ``.gz`` twins):
about 15 MB through zlib at level 9, most of a guide-edit rebuild's publish stage, and nearly all
of it the same bytes as last time. ``GzipMemo`` is assets.gzip_all's memo backed by the build
cache (stagecache.py): a content compressed by an earlier build is read back, and used only if
it decompresses to that very content. The entry is rewritten with exactly what this build
compressed, so it never grows past one site's worth.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import zlib
from pathlib import Path

from citavial.build.atomic import write_staged_bytes
from citavial.build.stagecache import Held, Key, StageCache, code_version

STAGE = "gzip"


class GzipMemo(dict):
    """{content: gzip -9 of it} (assets.gzip_all's ``memo``) that also finds the contents an
    earlier build compressed, in ``cache``."""

    def __init__(self, cache: StageCache) -> None:
        super().__init__()
        self.cache = cache
        self.key = "" if cache.root is None else (
            Key(STAGE).text("code", code_version()).text("zlib", zlib.ZLIB_RUNTIME_VERSION)
            .hexdigest())
        found = cache.lookup(STAGE, self.key)
        # content sha256 -> (its gzip's blob, that blob's size and sha256), as the entry says
        self._known: dict[str, tuple[str, int, str]] = {} if found is None else {
            rel.removesuffix(".gz"): (blob, size, sha)
            for (rel, size, sha), blob in zip(found[0].files, found[1], strict=True)}
        # our own entry, unchanged: each blob was gzipped (or checked) from the content its
        # name gives, by this code (stagecache.StageCache.ours), so it is not decompressed again
        self._ours = found is not None and cache.ours(STAGE, self.key)
        self.reused = 0
        self._blobs: dict[bytes, str] = {}   # each reused content -> its sha256
        self._kept: set[str] = set()   # the contents' sha256 whose gzip was reused unread
        self._twins: dict[bytes, str] = {}   # content -> the .gz twin written with its gzip

    def __contains__(self, data: object) -> bool:
        if super().__contains__(data):
            return True
        if not isinstance(data, bytes) or not self._known:
            return False
        sha = hashlib.sha256(data).hexdigest()
        known = self._known.get(sha)
        if known is None:
            return False
        try:
            packed = Path(known[0]).read_bytes()
            if not self._ours and gzip.decompress(packed) != data:
                return False
        except (OSError, EOFError, zlib.error, gzip.BadGzipFile):
            return False
        self[data] = packed
        self._blobs[data] = sha
        self.reused += 1
        return True

    def sized(self, path: str) -> tuple[str, int, int] | None:
        """(sha256, size, gzip size) of the file at ``path``, known without reading it: the
        file is (a hard link to) a blob this build proved (stagecache.StageCache.known) and
        our own entry (``_ours``: gzipped by this code from the content its name gives) holds
        its gzip. None otherwise: read it."""
        found = self._sized(path)
        if found is not None:
            self._kept.add(found[0])
        return found

    def _sized(self, path: str) -> tuple[str, int, int] | None:
        if not self._ours:
            return None
        found = self.cache.known(path)
        known = None if found is None else self._known.get(found[0])
        return None if found is None or known is None else (found[0], found[1], known[1])

    def link_twins(self, stage: str | Path, rels: list[str], min_size: int
                   ) -> tuple[int, int, list[str]]:
        """assets.precompress for the files of ``rels`` whose gzip is ``sized`` unread: their
        ``.gz`` twin (when at least ``min_size`` bytes and smaller compressed) put in place as
        a hard link to its blob. (twins, bytes saved, the rels left to compress)."""
        n = saved = 0
        rest = []
        for rel in rels:
            path = os.path.join(stage, rel)
            known = self._sized(path)
            if known is None:   # read and compressed by precompress
                rest.append(rel)
                continue
            if known[1] < min_size:
                continue   # too small to compress: no twin, as in precompress
            self._kept.add(known[0])
            if known[2] >= known[1]:
                continue   # no smaller compressed: no twin
            try:
                self.cache.place(self._known[known[0]][0], path + ".gz")
            except OSError:
                rest.append(rel)
                continue
            n, saved = n + 1, saved + known[1] - known[2]
        return n, saved, rest

    def place(self, data: bytes, target: Path) -> bool:
        """Put the gzip of ``data`` at ``target`` as a hard link to its blob, when it was read
        back from one (checked to decompress to ``data``): no bytes written. False otherwise."""
        sha = self._blobs.get(data)
        if sha is None:
            return False
        try:
            self.cache.place(self._known[sha][0], target)
        except OSError:
            return False
        return True

    def twin(self, data: bytes, packed: bytes, target: Path) -> None:
        """Put ``packed`` (the gzip of ``data``) at ``target``: linked from its blob (``place``)
        or written, and then kept by ``save`` as a link to that very file. A cold build writes
        ~1,700 twins; a blob written apart from each would be as many new files."""
        if self.place(data, target):
            return
        write_staged_bytes(target, packed)
        self._twins[data] = os.fspath(target)

    def save(self) -> None:
        """Keep what this build compressed or reused (when the cache is on): the reused
        results by the entry's own sizes and sha256, not hashed again; the others linked from
        their .gz twin when one was written (``twin``), else written."""
        if not self.key:
            return
        named: dict[str, bytes | Held] = {
            f"{hashlib.sha256(d).hexdigest()}.gz": Held(self._twins[d], gz)
            if d in self._twins else gz for d, gz in self.items() if d not in self._blobs}
        kept = {f"{sha}.gz": self._known[sha][1:]
                for sha in self._kept | set(self._blobs.values())}
        items = self.cache.stash_data(named) + [
            [rel, size, sha] for rel, (size, sha) in kept.items() if rel not in named]
        self.cache.commit(sorted(items), STAGE, self.key)
