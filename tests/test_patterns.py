"""Table tests of every regex in build/patterns.py against the forms that occur in the BOE XML."""

from __future__ import annotations

import ast

import pytest
from support import ROOT

from citavial.build import patterns as P


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
    pytest.param("z1) Incumplir", "z1", id="letter-digit"),
    pytest.param("b) bis. El impago", "b", id="bis-letter"),
    pytest.param("A) Mayúscula", None, id="upper"),
    pytest.param("art. 5", None, id="prose"),
])
def test_letra(text, expected):
    m = P.LETRA.match(text)
    assert (m.group(1) if m else None) == expected


def test_letra_suffix():
    m = P.LETRA.match("b) bis. El impago de peaje")
    assert m is not None and (m.group(1), m.group(2), "b) bis. El impago de peaje"[m.end():]) == \
        ("b", "bis", "El impago de peaje")


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


# The real forms of rd.df1 (disposición final primera of the Real Decreto), which quotes
# definitions of the Ley sobre Tráfico's annex.
@pytest.mark.parametrize("text, opens, guillemets", [
    pytest.param("«62. Autovía. Autovía es la carretera especialmente proyectada, construida y "
                 "señalizada como tal que tiene las siguientes características:", True, "«",
                 id="opens-spanning-quote"),
    pytest.param("«64. Carretera convencional. Es toda carretera que no reúne las características "
                 "propias de las autopistas, autovías y vías para automóviles.»", True, "«»",
                 id="opens-and-closes"),
    pytest.param("«75. Vía para automóviles. Toda vía reservada exclusivamente a la circulación "
                 "de automóviles", True, "«", id="opens-75"),
    pytest.param("76. Vía interurbana. Es toda vía pública situada fuera de poblado.", False, "",
                 id="inside-quote"),
    pytest.param("c) Constar de distintas calzadas para cada sentido de circulación, separadas "
                 "entre sí, salvo en puntos singulares o con carácter temporal, por una franja de "
                 "terreno no destinada a la circulación, o por otros medios.»", False, "»",
                 id="closes-on-letter"),
    pytest.param("80. Carril para vehículos con alta ocupación. Es aquel especialmente reservado "
                 "o habilitado para la circulación de los vehículos con alta ocupación.»", False,
                 "»", id="closes-on-80"),
    pytest.param("Uno. Queda suprimido el concepto básico «vía rápida» contenido en el apartado 63 "
                 "del anexo.", False, "«»", id="inline-quote"),
    pytest.param("marcha ciclista», sin que en ningún caso exceda la anchura del vehículo.", False,
                 "»", id="stray-close"),
    pytest.param('"2. Queda prohibido conducir y utilizar cascos o auriculares', False, "",
                 id="straight-quotes-in-notes"),
])
def test_quotation_start_and_guillemets(text, opens, guillemets):
    assert bool(P.QUOTATION_START.match(text)) is opens
    assert "".join(P.GUILLEMET.findall(text)) == guillemets


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


@pytest.mark.parametrize("text, codes", [
    ("P-1", [("P", "1")]), ("la señal R-101.", [("R", "101")]), ("R\u2011500 y R-504", [("R", "500"), ("R", "504")]),
    ("(M-4.3b)", [("M", "4.3b")]), ("M-6.8 a M-6.16", [("M", "6.8"), ("M", "6.16")]),
    ("S-880,", [("S", "880")]), ("X-1", []), ("AP-7", []), ("P-1234567", []), ("R-101-2", []),
], ids=["bare", "in-text", "nb-hyphen", "letter", "range", "comma", "other-letter", "road",
        "too-long", "hyphenated"])
def test_sign_catalogue_code(text, codes):
    assert P.SIGN_CATALOGUE_CODE.findall(text) == codes


@pytest.mark.parametrize("folded, codes", [
    ("r-101", [("r", "101")]), ("señal r101", [("r", "101")]), ("r 101", [("r", "101")]),
    ("r\u2011500", [("r", "500")]), ("m-6.3", [("m", "6.3")]), ("m-4.3a", [("m", "4.3a")]),
    ("p-13a", [("p", "13a")]), ("s-28.", [("s", "28")]), ("¿s-28?", [("s", "28")]),
    ("s-21.1 y r-2", [("s", "21.1"), ("r", "2")]), ("v-20", []), ("ar-101", []),
    ("r-101b2", []), ("50 km/h", []), ("art. 101", []),
], ids=["hyphen", "glued", "space", "nb-hyphen", "marking", "marking-letter", "letter",
        "full-stop", "question", "two", "vehicle-sign", "two-letters", "glued-after",
        "speed", "article"])
