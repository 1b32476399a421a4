"""The prose items that passed the prose check, kept between builds (issue 27).

``check_item``'s findings depend on the item's words, what it cites and the cited passages —
the parsed corpus, so the build's inputs digest (corpus bytes, code, as-of date:
stagecache.inputs_digest) — and on nothing else but the file and line it names in a finding.
``ProseMemo`` keeps the digests of the items that had no finding under one inputs digest; a build
skips those, and checks every other item (a new one, an edited one, one that failed) anew.
"""

from __future__ import annotations

import hashlib
import json

from citavial.build.content.prose import Passages, ProseItem, check_item
from citavial.build.errors import BuildError
from citavial.build.models import Regulation
from citavial.build.stagecache import Key, StageCache

STAGE = "prose"
_HEX64_LEN = 64


def item_digest(item: ProseItem) -> str:
    """What ``check_item`` reads of an item, but its place (file, line)."""
    cites = [[c.ref, c.quote, c.ref_error] for c in item.citations]
    return hashlib.sha256(json.dumps(
        [item.text, item.given, item.inherited, item.context, cites], ensure_ascii=False
    ).encode("utf-8")).hexdigest()


class ProseMemo(set):
    """The digests of items found clean under ``inputs`` (empty when the cache is off)."""

    def __init__(self, cache: StageCache, inputs: str) -> None:
        super().__init__()
        self.cache = cache
        self.key = "" if not inputs else Key(STAGE).text("inputs", inputs).hexdigest()
        known = cache.note(STAGE, self.key)
        if isinstance(known, list) and all(isinstance(d, str) and len(d) == _HEX64_LEN
                                           for d in known):
            self.update(known)

    def check(self, reg: Regulation, items: list[ProseItem],
              others: tuple[Regulation, ...] = ()) -> list[BuildError]:
        """``prose.check_prose`` that skips the items known clean; keeps this build's clean."""
        passages = Passages(reg, others)
        findings: list[BuildError] = []
        clean: set[str] = set()
        for item in items:
            digest = item_digest(item)
            found = [] if digest in self else check_item(item, passages)
            findings += found
            if not found:
                clean.add(digest)
        if self.key:
            self.cache.commit([], STAGE, self.key, json.dumps(sorted(clean)))
        return findings
