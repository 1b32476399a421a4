"""The rule that makes the strict CSP possible: no inline code in any published page.

Checked on every staged page after rendering, so a template added later that carries an inline
script, a ``style`` attribute or an ``on…`` handler stops the build with the file and the fix,
instead of shipping a page whose code the policy would silently block.
"""

from __future__ import annotations

from pathlib import Path

import lxml.html

from citavial.build.errors import BuildError

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


def check_pages(stage: Path) -> int:
    """Raise BuildError naming every page with inline code; return the number checked."""
    bad, n = [], 0
    for page in sorted(stage.rglob("*.html")):
        n += 1
        bad += [f"{page.relative_to(stage)}: {v}" for v in violations(page.read_text("utf-8"))]
    if bad:
        raise BuildError("published pages", "inline code the Content-Security-Policy would "
                         "block:\n  " + "\n  ".join(bad) + "\n", FIX)
    return n
