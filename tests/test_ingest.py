"""The table of expected facts about RD 1428/2003 as in force on 2026-11-29 (corpus-notes traps)."""

from __future__ import annotations

from datetime import date

import pytest
from support import CORPUS

from citavial.build.ingest import ingest
from citavial.build.models import EXPIRED, IN_FORCE, NOT_YET, REPEALED, SUPPRESSED

TEXTO = CORPUS / "BOE-A-2003-23514.xml"
META = CORPUS / "BOE-A-2003-23514.metadatos.xml"
R = "RD-1428/2003#"


def _images(unit):
    n = 0
    for b in unit.blocks:
        n += len(b.images)
        if b.table:
            n += sum(len(c.images) for row in b.table.rows for c in row)
    return n


@pytest.mark.parametrize("n", [n for n in range(1, 159)], ids=lambda n: f"art{n}")
def test_every_body_article_is_present(reg, n):
    unit = reg.unit(f"{R}art{n}")
    expected = {51: REPEALED, 93: SUPPRESSED}.get(n, IN_FORCE)
    assert unit.status == expected
    assert unit.space == "reglamento"
    if expected == IN_FORCE:
        assert unit.passages, f"art{n} has no citable passage"
    else:
        assert not unit.passages, f"art{n} is {expected} but citable"


def test_no_body_article_beyond_158(reg):
    assert not any(u.ref == f"{R}art159" for u in reg.units)


def test_old_title_v_articles_are_expired(reg):
    expired = [u for u in reg.inactive if u.status == EXPIRED]
    assert sorted(u.label for u in expired) == sorted(f"Artículo {n}" for n in range(151, 174))
    assert all(u.expires == date(2025, 6, 17) for u in expired)


def test_title_vi_sits_in_the_body_after_the_annexes_order(reg):
    u = reg.unit(f"{R}art151")
    assert u.path[-1] == "TÍTULO VI"
    assert u.version.norm_id == "BOE-A-2026-13889"


def test_art48_keeps_its_speed_table(reg):
    table = next(b for b in reg.unit(f"{R}art48").passages if b.kind == "table")
    assert table.ref == f"{R}art48.1.a"
    cells = [c.text for row in table.table.rows for c in row]
    assert "Autopista y autovía" in cells and "120" in cells
    assert len(table.table.rows) == 3


def test_art48_apartados_letters_ordinals(reg):
    refs = [b.ref for b in reg.unit(f"{R}art48").passages]
    for ref in ("art48.1", "art48.1.a", "art48.1.a.1o", "art48.1.b", "art48.1.b.p2",
                "art48.1.c.2o", "art48.1.h", "art48.2"):
        assert R + ref in refs


@pytest.mark.parametrize("ref, status", [
    pytest.param("art98.3", SUPPRESSED, id="art98.3-suprimido"),
    pytest.param("art98.1", IN_FORCE, id="art98.1-in-force"),
])
def test_suppressed_paragraphs_inside_articles(reg, ref, status):
    block = next(b for b in reg.unit(f"{R}{ref.split('.')[0]}").blocks if b.ref == R + ref)
    assert block.status == status


def test_anexo_i_section_5_present_with_figures(reg):
    u = reg.unit(f"{R}anexoI.5")
    assert u.kind == "annex_section" and u.space == "anexoI"
    assert len(u.passages) > 100
    assert _images(u) >= 600
    assert all(i.src.startswith("https://www.boe.es/datos/imagenes/") for b in u.blocks
               for i in b.images)


@pytest.mark.parametrize("ref, words", [
    pytest.param("anexoI.1", "Brazo levantado verticalmente", id="agents-signals"),
    pytest.param("anexoI.4", "semáforo", id="traffic-lights"),
    pytest.param("anexoIII.s1", "separación mínima de 50 m", id="anexo-iii-section-1"),
])
def test_annex_content_in_heading_blocks_is_citable(reg, ref, words):
    text = " ".join(b.text for b in reg.unit(R + ref).passages)
    assert words.lower() in text.lower()


