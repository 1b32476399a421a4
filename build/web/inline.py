"""The rule that makes the strict CSP possible: no inline code in any published page.

Checked on every staged page after rendering, so a template added later that carries an inline
script, a ``style`` attribute or an ``on…`` handler stops the build with the file and the fix,
instead of shipping a page whose code the policy would silently block.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import lxml.html

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
    cache = StageCache(None) if cache is None else cache
    key = "" if cache.root is None else Key(STAGE).text("code", code_version()).hexdigest()
    known = _known(cache, key)
    bad, n, clean = [], 0, set()
    for page in sorted(stage.rglob("*.html")):
        n += 1
        digest = cache.digest(page)[0]
        found = [] if digest in known else violations(page.read_bytes().decode("utf-8"))
        bad += [f"{page.relative_to(stage)}: {v}" for v in found]
        if not found:
            clean.add(digest)
    if key:
        cache.commit([], STAGE, key, json.dumps(sorted(clean)))
    if bad:
        raise BuildError("published pages", "inline code the Content-Security-Policy would "
                         "block:\n  " + "\n  ".join(bad) + "\n", FIX)
    return n


def _known(cache: StageCache, key: str) -> set[str]:
    """The digests of pages an earlier build found clean (an empty set on a miss)."""
    known = cache.note(STAGE, key)
    if not isinstance(known, list):
        return set()
    ok = all(isinstance(d, str) and _HEX64.fullmatch(d) for d in known)
    return set(known) if ok else set()
