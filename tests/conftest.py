"""Shared fixtures: the regulation ingested once per session, and a built site."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import pytest
import suite_clock
from support import (  # noqa: F401 - re-exported for fixtures
    AS_OF,
    CHROMIUM,
    CHROMIUM_ARGS,
    CORPUS,
    ROOT,
    SITE_SRC,
    STRETCH_SITE_TIMEOUTS,
    WAIT_MS,
    built_site_dir,
    copy_cache,
    made_once,
    share_between_workers,
)

# One OpenBLAS thread in every test process and in the builds, workers and commands it starts
# (they inherit the environment; set before anything imports numpy). The suite runs as many
# processes as there are cores: a BLAS thread per core on top only competes for them, and
# OpenBLAS's threads spin while they wait -- the real bank's exam cost 24.3 CPU seconds with
# OpenBLAS's default threads on this 2-core host at load ~10, 11.0 with one (n=1 each).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# What a test needs is read from the fixtures it uses, so a new test cannot forget its marker.
_NEEDS = {"model": {"real_state", "real_worker", "model_path"},
          "browser": {"browser"}}


# Under pytest-xdist (tests/run_all.sh: --dist loadgroup) a group runs on one worker, in
# collection order. Every test of a module is one group (its module fixtures -- a worker
# subprocess, nginx, a browser context -- are set up once, and its tests keep their order), the
# browser modules included: each worker launches its own Chromium (the session fixture
# ``browser``), and every browser fixture is per process (loopback servers on port 0, the
# worker's own tmp dirs and built site), so browser modules run side by side. Every test of the
# real model is one group: two llama.cpp instances never fight over the two cores.
#
# xdist hands out the groups in collection order (run_all.sh: --no-loadscope-reorder; its default
# order, most tests first, would leave the link check's 4 tests to start last). The groups that
# took longest in the last full runs (--durations, session 34: the link check 251 s; the
# real-model group; the builds; session 36's suite clock: test_verify 175 s near the end;
# test_axe, 570 s of one worker at load ~20 then, is ~70 CPU s since session 37) come first, so no
# long group starts when the others are done and the run ends on short ones; the rest keep
# their order.
LONGEST = (
    "tests/browser/test_site_links.py", "model", "tests/test_stage_cache.py",
    "tests/test_pipeline.py", "tests/test_hooks_decontaminate.py",
    "tests/test_golden.py",
    "tests/test_exam.py", "tests/test_index_baseline.py", "tests/adversarial/test_build_faults.py",
    "tests/browser/test_pwa.py", "tests/adversarial/test_poisoned_corpus.py",
    "tests/browser/test_simulacro.py", "tests/browser/test_copy_link.py",
    "tests/browser/test_fragments_chromium.py", "tests/browser/test_axe.py",
    "tests/test_fetch_images.py",
    "tests/test_package.py", "tests/test_build_cache.py", "tests/adversarial/test_offline.py",
    "tests/test_index_build.py", "tests/test_verify.py", "tests/browser/test_cell_links.py",
    "tests/browser/test_widget_layout.py",
)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    grouped = bool(getattr(config.option, "loadgroup", False))   # set by xdist on its workers
    rank: dict[str, int] = {}
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for marker, fixtures in _NEEDS.items():
            if used & fixtures:
                item.add_marker(marker)
        if grouped:
            group = _group(item, used)
            _set_group(item, group)
            rank[item.nodeid] = LONGEST.index(group) if group in LONGEST else len(LONGEST)
    if grouped:   # a stable sort: a group's tests keep their order
        items.sort(key=lambda item: rank[item.nodeid])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """With $CITAVIAL_SUITE_CLOCK set, each test's wall and CPU time (tests/suite_clock.py)."""
    path = os.environ.get("CITAVIAL_SUITE_CLOCK")
    start, cpu0 = (time.time(), suite_clock.tree_cpu()) if path else (0.0, 0.0)
    yield
    if path:
        suite_clock.record(path, item.nodeid, start, cpu0)


def _group(item, used: set[str]) -> str:
    if used & _NEEDS["model"]:
        return "model"
    return item.nodeid.split("::", 1)[0]


def _set_group(item, group: str) -> None:
    """xdist 3.8 groups by the id ``<nodeid>@<group>``, set as ``item._nodeid``, which
    pytest 9.2's nodes ignore (they keep a NodeId in ``_id``): the groups would be dropped
    silently and the tests spread one by one. So the id is set here, as xdist means it, and a
    failure to set it stops the run rather than run ungrouped."""
    from _pytest.nodeid import coerce_node_id
    item.add_marker(pytest.mark.xdist_group(group))
    item._id = coerce_node_id(f"{item.nodeid}@{group}")
    if not item.nodeid.endswith(f"@{group}"):
        raise pytest.UsageError(f"cannot set the xdist group of {item.nodeid}")


@pytest.fixture(scope="module", autouse=True)
def _module_build_cache(request, tmp_path_factory):
    """The same for a module's own fixtures (set up before any test's ``_build_cache``, e.g.
    test_poisoned_corpus's `citavial build` of its poisoned corpus): a folder of the module's,
    never the user's cache or the environment's $CITAVIAL_BUILD_CACHE."""
    name = hashlib.sha256(request.node.nodeid.encode("utf-8")).hexdigest()[:16]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CITAVIAL_BUILD_CACHE",
                  str(tmp_path_factory.getbasetemp() / "build-cache" / f"module-{name}"))
        yield


