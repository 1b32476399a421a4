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
from support import AS_OF

from citavial.build.gate.fragments import match_directive, parse_fragment, read_page

SENTINEL = "text=citavial%20no%20es%20una%20publicaci%C3%B3n%20oficial"
SAMPLE = 240

_READ = """() => {
  const t = document.querySelector(':target');
  if (!t) return null;
  const c = t.closest('[id]'), r = t.getBoundingClientRect();
  return {id: c ? c.id : '', inView: r.bottom > 0 && r.top < innerHeight};
}"""


def open_link(page, base: str, url: str) -> dict | None:
    """Navigate freshly to ``url``; return Chromium's target id and visibility."""
    has_text = ":~:" in url
    full = f"{base}/{url}" + (f"&{SENTINEL}" if has_text else "")
    page.goto("about:blank")
    page.goto(full)
    page.wait_for_function("() => document.querySelector(':target') !== null", timeout=5000)
    return page.evaluate(_READ)


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


def _sample(entries: list[dict]) -> list[dict]:
    """Deterministic: every kind that is rare in full, plus an even stride over the rest."""
    rare = [e for e in entries if e["directive"] in ("context", "anchor")]
    tables = [e for e in entries if "table" in e.get("kind", "") or e["ref"] == "RD-1428/2003#art48.1.a"]
    rest = [e for e in entries if e not in rare]
    step = max(1, len(rest) // SAMPLE)
    picked = {e["ref"]: e for e in rare + tables + rest[::step]}
    return [picked[r] for r in sorted(picked)]


def _guide_links(site_dir: Path) -> list[tuple[str, str]]:
    out = []
    for path in sorted(site_dir.glob("guia-*.html")):
        for a in lhtml.fromstring(path.read_bytes()).xpath("//a[@class='chip']"):
            out.append((path.name, a.get("href")))
    return out


def link_cases(site_dir: Path) -> list[tuple[str, str, str | None]]:
    """(label, url, intended id or None) for a sample of the allowlist (every kind), every guide
    chip and every practice explanation link (and its supporting quotes' links)."""
    allow = json.loads((site_dir / "allowlist.json").read_text())["entries"]
    bank = json.loads((site_dir / "practice-bank.json").read_text())["questions"]
    cases: list[tuple[str, str, str | None]] = [
        (f"allowlist {e['ref']} ({e['directive']})", e["url"], e["anchor"]) for e in _sample(allow)]
    cases += [(f"{name} chip", href, None) for name, href in _guide_links(site_dir)]
    cases += [(f"practice {q['id']}", q["url"], None) for q in bank]
    cases += [(f"practice {q['id']} more", m["url"], None) for q in bank for m in q["more"]]
    return cases


def check_links(site_dir: Path, base: str, page) -> dict:
    """Open every case in Chromium; the report: counts by source and every failure."""
    cases = link_cases(site_dir)
    failures, kinds = [], {}
    # Each distinct URL is opened (and matched in Python) once: ~6% of the cases repeat a URL
    # (a practice link that is also a guide chip), and a fresh navigation to the same URL of
    # the same static page lands on the same element. Every case is still judged on its own.
    pages: dict = {}
    landed: dict[str, tuple[dict | None, str | None]] = {}
    for label, url, intended in cases:
        if url not in landed:
            landed[url] = (open_link(page, base, url), python_target(site_dir, url, pages))
        got, py = landed[url]
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
            "browser": page.context.browser.version, "failures": failures}


def write_report(path: Path, report: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                    encoding="utf-8")
