"""The rough edges a student and a teacher met on the built site, one table row each: the
vigencia page tells the expired old arts. 151–173 from the in-force TÍTULO VI, the BOE's
"noDesde" prior wording is not shown, repealed units do not claim an in-force wording, table
captions are kept, tables have <th scope> and an accessible name, and the home page has a way in."""

from __future__ import annotations

import pytest
from lxml import html as lhtml


def _page(site, name):
    return lhtml.fromstring((site / name).read_bytes())


def _text(el) -> str:
    return " ".join(el.text_content().split())


def test_vigencia_tells_old_from_renumbered(built_site):
    doc = _page(built_site, "vigencia.html")
    items = {_text(li).split(" (")[0]: li for li in doc.xpath("//li[@class='inactive-unit']")}
    old = items["Artículo 151"]
    assert "antiguo TÍTULO V" in _text(old) and "Sin vigencia" in _text(old)
    link = old.xpath(".//span[@class='renumbered']/a")
    assert [a.get("href") for a in link] == ["art151.html"]
    assert "TÍTULO VI" in _text(old.xpath(".//span[@class='renumbered']")[0])
    new = _page(built_site, "art151.html")
    assert "En vigor" in _text(new.xpath("//p[@class='meta']")[0])


@pytest.mark.parametrize("page, absent", [
    ("art117.html", "Redacción anterior"),
    ("art117.html", "Téngase en cuenta que esta modificación, establecida por el art. único del "
                    "Real Decreto 667/2015"),
], ids=["no-prior-wording", "no-future-notice"])
def test_no_desde_block_is_not_shown(built_site, page, absent):
    assert absent not in _text(_page(built_site, page))


def test_repealed_unit_says_since_when_not_in_force_wording(built_site):
    meta = _text(_page(built_site, "art51.html").xpath("//p[@class='meta']")[0])
    assert "Derogado desde el" in meta and "Redacción vigente" not in meta


@pytest.mark.parametrize("page, caption", [
    ("anexoI-2.html", "Grupo 1. Vialidades"), ("anexoI-2.html", "Grupo 2. Otros mensajes"),
    ("porque.html", "Cifras de esta versión del sitio"),
])
def test_captions_kept(built_site, page, caption):
    assert caption in [_text(c) for c in _page(built_site, page).xpath("//caption")]


def test_table_headers_have_scope_and_tables_a_name(built_site):
    doc = _page(built_site, "art48.html")
    table = doc.get_element_by_id("art48-1-a")
    assert table.get("aria-label") == "Tabla del art. 48.1.a)"
    rows = {_text(th): th.get("scope") for th in table.xpath(".//th")}
    assert rows["Autopista y autovía"] == "row" and rows["Convencional"] == "row"
    assert sum(1 for s in rows.values() if s == "col") == 3
    for name in ("art48.html", "anexoI-2.html", "porque.html", "guia-velocidad.html",
                 "simulacro.html"):
        for th in _page(built_site, name).xpath("//th"):
            assert th.get("scope") in ("row", "col"), (name, _text(th))
        for t in _page(built_site, name).xpath("//table"):
            assert t.xpath("caption") or t.get("aria-label"), (name, t.get("id"))


def test_guide_row_quote_is_a_small_table(built_site):
    doc = _page(built_site, "guia-velocidad.html")
    rows = doc.xpath("//span[@class='cita-row']")
    assert [[_text(c) for c in r.xpath(".//span[@class='cita-cell']")] for r in rows][:2] == [
        ["Autopista y autovía", "120", "90", "100"], ["Convencional", "90", "80", "90"]]
    assert " | " not in _text(doc.xpath("//article[@class='guide']")[0])
    assert "separa dos celdas" not in _text(doc)


def test_home_page_starts_here(built_site):
    doc = _page(built_site, "index.html")
    start = doc.xpath("//section[@class='start']")[0]
    assert _text(start.xpath(".//h2")[0]) == "Empieza aquí"
    hrefs = [a.get("href") for a in start.xpath(".//a")]
    for href in ("guias.html", "practica.html", "simulacro.html", "senales.html", "buscar.html"):
        assert href in hrefs
        assert (built_site / href).is_file(), href


LANDMARK = {"aside": "complementary", "nav": "navigation", "section": "region", "form": "form",
            "main": "main"}
LANDMARK_ROLES = {"complementary", "navigation", "region", "form", "main", "search", "banner",
                  "contentinfo"}


def _landmark(el) -> str | None:
    """The landmark role of ``el`` (explicit role, else the tag's; a <section> or <form> is a
    landmark only when named), or None."""
    role = el.get("role") or LANDMARK.get(el.tag)
    if el.tag in ("section", "form") and not el.get("role") and not (
            el.get("aria-label") or el.get("aria-labelledby")):
        return None
    return role if role in LANDMARK_ROLES else None


def test_every_page_names_its_headers_and_landmarks_apart(built_site):
    """axe-core's empty-table-header and landmark-unique over every built page (612; the browser
    run in tests/browser/test_axe.py covers one page per type): a <th> has a name (text or an
    image), and no two landmarks of one role share a name — the BOE notes after a passage
    ("Modificaciones", "Nota editorial", repeated on a page) are role="note", not landmarks."""
    bad = []
    for path in sorted(built_site.rglob("*.html")):
        doc = lhtml.fromstring(path.read_bytes())
        name = str(path.relative_to(built_site))
        bad += [(name, "empty <th>", th.get("id") or _text(th.getparent())[:40])
                for th in doc.iter("th") if not _text(th) and not th.xpath(".//img")]
        seen: dict[tuple[str, str], int] = {}
        for el in doc.iter("aside", "nav", "section", "form", "main", "div"):
            role = _landmark(el)
            if role:
                key = (role, el.get("aria-label") or el.get("aria-labelledby") or "")
                seen[key] = seen.get(key, 0) + 1
        bad += [(name, "landmark twice", key) for key, n in seen.items() if n > 1]
    assert bad == [], f"{len(bad)} findings, first: {bad[:10]}"
