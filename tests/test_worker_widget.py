"""The chat widget's source: size budget and the rules that keep model text inert.

Size: the issue's budget is 12 KB minified. No minifier ships with the project, so the figure
here is an upper bound: comments, indentation and blank lines removed (a real minifier also
shortens names and is smaller still).
"""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "site_src" / "static"
JS = (STATIC / "chat.js").read_text(encoding="utf-8")


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
    size = len(stripped(JS).encode("utf-8"))
    assert size <= 12 * 1024, f"chat.js is {size} bytes stripped; the budget is 12 KB"


def test_model_text_is_never_parsed_as_html():
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "new Function"):
        assert sink not in JS, sink


def test_links_are_built_only_from_citation_urls():
    hrefs = re.findall(r"\.href\s*=\s*([^;]+);", JS)
    assert sorted(h.strip() for h in hrefs) == ["c.source_url",
                                                "new URL(c.url, ROOT).href"]


def test_no_framework_and_no_remote_host():
    assert "import " not in JS and "require(" not in JS
    hosts = set(re.findall(r"https?://([\w.:-]+)", JS))
    assert hosts <= {"127.0.0.1:8000"}, hosts
    assert (STATIC / "chat.css").is_file()
