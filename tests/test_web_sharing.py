"""`citavial build --base-url`: canonical links, sitemap.xml (lastmod = the unit's version
date), robots.txt and per-unit OpenGraph/Twitter metadata, so a shared link previews the
regulation's own words."""

from __future__ import annotations

import json

import lxml.etree
import lxml.html
import pytest

BASE = "https://autoescuela.example/rgc/"
SITEMAP_NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def meta(root, key: str) -> str:
    found = root.xpath(f"//meta[@property='{key}' or @name='{key}']/@content")
    assert len(found) == 1, key
    return found[0]


@pytest.mark.parametrize("page, title", [
    pytest.param("art48.html", "Artículo 48. Velocidades máximas en vías fuera de poblado",
                 id="art48"),
    pytest.param("art18.html", "Artículo 18. Otras obligaciones del conductor", id="art18-long"),
    pytest.param("anexoI-5.html", "Anexo I, apartado 5. Catálogo oficial de señales",   # not "5. 5."
                 id="annex-section"),
])
def test_unit_preview_is_the_regulations_own_words(published_site, reg, page, title):
    root = lxml.html.parse(str(published_site / page)).getroot()
    assert root.xpath("//link[@rel='canonical']/@href") == [BASE + page]
    assert meta(root, "og:url") == BASE + page and meta(root, "og:type") == "article"
    assert meta(root, "og:title").startswith(title)
    assert meta(root, "og:title") == meta(root, "twitter:title")
    unit = next(u for u in reg.units if u.page == page)
    first = next(b.text for b in unit.blocks if b.ref and b.text.strip())
    desc = meta(root, "og:description")
    assert desc == meta(root, "twitter:description") == meta(root, "description")
    if len(first) <= 300:
        assert desc == first
    else:   # cut at a word boundary, marked
        assert desc.endswith("…") and len(desc) <= 301 and first.startswith(desc[:-1])
    assert meta(root, "og:image") == BASE + "static/icon-512.png"


def test_art48_previews_its_first_paragraph(published_site):
    root = lxml.html.parse(str(published_site / "art48.html")).getroot()
    assert meta(root, "og:title") == "Artículo 48. Velocidades máximas en vías fuera de poblado"
    assert meta(root, "og:description") == (
        "1. Las velocidades máximas que no deberán ser rebasadas, salvo en los supuestos "
        "previstos en el artículo 51, son las siguientes:")


def test_sitemap_lists_every_page_with_the_units_version_date(published_site, reg):
    doc = lxml.etree.parse(str(published_site / "sitemap.xml"))
    urls = {u.findtext("s:loc", namespaces=SITEMAP_NS): u.findtext("s:lastmod", namespaces=SITEMAP_NS)
            for u in doc.getroot().findall("s:url", SITEMAP_NS)}
    pages = {p.relative_to(published_site).as_posix() for p in published_site.rglob("*.html")}
    pages -= {"404.html", "offline.html"}
    assert "ley-trafico/anexoII.html" in pages   # the other norms' folders too
    assert set(urls) == {BASE + ("" if p == "index.html" else p) for p in pages}
    art48 = next(u for u in reg.units if u.page == "art48.html")
    assert urls[BASE + "art48.html"] == art48.version.in_force.isoformat()
    assert urls[BASE] is None   # not a unit: no invented date
    dated = [u for u in reg.units if u.version]
    assert sum(1 for v in urls.values() if v) == len(dated)
    assert (published_site / "robots.txt").read_text().splitlines()[-1] == \
        f"Sitemap: {BASE}sitemap.xml"


def test_published_build_stays_portable(published_site):
    """Pages keep relative links (any host, any sub-path); 404.html is root-relative, because it
    answers for missing paths at any depth; the manifest resolves against its own URL."""
    page = (published_site / "art48.html").read_text()
    assert 'href="index.html"' in page and 'src="static/app.' in page
    four = (published_site / "404.html").read_text()
    assert 'href="/rgc/index.html"' in four and 'href="/rgc/static/app.' in four
    manifest = json.loads((published_site / "manifest.webmanifest").read_text())
    assert (manifest["start_url"], manifest["scope"]) == ("./index.html", "./")
