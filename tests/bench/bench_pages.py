"""Benchmark: what a first visit to each page type costs — bytes on the wire (compressed HTML +
CSS + JS, as `citavial serve` sends them), requests, and first-contentful-paint in headless
Chromium on loopback. Also the service worker's precache (what a first visit downloads in the
background so the whole site works offline).

Prints figures; asserts nothing. Run (after `citavial build`):
    .venv/bin/python tests/bench/bench_pages.py [--runs 5] [--dist dist]
Each load is a first visit's network cost: HTTP cache disabled, service worker blocked (its
background precache is reported separately); one warm-up load per page type is not counted.
n = --runs loads per page type; medians.
Targets (issue 15): article ≤ 30 KB and ≤ 4 requests; ANEXO I §5 ≤ 60 KB; FCP ≤ 200 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from support import WAIT_MS  # noqa: E402

from citavial.worker.http.app import WorkerState  # noqa: E402
from citavial.worker.http.serve import ServerThread  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
PAGES = [("index", "index.html"), ("article", "art48.html"), ("annex section", "anexoI-5.html"),
         ("guide", None), ("practice", "practica.html"),
         ("search", "buscar.html?q=" + quote("velocidad máxima en autopista")),
         ("simulacro", "simulacro.html")]
TARGETS = {"article": "≤ 30 KB, ≤ 4 req", "annex section": "≤ 60 KB"}


def guide_page(dist: Path) -> str:
    pages = sorted(p.name for p in dist.glob("guia-*.html")) or \
        sorted(p.name for p in dist.glob("*.html") if "guia" in p.name and p.name != "guias.html")
    return pages[0] if pages else "guias.html"


def open_tab(browser):
    """A context with the HTTP cache disabled and the service worker blocked: every load is a
    first visit's network cost; the browser process itself stays warm between loads."""
    ctx = browser.new_context(service_workers="block")
    ctx.set_default_timeout(WAIT_MS)   # tests/run_all.sh runs this beside lint on a loaded runner
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    seen: dict[str, dict] = {"wire": {}, "urls": {}}
    cdp.on("Network.requestWillBeSent",
           lambda e: seen["urls"].__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.loadingFinished",
           lambda e: seen["wire"].__setitem__(e["requestId"], int(e["encodedDataLength"])))
    return ctx, page, seen


def load_once(page, seen: dict, url: str) -> dict:
    page.goto("about:blank")
    seen["wire"].clear()
    seen["urls"].clear()
    page.goto(url, wait_until="load")
    page.wait_for_timeout(250)   # late requests (a deferred script's fetches) are counted too
    fcp = page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {})"
                        ".startTime || null")
    urls = [u for u in seen["urls"].values() if not u.startswith("about:")]
    return {"bytes": sum(seen["wire"].values()), "requests": len(urls), "fcp": fcp,
            "files": sorted(u.rsplit("/", 1)[-1].split("?")[0] for u in urls)}


def measure(browser, base: str, dist: Path, runs: int) -> list[dict]:
    rows = []
    for kind, path in PAGES:
        path = path or guide_page(dist)
        if not (dist / path.split("?")[0]).is_file():
            continue
        ctx, page, seen = open_tab(browser)
        load_once(page, seen, f"{base}/{path}")   # warm-up, not counted
        loads = [load_once(page, seen, f"{base}/{path}") for _ in range(runs)]
        ctx.close()
        fcps = [x["fcp"] for x in loads if x["fcp"] is not None]
        rows.append({"type": kind, "page": path.split("?")[0], "n": runs,
                     "kb": statistics.median(x["bytes"] for x in loads) / 1024,
                     "requests": statistics.median(x["requests"] for x in loads),
                     "fcp_ms": statistics.median(fcps) if fcps else None,
                     "fcp_max_ms": max(fcps) if fcps else None,
                     "files": loads[-1]["files"]})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    state = WorkerState(dist_dir=args.dist, deps=None, unavailable="benchmark: static only")
    with ServerThread(state) as srv, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            rows = measure(browser, srv.url, args.dist, args.runs)
        finally:
            browser.close()
    print(f"page budget: cold first visit via `citavial serve` on loopback, gzip, "
          f"median of {args.runs}")
    print("| page type | page | on the wire (KB) | requests | FCP median (ms) | FCP max (ms) | target |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        fcp = f"{r['fcp_ms']:.0f}" if r["fcp_ms"] is not None else "—"
        fmax = f"{r['fcp_max_ms']:.0f}" if r["fcp_max_ms"] is not None else "—"
        print(f"| {r['type']} | {r['page']} | {r['kb']:.1f} | {r['requests']:.0f} | {fcp} | "
              f"{fmax} | {TARGETS.get(r['type'], 'FCP ≤ 200 ms')} |")
    for r in rows:
        print(f"  {r['type']}: {', '.join(r['files'])}")
    report = json.loads((args.dist / "web-report.json").read_text("utf-8"))
    print(f"service-worker precache: {report['precache_files']} files, "
          f"{report['precache_bytes'] / 1e6:.2f} MB, "
          f"{report['precache_gzip_bytes'] / 1e6:.2f} MB compressed (transferred once, in the "
          f"background, after the first page has loaded)")


if __name__ == "__main__":
    main()