def test_sign_query_code(folded, codes):
    assert [m.groups() for m in P.SIGN_QUERY_CODE.finditer(folded)] == codes


@pytest.mark.parametrize("text, name, codes", [
    ("– Marca de paso para peatones (M-4.3): una serie de líneas", "Marca de paso para peatones", "M-4.3"),
    ("● Cuadrícula (M-7.10): recuerda la prohibición", "Cuadrícula", "M-7.10"),
    ("– Flecha de sentido o de selección de carriles (M-5.1, M-5.2 y M-5.6): indica",
     "Flecha de sentido o de selección de carriles", "M-5.1, M-5.2 y M-5.6"),
    ("Podrá utilizarse la marca vial M-4.4 en pasos", None, None),
    ("– Avanza-bici o avanza-motos: indican", None, None),
], ids=["dash", "bullet", "several", "running-text", "no-code"])
def test_marking_definition(text, name, codes):
    m = P.MARKING_DEFINITION.match(text)
    assert (m.group("name"), m.group("codes")) == (name, codes) if m else name is None


@pytest.mark.parametrize("value, date", [
    ("noDesde20151001", "20151001"), ("noDesde2015100", None), ("nodesde20151001", None),
    ("noDesde20151001 x", None), ("soloTexto", None), ("noDesde２０１５１００１", None)])
def test_no_desde(value, date):
    m = P.NO_DESDE.fullmatch(value)
    assert (m.group(1) if m else None) == date


@pytest.mark.parametrize("value, ok", [
    ("BOE-A-2003-23514", True), ("BOE-A-2026-13889", True), ("BOE-A-2003-", False),
    ("boe-a-2003-1", False), ("BOE-A-2003-23514\n", False), ("BOE-A-２００３-1", False)])
def test_boe_id(value, ok):
    assert bool(P.BOE_ID.fullmatch(value)) is ok


@pytest.mark.parametrize("pattern, value, ok", [
    pytest.param(P.SHA256_HEX, "1105a26b121e2048816438ddf8a36910e04d5a92ee49e87982608d027ab40072",
                 True, id="sha256"),
    pytest.param(P.SHA256_HEX, "1105A26B" * 8, False, id="sha256-upper"),
    pytest.param(P.ISO_UTC, "2026-07-31T08:26:21Z", True, id="iso-utc"),
    pytest.param(P.ISO_UTC, "20260731T082621Z", False, id="boe-compact-form"),
    pytest.param(P.QUESTION_ID, "velocidad-001", True, id="question-id"),
    pytest.param(P.QUESTION_ID, "parada-estacionamiento-015", True, id="question-id-dashes"),
    pytest.param(P.QUESTION_ID, "velocidad-1", False, id="question-id-short"),
])
def test_fullmatch_constants(pattern, value, ok):
    assert bool(pattern.fullmatch(value) if pattern is not P.QUESTION_ID
                else pattern.match(value)) is ok


@pytest.mark.parametrize("text, quote, ref", [
    pytest.param("x [«Las velocidades máximas»](cita:art48.1) y", "Las velocidades máximas",
                 "art48.1", id="guide-citation"),
    pytest.param("[«Autopista y autovía | 120»](cita:art48.1.a)", "Autopista y autovía | 120",
                 "art48.1.a", id="table-row"),
    pytest.param("[«a [b] c»](cita:art1)", None, None, id="brackets-inside-refused"),
    pytest.param("[«texto»](cita: art1)", None, None, id="space-in-ref-refused"),
])
def test_citation(text, quote, ref):
    m = P.CITATION.search(text)
    assert (m.group("quote"), m.group("ref")) == (quote, ref) if quote else m is None
    if quote is None:
        assert P.LOOSE_CITATION.search(text)  # left for the malformed-citation error


@pytest.mark.parametrize("data, at", [
    (b'<?xml version="1.0"?>\n<response>', 22), (b"<!DOCTYPE r>\n<r/>", 13), (b"no xml", None)])
def test_xml_root_start(data, at):
    m = P.XML_ROOT_START.search(data)
    assert (m.start() if m else None) == at


