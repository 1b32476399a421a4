"""Real-browser proof of the citation gate on the built site (issue: citation gate, item 6).

Every guide citation, every practice explanation link and a deterministic sample of allowlist
deep links (every id-only anchor; the context directives stratified by norm and shape; a stride
of the exact and range ones; tables; annexes; accents: tests/link_check.py allowlist_sample) are
opened in Debian's Chromium as fresh navigations (tests/link_check.py). For each, the element Chromium
targets (``:target.closest('[id]')``) must be the intended passage, scrolled into view, and the
Python matcher (build/gate/fragments) must name the same element. A fabricated directive must land
nowhere.

The test's report goes to a temporary file. The committed golden/reports/browser-links.json (shown
on the "Por qué" page) is regenerated only on purpose, by tests/bench/report_browser_links.py.
"""

from __future__ import annotations

import json

import pytest
from link_check import (
    allowlist_sample,
    check_links,
    directive_shape,
    open_link,
    python_target,
    write_report,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(served_site):
    return served_site


@pytest.fixture(scope="module")
def context(browser):
    """A context of its own with service workers blocked: each link is a first visit served by
    the loopback server (as a student's first click), not through the offline cache the site's
    worker would install (tests/browser/test_pwa.py proves that path); ~22 % less CPU over the
    ~900 navigations (202 -> 157 s, n=1 each). check_links opens its tabs in it."""
    context = browser.new_context(viewport={"width": 1280, "height": 720},
                                  service_workers="block")
    yield context
    context.close()


@pytest.fixture(scope="module")
def page(context):
    return context.new_page()


def test_links_land_on_their_passage(site, context, tmp_path):
    site_dir, base = site
    report = check_links(site_dir, base, context)
    write_report(tmp_path / "browser-links.json", report)   # for a look after a failure
    assert report["by_source"]["allowlist"] >= 200
    assert report["checked"] == sum(report["by_source"].values())
    assert report["failed"] == len(report["failures"])
    assert not report["failures"], "\n".join(report["failures"][:20])


def test_sample_opens_every_directive_shape_of_every_norm(built_site):
    """The stratified sample leaves no (norm, directive, shape) of the allowlist unopened, and
    opens every anchor link."""
    entries = json.loads((built_site / "allowlist.json").read_text())["entries"]
    kinds = {(e["norm"], e["directive"], directive_shape(e["url"])) for e in entries}
    sample = allowlist_sample(entries)
    assert {(e["norm"], e["directive"], directive_shape(e["url"])) for e in sample} == kinds
    anchors = {e["ref"] for e in entries if e["directive"] == "anchor"}
    assert anchors <= {e["ref"] for e in sample}
    assert len(sample) < len(allowlist_sample(entries, every_context=True))


@pytest.mark.parametrize("fragment", [
    pytest.param("art48-1:~:text=velocidades%20inventadas%20por%20nadie", id="fabricated-text"),
    pytest.param(":~:text=Las%20velocidades%20m%C3%A1ximas%20que%20no%20deber%C3%A1n%20ser%20superadas",
                 id="one-word-changed"),
])
def test_fabricated_directive_lands_nowhere(site, page, fragment):
    site_dir, base = site
    got = open_link(page, base, f"art48.html#{fragment}")
    assert got["id"] == "aviso"  # only the sentinel matched
    assert python_target(site_dir, f"art48.html#{fragment}") is None
