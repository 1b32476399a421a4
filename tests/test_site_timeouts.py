"""The site's 3 s network timers that the browser tests stretch (support.STRETCH_SITE_TIMEOUTS):
the shim changes exactly those, and the site still has exactly those two. If the site's timers
change, the shim must follow, or the chat tests depend on the machine's speed again."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from support import ROOT, SITE_TIMEOUT_MS, STRETCH_SITE_TIMEOUTS, WAIT_MS, WAIT_S

STATIC = ROOT / "site_src" / "static"
TIMER = re.compile(r"setTimeout\(function \(\) \{ (.*?) \}, (\d+)\)")


def test_the_site_has_exactly_the_two_timers_the_shim_stretches():
    timers = {(path.name, body.strip(), int(ms)) for path in sorted(STATIC.glob("*.js"))
              for body, ms in TIMER.findall(path.read_text(encoding="utf-8"))
              if int(ms) == SITE_TIMEOUT_MS}
    assert timers == {("chat.js", "ctl.abort();", SITE_TIMEOUT_MS),
                      ("pwa.js", "resolve({});", SITE_TIMEOUT_MS)}, timers
    every = "".join(p.read_text(encoding="utf-8") for p in STATIC.glob("*.js"))
    assert every.count(f", {SITE_TIMEOUT_MS})") == 2   # no other call with that delay


def test_the_shim_stretches_only_those_timers():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing (tests/run_all.sh installs npm and node)")
    script = ("const seen = []; globalThis.window = globalThis;"
              "window.setTimeout = (h, d) => { seen.push(d); return 0; };"
              f"{STRETCH_SITE_TIMEOUTS}"
              f"setTimeout(() => {{}}, {SITE_TIMEOUT_MS}); setTimeout(() => {{}}, 250);"
              "setTimeout(() => {}); console.log(JSON.stringify(seen));")
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True,
                         timeout=WAIT_S)
    assert json.loads(out.stdout) == [WAIT_MS, 250, None]