@pytest.mark.parametrize("pattern, text, out", [
    (P.HTML_WHITESPACE, "a \t\n b\u00a0c", "a b\u00a0c"),
    (P.LITERAL_WHITESPACE, "a \t\n b\u00a0 c", "a b c"),
])
def test_whitespace(pattern, text, out):
    assert pattern.sub(" ", text) == out


@pytest.mark.parametrize("text, body", [
    pytest.param("---\ntitle: Velocidad\norder: 1\n---\n## Texto", "title: Velocidad\norder: 1",
                 id="front-matter"),
    pytest.param("## Texto\n---\ntitle: x\n---\n", None, id="front-matter-not-at-start"),
    pytest.param("---\ntitle: x\n", None, id="front-matter-unclosed"),
])
def test_front_matter(text, body):
    m = P.FRONT_MATTER.match(text)
    assert (m.group("body") if m else None) == body


# The prose check's and the practice bank's patterns, on folded text (search: first match's
# group 1, or the whole match for the patterns without groups).
@pytest.mark.parametrize("pattern, text, found", [
    pytest.param(P.PROSE_QUANTITY, "a 120 km/h en autopista", "120", id="quantity-speed"),
    pytest.param(P.PROSE_QUANTITY, "3.500 kilogramos", "3.500", id="quantity-thousands"),
    pytest.param(P.PROSE_QUANTITY, "el art48 dice", None, id="quantity-glued-word"),
    pytest.param(P.PROSE_REFERENCE, "segun el art. 48.1 del reglamento", "art. 48.1",
                 id="reference-article"),
    pytest.param(P.PROSE_REFERENCE, "el RD 1428/2003", "RD 1428", id="reference-rd"),
    pytest.param(P.PROSE_REFERENCE, "en la via publica", None, id="reference-none"),
    pytest.param(P.PROSE_ABSOLUTE, "no debe adelantar nunca", "nunca", id="absolute-nunca"),
    pytest.param(P.PROSE_ABSOLUTE, "siempre que pueda", None, id="absolute-siempre-que"),
    pytest.param(P.PROSE_ABSOLUTE, "casi siempre", None, id="absolute-casi"),
    pytest.param(P.PROSE_EXCEPTION, "salvo en poblado", "salvo", id="exception-salvo"),
    pytest.param(P.PROSE_EXCEPTION, "sin perjuicio de lo anterior", "sin perjuicio",
                 id="exception-sin-perjuicio"),
    pytest.param(P.PROSE_EXCEPTION, "los salvoconductos", None, id="exception-inside-word"),
    pytest.param(P.OPTION_ABSOLUTE, "no, nunca.", "nunca", id="option-absolute-nunca"),
    pytest.param(P.OPTION_ABSOLUTE, "todos los vehiculos", "todos", id="option-absolute-todos"),
    pytest.param(P.OPTION_ABSOLUTE, "siempre que pueda", None, id="option-absolute-siempre-que"),
    pytest.param(P.OPTION_QUALIFIER, "si, si lleva casco", "si", id="qualifier-si"),
    pytest.param(P.OPTION_QUALIFIER, "si, por el arcen.", None, id="qualifier-answer-word-si"),
    pytest.param(P.OPTION_QUALIFIER, "cuando llueva", "cuando", id="qualifier-cuando"),
    pytest.param(P.PLACEHOLDER_NUMBER, "texto CITAVIALCITE12X fin", "12", id="placeholder"),
    pytest.param(P.PLACEHOLDER_NUMBER, "CITAVIALCITEX", None, id="placeholder-no-number"),
    pytest.param(P.PROSE_PUNCT, "a, b", ", ", id="punct-comma"),
    pytest.param(P.PROSE_PUNCT, "50%/h", None, id="punct-keeps-slash-percent"),
])
def test_prose_and_option_patterns(pattern, text, found):
    m = pattern.search(text)
    assert ((m.group(1) if pattern.groups else m.group(0)) if m else None) == found


