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
        self.reused = 0

    def __contains__(self, data: object) -> bool:
        if super().__contains__(data):
            return True
        if not isinstance(data, bytes) or not self._known:
            return False
        blob = self._known.get(hashlib.sha256(data).hexdigest())
        try:
            packed = blob.read_bytes() if blob is not None else None
            if packed is None or gzip.decompress(packed) != data:
                return False
        except (OSError, EOFError, zlib.error, gzip.BadGzipFile):
            return False
        self[data] = packed
        self.reused += 1
        return True

    def save(self) -> None:
        """Keep what this build compressed (when the cache is on)."""
        if self.key:
            named = {f"{hashlib.sha256(d).hexdigest()}.gz": gz for d, gz in self.items()}
            self.cache.commit(self.cache.stash_data(named), STAGE, self.key)
