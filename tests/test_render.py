"""The built site: passage text equals the XML text, pages carry source/date, nothing external."""

from __future__ import annotations

import re

import pytest
from lxml import html as lhtml

from citavial.build.ingest.blocks import collapse

R = "RD-1428/2003#"


def _page(site, name):
    return lhtml.fromstring((site / name).read_bytes())


def _rendered_text(el) -> str:
    """Rendered text of a passage element: cells of a table are joined by one space."""
    if el.tag == "table":
        cells = [collapse(c.text_content()) for c in el.iter("caption")]
        cells += [collapse(" ".join(_text_skipping_images(c))) for c in el.iter("td", "th")]
        return collapse(" ".join(c for c in cells if c))
    return collapse(el.text_content())


def _text_skipping_images(cell):
    out = [cell.text or ""]
    for child in cell:
        if child.tag == "br":
            out.append(" ")
        elif not (child.tag == "a" and "boe-image" in (child.get("class") or "")):
            out.append(child.text_content())
        out.append(child.tail or "")
    return out


def test_every_passage_renders_its_xml_text(reg, built_site):
    checked = 0
    for unit in reg.units:
        page = _page(built_site, unit.page)
        for block in unit.blocks:
            if not block.ref:
                continue
            els = page.xpath("//*[@id=$id]", id=block.ref.split("#")[1].replace(".", "-"))
            assert len(els) == 1, block.ref
            assert els[0].get("data-ref") == block.ref
            assert _rendered_text(els[0]) == block.text, block.ref
            checked += 1
    assert checked >= 1400


def test_ids_are_unique_on_every_page(built_site):
    for path in built_site.glob("*.html"):
        ids = _page(built_site, path.name).xpath("//@id")
        assert len(ids) == len(set(ids)), path.name


@pytest.mark.parametrize("name", ["index.html", "art48.html", "anexoI-5.html", "vigencia.html",
                                  "anexoII-art14bis.html", "rd-df1.html"])
def test_page_shell(built_site, name):
    page = _page(built_site, name)
    assert page.get("lang") == "es"
    assert page.xpath("//main") and page.xpath("//header") and page.xpath("//footer")
    assert len(page.xpath("//h1")) == 1
    footer = page.xpath("string(//footer)")
    assert "29 de noviembre de 2026" in footer and "BOE-A-2003-23514" in footer
    hrefs = page.xpath("//footer//a/@href")
    assert "https://www.boe.es/eli/es/rd/2003/11/21/1428" in hrefs
    assert "https://www.boe.es/buscar/act.php?id=BOE-A-2003-23514" in hrefs


def test_heading_levels_never_skip(built_site):
    for path in built_site.glob("*.html"):
        levels = [int(h.tag[1]) for h in _page(built_site, path.name).iter("h1", "h2", "h3",
                                                                           "h4", "h5", "h6")]
        assert levels[0] == 1, path.name
        assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), path.name


def test_no_request_to_another_host(built_site):
    for path in built_site.glob("*.html"):
        page = _page(built_site, path.name)
        loaded = page.xpath("//script/@src | //link/@href | //img/@src | //iframe/@src"
                            " | //source/@src | //video/@src | //audio/@src")
        assert not [u for u in loaded if re.match(r"^(https?:)?//", u)], path.name
    for path in built_site.glob("static/*.css"):   # the bundle (build/web/assets.py)
        css = path.read_text()
        assert "url(" not in css and "@import" not in css, path.name


def test_links_between_pages_resolve(built_site):
    names = {p.name for p in built_site.glob("*.html")}
    for path in built_site.glob("*.html"):
        for href in _page(built_site, path.name).xpath("//a/@href"):
            if href.startswith(("http", "#")):
                continue
            target = href.split("#")[0]
            assert target in names or (built_site / target).exists(), (path.name, href)


def test_index_lists_the_whole_hierarchy(reg, built_site):
    index = _page(built_site, "index.html")
    text = index.text_content()
    for label in ("TÍTULO PRELIMINAR", "TÍTULO VI", "CAPÍTULO I", "ANEXO I", "ANEXO IV"):
        assert label in text
    hrefs = set(index.xpath("//nav[@class='toc']//a/@href"))
    assert {u.page for u in reg.units} <= hrefs


def test_prev_next_navigation(built_site):
    page = _page(built_site, "art48.html")
    assert page.xpath("//a[@rel='prev']/@href") == ["art47.html"]
    assert page.xpath("//a[@rel='next']/@href") == ["art49.html"]


def test_repealed_page_and_status_page(built_site):
    art51 = _page(built_site, "art51.html")
    assert "Derogado" in art51.text_content()
    assert not art51.xpath("//*[contains(@class,'passage') and not(contains(@class,'gone'))]")
    vig = _page(built_site, "vigencia.html").text_content()
    assert "Artículo 51" in vig and "Artículo 93" in vig and "Artículo 173" in vig


def test_images_are_placeholders_linking_to_the_boe(built_site):
    page = _page(built_site, "anexoI-5.html")
    links = page.xpath("//a[contains(@class,'boe-image')]/@href")
    assert len(links) >= 600
    assert all(h.startswith("https://www.boe.es/datos/imagenes/") for h in links)
    assert not page.xpath("//img")


def test_history_lists_versions(built_site):
    page = _page(built_site, "art48.html")
    versions = page.xpath("//ol[@class='versions']/li")
    assert len(versions) == 4
    assert "BOE-A-2026-13889" in versions[-1].text_content()


@pytest.mark.parametrize("name, heading", [
    pytest.param("anexoI-5.html", "Anexo I, apartado 5 Catálogo oficial de señales de la "
                 "circulación y marcas viales.", id="annex-section-number-once"),
    pytest.param("anexoI-1.html", "Anexo I, apartado 1 Señales y órdenes", id="em-space-after-number"),
    pytest.param("anexoIII-s1.html", "Anexo III, sección 1 Condiciones de circulación",
                 id="seccion-once"),
    pytest.param("art48.html", "Artículo 48 Velocidades máximas en vías fuera de poblado.",
                 id="article-unchanged"),
])
def test_heading_never_repeats_the_labels_number(built_site, name, heading):
    """Issue 25.7: "Anexo I, apartado 5. 5." — the BOE title repeats the section's number."""
    page = _page(built_site, name)
    shown = " ".join(page.xpath("string(//h1)").split())
    assert shown.startswith(heading), shown


def test_no_page_title_repeats_its_number(built_site):
    for path in built_site.glob("*.html"):
        title = " ".join(_page(built_site, path.name).xpath("string(//title)").split())
        assert not re.search(r"\b(\d+)\. \1\.|sección (\d+)\. Sección \2", title), title
