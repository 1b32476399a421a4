"""Benchmark: how long the static search page takes to show a query's results, in Chromium.

Prints figures; asserts nothing. Run (after `citavial build`):
    .venv/bin/python tests/bench/bench_search_page.py [--dist dist] [--every 10]
        [--json golden/reports/search-page.json]

The page is served as `citavial serve` serves it (gzip, loopback) and driven through its own form:
the time runs, in the page (performance.now), from the form's submit to the moment the status line
says every result is shown — ranking, the shards it fetches and the DOM of up to 20 results.
- in turn: every golden question (golden/golden-v2.jsonl, our own) in turn on one page, as a
  student searching again and again; shards already read stay in memory, new ones are fetched.
- in memory: the same questions again on that page, every shard they need already read — the
  page's own work (ranking and showing up to 20 results), no network.
- first search: every --every-th question on a freshly loaded page (HTTP cache disabled), so its
  term and passage shards are fetched for it.
n, medians, p95 and max. Target (issue 27): query time in the page p95 ≤ 20 ms ("in memory":
the page's own time; the other two add loading shards from the server).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from support import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

from citavial.build.golden import load_golden  # noqa: E402
from citavial.worker.http.app import WorkerState  # noqa: E402
from citavial.worker.http.serve import ServerThread  # noqa: E402

TARGET_P95_MS = 20.0

# Submit through the page's own form; resolve with the milliseconds until the status line (set
# once every result is shown, or the "no results" sentence) is written.
TIME_ONE = """async (q) => {
  const form = document.getElementById("buscar-form");
  const input = document.getElementById("buscar-q");
  const status = document.getElementById("buscar-estado");
  status.textContent = "";
  const done = new Promise((resolve) => {
    const seen = new MutationObserver(() => {
      if (status.textContent) { seen.disconnect(); resolve(performance.now()); }
    });
    seen.observe(status, {childList: true, characterData: true, subtree: true});
  });
  input.value = q;
  const t0 = performance.now();
  form.requestSubmit();
  return (await done) - t0;
}"""


def _pct(xs: list[float], p: int) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s)) - 1))]


def _summary(ms: list[float]) -> dict:
    return {"n": len(ms), "median_ms": round(statistics.median(ms), 2), "p95_ms": round(_pct(ms, 95), 2),
            "max_ms": round(max(ms), 2)}


def _open(browser, url: str):
    ctx = browser.new_context(service_workers="block", viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    page.goto(url, wait_until="load")
    return ctx, page


def measure(browser, base: str, questions: list[str], every: int) -> dict[str, list[float]]:
    url = f"{base}/buscar.html"
    ctx, page = _open(browser, url)
    page.evaluate(TIME_ONE, "velocidad")           # warm-up: not counted
    warm = [page.evaluate(TIME_ONE, q) for q in questions]
    again = [page.evaluate(TIME_ONE, q) for q in questions]
    ctx.close()
    first = []
    for q in questions[::every]:
        ctx, page = _open(browser, url)
        first.append(page.evaluate(TIME_ONE, q))
        ctx.close()
    return {"warm": warm, "memory": again, "first": first}


def _line(label: str, ms: list[float]) -> str:
    return (f"{label:<28} n={len(ms):4d}  median {statistics.median(ms):6.1f} ms  "
            f"p95 {_pct(ms, 95):6.1f} ms  max {max(ms):6.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--golden", type=Path, default=ROOT / "golden" / "golden-v2.jsonl")
    ap.add_argument("--every", type=int, default=10, help="first-search sample: every n-th question")
    ap.add_argument("--json", type=Path, default=None,
                    help="also write the aggregate figures (golden/reports/search-page.json)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    questions = [q.question for q in load_golden(args.golden)]
    state = WorkerState(dist_dir=args.dist, deps=None, unavailable="benchmark: static only")
    with ServerThread(state) as srv, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            got = measure(browser, srv.url, questions, args.every)
            version = browser.version
        finally:
            browser.close()
    print(f"citavial static search page in Chromium {version} · {len(questions)} golden questions "
          f"({args.golden.name}) · dist {args.dist}")
    print(_line("in turn (one page)", got["warm"]))
    print(_line("in memory (same, again)", got["memory"]))
    print(_line(f"first search (every {args.every}th)", got["first"]))
    print(f"target: p95 ≤ {TARGET_P95_MS:.0f} ms")
    if args.json:
        doc = {"schema": "citavial-search-page/1", "golden": args.golden.name, "browser": version,
               "warm": _summary(got["warm"]), "memory": _summary(got["memory"]),
               "first": _summary(got["first"]),
               "every": args.every, "target_p95_ms": TARGET_P95_MS}
        tmp = args.json.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