@pytest.mark.parametrize("pattern, text, ok", [
    pytest.param(P.REF_FRAGMENT, "art48.1.a.1o", True, id="fragment"),
    pytest.param(P.REF_FRAGMENT, "anexoII.art14bis", True, id="fragment-annex"),
    pytest.param(P.REF_FRAGMENT, "art48..1", False, id="fragment-empty-segment"),
    pytest.param(P.REF_FRAGMENT, "art48-1", False, id="fragment-dash"),
    pytest.param(P.CANONICAL_REF, "RD-1428/2003#art82.2", True, id="canonical"),
    pytest.param(P.CANONICAL_REF, "RD-1428/2003#", False, id="canonical-empty"),
    pytest.param(P.CANONICAL_REF, "RD-999/2003#art1", False, id="canonical-other-norm"),
    pytest.param(P.CANONICAL_ANY_REF, "RDL-6/2015#anexoII.r10", True, id="any-canonical-ley"),
    pytest.param(P.CANONICAL_ANY_REF, "RD-818/2009#art4.2", True, id="any-canonical-conductores"),
    pytest.param(P.CANONICAL_ANY_REF, "RD-1428/2003#art82.2", True, id="any-canonical-rgc"),
    pytest.param(P.CANONICAL_ANY_REF, "RDL-6/2015#", False, id="any-canonical-empty"),
    pytest.param(P.CANONICAL_ANY_REF, "Ley-6/2015#art1", False, id="any-canonical-not-rd"),
    pytest.param(P.HUMAN_ARTICLE, "art. 87.1 b)", True, id="human-article-letter"),
    pytest.param(P.HUMAN_ARTICLE, "Art 82, apartado 2", True, id="human-article-apartado"),
    pytest.param(P.HUMAN_ARTICLE, "artículo 14 bis del anexo II", True, id="human-article-annex"),
    pytest.param(P.HUMAN_ARTICLE, "capítulo II", False, id="human-article-chapter"),
    pytest.param(P.HUMAN_ANNEX, "anexo I, 5", True, id="human-annex-section"),
    pytest.param(P.HUMAN_ANNEX, "Anexo III, sección 1", True, id="human-annex-iii"),
    pytest.param(P.HUMAN_ANNEX, "anexo 5", False, id="human-annex-arabic"),
    pytest.param(P.HUMAN_DISPOSITION, "disposición final cuarta", True, id="human-disposition"),
    pytest.param(P.HUMAN_DISPOSITION, "Disposición final primera del Real Decreto", True,
                 id="human-disposition-rd"),
    pytest.param(P.HUMAN_DISPOSITION, "disposición", False, id="human-disposition-bare"),
    pytest.param(P.SEARCH_WORD, "señales", True, id="search-word"),
    pytest.param(P.SEARCH_WORD, "50", False, id="search-word-digits"),
])
def test_ref_and_word_patterns(pattern, text, ok):
    assert bool(pattern.fullmatch(text) if pattern in (P.REF_FRAGMENT, P.SEARCH_WORD)
                else pattern.match(text)) is ok


@pytest.mark.parametrize("text, norm, rest", [
    pytest.param("art. 76 de la Ley sobre Tráfico", "RDL-6/2015", "art. 76", id="ley"),
    pytest.param("anexo II de la Ley sobre Trafico, Circulacion de Vehiculos a Motor y "
                 "Seguridad Vial", "RDL-6/2015", "anexo II", id="ley-full-title-no-accents"),
    pytest.param("artículo 4.2 del reglamento general de conductores", "RD-818/2009",
                 "artículo 4.2", id="conductores-lower-case"),
    pytest.param("art. 10, RGV", "RD-2822/1998", "art. 10", id="vehiculos-abbreviation"),
    pytest.param("art 82 del Reglamento General de Circulación", "RD-1428/2003", "art 82",
                 id="reglamento"),
    pytest.param("artículo 14 bis del anexo II", None, None, id="annex-is-no-norm"),
    pytest.param("art. 76 de la Ley de Enjuiciamiento Civil", None, None, id="other-law"),
])
def test_human_named_norm(text, norm, rest):
    m = P.HUMAN_NAMED_NORM.search(text)
    got = (P.NAMED_NORM_PREFIXES[int(m.lastgroup[1:])], text[:m.start()]) if m else (None, None)
    assert got == (norm, rest)


