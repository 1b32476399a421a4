"""The rule that makes the strict CSP possible: no inline code in any published page.

Checked on every staged page after rendering, so a template added later that carries an inline
script, a ``style`` attribute or an ``on…`` handler stops the build with the file and the fix,
instead of shipping a page whose code the policy would silently block.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import lxml.html

from citavial.build.beside import Beside, cpus
from citavial.build.errors import BuildError
from citavial.build.stagecache import Key, StageCache, code_version

STAGE = "csp"
_HEX64 = re.compile(r"[0-9a-f]{64}")

FIX = ("move it into a file under site_src/static/ and load it with <script src> / <link "
       "rel=stylesheet> (the site's Content-Security-Policy allows no inline code)")


def violations(html: str) -> list[str]:
    """Human-readable inline-code findings in one page ([] if none)."""
    root = lxml.html.document_fromstring(html)
    found = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        line = el.sourceline
        if el.tag == "script" and (el.get("src") is None or (el.text or "").strip()):
            found.append(f"line {line}: inline <script>")
        if el.tag == "style":
            found.append(f"line {line}: <style> element")
        for name, value in el.attrib.items():
            if name.lower().startswith("on"):
                found.append(f"line {line}: event-handler attribute {name}= on <{el.tag}>")
            elif name.lower() == "style":
                found.append(f"line {line}: style= attribute on <{el.tag}>")
            elif name.lower() in ("href", "src", "action") and \
                    value.strip().lower().startswith("javascript:"):
                found.append(f"line {line}: javascript: URL in {name}= on <{el.tag}>")
    return found


def check_pages(stage: Path, cache: StageCache | None = None) -> int:
    """Raise BuildError naming every page with inline code; return the number checked.
    ``cache``: the build cache, which keeps the sha256 of the pages found clean (by this code:
    ``code_version``), so an unchanged page is not parsed again."""
    return begin_check(stage, cache, beside=False).result()


def begin_check(stage: Path, cache: StageCache | None = None, beside: bool = True,
                earlier: EarlyCheck | None = None) -> PageCheck:
    """``check_pages``, begun now and answered by ``result()``: the pages are read now (so
    what is checked is what they are now, whatever is written later), and parsed in a child
    process while the build goes on (build/beside.py) when ``beside`` and there are enough of
    them to pay for its start (a build from scratch: ~600 pages, ~0.4 s
    of CPU). ``earlier``: the check begun on some of these pages before (``begin_early``: the
    norms' pages, as rendered), whose answers stand for the pages still as it read them."""
    cache = StageCache(None) if cache is None else cache
    key = _key(cache)
    known = _known(cache, key)
    pages = [(str(page.relative_to(stage)), cache.digest(page)[0])
             for page in sorted(stage.rglob("*.html"))]
    covered = set() if earlier is None else set(earlier.pages())
    todo = [(rel, (stage / rel).read_bytes()) for rel, digest in pages
            if digest not in known and (rel, digest) not in covered]
    child = Beside(f"{__name__}:findings", todo) if (
        beside and len(todo) >= BESIDE_MIN and cpus() > 1) else None
    return PageCheck(cache, key, pages, todo, child, earlier)


BESIDE_MIN = 100   # pages to parse: below, a child's start (~0.1 s) costs more than it saves


def begin_early(stage: Path, cache: StageCache | None = None,
                nice: int = 19) -> EarlyCheck | None:
    """The check of the pages staged so far (the norms' pages, once rendered), begun in a child
    at niceness ``nice`` that reads, hashes and parses them itself: the build's own process
    only lists them. ``begin_check(..., earlier=)`` takes its answers for the pages unchanged
    since. None when the build cache knows pages found clean: then most are those, which
    ``begin_check`` tells from their cached digests without reading them (a guide edit)."""
    cache = StageCache(None) if cache is None else cache
    key = _key(cache)
    if _known(cache, key) or cpus() < 2:
        return None
    rels = [str(page.relative_to(stage)) for page in sorted(stage.rglob("*.html"))]
    job = (str(stage), rels)
    child = Beside(f"{__name__}:read_and_find", job, nice=nice) if len(rels) >= BESIDE_MIN \
        else None
    return EarlyCheck(job, child)


def read_and_find(job: tuple[str, list[str]]) -> dict[str, tuple[str, list[str]]]:
    """{page: (sha256 of the bytes read, their violations)} of the pages ``job`` names under
    its folder."""
    folder, rels = Path(job[0]), job[1]
    out = {}
    for rel in rels:
        data = (folder / rel).read_bytes()
        out[rel] = (hashlib.sha256(data).hexdigest(), violations(data.decode("utf-8")))
    return out


class EarlyCheck:
    """``begin_early``'s check: the digest of every page it read, and what it found."""

    def __init__(self, job: tuple[str, list[str]], child: Beside | None) -> None:
        self.job, self.child = job, child
        self._answer: dict[str, tuple[str, list[str]]] | None = None

    def _answered(self) -> dict[str, tuple[str, list[str]]]:
        if self._answer is None:
            ok, value = (False, None) if self.child is None else self.child.result()
            self._answer = value if ok and isinstance(value, dict) else read_and_find(self.job)
        return self._answer

    def pages(self) -> list[tuple[str, str]]:
        return [(rel, digest) for rel, (digest, _found) in self._answered().items()]

    def found(self) -> dict[str, list[str]]:
        return {rel: found for rel, (_digest, found) in self._answered().items() if found}


def findings(todo: list[tuple[str, bytes]]) -> dict[str, list[str]]:
    """{page: its violations} of (page, bytes) pairs."""
    return {rel: violations(data.decode("utf-8")) for rel, data in todo}


class PageCheck:
    """The inline-code check of a staged site's pages (``begin_check``): ``result`` gives what
    ``check_pages`` returns or raises, from the child when there is one and it answered, else
    computed in this process (the same answer either way)."""

    def __init__(self, cache: StageCache, key: str, pages: list[tuple[str, str]],
                 todo: list[tuple[str, bytes]], child: Beside | None,
                 earlier: EarlyCheck | None = None) -> None:
        self.cache, self.key, self.pages, self.todo = cache, key, pages, todo
        self.child, self.earlier = child, earlier

    def found(self) -> dict[str, list[str]]:
        """{page: its violations} of the pages this check and ``earlier`` parsed."""
        found: dict[str, list[str]] | None = None
        if self.child is not None:
            ok, value = self.child.result()
            found = value if ok else None
        if found is None:
            found = findings(self.todo)
        if self.earlier is None:
            return found
        now, then = set(self.pages), dict(self.earlier.pages())
        before = {rel: v for rel, v in self.earlier.found().items()   # an earlier answer stands
                  if (rel, then[rel]) in now}                         # for a page unchanged since
        return {**before, **found}

    def result(self) -> int:
        """Raise BuildError naming every page with inline code; the number of pages checked."""
        found = self.found()
        bad, clean = [], set()
        for rel, digest in self.pages:
            seen = found.get(rel, [])
            bad += [f"{rel}: {v}" for v in seen]
            if not seen:
                clean.add(digest)
        if self.key:
            self.cache.commit([], STAGE, self.key, json.dumps(sorted(clean)))
        if bad:
            raise BuildError("published pages", "inline code the Content-Security-Policy would "
                             "block:\n  " + "\n  ".join(bad) + "\n", FIX)
        return len(self.pages)


def _key(cache: StageCache) -> str:
    """The check's cache key: its code's version ("" with no cache)."""
    return "" if cache.root is None else Key(STAGE).text("code", code_version()).hexdigest()


def _known(cache: StageCache, key: str) -> set[str]:
    """The digests of pages an earlier build found clean (an empty set on a miss)."""
    known = cache.note(STAGE, key)
    if not isinstance(known, list):
        return set()
    ok = all(isinstance(d, str) and _HEX64.fullmatch(d) for d in known)
    return set(known) if ok else set()