def test_art14bis_lives_in_anexo_ii(reg):
    u = reg.unit(f"{R}anexoII.art14bis")
    assert u.label.startswith("Artículo 14 bis") and u.path[0] == "ANEXO II"
    assert not any(x.ref == f"{R}art14bis" for x in reg.units)


def test_three_numbering_spaces(reg):
    assert reg.unit(f"{R}rd.df1").space == "rd"        # Real Decreto's own final provision
    assert reg.unit(f"{R}df1").space == "reglamento"    # the Reglamento's
    assert reg.unit(f"{R}anexoII.art1").space == "anexoII"
    assert reg.unit(f"{R}art1").space == "reglamento"


def test_precepto_counts_match_corpus_notes(reg):
    preceptos = [u for u in reg.units + reg.inactive
                 if u.kind in ("article", "disposition", "rd_precept", "annex_article")]
    assert len(preceptos) == 232
    titled_article = [u for u in preceptos if u.label.startswith("Artículo")]
    assert len(titled_article) == 218


def test_no_two_passages_share_a_ref(reg):
    refs = [b.ref for u in reg.units for b in u.blocks if b.ref]
    assert len(refs) == len(set(refs))
    assert all(r.startswith(u.ref + ".") or r == u.ref for u in reg.units
               for r in (b.ref for b in u.blocks if b.ref))


def test_editorial_notes_are_never_regulation_text(reg):
    for u in reg.units:
        for b in u.passages:
            assert not b.text.startswith(("Téngase en cuenta", "Redacción anterior")), b.ref
    art48 = reg.unit(f"{R}art48")
    assert any(n.kind == "editorial" for n in art48.notes)
    assert art48.history and "Real Decreto" in " ".join(art48.history[0].paragraphs)


def test_cross_references_become_boe_links(reg):
    links = [url for u in reg.units for n in u.notes + u.history for _, url in n.links]
    assert links and all(url.startswith("https://www.boe.es/buscar/act.php?id=BOE-")
                         for url in links)


def test_as_of_picks_the_wording_in_force():
    before = ingest(TEXTO, META, date(2026, 9, 30))
    after = ingest(TEXTO, META, date(2026, 10, 1))
    a48_before, a48_after = before.unit(f"{R}art48"), after.unit(f"{R}art48")
    assert a48_before.version.norm_id == "BOE-A-2018-18002"
    assert a48_after.version.norm_id == "BOE-A-2026-13889"
    assert [b.text for b in a48_before.passages] != [b.text for b in a48_after.passages]
    # TÍTULO VI and the suppression of art. 93 take effect on 2026-10-01.
    assert before.unit(f"{R}art93").status == IN_FORCE
    assert after.unit(f"{R}art93").status == SUPPRESSED
    assert not any(u.ref == f"{R}art151" for u in before.units)
    assert any(u.status == NOT_YET and u.label == "Artículo 151" for u in before.inactive)


def test_before_2025_the_old_title_v_is_in_force():
    old = ingest(TEXTO, META, date(2025, 1, 1))
    assert old.unit(f"{R}art160").status == IN_FORCE
    assert old.unit(f"{R}art51").status == REPEALED


def test_regulation_source(reg):
    assert reg.source.norm_id == "BOE-A-2003-23514"
    assert reg.source.consolidated == "2026-07-31"
    assert reg.source.eli == "https://www.boe.es/eli/es/rd/2003/11/21/1428"