def _names(code) -> set[str]:
    """Global and attribute names a function's code (and its nested lambdas) reads."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def table_tested(module, patterns: dict[str, object]) -> set[str]:
    """Names of ``patterns`` that a table test of ``module`` exercises: a pattern given as a row
    value of a parametrized test, or — in a parametrized test whose rows hold no pattern — one
    its body reads by name. A name merely mentioned elsewhere (a comment, another test) does not
    count, nor does a test without rows."""
    by_id = {id(v): k for k, v in patterns.items()}
    found: set[str] = set()
    for name, fn in vars(module).items():
        marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
        if not name.startswith("test_") or not marks:
            continue
        rows = [r for m in marks for r in m.args[1]]
        values = [v for r in rows for v in (r.values if hasattr(r, "values") else
                                            r if isinstance(r, tuple) else (r,))]
        in_rows = {by_id[id(v)] for v in values if id(v) in by_id}
        read = _names(fn.__code__)
        in_body = {k for k in patterns if k.rsplit(".", 1)[-1] in read}
        found |= in_rows or (in_body if rows else set())
    return found


def compiled(module) -> dict[str, object]:
    return {k: v for k, v in vars(module).items() if k.isupper() and hasattr(v, "pattern")}


# Where the table tests of the two patterns modules live (a pattern used by one stage is tested
# with that stage's cases). A new table-test module for patterns must be listed here.
TABLE_MODULES = ("test_patterns", "test_worker_patterns", "test_answer_stages",
                 "test_index_analyze", "test_lexical", "test_practice_bank", "test_prose",
                 "test_text", "test_web")


def test_every_pattern_has_a_table_test():
    """Each compiled constant of build/patterns.py and worker/patterns.py has rows of its own
    in a table test (test_worker_patterns.TABLE names its patterns as strings)."""
    import importlib

    from citavial.worker import patterns as WP
    patterns = {**compiled(P), **{f"worker.{k}": v for k, v in compiled(WP).items()}}
    modules = [importlib.import_module(m) for m in TABLE_MODULES]
    tested = set().union(*(table_tested(m, patterns) for m in modules))
    tested |= {f"worker.{n}" for n, *_ in modules[1].TABLE}
    untested = sorted(set(patterns) - tested)
    assert not untested, f"patterns without a table test of their own: {untested}"


def used_names(source: str) -> set[str]:
    """Every name the code uses (names, attributes, imported names): not comments or strings."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            out.update(alias.name for alias in node.names)
    return out


def test_every_pattern_is_used_by_the_code():
    """A compiled constant of build/patterns.py or worker/patterns.py that no module of build/
    or worker/ uses is dead: its table test would only keep it alive. Used also means being
    the reference of a differential test outside the table tests (check/scan.py reproduces
    CITATION_LINKED, CODE_SPAN, LOOSE_CHECK_CITATION: tests/test_check_scan.py)."""
    from citavial.worker import patterns as WP
    code = [p for folder in ("build", "worker") for p in sorted((ROOT / folder).rglob("*.py"))
            if p.name != "patterns.py"]
    oracles = [p for p in sorted((ROOT / "tests").rglob("test_*.py"))
               if p.stem not in TABLE_MODULES]
    used = set().union(*(used_names(p.read_text(encoding="utf-8")) for p in code + oracles))
    unused = sorted(set(compiled(P)) - used) + sorted(set(compiled(WP)) - used)
    assert unused == []


@pytest.mark.parametrize("source, name, used", [
    ("from citavial.build.patterns import A\n", "A", True),
    ("P.A.match(x)\n", "A", True),
    ("x = 1  # A is not used\n", "A", False),
    ("x = 'A'\n", "A", False),
], ids=["imported", "attribute", "comment", "string"])
def test_used_names_reads_code_not_prose(source, name, used):
    assert (name in used_names(source)) is used


def test_a_pattern_named_only_in_prose_is_untested():
    """The check itself: a name in a comment, or in a test without rows, is not a table test."""
    import types
    fake = types.ModuleType("fake")
    exec(compile("import re\nimport pytest\nA = re.compile('a')\nB = re.compile('b')\n"
                 "C = re.compile('c')\n"
                 "@pytest.mark.parametrize('t', ['a'])\ndef test_a(t): assert A.match(t)\n"
                 "def test_b(): assert B.match('b')  # C\n", "fake", "exec"), fake.__dict__)
    assert table_tested(fake, compiled(fake)) == {"A"}


