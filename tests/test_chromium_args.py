"""The suite's Chromium switches keep what Playwright itself disables (tests/support.py).

Playwright passes its own ``--disable-features`` list before the suite's, and Chromium keeps
the last value of a switch given twice (seen here: a launch with ``RenderDocument`` alone runs
with Playwright's list dropped). So the suite's list repeats Playwright's. The browser hands its
effective features to every child process on their command lines: that is what is checked,
against the list the installed Playwright passes (an upgrade that adds one fails here, naming
it).
"""

from __future__ import annotations

import sys

import pytest
from suite_clock import below
from support import PLAYWRIGHT_DISABLED_FEATURES

pytestmark = pytest.mark.browser


def _chromium_below_us() -> list[str]:
    """The command lines (one string each) of the Chromium processes below this test process:
    the session's browser (fixture ``browser``; a second Playwright in this process would be
    refused) and its children."""
    lines = []
    for pid in sorted(below()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                lines.append(fh.read().replace(b"\0", b" ").decode())
        except OSError:   # ended meanwhile
            continue
    return [line for line in lines if line.startswith("/usr/lib/chromium/chromium")]


def _disabled(line: str) -> list[set[str]]:
    return [set(word.split("=", 1)[1].split(",")) for word in line.split()
            if word.startswith("--disable-features=")]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_chromium_runs_with_playwrights_disabled_features_and_ours(browser):
    page = browser.new_page()   # a renderer, so there are children to read
    try:
        page.set_content("<p>hola</p>")
        lines = _chromium_below_us()
    finally:
        page.close()
    main = [line for line in lines if "--type=" not in line]
    children = [line for line in lines if "--type=" in line and _disabled(line)]
    assert len(main) == 1 and children, f"the session's Chromium and its children: {lines}"
    playwrights = _disabled(main[0])[0]   # Playwright's switch comes first
    effective = _disabled(children[0])[0]
    missing = sorted(playwrights - effective)
    assert not missing, (f"Chromium runs with {missing} enabled, which Playwright disables: "
                         "add them to tests/support.py PLAYWRIGHT_DISABLED_FEATURES")
    assert {"RenderDocument", *PLAYWRIGHT_DISABLED_FEATURES} <= effective
