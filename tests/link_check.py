"""Opening the built site's links in Chromium: shared by tests/browser/test_site_links.py (which
asserts none fails) and tests/bench/report_browser_links.py (which writes the committed report
golden/reports/browser-links.json shown on the "Por qué" page — only when run explicitly).

Completion is detected without sleeping: each URL carries a second directive for the footer's
disclaimer (#aviso). Chromium targets the first directive that matches, so #aviso means "the
link's own directive matched nothing".
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from urllib.parse import unquote

from lxml import html as lhtml
from support import AS_OF, target_when_set

from citavial.build.gate.fragments import match_directive, parse_fragment, read_page

SENTINEL = "text=citavial%20no%20es%20una%20publicaci%C3%B3n%20oficial"
SAMPLE = 240


def _full_url(base: str, url: str) -> str:
    return f"{base}/{url}" + (f"&{SENTINEL}" if ":~:" in url else "")


def open_link(page, base: str, url: str) -> dict | None:
    """Navigate freshly to ``url``; return Chromium's target id and visibility."""
    _leave(page, base, url)
    page.goto(_full_url(base, url))
    return _landed(page)


def _leave(page, base: str, url: str) -> None:
    """Through about:blank only when ``page`` shows the document ``url`` names: a change of the
    fragment alone would be a same-document navigation, which never applies a text directive.
    Any other link is a cross-document navigation already (a new document, its directive read
    afresh); the detour there cost ~10 % of the link check's CPU (300 links: 109.6 -> 98.7 s)."""
    if page.url.split("#", 1)[0] == f"{base}/{url}".split("#", 1)[0]:
        page.goto("about:blank")


def _landed(page) -> dict | None:
    """Once the page has loaded: the element Chromium targets, and whether it is in view (None
    if Chromium targets nothing within the suite's budget)."""
    return target_when_set(page)


TABS = 4   # links navigated at once (check_links); 1 opens them one after another


def open_links(tabs: list, base: str, urls: list[str]) -> dict[str, dict | None]:
    """``open_link`` for every URL, driving several tabs at once: each tab starts a fresh
    browser-initiated navigation (the link, through about:blank if the tab shows its page:
    ``_leave``; returning at commit), and only
    then is each tab in turn waited for (its load event, then its ``:target``) and read. While
    the test waits on one tab, Chromium loads, lays out and scrolls the others, so the links
    overlap instead of queueing. Every link is still a fresh navigation of its own tab, judged
    exactly as ``open_link`` judges it (the same load event, the same wait, the same read);
    the result is keyed by URL, so the order the tabs finish in never shows."""
    landed: dict[str, dict | None] = {}
    for i in range(0, len(urls), len(tabs)):
        batch = list(zip(tabs, urls[i:i + len(tabs)], strict=False))
        for tab, url in batch:
            _leave(tab, base, url)
            tab.goto(_full_url(base, url), wait_until="commit")
        for tab, url in batch:
            tab.wait_for_load_state("load")
            landed[url] = _landed(tab)
    return landed


def python_target(site_dir: Path, url: str, pages: dict | None = None) -> str | None:
    """What the Python model says the link selects (the id-only fallback: the element).
    ``pages`` (name → parsed page) keeps each page parsed once over many links."""
    name, frag = url.split("#", 1)
    element_id, directives = parse_fragment(frag)
    if not directives:
        return unquote(element_id)
    pages = {} if pages is None else pages
    if name not in pages:
        pages[name] = read_page((site_dir / name).read_bytes())
    m = match_directive(pages[name], directives[0])
    return None if m is None else m.target


SAMPLE_CONTEXT = 6   # context directives opened per (norm, shape); every anchor is opened


def directive_shape(url: str) -> str:
    """A text directive's shape: prefix-, start[,end], -suffix (``pre+range+suf``, ...)."""
    if ":~:text=" not in url:
        return "id"
    parts = url.split(":~:text=", 1)[1].split("&", 1)[0].split(",")
    pre, suf = parts[0].endswith("-"), parts[-1].startswith("-")
    body = "range" if len(parts) - pre - suf == 2 else "exact"
    return "+".join(x for x, on in (("pre", pre), (body, True), ("suf", suf)) if on)


