"""Table tests of every regex in build/patterns.py against the forms that occur in the BOE XML."""

from __future__ import annotations

import pytest

from build import patterns as P


@pytest.mark.parametrize("text, expected", [
    pytest.param("1. Las velocidades máximas", "1", id="apartado"),
    pytest.param("12. Los conductores", "12", id="two-digit"),
    pytest.param("3.\xa0(Suprimido)", "3", id="nbsp-after-dot"),
    pytest.param("1.1 Señales con el brazo", None, id="annex-numbering-not-apartado"),
    pytest.param("1.º En autopistas", None, id="ordinal-not-apartado"),
    pytest.param("30 km/h en travesías", None, id="number-without-dot"),
    pytest.param("2.500 kilogramos", None, id="thousands-dot"),
    pytest.param("5.2. SEÑALES DE PRIORIDAD", None, id="dotted-heading"),
])
def test_apartado(text, expected):
    m = P.APARTADO.match(text)
    assert (m.group(1) if m else None) == expected


@pytest.mark.parametrize("text, expected", [
    pytest.param("Uno. Queda suprimido", "Uno", id="uno"),
    pytest.param("Tres. Se añade", "Tres", id="tres"),
    pytest.param("Unos conductores", None, id="word-prefix"),
])
def test_apartado_word(text, expected):
    m = P.APARTADO_WORD.match(text)
    assert (m.group(1) if m else None) == expected


@pytest.mark.parametrize("text, expected", [
    pytest.param("a) Para automóviles:", "a", id="letter"),
    pytest.param("a)\xa0Bandera roja", "a", id="letter-nbsp"),
    pytest.param("ñ) Otros", "ñ", id="enye"),
    pytest.param("a)", "a", id="label-only"),
    pytest.param("ab) no", None, id="two-letters"),
    pytest.param("A) Mayúscula", None, id="upper"),
    pytest.param("art. 5", None, id="prose"),
])
def test_letra(text, expected):
    m = P.LETRA.match(text)
    assert (m.group(1) if m else None) == expected


@pytest.mark.parametrize("text, expected", [
    pytest.param("1.º En autopistas", ("1", "º"), id="masculine"),
    pytest.param("2.ª Cuando", ("2", "ª"), id="feminine"),
    pytest.param("10.º Otros", ("10", "º"), id="two-digit"),
    pytest.param("1. Texto", None, id="apartado"),
])
def test_ordinal(text, expected):
    m = P.ORDINAL.match(text)
    assert (m.groups() if m else None) == expected


@pytest.mark.parametrize("text, ok", [
    ("a)", True), ("1.", True), ("2.º", True), ("a) Texto", False), ("Artículo", False)])
def test_label_only(text, ok):
    assert bool(P.LABEL_ONLY.match(text)) is ok


@pytest.mark.parametrize("text, pattern, ok", [
    pytest.param("(Derogado).", P.REPEALED, True, id="derogado-art51"),
    pytest.param("(Derogada)", P.REPEALED, True, id="derogada"),
    pytest.param("(Suprimido)", P.SUPPRESSED, True, id="suprimido-art93"),
    pytest.param("(Suprimido).", P.SUPPRESSED, True, id="suprimido-dot"),
    pytest.param("Queda suprimido el concepto", P.SUPPRESSED, False, id="prose"),
])
def test_repealed_suppressed(text, pattern, ok):
    assert bool(pattern.match(text)) is ok


@pytest.mark.parametrize("title, pattern, group", [
    pytest.param("REGLAMENTO GENERAL DE CIRCULACIÓN", P.REGLAMENTO_HEADING, None, id="reglamento"),
    pytest.param("TÍTULO PRELIMINAR", P.TITULO_HEADING, "PRELIMINAR", id="titulo-preliminar"),
    pytest.param("TÍTULO VI", P.TITULO_HEADING, "VI", id="titulo-vi"),
    pytest.param("CAPÍTULO XIV", P.CAPITULO_HEADING, "XIV", id="capitulo"),
    pytest.param("Sección 1", P.SECCION_HEADING, "1", id="seccion"),
    pytest.param("Subsección 3", P.SUBSECCION_HEADING, "3", id="subseccion"),
    pytest.param("ANEXO IV", P.ANEXO_HEADING, "IV", id="anexo"),
    pytest.param("5", P.ANNEX_SECTION_NUMBER, "5", id="annex-section"),
])
def test_headings(title, pattern, group):
    m = pattern.match(title)
    assert m is not None
    if group is not None:
        assert m.group(1) == group


@pytest.mark.parametrize("title, expected", [
    pytest.param("Artículo 48", ("48", None), id="article"),
    pytest.param("Artículo 14 bis", ("14", "bis"), id="bis"),
    pytest.param("Artículo único", None, id="unico-is-separate"),
])
def test_article_title(title, expected):
    m = P.ARTICLE_TITLE.match(title)
    assert (m.groups() if m else None) == expected
    if expected is None:
        assert P.ARTICLE_UNICO_TITLE.match(title)


@pytest.mark.parametrize("title, expected", [
    ("Disposición final primera", ("final", "primera")),
    ("Disposición derogatoria única", ("derogatoria", "única")),
    ("Disposición adicional cuarta", ("adicional", "cuarta")),
])
def test_disposition_title(title, expected):
    assert P.DISPOSITION_TITLE.match(title).groups() == expected


@pytest.mark.parametrize("text, title", [
    pytest.param("Artículo 48. Velocidades máximas en vías fuera de poblado.",
                 "Velocidades máximas en vías fuera de poblado.", id="article"),
    pytest.param("Artículo 14 bis. Comunicación.", "Comunicación.", id="bis"),
    pytest.param("Artículo único. Aprobación del Reglamento General de Circulación.",
                 "Aprobación del Reglamento General de Circulación.", id="unico"),
    pytest.param("Disposición final cuarta. Título competencial.", "Título competencial.",
                 id="disposition"),
])
def test_article_heading_text(text, title):
    assert P.ARTICLE_HEADING_TEXT.match(text).group(1) == title


@pytest.mark.parametrize("text, boe_id, anchor", [
    ("Ref. BOE-A-2015-11722#daprimera", "BOE-A-2015-11722", "daprimera"),
    ("Ref. BOE-A-2026-12035#df-2", "BOE-A-2026-12035", "df-2"),
    ("Ref. BOE-A-2021-21006", "BOE-A-2021-21006", None),
])
def test_ref_post(text, boe_id, anchor):
    assert P.REF_POST.search(text).groups() == (boe_id, anchor)


@pytest.mark.parametrize("value, ok", [
    ("BOE-A-2003-23514", True), ("BOE-A-2003-", False), ("boe-a-2003-1", False)])
def test_boe_id(value, ok):
    assert bool(P.BOE_ID.match(value)) is ok
