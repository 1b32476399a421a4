"""The suite's Chromium switches keep what Playwright itself disables (tests/support.py).

Chromium keeps one value of a switch given twice, and Playwright passes its own
``--disable-features`` list before the suite's: the suite's list must therefore hold all of
Playwright's (a Playwright upgrade that adds one fails here, naming it) as well as its own.
"""

from __future__ import annotations

import os
import sys

import pytest
from support import CHROMIUM, CHROMIUM_ARGS, PLAYWRIGHT_DISABLED_FEATURES

pytestmark = pytest.mark.browser


def _switch(args: list[str], name: str) -> list[str]:
    return [a.split("=", 1)[1] for a in args if a.startswith(f"--{name}=")]


def _browser_command_line(playwright) -> list[str]:
    """The command line of the Chromium process a launch starts (not its children's)."""
    before = set(os.listdir("/proc"))
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                         args=CHROMIUM_ARGS)
    try:
        for pid in sorted(set(os.listdir("/proc")) - before):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    argv = [a.decode() for a in fh.read().split(b"\0") if a]
            except OSError:
                continue
            if argv and "chromium" in argv[0] and not any(a.startswith("--type=") for a in argv):
                return argv
    finally:
        browser.close()
    raise AssertionError("no Chromium browser process found after the launch")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_last_disable_features_switch_holds_playwrights_and_ours():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        argv = _browser_command_line(p)
    lists = [value.split(",") for value in _switch(argv, "disable-features")]
    assert len(lists) >= 2, f"expected Playwright's switch and the suite's: {lists}"
    playwrights = set(lists[0]) - {"RenderDocument"}
    missing = sorted(playwrights - set(lists[-1]))
    assert not missing, (f"Playwright now disables {missing} as well: add them to "
                         "tests/support.py PLAYWRIGHT_DISABLED_FEATURES")
    assert set(PLAYWRIGHT_DISABLED_FEATURES) <= set(lists[-1])
    assert "RenderDocument" in lists[-1]
