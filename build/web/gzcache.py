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
import zlib
from pathlib import Path

from citavial.build.stagecache import Key, StageCache, code_version

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
        self._known: dict[str, Path] = {} if found is None else {
            rel.removesuffix(".gz"): blob
            for (rel, _size, _sha), blob in zip(found[0].files, found[1], strict=True)}
        # our own entry, unchanged: each blob was gzipped (or checked) from the content its
        # name gives, by this code (stagecache.StageCache.ours), so it is not decompressed again
        self._ours = found is not None and cache.ours(STAGE, self.key)
        self.reused = 0
        self._blobs: dict[bytes, Path] = {}   # each reused content's blob

    def __contains__(self, data: object) -> bool:
        if super().__contains__(data):
            return True
        if not isinstance(data, bytes) or not self._known:
            return False
        blob = self._known.get(hashlib.sha256(data).hexdigest())
        if blob is None:
            return False
        try:
            packed = blob.read_bytes()
            if not self._ours and gzip.decompress(packed) != data:
                return False
        except (OSError, EOFError, zlib.error, gzip.BadGzipFile):
            return False
        self[data] = packed
        self._blobs[data] = blob
        self.reused += 1
        return True

    def place(self, data: bytes, target: Path) -> bool:
        """Put the gzip of ``data`` at ``target`` as a hard link to its blob, when it was read
        back from one (checked to decompress to ``data``): no bytes written. False otherwise."""
        blob = self._blobs.get(data)
        if blob is None:
            return False
        try:
            self.cache.place(blob, target)
        except OSError:
            return False
        return True

    def save(self) -> None:
        """Keep what this build compressed (when the cache is on)."""
        if self.key:
            named = {f"{hashlib.sha256(d).hexdigest()}.gz": gz for d, gz in self.items()}
            self.cache.commit(self.cache.stash_data(named), STAGE, self.key)
