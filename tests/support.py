"""Paths, the reference date and THE built site shared by the test modules (importable from
any test dir), made once per test run."""

from __future__ import annotations

import atexit
import fcntl
import shutil
import tempfile
from datetime import date
from functools import lru_cache
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SITE_SRC = ROOT / "site_src"
AS_OF = date(2026, 11, 29)
CHROMIUM = Path("/usr/bin/chromium")   # Debian's; Playwright never downloads a browser here
# The features the installed Playwright disables (its chromiumSwitches.ts, as passed to Chromium).
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled",
    "PreconnectToSearch", "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
)
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    # A new frame host (and its process work) for every cross-document navigation is Chromium's
    # internal bookkeeping, not what a page does: off, a link check's navigation costs ~22 %
    # less CPU (70 navigations of test_site_links' URLs, alternated 3 times: 17.7-19.8 -> 14.4-
    # 15.4 CPU s); pages, scripts and text fragments are Blink's either way. The suite's
    # browser modules are about two thirds of its CPU (docs/architecture.md#tests). Playwright
    # passes its own --disable-features before ours and Chromium keeps one value of a switch,
    # so ours repeats Playwright's list (tests/test_chromium_args.py checks it is whole).
    "--disable-features=" + ",".join((*PLAYWRIGHT_DISABLED_FEATURES, "RenderDocument")),
]

# How long a test waits for something that MUST happen: a page or a selector, a script's result,
# an answer, a server coming up. Such a wait returns as soon as its condition holds, so the
# budget costs nothing when the test passes and only bounds a broken one. The work behind it
# (page loads, big tables, the search index, a worker's answer) scales with the CPU: CI's runner
# is ~2x slower than this 2-core machine and shares it with other jobs, and Playwright's own
# defaults (30 s for an action or a navigation, 5 s for an expect) are sized for a quiet
# desktop. So every browser context of the suite waits WAIT_MS by default (tests/conftest.py:
# ``browser``), and the other waits for a positive event use WAIT_S. A SHORT bound is right only
# where a test proves that something does NOT happen, or where the product itself has the
# timeout; such places say so in a comment.
WAIT_S = 120
WAIT_MS = WAIT_S * 1000

# The site's scripts give two network waits 3 s: chat.js its /health check before "Listo." (then
# it goes offline), pwa.js the new service worker's reply with its date (then it offers the
# update without the date). A loaded runner can take longer than that to answer on loopback --
# under load the suite's worker did, and two chat tests timed out waiting for "Listo." -- and
# no test is about those 3 s: so every page of the suite runs with exactly those timers
# stretched to WAIT_MS (tests/conftest.py: ``browser``), and the tests do not depend on the
# machine's speed. tests/test_site_timeouts.py fails if the site's timers change.
SITE_TIMEOUT_MS = 3000
STRETCH_SITE_TIMEOUTS = f"""(() => {{
  const setTimeout = window.setTimeout;
  window.setTimeout = function (handler, delay, ...args) {{
    return setTimeout.call(this, handler, delay === {SITE_TIMEOUT_MS} ? {WAIT_MS} : delay, ...args);
  }};
}})();"""


# Chromium's ``:target`` once it is set, awaited and read in the page by one evaluate (polled
# every 10 ms by a timer, not by animation frames: a tab in the background gets none), or null
# after ``budget`` ms. Not page.wait_for_function: that first instantiates Playwright's injected
# script in every new document, ~30 ms of renderer CPU per fresh navigation, which the link
# checks pay on every link (tests/bench/bench_navigation.py measures the two).
_TARGET_WHEN_SET = """budget => new Promise(done => {
  const t0 = performance.now();
  const poll = () => {
    const t = document.querySelector(':target');
    if (t) {
      const c = t.closest('[id]'), r = t.getBoundingClientRect();
      done({id: c ? c.id : '', inView: r.bottom > 0 && r.top < innerHeight});
    } else if (performance.now() - t0 > budget) {
      done(null);
    } else {
      setTimeout(poll, 10);
    }
  };
  poll();
})"""


def target_when_set(page, budget_ms: float = WAIT_MS) -> dict | None:
    """{"id": the id of ``:target``'s closest element with one, "inView": whether ``:target``
    is in the viewport}, once Chromium has set ``:target``; None if it sets none in
    ``budget_ms``."""
    return page.evaluate(_TARGET_WHEN_SET, budget_ms)


class QuietHandler(SimpleHTTPRequestHandler):
    """The static-file handler of the suite's loopback servers: no access log, and no
    traceback when the client hangs up mid-response. Chromium drops connections as a matter of
    course (a page navigated away from, an aborted fetch, a closed tab): the write then raises
    BrokenPipeError or ConnectionResetError, which socketserver would print as an error. Any
    other exception is still reported."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass   # the client went away: nothing to answer, nothing wrong on our side


def tree_hash(path: Path) -> str:
    """sha256 over every file's relative path and bytes: equal iff the tree is byte-identical."""
    import hashlib

    h = hashlib.sha256()
    for p in sorted(Path(path).rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(path)).encode() + p.read_bytes())
    return h.hexdigest()


def copy_cache(filled: Path, dest: Path) -> Path:
    """A copy of the build cache ``filled`` (tests/conftest.py: filled_build_cache) at ``dest``:
    copies, never hard links, so a build that writes into a file it restored cannot reach the
    shared cache's blobs."""
    shutil.copytree(filled, dest)
    return dest


_RUN: list[Path] = []   # under pytest-xdist: the run's temporary folder, shared by its workers


def share_between_workers(run_dir: Path) -> None:
    """tests/conftest.py calls this on a pytest-xdist worker: what ``made_once`` makes is then
    made once per run, in ``run_dir``, for every worker."""
    _RUN[:] = [Path(run_dir)]


def made_once(name: str, make: Callable[[Path], object]) -> Path:
    """The folder ``name`` filled by ``make(folder)`` once per test run. Under pytest-xdist it is
    in the run's shared folder: the first worker to need it makes it while holding a lock, the
    others wait and read it (a worker that died half-way leaves no "done" mark: the next one
    makes it again), and pytest's retention of old runs removes it. Otherwise it is a temporary
    folder of this process, removed at exit."""
    if not _RUN:
        tmp = Path(tempfile.mkdtemp(prefix=f"citavial-{name}-"))
        atexit.register(shutil.rmtree, tmp, True)
        make(tmp / name)
        return tmp / name
    where, done = _RUN[0] / name, _RUN[0] / f"{name}.done"
    with open(_RUN[0] / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            shutil.rmtree(where, ignore_errors=True)
            make(where)
            done.write_text("made\n")
    return where


@lru_cache(maxsize=1)
def built_site_dir() -> Path:
    """The one built site of a test run: a full `citavial build` (no build cache) of the
    committed corpus and site_src for AS_OF into a temporary dist/, built on first use, once per
    run (``made_once``: under pytest-xdist the workers share it). Tests read it and never write
    into it; the repo's own dist/ is never read. The fixture ``built_site`` (tests/conftest.py)
    is this path."""
    from citavial.build.pipeline import build_site
    return made_once("built-site", lambda d: build_site(
        corpus_dir=CORPUS, out_dir=d / "dist", as_of=AS_OF, site_src=SITE_SRC)) / "dist"