@pytest.mark.parametrize("pattern, text, groups", [
    pytest.param(P.CITATION_LINKED, '[«a b c d»](https://x.org/art48.html#art48-1:~:text=a "cita:art48.1")',
                 {"quote": "a b c d", "url": "https://x.org/art48.html#art48-1:~:text=a",
                  "ref": "art48.1"}, id="linked"),
    pytest.param(P.CITATION_LINKED, "[«a b c d»](cita:art48.1)", None, id="linked-not-plain"),
    pytest.param(P.CITATION_LINKED, '[«a b»](u "title")', None, id="linked-other-title"),
    pytest.param(P.CITATION_COMMENT, "dice «a b c d» <!-- cita: art82.2 --> y",
                 {"quote": "a b c d", "ref": "art82.2"}, id="comment"),
    pytest.param(P.CITATION_COMMENT, "«a b»<!--cita:art82.2-->", {"quote": "a b", "ref": "art82.2"},
                 id="comment-tight"),
    pytest.param(P.CITATION_COMMENT, "«a b»\n<!-- cita: art82.2 -->", None,
                 id="comment-next-line"),
    pytest.param(P.CITATION_COMMENT, "«a b» <!-- nota -->", None, id="comment-other"),
    pytest.param(P.CITATION_COMMENT, "«a b» <!-- cita: art. 76 de la Ley sobre Tráfico -->",
                 {"quote": "a b", "ref": "art. 76 de la Ley sobre Tráfico"}, id="comment-human"),
    pytest.param(P.CITATION_COMMENT, "«a b» <!-- cita: RDL-6/2015#anexoII.r10-->",
                 {"quote": "a b", "ref": "RDL-6/2015#anexoII.r10"}, id="comment-other-norm"),
    pytest.param(P.CITATION_COMMENT, "«a b» <!-- cita: " + "x " * 13 + "-->", None,
                 id="comment-too-many-words"),
    pytest.param(P.CITATION_COMMENT, "«a b» <!-- cita: a <b> -->", None, id="comment-markup"),
])
def test_check_citation_forms(pattern, text, groups):
    m = pattern.search(text)
    assert (m.groupdict() if m else None) == groups


@pytest.mark.parametrize("pattern, text, found", [
    pytest.param(P.LOOSE_CHECK_CITATION, "[«a « b»](cita:x)", ["[«", "(cita:"], id="loose-link"),
    pytest.param(P.LOOSE_CHECK_CITATION, '(u "cita:x")', ['"cita:'], id="loose-title"),
    pytest.param(P.LOOSE_CHECK_CITATION, "<!-- cita: x", ["<!-- cita:"], id="loose-comment"),
    pytest.param(P.LOOSE_CHECK_CITATION, "«citado» en prosa", [], id="loose-prose"),
    pytest.param(P.CODE_SPAN, "a `x` b ``y`z`` c", ["`x`", "``y`z``"], id="code-spans"),
    pytest.param(P.CODE_SPAN, "a `x\ny` b", [], id="code-span-one-line"),
    pytest.param(P.LINK_REF_END, "art1) a\tb\nc\u00a0d", [")", " ", "\t", "\n", "\u00a0"],
                 id="link-ref-end"),
    pytest.param(P.LINK_URL_END, 'u#x) "t"', [")", " ", '"', '"'], id="link-url-end"),
    pytest.param(P.TITLE_REF_END, 'art1") a)', ['"', " "], id="title-ref-end"),
    pytest.param(P.LINK_BLANKS, "u \t x", ["", " \t ", "", ""], id="link-blanks"),
    pytest.param(P.BACKTICKS, "a `x` ``y```", ["`", "`", "``", "```"], id="backticks"),
    pytest.param(P.LINK_OPENER, "[«a b»](cita:art1) [«c»](cita:x[y)", ["[«a b»](cita:art1)",
                 "[«c»](cita:"], id="link-opener"),
    pytest.param(P.LINKED_OPENER, '[«a»](u "cita:r") [«b»](cita:r) [«c»](cita:r[)',
                 ["[«a»](", "[«c»]("], id="linked-opener"),
    pytest.param(P.CODE_SPAN_SPLIT, "a `x` b", ["`x`"], id="code-span-split"),
    pytest.param(P.FIRST_LOOSE_ON_LINE, "a [« b (cita:x\nprosa\n  <!-- cita: y",
                 ["a [«", "  <!-- cita:"], id="first-loose-opener-per-line"),
    pytest.param(P.FIRST_LOOSE_ON_LINE, "«citado» en prosa\nnada", [], id="first-loose-none"),
    pytest.param(P.MAYBE_CODE_BLOCK, "    code\n```\ntexto ~~~ x\n\tt\n  dos", ["    ", "```", "~~~", "\t"],
                 id="maybe-code-block"),
    pytest.param(P.MAYBE_CODE_BLOCK, "prosa `x` y\n  dos espacios", [], id="maybe-code-block-none"),
])
def test_check_scanning_patterns(pattern, text, found):
    assert [m.group(0) for m in pattern.finditer(text)] == found
