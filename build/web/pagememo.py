"""Each page's publishing kept by the hash of its bytes (issue 27).

``assets.hash_assets`` reads every page twice: once for the scripts and stylesheets its URLs
name, once to rewrite those URLs to the hashed names — ~36,000 URLs through a regular expression
per build, though a guide edit changes one page of ~600. ``PageMemo`` keeps, per page (by its
path), the sha256 of the bytes it was given, the asset targets its URLs named and the bytes it
was rewritten to under one asset map (the sha256 of ``assets.json``'s mapping): a page given the
same bytes at the same path names the same targets, and under the same map is rewritten to the
same bytes — read back from the build cache's blob store (each blob checked against its sha256
on lookup: stagecache.py) instead of computed. A page whose bytes, path or asset map changed is
rewritten anew. One entry (keyed by the build's code) holds the last build's pages.
"""

from __future__ import annotations

import json
from pathlib import Path

from citavial.build.stagecache import Key, StageCache, code_version, safe_rel

STAGE = "pages"


def _page(item: object) -> tuple[str, tuple[str, ...]] | None:
    """(input sha256, targets) of a note's page item, or None when it is not one."""
    if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
            and isinstance(item[1], list) and all(safe_rel(t) for t in item[1])):
        return None
    return item[0], tuple(item[1])


class PageMemo:
    """The pages an earlier build published (nothing when the cache is off)."""

    def __init__(self, cache: StageCache) -> None:
        self.cache = cache
        self.key = "" if cache.root is None else Key(STAGE).text("code", code_version()
                                                                  ).hexdigest()
        self._map, self._pages, self._blobs = "", {}, {}
        found = cache.lookup(STAGE, self.key)
        try:
            note = None if found is None else json.loads(found[0].note)
        except ValueError:
            note = None
        if found is not None and isinstance(note, dict) and isinstance(note.get("map"), str) \
                and isinstance(note.get("pages"), dict):
            pages = {rel: _page(item) for rel, item in note["pages"].items()}
            if all(p is not None for p in pages.values()):
                self._map, self._pages = note["map"], pages
                self._blobs = {rel: blob for (rel, _size, _sha), blob
                               in zip(found[0].files, found[1], strict=True)}
        self._seen: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.reused = 0

    def targets(self, rel: str, page: Path) -> tuple[str, ...] | None:
        """The asset targets the page named when it had the bytes it has, or None (unknown)."""
        digest = self.cache.digest(page)[0]
        known = self._pages.get(rel)
        self._seen[rel] = (digest, ())
        return known[1] if known is not None and known[0] == digest else None

    def saw(self, rel: str, targets: tuple[str, ...]) -> None:
        """Record the targets of the page ``targets`` was just asked about."""
        self._seen[rel] = (self._seen[rel][0], targets)

    def rewritten(self, rel: str, map_digest: str, page: Path) -> bool:
        """Put at ``page`` its bytes rewritten under the asset map ``map_digest`` (the blob, a
        hard link), when an earlier build rewrote these very input bytes at this path under
        that map; False otherwise (then ``page`` is untouched)."""
        known, blob = self._pages.get(rel), self._blobs.get(rel)
        if known is None or blob is None or map_digest != self._map \
                or known[0] != self._seen[rel][0]:
            return False
        try:
            self.cache.place(blob, page)
        except OSError:   # the blob went away meanwhile: the page is rewritten anew
            return False
        self.reused += 1
        return True

    def save(self, stage: Path, map_digest: str) -> None:
        """Keep this build's pages (as rewritten in ``stage``) under ``map_digest``."""
        if not self.key:
            return
        note = json.dumps({"map": map_digest, "pages": {
            rel: [digest, list(targets)] for rel, (digest, targets) in sorted(self._seen.items())
        }}, ensure_ascii=False, separators=(",", ":"))
        self.cache.commit(self.cache.stash(stage, sorted(self._seen)), STAGE, self.key, note)
