"""The proven deep links kept by the hash of the pages they were proven on (issue 27).

Proving a deep link for each of ~5,900 passages, and one per table row, is most of the gate's
time; it depends on the norms (the build's inputs digest, stagecache.inputs_digest) and on
the rendered norm pages, nothing else — not the guides or the practice bank. So the allowlist
and the per-page link scripts (deeplinks.write_page_links) are a stage-cache entry keyed by
those: a build whose guides alone changed reads them back instead of proving them again. The
allowlist travels as the entry's note, JSON, each entry checked field by field on load.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

from citavial.build.gate.deeplinks import write_page_links
from citavial.build.gate.verify import Pages
from citavial.build.models import AllowlistEntry, Regulation
from citavial.build.stagecache import Key, StageCache, listing, tree_digest, unpack, written

STAGE = "links"
_FIELDS = tuple(f.name for f in fields(AllowlistEntry))


def entries_from_note(note: str) -> list[AllowlistEntry] | None:
    """The allowlist a cached note holds, or None when it is not one."""
    try:
        items = json.loads(note)
    except ValueError:
        return None
    if not isinstance(items, list) or not all(
            isinstance(i, dict) and tuple(i) == _FIELDS and all(isinstance(v, str)
                                                                for v in i.values())
            for i in items):
        return None
    return [AllowlistEntry(**i) for i in items]


class Links:
    """The deep links of one build: ``allowlist`` is the cached one, or None when the gate must
    prove them (cache off, a miss, or rendered pages that changed)."""

    def __init__(self, cache: StageCache, inputs: str, stage: Path) -> None:
        self.cache, self.stage = cache, Path(stage)
        # called once the norm pages are rendered: they are all the stage holds
        self.key = "" if not inputs else (
            Key(STAGE).text("inputs", inputs).text("pages", tree_digest(self.stage)).hexdigest())
        found = cache.lookup(STAGE, self.key)
        entries = None if found is None else entries_from_note(found[0].note)
        self.found = found if entries is not None else None
        self.allowlist = entries

    def write(self, regs: tuple[Regulation, ...], allowlist: list[AllowlistEntry],
              pages: Pages) -> None:
        """Each page's link script (deeplinks.py): from the cache when ``allowlist`` came from
        it, else proven now, and cached with the allowlist."""
        if self.found is not None and unpack(self.found, self.stage) is not None:
            return
        before = listing(self.stage) if self.key else {}
        for reg in regs:
            write_page_links(reg, self.stage, allowlist, pages)
        if self.key:
            self.cache.store(STAGE, self.key, self.stage, written(before, listing(self.stage)),
                             json.dumps([e.__dict__ for e in allowlist], ensure_ascii=False))
