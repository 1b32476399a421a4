"""The chat widget's size budget.

What the widget DOES is tested by running it, not by reading its source: in Chromium,
tests/adversarial/test_xss_browser.py (model text, quotes and questions stay inert text; every
link is a citation's deep link or its BOE source; no request leaves the site) and
tests/browser/test_chat_widget.py (asking, streaming, chips, keyboard, offline); under node,
tests/adversarial/test_fuzz.py (its SSE reader, for any chunking).

Size: the issue's budget is 12 KB minified. No minifier ships with the project, so the figure
here is an upper bound: comments, indentation and blank lines removed (a real minifier also
shortens names and is smaller still).
"""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "site_src" / "static"


def stripped(js: str) -> str:
    js = re.sub(r"/\*.*?\*/", "", js, flags=re.S)
    lines = []
    for line in js.splitlines():
        line = line.strip()
        if not line or line.startswith("//"):
            continue
        lines.append(re.sub(r"\s+//\s[^\"']*$", "", line))   # trailing "// comment"
    return "\n".join(lines)


def test_widget_fits_the_size_budget():
    size = len(stripped((STATIC / "chat.js").read_text(encoding="utf-8")).encode("utf-8"))
    assert size <= 12 * 1024, f"chat.js is {size} bytes stripped; the budget is 12 KB"
