"""The proven deep links, and the quotes that passed, kept by the key of the norm pages they
were proven on (issue 27).

Proving a deep link for each of ~5,900 passages, and one per table row, is most of the gate's
time; it depends on the norms and on their rendered pages, nothing else — not the guides or the
practice bank. The pages are a function of the norms stage's key (render/normcache.py: the
build's inputs digest, the templates and static files, the base URL), so the allowlist and the
per-page link scripts (deeplinks.write_page_links) are a stage-cache entry under that key: a
build whose guides alone changed reads them back instead of proving them again. The allowlist
is read back from the entry's own allowlist.json, each entry checked field by field, or from
our own pickle of it (stagevalues.py: ~0.02 s instead of ~0.1 s). ``QuoteMemo`` keeps, under the
same key, the (ref, quote) pairs that passed and their deep links.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

from citavial.build import stagevalues
from citavial.build.gate.deeplinks import write_page_links
from citavial.build.gate.verify import Pages
from citavial.build.models import AllowlistEntry, Regulation
from citavial.build.stagecache import Entry, Key, StageCache, listing, unpack, written

STAGE = "links"
PICKLED = "pickled-links"   # the allowlist of the links entry, for our own reads (stagevalues)
QUOTES = "quotes"
KEPT = ("allowlist.json",)   # what ``write``'s ``files`` writes
_NAMES = {f.name: None for f in fields(AllowlistEntry)}.keys()


def entries_from_allowlist(raw: bytes) -> list[AllowlistEntry] | None:
    """The entries of an allowlist.json (the bytes the build wrote), each checked field by
    field; None when it is not one."""
    try:
        data = json.loads(raw)
    except ValueError:   # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    items = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(items, list) or not all(
            isinstance(i, dict) and i.keys() == _NAMES and all(isinstance(v, str)
                                                               for v in i.values())
            for i in items):
        return None
    return [AllowlistEntry(**i) for i in items]


class Links:
    """The deep links of one build: ``allowlist`` is the cached one, or None when the gate must
    prove them (cache off, a miss, or rendered pages that changed)."""

    def __init__(self, cache: StageCache, pages_key: str, stage: Path) -> None:
        """``pages_key``: the key the norm pages were rendered under (render/normcache.py: the
        build's inputs digest, the templates and static files, the options), "" for none."""
        self.cache, self.stage = cache, Path(stage)
        self.key = "" if not pages_key else Key(STAGE).text("pages", pages_key).hexdigest()
        found = cache.lookup(STAGE, self.key)
        entries = None if found is None else _entries(cache, self.key, found)
        self.found = found if entries is not None else None
        self.allowlist = entries

    def write(self, regs: tuple[Regulation, ...], allowlist: list[AllowlistEntry],
              pages: Pages, files: Callable[[], None] = lambda: None) -> None:
        """Each page's link script (deeplinks.py): from the cache when ``allowlist`` came from
        it, else proven now, and cached with the allowlist. ``files`` writes the stage's other
        files made of the allowlist and the norms alone (allowlist.json: ~6.6 MB of indented
        JSON, ~0.3 s of CPU to encode): kept in the same entry, restored with the scripts."""
        if self.found is not None and unpack(self.found, self.stage) is not None:
            if all((self.stage / rel).is_file() for rel in KEPT):
                return
            files()   # an entry without them (not one this code wrote): write them anew
            return
        before = listing(self.stage) if self.key else {}
        files()
        for reg in regs:
            write_page_links(reg, self.stage, allowlist, pages)
        if self.key:
            self.cache.store(STAGE, self.key, self.stage, written(before, listing(self.stage)),
                             f"{len(allowlist)} passages")
            stagevalues.save(self.cache, PICKLED, self.key, allowlist)


def _entries(cache: StageCache, key: str, found: tuple[Entry, list[str]]
             ) -> list[AllowlistEntry] | None:
    """The allowlist of a links entry: our own pickle of it (stagevalues.py), else read from
    the entry's allowlist.json, checked field by field (and pickled for the next build)."""
    kept = stagevalues.load(cache, PICKLED, key, list[AllowlistEntry], list)
    if kept is not None:
        return kept
    blob = next((b for (rel, _size, _sha), b in zip(found[0].files, found[1], strict=True)
                 if rel == KEPT[0]), None)
    try:
        entries = None if blob is None else entries_from_allowlist(Path(blob).read_bytes())
    except OSError:
        return None
    if entries is not None:
        stagevalues.save(cache, PICKLED, key, entries)
    return entries


class QuoteMemo(dict):
    """{(ref, quote): deep link} of the quotes that passed the gate on the same norm pages (the
    same ``pages_key`` as ``Links``): verify() takes a pass from it instead of judging the quote
    again. Only passes are kept; a failure is judged anew, so its report is always current."""

    def __init__(self, cache: StageCache, pages_key: str) -> None:
        super().__init__()
        self.cache = cache
        self.key = "" if not pages_key else Key(QUOTES).text("pages", pages_key).hexdigest()
        items = cache.note(QUOTES, self.key)
        if isinstance(items, list) and all(
                isinstance(i, list) and len(i) == 3 and all(isinstance(v, str) for v in i)
                for i in items):
            self.update(((ref, quote), url) for ref, quote, url in items)

    def save(self, checks) -> None:
        """Keep the passes of this build (when the cache is on)."""
        if self.key:
            passed = sorted({(c.citation.ref, c.citation.quote, c.url) for c in checks
                             if c.code is None and not c.citation.ref_error})
            self.cache.commit([], QUOTES, self.key,
                              json.dumps([list(p) for p in passed], ensure_ascii=False))
