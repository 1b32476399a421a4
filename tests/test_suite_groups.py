"""How the suite is spread over pytest-xdist workers (tests/conftest.py: _group, LONGEST): each
module is a group, browser modules included, the real-model tests one group, and the groups
named to start first are ones that exist."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

from support import ROOT


def _conftest():
    spec = importlib.util.spec_from_file_location("suite_conftest", ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_browser_modules_are_groups_of_their_own_and_the_model_one_group():
    conf = _conftest()
    item = SimpleNamespace(nodeid="tests/browser/test_pwa.py::test_offline")
    assert conf._group(item, {"browser", "built_site"}) == "tests/browser/test_pwa.py"
    assert conf._group(item, {"browser", "real_worker"}) == "model"
    other = SimpleNamespace(nodeid="tests/adversarial/test_xss_browser.py::test_x[a]")
    assert conf._group(other, {"browser"}) == "tests/adversarial/test_xss_browser.py"
    assert conf._group(other, {"model_path"}) == "model"


def test_the_groups_started_first_exist():
    longest = _conftest().LONGEST
    assert len(set(longest)) == len(longest)
    missing = [g for g in longest if g != "model" and not (ROOT / g).is_file()]
    assert not missing, f"tests/conftest.py LONGEST names no module: {missing}"
