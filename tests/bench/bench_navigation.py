"""Benchmark: Chromium's CPU per fresh navigation, as the suite's link checks navigate and read
the target, and with one of two things done the other way.

Prints figures; asserts nothing. Run (after `citavial build`):
    .venv/bin/python tests/bench/bench_navigation.py [--dist dist] [--urls 70] [--rounds 3]

Opens an even sample of the link check's URLs (tests/link_check.py) one after another, each a
fresh navigation whose ``:target`` is awaited and read, followed by about:blank, in three
variants, alternated ``--rounds`` times:
- "suite": Chromium launched as the suite launches it (tests/support.py CHROMIUM_ARGS), the
  target awaited and read in one evaluate (support.target_when_set);
- "wait_for_function": the same Chromium, the target awaited with page.wait_for_function and
  then read (Playwright instantiates its injected script in each new document first);
- "RenderDocument on": the suite's read, in a Chromium with RenderDocument back on (the same
  switch with only Playwright's own features);
- "fresh context": the suite's Chromium and read, each URL opened in a context and tab of its
  own, closed after (as most browser tests open their page: a context per test), instead of
  the next URL in the same tab.
The CPU is that of this process and every process below it (tests/suite_clock.py tree_cpu:
Chromium, Playwright's driver and the loopback server).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from link_check import link_cases  # noqa: E402
from suite_clock import tree_cpu  # noqa: E402
from support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    PLAYWRIGHT_DISABLED_FEATURES,
    ROOT,
    QuietHandler,
    target_when_set,
)


def _wait_for_function(page) -> dict | None:
    page.wait_for_function("() => document.querySelector(':target') !== null")
    return page.evaluate("() => ({id: document.querySelector(':target').closest('[id]')?.id})")


VARIANTS = {   # name: (Chromium's switches, how the target is awaited and read, a tab per URL)
    "suite": (CHROMIUM_ARGS, target_when_set, False),
    "wait_for_function": (CHROMIUM_ARGS, _wait_for_function, False),
    "RenderDocument on": ([*CHROMIUM_ARGS[:-1],
                           "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES)],
                          target_when_set, False),
    "fresh context": (CHROMIUM_ARGS, target_when_set, True),
}
VIEWPORT = {"width": 1280, "height": 720}


def _run(playwright, args: list[str], read, base: str, urls: list[str],
         fresh: bool = False) -> tuple[float, float]:
    """(CPU s, wall s) of opening ``urls`` in a fresh Chromium launched with ``args``, each
    target awaited and read by ``read``; ``fresh``: each in a new context and tab, closed
    after."""
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=args)
    try:
        page = browser.new_page(viewport=VIEWPORT, service_workers="block")
        page.goto(base + urls[0])   # warm: the stylesheet and scripts in the HTTP cache
        page.goto("about:blank")
        cpu0, t0 = tree_cpu(), time.perf_counter()
        for url in urls:
            tab = browser.new_page(viewport=VIEWPORT, service_workers="block") if fresh else page
            tab.goto(base + url, wait_until="load")
            if read(tab) is None:
                raise SystemExit(f"{url}: Chromium targets nothing")
            if fresh:
                tab.context.close()   # new_page made the context: its tab's process ends
            else:
                tab.goto("about:blank")
        return tree_cpu() - cpu0, time.perf_counter() - t0
    finally:
        browser.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--urls", type=int, default=70)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    every = list(dict.fromkeys(url for _, url, _ in link_cases(args.dist)))
    urls = every[:: max(1, len(every) // args.urls)][: args.urls]
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(QuietHandler, directory=str(args.dist)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    from playwright.sync_api import sync_playwright
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
    with sync_playwright() as p:
        for _ in range(args.rounds):
            for name, (switches, read, fresh) in VARIANTS.items():
                runs[name].append(_run(p, switches, read, base, urls, fresh))
    server.shutdown()
    print(f"{len(urls)} fresh navigations of the link check's URLs, {args.rounds} rounds "
          "alternated; CPU s of Chromium and the server (each round, then the median):")
    for name, rows in runs.items():
        cpus = [round(c, 2) for c, _w in rows]
        median = statistics.median(cpus)
        print(f"  {name:18s} CPU {cpus} median {median:.2f} s ({1000 * median / len(urls):.0f} "
              f"ms a URL); wall median {statistics.median(w for _c, w in rows):.2f} s")


if __name__ == "__main__":
    main()