@pytest.fixture(autouse=True)
def _build_cache(request, monkeypatch, tmp_path_factory):
    """Each test's `citavial build` caches into a folder of its own (created only if a build
    uses it): never the user's cache, and never a site another test cached (a test that breaks
    the build by patching code must not be served a cached site)."""
    name = hashlib.sha256(request.node.nodeid.encode("utf-8")).hexdigest()[:16]
    monkeypatch.setenv("CITAVIAL_BUILD_CACHE",
                       str(tmp_path_factory.getbasetemp() / "build-cache" / name))


def pytest_configure(config):
    # On a pytest-xdist worker (its basetemp is <the run's basetemp>/popen-gwN): THE built site,
    # the filled build cache and the published site are made once per run (support.made_once).
    if os.environ.get("PYTEST_XDIST_WORKER") and config.option.basetemp:
        share_between_workers(Path(config.option.basetemp).parent)


@pytest.fixture(scope="session")
def filled_build_cache() -> Path:
    """A build cache filled by one cold `citavial build` of the committed corpus and site_src for
    AS_OF (default options), read-only: a test gets a copy of it (``warm_build_cache``). Made
    once per run (support.made_once)."""
    from citavial.build.pipeline import build_site

    def fill(where: Path) -> None:
        build_site(corpus_dir=CORPUS, out_dir=where / "dist", as_of=AS_OF, site_src=SITE_SRC,
                   cache_dir=where / "cache")
        shutil.rmtree(where / "dist")   # its files are links to the cache's blobs
    return made_once("filled-build-cache", fill) / "cache"


@pytest.fixture
def warm_build_cache(_build_cache, filled_build_cache) -> Path:
    """This test's own build cache ($CITAVIAL_BUILD_CACHE, set by ``_build_cache``) starting as a
    copy of ``filled_build_cache``: for a test that runs `citavial build` itself, patches no
    code, and is about something else than a cold build (two builds at once, another as-of
    date, a changed corpus: the stages whose inputs did not change come from the cache)."""
    return copy_cache(filled_build_cache, Path(os.environ["CITAVIAL_BUILD_CACHE"]))


@pytest.fixture(scope="session")
def reg():
    from citavial.build.ingest import load_regulation
    return load_regulation(CORPUS, AS_OF)


@pytest.fixture(scope="session")
def built_site() -> Path:
    """THE built site (support.built_site_dir): a full `citavial build` into a temporary dist/,
    shared by every test that needs a site; the repo's dist/ is never read."""
    return built_site_dir()


PUBLISHED_AT = "https://autoescuela.example/rgc/"


@pytest.fixture(scope="session")
def published_site(filled_build_cache):
    """`citavial build --base-url https://autoescuela.example/rgc/` into a temporary dist/, once
    per run (support.made_once), from a copy of ``filled_build_cache`` (the stages the base URL
    does not change -- the corpus read, the index -- come from it; the output is the same bytes
    as without a cache). Tests read it and never write into it."""
    from citavial.build.pipeline import build_site
    return made_once("published-site", lambda d: build_site(
        corpus_dir=CORPUS, out_dir=d / "dist", as_of=AS_OF, site_src=SITE_SRC,
        base_url=PUBLISHED_AT, cache_dir=copy_cache(filled_build_cache, d / "cache"))) / "dist"


# Debian's Chromium (support.CHROMIUM), driven by Playwright with an explicit executable (never
# a downloaded browser). ONE session-wide instance per test process (per xdist worker) for every
# test directory: two live
# sync_playwright() instances in one process make Playwright refuse the second ("Sync API inside
# the asyncio loop").
@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `apt-get update && apt-get install -y chromium`")
    from playwright.sync_api import expect, sync_playwright
    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=CHROMIUM_ARGS)
        try:
            yield _Budgeted(browser)
        finally:
            browser.close()


# The site's service worker precaches ~600 pages in the background of every fresh context that
# opens a page over HTTP (simulacro.html left idle 30 s: 17.7 s of CPU, 4.3 s with it blocked),
# and only the tests about it (test_pwa, test_nginx_subpath: service_workers="allow") look at
# what it does. So a context blocks it unless its test asks for it.
SERVICE_WORKERS = "block"


class _Budgeted:
    """The session's Chromium, whose new contexts and pages wait up to support.WAIT_MS for an
    action, a navigation, a selector or a function (Playwright's default: 30 s), so a test on a
    loaded, slower machine waits for the page itself rather than for a desktop's timing; their
    pages run the site's 3 s network timers stretched to the same budget
    (support.STRETCH_SITE_TIMEOUTS); the site's service worker is blocked unless a test asks
    for it (SERVICE_WORKERS). Everything else is the Playwright ``Browser``'s own."""

    def __init__(self, browser) -> None:
        self._browser = browser

    def __getattr__(self, name: str):
        return getattr(self._browser, name)

    def new_context(self, **kwargs):
        kwargs.setdefault("service_workers", SERVICE_WORKERS)
        context = self._browser.new_context(**kwargs)
        context.set_default_timeout(WAIT_MS)
        context.add_init_script(STRETCH_SITE_TIMEOUTS)
        return context

    def new_page(self, **kwargs):
        kwargs.setdefault("service_workers", SERVICE_WORKERS)
        page = self._browser.new_page(**kwargs)   # in a context of its own, closed with it
        page.set_default_timeout(WAIT_MS)
        page.add_init_script(STRETCH_SITE_TIMEOUTS)
        return page