def _stride(entries: list[dict], n: int) -> list[dict]:
    """Every (len // n)-th entry from the first: n to 2n-1 of a long list, all of a short one."""
    step = max(1, len(entries) // n)
    return entries[::step]


def allowlist_sample(entries: list[dict], every_context: bool = False) -> list[dict]:
    """Deterministic: every anchor (id-only) link; the context directives stratified by norm and
    shape (prefix, exact or range, suffix), an even stride of about SAMPLE_CONTEXT from each
    stratum (all of a smaller one), so every directive kind of every norm is opened; art. 48.1.a (the speed table, the widest
    context); and an even stride of SAMPLE over the exact and range links.

    Why a sample of the ~390 context directives is enough here: whether a directive selects its
    passage is decided by the Python matcher (build/gate/fragments) at build time for every
    link, and tests/browser/test_fragments_chromium.py proves that matcher agrees with Chromium
    on random and colliding directives of every kind. What this test adds is that the published
    pages keep that agreement (layout, scripts, scrolling): one link per stratum proves it for
    that kind of directive on that norm's pages, six is margin. ``every_context`` opens them all
    (tests/bench/report_browser_links.py, the committed report)."""
    anchors = [e for e in entries if e["directive"] == "anchor"]
    context = [e for e in entries if e["directive"] == "context"]
    if not every_context:
        strata: dict[tuple[str, str], list[dict]] = {}
        for e in context:
            strata.setdefault((e["norm"], directive_shape(e["url"])), []).append(e)
        context = [e for key in sorted(strata) for e in _stride(strata[key], SAMPLE_CONTEXT)]
    tables = [e for e in entries if e["ref"] == "RD-1428/2003#art48.1.a"]
    rest = [e for e in entries if e["directive"] not in ("context", "anchor")]
    picked = {e["ref"]: e for e in anchors + context + tables + _stride(rest, SAMPLE)}
    return [picked[r] for r in sorted(picked)]


def _guide_links(site_dir: Path) -> list[tuple[str, str]]:
    out = []
    for path in sorted(site_dir.glob("guia-*.html")):
        for a in lhtml.fromstring(path.read_bytes()).xpath("//a[@class='chip']"):
            out.append((path.name, a.get("href")))
    return out


def link_cases(site_dir: Path, every_context: bool = False) -> list[tuple[str, str, str | None]]:
    """(label, url, intended id or None) for a sample of the allowlist (every kind: see
    allowlist_sample), every guide chip and every practice explanation link (and its supporting quotes' links)."""
    allow = json.loads((site_dir / "allowlist.json").read_text())["entries"]
    bank = json.loads((site_dir / "practice-bank.json").read_text())["questions"]
    cases: list[tuple[str, str, str | None]] = [
        (f"allowlist {e['ref']} ({e['directive']})", e["url"], e["anchor"])
        for e in allowlist_sample(allow, every_context)]
    cases += [(f"{name} chip", href, None) for name, href in _guide_links(site_dir)]
    cases += [(f"practice {q['id']}", q["url"], None) for q in bank]
    cases += [(f"practice {q['id']} more", m["url"], None) for q in bank for m in q["more"]]
    return cases


def _pages_in_turn(urls: list[str]) -> list[str]:
    """``urls`` reordered round-robin over their pages (the first link of every page, then the
    second, ...): a tab's next link is then on another page, so it needs no about:blank detour
    (``_leave``; 19 instead of 202 of the ~890 links). The order never shows in the report."""
    by_page: dict[str, list[str]] = {}
    for url in urls:
        by_page.setdefault(url.split("#", 1)[0], []).append(url)
    width = max((len(v) for v in by_page.values()), default=0)
    return [v[k] for k in range(width) for v in by_page.values() if k < len(v)]


def check_links(site_dir: Path, base: str, context, every_context: bool = False,
                tabs: int = TABS) -> dict:
    """Open every case in Chromium, ``tabs`` at once in ``context`` (open_links); the report:
    counts by source and every failure, in the cases' order."""
    cases = link_cases(site_dir, every_context)
    failures, kinds = [], {}
    # Each distinct URL is opened (and matched in Python) once: ~6% of the cases repeat a URL
    # (a practice link that is also a guide chip), and a fresh navigation to the same URL of
    # the same static page lands on the same element. Every case is still judged on its own.
    urls = _pages_in_turn(list(dict.fromkeys(url for _, url, _ in cases)))
    pages = [context.new_page() for _ in range(tabs)]
    try:
        got_by_url = open_links(pages, base, urls)
    finally:
        for tab in pages:
            tab.close()
    parsed: dict = {}
    py_by_url = {url: python_target(site_dir, url, parsed) for url in urls}
    for label, url, intended in cases:
        got, py = got_by_url[url], py_by_url[url]
        expected = intended or py
        ok = (got is not None and got["id"] == expected == py and got["inView"]
              and expected not in (None, "aviso"))
        if intended is None:  # a quote's link must land inside a passage, never on chrome
            ok = ok and bool(re.match(r"^(art|anexo|rd-|d[aftd])", expected or ""))
        if not ok:
            failures.append(f"{label}: {url} → chromium {got}, python {py}, intended {expected}")
        kind = label.split(" ")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return {"date": date.today().isoformat(), "as_of": AS_OF.isoformat(), "checked": len(cases),
            "failed": len(failures), "by_source": kinds,
            "browser": context.browser.version, "failures": failures}


def write_report(path: Path, report: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                    encoding="utf-8")