# rd.df1 (the Real Decreto's disposición final primera) rewrites definitions of the Ley sobre
# Tráfico's annex, quoting them: "Dos. Se modifican …: «62. Autovía … c) ….»", "«64. …»",
# "«66. …»", then "Tres. Se introducen …: «75. …", "76. …" … "80. ….»". The quoted numbers are
# the other law's, so each quoted definition is a paragraph of the apartado that quotes it.
DF1 = [("", "El anexo del texto articulado"), ("1", "Uno. Queda suprimido"),
       ("2", "Dos. Se modifican"), ("2.p2", "«62. Autovía."), ("2.a", "a) Tener acceso"),
       ("2.b", "b) No cruzar a nivel"), ("2.c", "c) Constar de distintas calzadas"),
       ("2.p3", "«64. Carretera convencional."), ("2.p4", "«66. Travesía."),
       ("3", "Tres. Se introducen"), ("3.p2", "«75. Vía para automóviles."),
       ("3.p3", "76. Vía interurbana."), ("3.p4", "77. Vía urbana."),
       ("3.p5", "78. Carretera."), ("3.p6", "79. Glorieta."),
       ("3.p7", "80. Carril para vehículos con alta ocupación.")]


def test_rd_df1_quoted_definitions_are_paragraphs_of_the_quoting_apartado(reg):
    unit = reg.unit(f"{R}rd.df1")
    got = [(b.ref, b.text) for b in unit.blocks if b.ref]
    assert [r for r, _ in got] == [f"{R}rd.df1" + (f".{s}" if s else "") for s, _ in DF1]
    assert all(text.startswith(start) for (_, text), (_, start) in zip(got, DF1, strict=False))


def test_rd_df1_keeps_every_word_of_the_xml(reg):
    """Renumbering changes refs only: the passages are the XML's paragraphs, in order."""
    from lxml import etree
    bloque = next(b for b in etree.parse(str(TEXTO)).getroot().iter("bloque")
                  if b.get("id") == "dfprimera")
    paragraphs = [" ".join("".join(p.itertext()).split()) for p in bloque.iter("p")
                  if p.get("class") != "articulo"]
    unit = reg.unit(f"{R}rd.df1")
    assert [b.text for b in unit.blocks if b.ref] == paragraphs
    assert len(paragraphs) == 16


def _para(text: str):
    from citavial.build.models import Block
    return Block(kind="paragraph", text=text, source_class="parrafo")


@pytest.mark.parametrize("texts, refs", [
    pytest.param(["1. Se modifica:", "«5. Uno. a) x", "b) y", "6. Dos.", "7. Tres.»", "2. Otro."],
                 ["1", "1.p2", "1.b", "1.b.p2", "1.b.p3", "2"], id="closes-paragraphs-later"),
    pytest.param(["Uno. Se modifica:", "«5. Definición.»", "«6. Otra.»", "Dos. Sigue."],
                 ["1", "1.p2", "1.p3", "2"], id="word-apartados-around-quotes"),
    pytest.param(["1. Texto «citado» en línea.", "2. Otro apartado."], ["1", "2"],
                 id="inline-quote-changes-nothing"),
    pytest.param(["1. Se añade:", "«Tres. Texto de otra norma.", "a) letra»", "b) propia"],
                 ["1", "1.p2", "1.a", "1.b"], id="quoted-word-number-and-restored-path"),
    pytest.param(["1. Dice:", "«a) uno «dos» tres", "4. cuatro»", "5. cinco"],
                 ["1", "1.p2", "1.p3", "5"], id="nested-guillemets"),
])
def test_quotation_numbers_open_no_apartado(texts, refs):
    from citavial.build.ingest.structure import assign_article_refs
    out = assign_article_refs("U", [_para(t) for t in texts])
    assert [b.ref for b in out] == ["U." + r for r in refs]
    assert [b.text for b in out] == texts


def test_a_quotation_that_never_closes_stops_the_build():
    from citavial.build.errors import BuildError
    from citavial.build.ingest.structure import assign_article_refs
    with pytest.raises(BuildError, match="never closes"):
        assign_article_refs("U", [_para("1. Dice:"), _para("«2. Sin cerrar."), _para("3. Más.")])
