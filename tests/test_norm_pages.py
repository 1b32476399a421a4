"""The other norms on the built site (issue 23, step 3): per norm, a front page and index linked
from the home page, a page per unit in the norm's folder with breadcrumbs naming the norm and the
BOE source with its update date, no inline code (the CSP), every local link resolving from the
sub-folder, and an allowlist entry per citable passage carrying norm, BOE id and update date."""

from __future__ import annotations

import json
from datetime import date
from urllib.parse import unquote

import pytest
from lxml import html as lhtml

from citavial.build.refs import NORMS, Ref
from citavial.build.render.pages import spanish_date
from citavial.build.web.assets import local_target
from citavial.build.web.inline import violations

OTHER = sorted(p for p, n in NORMS.items() if n.folder)


def _doc(site, name):
    return lhtml.fromstring((site / name).read_bytes())


def _text(el) -> str:
    return " ".join(el.text_content().split())


@pytest.fixture(scope="module")
def allow(built_site) -> dict:
    return json.loads((built_site / "allowlist.json").read_text("utf-8"))


def _entries(allow, norm: str) -> list[dict]:
    return [e for e in allow["entries"] if e["norm"] == norm]


@pytest.mark.parametrize("norm", OTHER)
def test_every_passage_has_its_page_and_norm_fields(built_site, allow, norm):
    entries = _entries(allow, norm)
    source = allow["sources"][norm]
    assert len(entries) > 500 and source["norm_id"] == NORMS[norm].boe_id
    for e in entries:
        assert Ref.parse(e["ref"]).norm == norm and e["page"] == Ref.parse(e["ref"]).page
        assert unquote(e["url"].partition(":~:")[0]) == f"{e['page']}#{e['anchor']}"
        assert (e["boe_id"], e["consolidated"]) == (source["norm_id"], source["consolidated"])
        assert (built_site / e["page"]).is_file()


@pytest.mark.parametrize("norm", OTHER)
def test_pages_have_no_inline_code(built_site, norm):
    pages = sorted((built_site / NORMS[norm].folder).glob("*.html"))
    assert len(pages) > 50
    bad = {p.name: v for p in pages if (v := violations(p.read_text("utf-8")))}
    assert not bad


@pytest.mark.parametrize("norm", OTHER)
def test_local_links_resolve_from_the_folder(built_site, norm):
    """Assets, scripts (deep links, copy-link), pager and breadcrumbs: every relative src/href
    of the norm's pages names a file the build wrote."""
    missing = []
    for path in sorted((built_site / NORMS[norm].folder).glob("*.html")):
        for _el, attr, url, _ in lhtml.fromstring(path.read_bytes()).iterlinks():
            target = local_target(path, built_site, url) if attr in ("href", "src") else None
            if target is not None and not (built_site / target).is_file():
                missing.append(f"{path.name}: {url}")
    assert not missing, missing[:10]


@pytest.mark.parametrize("norm", OTHER)
def test_unit_page_names_norm_source_and_date(built_site, allow, norm):
    entry = _entries(allow, norm)[len(_entries(allow, norm)) // 2]
    doc = _doc(built_site, entry["page"])
    crumbs = [_text(li) for li in doc.xpath("//nav[@class='crumbs wrap']//li")]
    assert crumbs[:2] == ["Inicio", NORMS[norm].title]
    when = spanish_date(date.fromisoformat(entry["consolidated"]))
    footer = _text(doc.xpath("//footer")[0])
    assert f"Texto consolidado del BOE, actualizado a {when}" in footer
    assert entry["boe_id"] in footer
    history = _text(doc.xpath("//section[@class='history']")[0])
    assert f"el BOE solo ofrece el texto consolidado a {when}" in history
    assert doc.xpath("//span[@class='tagline']")[0].text == NORMS[norm].title


@pytest.mark.parametrize("norm", OTHER)
def test_front_page_linked_from_home(built_site, norm):
    folder = NORMS[norm].folder
    home = _doc(built_site, "index.html")
    assert f"{folder}/index.html" in home.xpath("//section[@class='norms']//a/@href")
    front = _doc(built_site, f"{folder}/index.html")
    toc = front.xpath("//nav[@class='toc']//a/@href")
    units = {Ref.parse(e["ref"]).page for e in _entries(json.loads(
        (built_site / "allowlist.json").read_text("utf-8")), norm)}
    assert {f"{folder}/{h.removeprefix('../' + folder + '/')}" for h in toc} >= units


def test_folder_page_deep_links_are_page_relative(built_site, allow):
    """The copy-link script resolves links against the page's own URL: a folder page's links
    name the page alone (``anexoII.html#…``), the Reglamento's stay as they were."""
    [script] = (built_site / "deeplinks" / "ley-trafico").glob("anexoII.*.js")
    links = json.loads(script.read_text("utf-8").split("= ", 1)[1].rstrip().rstrip(";"))
    entry = next(e for e in allow["entries"] if e["ref"] == "RDL-6/2015#anexoII.r10")
    assert links["passages"]["anexoII-r10"] == entry["url"].removeprefix("ley-trafico/")
    assert all(u.startswith("anexoII.html#") for urls in links["rows"].values() for u in urls
               if u)


def test_gate_report_counts_each_norm(built_site, allow):
    gate = json.loads((built_site / "gate-report.json").read_text("utf-8"))
    for norm in NORMS:
        n = len(_entries(allow, norm))
        assert gate["norms"][norm]["passages"] == n == sum(gate["norms"][norm]["directives"].values())
    assert gate["passages"] == len(allow["entries"])
