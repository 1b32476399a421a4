"""Sharing: the --base-url the site will be published at, sitemap.xml and robots.txt.

Canonical links and OpenGraph/Twitter metadata are written by the page template (base.html)
from the same base URL; without one, every URL stays relative and the site works from file://.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

from citavial.build.atomic import write_staged
from citavial.build.errors import BuildError

NOT_IN_SITEMAP = frozenset({"404.html", "offline.html"})


def normalize_base_url(value: str) -> str:
    """'https://escuela.example/rgc' → 'https://escuela.example/rgc/'; refuse anything that is
    not an absolute http(s) URL without query or fragment."""
    if not value:
        return ""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise BuildError("--base-url", f"{value!r} is not an absolute http(s) URL without "
                         "?query or #fragment", "give the URL the site will be published at, "
                         "e.g. https://autoescuela.example/rgc/")
    return value if value.endswith("/") else value + "/"


def page_url(base_url: str, page: str) -> str:
    return base_url + ("" if page == "index.html" else page)


def write_sitemap(stage: Path, base_url: str, lastmod: dict[str, date]) -> int:
    """sitemap.xml of every page (lastmod = the unit's version date where there is one)."""
    # imported here: it imports urllib.request (~0.03 s of CPU a build without a base URL
    # need not pay)
    from xml.sax.saxutils import escape
    pages = sorted((p.relative_to(stage).as_posix() for p in stage.rglob("*.html")),
                   key=lambda p: (p != "index.html", p))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    n = 0
    for page in pages:
        if page in NOT_IN_SITEMAP:
            continue
        mod = f"<lastmod>{lastmod[page].isoformat()}</lastmod>" if page in lastmod else ""
        lines.append(f"<url><loc>{escape(page_url(base_url, page))}</loc>{mod}</url>")
        n += 1
    write_staged(stage / "sitemap.xml", "\n".join(lines + ["</urlset>", ""]))
    return n


def write_robots(stage: Path, base_url: str) -> None:
    lines = ["# citavial: every page may be indexed.", "User-agent: *", "Allow: /"]
    if base_url:
        lines.append(f"Sitemap: {base_url}sitemap.xml")
    write_staged(stage / "robots.txt", "\n".join(lines) + "\n")
