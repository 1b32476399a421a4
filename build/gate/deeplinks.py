"""Per-page deep links for the "Copiar enlace" control, written after the gate has run.

A unit page cannot carry its own allowlisted links (they are proven on the rendered page), so each
page gets a small script ``deeplinks/<page>.js`` (a script, not JSON, because file:// forbids
fetch) with the allowlist's link of every passage on it and, for tables, a link per row proven by
the gate's own row check. A row the gate cannot link (too short, repeated) gets ``""`` and the
control falls back to the table's link.
"""

from __future__ import annotations

import json
from pathlib import Path

from citavial.build.atomic import write_staged
from citavial.build.gate.verify import ROW_SEPARATOR, Pages, check_quote
from citavial.build.models import AllowlistEntry, Citation, Regulation
from citavial.build.refs import anchor
from citavial.build.render.pages import deeplinks_script as script_name


def page_links(reg: Regulation, site_dir: Path, allowlist: list[AllowlistEntry],
               pages: Pages | None = None) -> dict[str, dict[str, dict]]:
    """{page: {"passages": {anchor: url}, "rows": {table anchor: [url or "" per row]}}}.
    ``pages``: the pages the gate already read (else they are read from ``site_dir``)."""
    out: dict[str, dict[str, dict]] = {u.page: {"passages": {}, "rows": {}} for u in reg.units}
    for e in allowlist:
        out[e.page]["passages"][e.anchor] = e.url
    pages = Pages(site_dir) if pages is None else pages
    for unit in reg.units:
        for block in unit.passages:
            if block.kind != "table" or block.table is None or block.ref is None:
                continue
            urls = []
            for row in block.table.rows:
                # An empty cell (the corner of a header row) is no block of the page's text:
                # quoting it made the header row unlinkable.
                quote = ROW_SEPARATOR.join(c.text.replace("\n", " ") for c in row
                                           if c.text.strip())
                check = check_quote(reg, pages, Citation("<row>", 0, block.ref, quote))
                urls.append(check.url if not check.reason else "")
            out[unit.page]["rows"][anchor(block.ref)] = urls
    return out


def write_page_links(reg: Regulation, site_dir: Path, allowlist: list[AllowlistEntry],
                     read: Pages | None = None) -> int:
    """Write every page's script into the staging directory; return the number of row links.
    ``read``: the pages the gate already read (else they are read from ``site_dir``)."""
    rows = 0
    pages = {u.page for u in reg.units}
    mine = [e for e in allowlist if e.page in pages]
    for page, links in sorted(page_links(reg, site_dir, mine, read).items()):
        rows += sum(1 for urls in links["rows"].values() for u in urls if u)
        links = _from_page(page, links)
        write_staged(Path(site_dir) / script_name(page), "window.CITAVIAL_LINKS = " + json.dumps(
            links, ensure_ascii=False, sort_keys=True) + ";\n")
    return rows


def _from_page(page: str, links: dict[str, dict]) -> dict[str, dict]:
    """The links as the page itself resolves them: a page in a norm's folder
    (``ley-trafico/art76.html``) links its own passages as ``art76.html#…``; the site-root
    pages' links are unchanged."""
    folder = page.rpartition("/")[0]
    if not folder:
        return links
    cut = len(folder) + 1

    def rel(url: str) -> str:
        return url[cut:] if url.startswith(folder + "/") else url

    return {"passages": {k: rel(v) for k, v in links["passages"].items()},
            "rows": {k: [rel(u) for u in urls] for k, urls in links["rows"].items()}}
