"""Shared fixtures: the regulation ingested once per session, and a built site."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import (  # noqa: F401 - re-exported for fixtures
    AS_OF,
    CHROMIUM,
    CHROMIUM_ARGS,
    CORPUS,
    ROOT,
    SITE_SRC,
    built_site_dir,
)

# What a test needs is read from the fixtures it uses, so a new test cannot forget its marker.
_NEEDS = {"model": {"real_state", "real_worker", "model_path"},
          "browser": {"browser"}}


def pytest_collection_modifyitems(config, items):
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for marker, fixtures in _NEEDS.items():
            if used & fixtures:
                item.add_marker(marker)


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
def published_site(tmp_path_factory):
    """`citavial build --base-url https://autoescuela.example/rgc/` into a temporary dist/."""
    from citavial.build.pipeline import build_site
    out = tmp_path_factory.mktemp("published") / "dist"
    build_site(corpus_dir=CORPUS, out_dir=out, as_of=AS_OF, site_src=SITE_SRC,
               base_url=PUBLISHED_AT)
    return out


# Debian's Chromium (support.CHROMIUM), driven by Playwright with an explicit executable (never
# a downloaded browser). ONE session-wide instance for every test directory: two live
# sync_playwright() instances in one process make Playwright refuse the second ("Sync API inside
# the asyncio loop").
@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `apt-get update && apt-get install -y chromium`")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
