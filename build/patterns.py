"""Every regular expression of the project, named, in one place.

Each constant has a table test (tests/test_patterns.py) covering every form that occurs in the
real BOE XML. ``\\s`` is Unicode-aware: the XML uses U+00A0 after some designators ("a)\\xa0Bandera").
"""

from __future__ import annotations

import re

# --- designators that open a structural unit inside an article --------------------------------

# "1. Las velocidades…" opens apartado 1. Not "1.1 Señales" (annex numbering), not "1.º" (ordinal),
# not "30 km/h" (no dot), not "2.500 kg" (digit after the dot).
APARTADO = re.compile(r"^(\d{1,3})\.(?=\s)\s*")

# "Uno. Queda suprimido…": the Real Decreto's own final provisions number with words.
APARTADO_WORD = re.compile(
    r"^(Uno|Dos|Tres|Cuatro|Cinco|Seis|Siete|Ocho|Nueve|Diez)\.(?=\s)\s*")
WORD_NUMBERS = {"Uno": 1, "Dos": 2, "Tres": 3, "Cuatro": 4, "Cinco": 5, "Seis": 6, "Siete": 7,
                "Ocho": 8, "Nueve": 9, "Diez": 10}

# "a) Para automóviles:" opens letter a; "ñ)" exists in long enumerations. The Ley sobre Tráfico
# (art. 76–77) also numbers "z1)" … "z3)" and inserts "b) bis." / "b) ter.": group 2 takes the
# suffix, so those open letters "z1" and "bbis" (the Reglamento's XML has neither form).
LETRA = re.compile(r"^([a-zñ]\d?)\)(?:\s+(bis|ter|quater)\.)?(?=\s|$)\s*")

# "1.º En autopistas…" / "2.ª Cuando…" open an ordinal paragraph.
ORDINAL = re.compile(r"^(\d{1,2})\.([ºª])(?=\s|$)\s*")

# A paragraph that is only a designator, e.g. "a)" followed by a table.
LABEL_ONLY = re.compile(r"^(?:[a-zñ]\)|\d{1,3}\.|\d{1,2}\.[ºª])$")

# A paragraph that opens quoted text of another norm: "«62. Autovía. …", "«75. Vía para …" (the
# Real Decreto's disposición final primera rewrites definitions of the Ley sobre Tráfico). Inside
# the quotation, "76. Vía interurbana." is the quoted law's numbering, not an apartado; the
# quotation may close (») on a later paragraph. Not an inline quote: "… el concepto «vía rápida»".
QUOTATION_START = re.compile(r"^«")
# The guillemets counted to find the paragraph where a quotation closes.
GUILLEMET = re.compile(r"[«»]")

# --- repealed / suppressed text -------------------------------------------------------------

# "(Derogado)." — a unit or paragraph whose whole text is this has no wording in force.
REPEALED = re.compile(r"^\((Derogad[oa]s?)\)\.?$", re.IGNORECASE)
# "(Suprimido)" — whole unit, or "3. (Suprimido)" after its designator.
SUPPRESSED = re.compile(r"^\((Suprimid[oa]s?)\)\.?$", re.IGNORECASE)

# --- headings --------------------------------------------------------------------------------

# The heading block that starts the Reglamento's own numbering space.
REGLAMENTO_HEADING = re.compile(r"^REGLAMENTO GENERAL DE CIRCULACI[ÓO]N$")
TITULO_HEADING = re.compile(r"^T[ÍI]TULO\s+([IVXL]+|PRELIMINAR)$")
CAPITULO_HEADING = re.compile(r"^CAP[ÍI]TULO\s+([IVXL]+|[ÚU]NICO)$")
SECCION_HEADING = re.compile(r"^Secci[óo]n\s+(\d+)")
SUBSECCION_HEADING = re.compile(r"^Subsecci[óo]n\s+(\d+)")
ANEXO_HEADING = re.compile(r"^ANEXO\s+([IVXL]+)$")
# An ANEXO I section heading block is titled with a bare number: "1" … "6".
ANNEX_SECTION_NUMBER = re.compile(r"^(\d+)$")

# --- unit titles ("titulo" attribute of precepto blocks) -------------------------------------

ARTICLE_TITLE = re.compile(r"^Art[íi]culo\s+(\d+)(?:\s+(bis|ter|quater))?$")
ARTICLE_UNICO_TITLE = re.compile(r"^Art[íi]culo\s+[úu]nico$")
DISPOSITION_TITLE = re.compile(
    r"^Disposici[óo]n\s+(adicional|transitoria|derogatoria|final)\s+(\w+)$")
ORDINAL_WORDS = {"única": 1, "unica": 1, "primera": 1, "segunda": 2, "tercera": 3, "cuarta": 4,
                 "quinta": 5, "sexta": 6, "séptima": 7, "septima": 7, "octava": 8,
                 "novena": 9, "décima": 10, "decima": 10}
DISPOSITION_CODES = {"adicional": "da", "transitoria": "dt", "derogatoria": "dd", "final": "df"}

# "Artículo 48. Velocidades máximas en vías fuera de poblado." → title after the label.
ARTICLE_HEADING_TEXT = re.compile(
    r"^(?:Art[íi]culo\s+(?:\d+(?:\s+(?:bis|ter|quater))?|[úu]nico)"
    r"|Disposici[óo]n\s+\w+\s+\w+)\.?\s*(.*)$", re.DOTALL)

# --- BOE identifiers and cross-references ----------------------------------------------------

# ASCII only and used with fullmatch: "BOE-A-2003-23514\n" is refused (a trailing newline would
# pass a "$"-anchored pattern).
BOE_ID = re.compile(r"BOE-[A-Z]-\d{4}-\d+", re.ASCII)
SHA256_HEX = re.compile(r"[0-9a-f]{64}", re.ASCII)
ISO_UTC = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", re.ASCII)
# "Ref. BOE-A-2015-11722#daprimera" inside <a class="refPost">.
REF_POST = re.compile(r"(BOE-[A-Z]-\d{4}-\d+)(?:#([\w-]+))?")
# <blockquote class="noDesde20151001">: shown by the BOE only before that date (fullmatch).
NO_DESDE = re.compile(r"noDesde(\d{8})", re.ASCII)

# --- canonical passage refs ------------------------------------------------------------------

# The fragment part of a canonical ref: segments separated by dots, each [A-Za-z0-9ñº]+.
# Examples: art48, art82.2, art87.1.b, art48.1.a.1o, anexoI.5.p37, anexoII.art14bis.2, rd.df1.
REF_FRAGMENT = re.compile(r"^[A-Za-z0-9ñ]+(?:\.[A-Za-z0-9ñ]+)*$")
CANONICAL_REF = re.compile(r"^RD-1428/2003#([A-Za-z0-9ñ]+(?:\.[A-Za-z0-9ñ]+)*)$")
# A canonical ref of any norm: the prefix (checked against build/refs.py NORMS), "#", fragment.
CANONICAL_ANY_REF = re.compile(
    r"^(?P<norm>RDL?-\d{1,4}/\d{4})#(?P<frag>[A-Za-z0-9ñ]+(?:\.[A-Za-z0-9ñ]+)*)$")

# Human forms accepted by parse_ref, e.g. "artículo 82.2", "art. 87.1 b)", "Art 82, apartado 2",
# "artículo 14 bis del anexo II", "anexo I, 5".
HUMAN_ARTICLE = re.compile(
    r"^\s*(?:el\s+)?art(?:[íi]culo|\.|)\s*(?P<num>\d{1,3})(?:\s*(?P<bis>bis|ter|quater))?"
    r"(?:\s*(?:\.|,\s*apartado|\s+apartado|\s+ap\.)\s*(?P<apartado>\d{1,3}))?"
    r"(?:\s*(?:[.,]?\s*(?:letra|párrafo|parrafo)?\s*)(?P<letra>[a-zñ])\)?)?"
    r"(?:\s*(?:del\s+)?anexo\s+(?P<anexo>[IVX]+))?\s*$",
    re.IGNORECASE,
)
HUMAN_ANNEX = re.compile(
    r"^\s*anexo\s+(?P<anexo>[IVX]+)(?:\s*[,.]?\s*(?:secci[óo]n\s*)?(?P<section>\d+))?\s*$",
    re.IGNORECASE,
)
HUMAN_DISPOSITION = re.compile(
    r"^\s*(?:la\s+)?disposici[óo]n\s+(?P<kind>adicional|transitoria|derogatoria|final)"
    r"\s+(?P<ord>\w+)(?P<rd>\s+del\s+real\s+decreto)?\s*$",
    re.IGNORECASE,
)

# How people name a norm after a human ref ("art. 76 de la Ley sobre Tráfico", "artículo 4.2 del
# Reglamento General de Conductores"), by ref prefix (build/refs.py NORMS); parse_ref reads them
# at the end of a human ref, ignoring case and accents. A human ref naming no norm is the
# Reglamento's, as it always was.
# Each norm's title, the short name its labels open with (refs.NORMS), and abbreviations.
NORM_NAMES: dict[str, tuple[str, ...]] = {
    "RD-1428/2003": ("Reglamento General de Circulación", "Reglamento de Circulación", "RGC"),
    "RDL-6/2015": ("Ley sobre Tráfico, Circulación de Vehículos a Motor y Seguridad Vial",
                   "Ley sobre Tráfico", "Ley de Tráfico", "LSV",
                   "Real Decreto Legislativo 6/2015", "RDL 6/2015"),
    "RD-818/2009": ("Reglamento General de Conductores", "Reglamento de Conductores", "RGCond"),
    "RD-2822/1998": ("Reglamento General de Vehículos", "Reglamento de Vehículos", "RGV"),
}
_VOWELS = {"a": "aá", "e": "eé", "i": "ií", "o": "oó", "u": "uúü"}
_PLAIN = str.maketrans("áéíóúüÁÉÍÓÚÜ", "aeiouuaeiouu")


def _name_pattern(name: str) -> str:
    """A norm's name as a regex that ignores its accents (IGNORECASE does the case)."""
    out = []
    for ch in name:
        plain = ch.translate(_PLAIN).lower()
        out.append(r"\s+" if ch == " " else f"[{_VOWELS[plain]}]" if plain in _VOWELS
                   else re.escape(ch))
    return "".join(out)


# Longest names first, so "Ley sobre Tráfico, Circulación…" is not read as "Ley sobre Tráfico";
# group n<i> is the i-th name, NAMED_NORM_PREFIXES[i] its norm.
_NAMES = sorted(((n, norm) for norm, names in NORM_NAMES.items() for n in names),
                key=lambda pair: (-len(pair[0]), pair[0]))
NAMED_NORM_PREFIXES = tuple(norm for _, norm in _NAMES)
# ", del Reglamento General de Conductores" / " de la LSV" / " RGC" ending a human ref.
HUMAN_NAMED_NORM = re.compile(
    r"(?:\s*,\s*|\s+)(?:(?:del|de\s+la|de)\s+)?(?:"
    + "|".join(f"(?P<n{i}>{_name_pattern(n)})" for i, (n, _) in enumerate(_NAMES))
    + r")\s*$", re.IGNORECASE)

# --- search analyzer (build/index/analyze.py) ------------------------------------------------
# Matched on the NFC text before case folding (roman numerals and sign codes are upper case).

# "art. 48", "artículo 14 bis", "Arts. 82" → the designator token "art48" / "art14bis".
SEARCH_ARTICLE = re.compile(
    r"\bart(?:[íi]culos?|s)?\.?\s*(\d{1,3})(?:\s+(bis|ter|quater)\b)?", re.IGNORECASE)
# "anexo I", "ANEXO III" → "anexoi", "anexoiii" (the numeral must be upper case: "anexo y…").
SEARCH_ANNEX = re.compile(r"\banexo\s+((?-i:[IVX]{1,4}))\b", re.IGNORECASE)
# Sign codes of the catalogue: "R-301", "P-1a", "S-28", "V-2", "M-2.4" → "r-301" (the BOE
# sometimes writes a non-breaking hyphen, U+2011: "R‑500").
SEARCH_SIGN = re.compile(r"\b([A-Z]{1,2})[-\u2011](\d{1,3}(?:\.\d{1,2})?[a-z]?)\b")
# The same code in folded text (lexical.py and search-core.js), so "r-101" typed in lower case finds it:
# "r-101", "m-6.3", "s-28a"; lookarounds, not \b, so that JavaScript's regex reads it alike.
SEARCH_SIGN_CODE = re.compile(r"(?<!\w)([a-z]{1,2})[-\u2010\u2011](\d{1,3}(?:\.\d{1,2})?[a-z]?)(?!\w)")
# A catalogue code as students type it, in folded text (build/index/signmatch.py and search-core.js):
# "r-101", "r101", "r 101", "m-6.3", "p-13a", "s‑28" → ("r", "101"), … Only a code the catalogue
# has (or the family of one: "p-13" → P-13a, P-13b) counts, so "a 3 m 2 veces" stays words.
SIGN_QUERY_CODE = re.compile(r"(?<!\w)([prsm])[-\u2010\u2011 ]?(\d{1,3}(?:\.\d{1,2})?[a-z]?)(?!\w)")
# A number, optionally followed by a unit: "50 km/h", "2,5 m", "3.500 kg", "0,5 gramos por litro".
# "3.500" is a thousands separator (dots before groups of three digits); "2,5" a decimal comma.
SEARCH_NUMBER = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:\.\d{3})+|\d+(?:,\d+)?)(?![\w])"
    r"(?:\s*(km/h|kil[óo]metros?\s+por\s+hora|km|kil[óo]metros?|cm|cent[íi]metros?|mm|"
    r"mil[íi]metros?|m|metros?|kg|kilogramos?|t|toneladas?|mg/l|miligramos?\s+por\s+litro|"
    r"g/l|gramos?\s+por\s+litro|%|por\s+ciento|kw|cc|cm3|cv)(?![\w/]))?",
    re.IGNORECASE)
# A word: letters only (digits are handled by SEARCH_NUMBER).
SEARCH_WORD = re.compile(r"[^\W\d_]+")
# build/text.numbers: a number with decimal or thousands separators ("3.500", "0,5", "120").
TEXT_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# ... of which this is a thousands-grouped integer ("3.500", "1.000.000"), not a decimal.
TEXT_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+")

# An annex paragraph that heads what follows: "4.2\u2003Semáforos circulares para vehículos.",
# "1.1 Señales con el brazo y otras:", "Grupo 1. Normas y condiciones…" (short; see index/collect.py).
# Annex I separates a heading's number with an em space; anexo III's "1. " rules use a plain one.
ANNEX_SUBHEADING = re.compile(r"^(?:\d+\.\d+(?:\.\d+)*\.?\s|\d+\.\u2003|Grupo\s+\d+\.\s)\s*\S")
# A paragraph that opens with its own designator ("a) ", "1. ", "2.º ", "– "), i.e. not a
# continuation of the paragraph before it.
DESIGNATED = re.compile(r"^(?:[a-zñ]\)|\d{1,3}\.(?:[ºª])?|[–-])\s")
# The static search page's tokens (site_src/static/search-core.js uses the same expression, with
# \p{L} for letters): "3.500" (thousands), "2,5" (decimal), or a run of letters.
SEARCH_CLIENT_TOKEN = re.compile(r"\d{1,3}(?:\.\d{3})+(?!\d)|\d+(?:,\d+)?|[^\W\d_]+")

# --- the prose check (build/content/prose.py): numbers, absolutes and references in authored prose ----

# Spelled-out numbers a guide or an explanation may use ("mayores de catorce años"); "un/una/uno"
# are left out: they are articles far more often than amounts.
NUMBER_WORDS = {
    "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "nueve": 9,
    "diez": 10, "once": 11, "doce": 12, "trece": 13, "catorce": 14, "quince": 15,
    "dieciseis": 16, "diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "veinte": 20,
    "veinticinco": 25, "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60,
    "setenta": 70, "ochenta": 80, "noventa": 90, "cien": 100, "ciento": 100,
    "doscientos": 200, "quinientos": 500, "mil": 1000,
}
# A number (digits or a spelled-out number, matched on folded text) with an optional unit:
# "120 km/h", "2,5 metros", "3.500 kg", "catorce años", "0,25 miligramos por litro".
PROSE_QUANTITY = re.compile(
    r"(?<![\w.,/-])(\d{1,3}(?:\.\d{3})+|\d+(?:,\d+)?|"
    + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) +
    r")(?![\w]|[.,]\d)"
    r"(?:\s*(km/h|kilometros?\s+por\s+hora|km|kilometros?|cm3|cc|centimetros?\s+cubicos|cm|"
    r"centimetros?|mm|milimetros?|m|metros?|kg|kilogramos?|t|toneladas?|mg/l|"
    r"miligramos?\s+por\s+litro|g/l|gramos?\s+por\s+litro|%|por\s+ciento|kw|kilovatios?|"
    r"años?|meses|mes|dias?|horas?|h|minutos?|min|segundos?|s|euros?|plazas?)(?![\w/]))?")
# What is a reference, not an amount: "art. 48.1", "arts. 82–89", "artículos 48 y 50",
# "apartado 2", "anexo I, 5", "RD 1428/2003", "Ley 6/2015"; masked before numbers are read.
# ("artículos 48 y 50": the 50 stays a number — "y" also joins amounts: "art. 48 y 3,5 t".)
PROSE_REFERENCE = re.compile(
    r"\b(?:arts?\.|art[íi]culos?|apartados?|p[áa]rrafos?|anexos?|secci[óo]n|RD|Real\s+Decreto|"
    r"Ley|Orden|Directiva)\s*(?:[IVX]+\b,?\s*)?\d+(?:[.\w]*[ºª]?)"
    r"(?:\s*(?:[–-]|\ba\b)\s*\d+(?:[.\w]*[ºª]?))*|\b\d{1,4}/\d{4}\b",
    re.IGNORECASE)
# An absolute claim in prose (folded text). "siempre que" / "siempre y cuando" are conditions,
# "casi nunca" / "casi siempre" are not absolute,
# "un solo" / "no solo" are not "only"; "prohibición" names a sign group, so only the verb and
# participle count as "prohibido".
PROSE_ABSOLUTE = re.compile(
    r"(?<!\bcasi\s)\b(siempre(?!\s+(?:que|y\s+cuando)\b)|nunca|jamas|en\s+ningun\s+caso|"
    r"en\s+ninguna\s+circunstancia|en\s+todo\s+caso|en\s+todo\s+momento|"
    r"(?<!\bun\s)(?<!\bno\s)solo|solamente|unicamente|exclusivamente|prohibid[oa]s?|prohiben?)\b")
# An exception stated in a passage or in the prose around an absolute.
PROSE_EXCEPTION = re.compile(
    r"\b(salvo|excepto|excepcion(?:es)?|excepcional(?:es|mente)?|a\s+menos\s+que|"
    r"no\s+obstante|sin\s+perjuicio)\b")

# The practice bank's tells (build/content/banktells.py), on folded option text. An absolute or sweeping
# option ("Nunca.", "Sí, siempre.", "Cualquier vehículo…"): the classic always-wrong distractor.
OPTION_ABSOLUTE = re.compile(
    r"\b(siempre(?!\s+(?:que|y\s+cuando)\b)|nunca|jamas|en\s+ningun\s+caso|en\s+todo\s+caso|"
    r"(?<!\bun\s)(?<!\bno\s)solo|unicamente|exclusivamente|todos|todas|cualquier|ninguno|"
    r"ninguna)\b")
# A qualifier that makes an option conditional, the mark of a carefully written right answer
# ("salvo que…", "si…", "cuando…"). The answer word "Sí," / "Sí." is not the conditional "si".
OPTION_QUALIFIER = re.compile(
    r"\b(salvo|excepto|siempre\s+que|a\s+menos\s+que|cuando|aunque|mientras|si(?![,.\w]))\b")
# A citation placeholder in a guide's body (build/content/guides.py PLACEHOLDER), its number captured.
PLACEHOLDER_NUMBER = re.compile(r"CITAVIALCITE(\d+)X")
# Punctuation between words, turned into spaces before whole-word lookups in folded passages.
PROSE_PUNCT = re.compile(r"[^\w/%]+")

# --- XML, text and authored content ------------------------------------------------------------

# The end of an XML prolog: "<" followed by a name character starts the root element.
XML_ROOT_START = re.compile(rb"<[A-Za-z_:]")
# The one declared whitespace normalisation between XML text and rendered text (HTML collapses
# runs of ASCII whitespace; U+00A0 is kept).
HTML_WHITESPACE = re.compile(r"[ \t\n\r\f]+")
# The gate's literal comparison: whitespace runs, including U+00A0 (rendered as a space).
LITERAL_WHITESPACE = re.compile(r"[ \t\n\r\f\u00a0]+")
# A guide citation: [«quote»](cita:REF) — REF without spaces, the quote without « » [ ].
CITATION = re.compile(r"\[«(?P<quote>[^«»\[\]]+)»\]\(cita:(?P<ref>[^)\s]+)\)")
# Anything that looks like the start of a citation (left over after CITATION = malformed).
LOOSE_CITATION = re.compile(r"\(cita:|\[«")
# `citavial check`: a citation whose link --fix-links made the proven deep link, the ref kept in
# the link's title: [«quote»](URL "cita:REF").
CITATION_LINKED = re.compile(
    r'\[«(?P<quote>[^«»\[\]]+)»\]\((?P<url>[^)\s"]+)[ \t]+"cita:(?P<ref>[^"\s]+)"\)')
# `citavial check`: a guillemet quote in existing prose tagged by an HTML comment right after it:
# «quote» <!-- cita: REF -->. REF may be words on one line (a human ref naming its norm: "art. 76
# de la Ley sobre Tráfico"): at most 12, of the characters refs are made of (only the first may
# hold "-" and "#": "RDL-6/2015#art76.a"), matched possessively (Python 3.11), so a hostile
# note cannot make one attempt backtrack over many characters.
_COMMENT_TAIL = (r"»[ \t]*<!--[ \t]*cita:[ \t]*"
                 r"(?P<ref>(?:[\w.,()/#ºª]|-(?!->))++(?:[ \t]++[\w.,()/ºª]++){0,11}+)[ \t]*-->")
CITATION_COMMENT = re.compile(r"«(?P<quote>[^«»\[\]]+)" + _COMMENT_TAIL)
# `citavial check`: what is left of any citation form once the well-formed ones are taken out.
LOOSE_CHECK_CITATION = re.compile(r'\(cita:|\[«|"cita:|<!--[ \t]*cita:')
# ... the first of them on each line, as group "opener", in one C-level pass (issue 26: a
# search per line cost a Python round trip for each of 200,000 malformed lines). Linear: the
# lazy run tries the openers once per position, and ^ fails at once where no line starts.
FIRST_LOOSE_ON_LINE = re.compile(r"^[^\n]*?(?P<opener>" + LOOSE_CHECK_CITATION.pattern + ")",
                                 re.MULTILINE)
# `citavial check`: a line that may hold or open a code block (indented, fenced by ``` or ~~~):
# only then is the note parsed for its blocks.
MAYBE_CODE_BLOCK = re.compile(r"^(?:    |\t)|```|~~~", re.MULTILINE)
# A Markdown code span on one line (`…` or ``…``): a citation inside it is an example, not a claim.
CODE_SPAN = re.compile(r"(?P<ticks>`+)[^\n]+?(?P=ticks)")
# The pieces of check/scan.py, the linear scanner that finds exactly what the four patterns
# above find (issue 26: from every opener the patterns rescan the same long run, so a note of
# many openers is quadratic).
# The start of a link-form citation up to its ref — the whole citation when its ref holds no
# "[" (runs that stop at "[" stop at the next opener, so no run is read twice) —, and of a
# linked one up to its URL, not when what follows is a whole (cita:REF) (a URL ending at ")"
# has no title). Quotes are possessive: they cannot hold the "»" that must follow them.
LINK_OPENER = re.compile(r"\[«(?P<quote>[^«»\[\]]++)»\]\(cita:(?:(?P<ref>[^)\s\[]++)\))?")
LINKED_OPENER = re.compile(r"\[«(?P<quote>[^«»\[\]]++)»\]\((?!cita:[^)\s\[\"]*+\))")
# ... a (cita:REF) ref at the first of these, a linked citation's URL and its title's ref here:
LINK_REF_END = re.compile(r"[)\s]")
LINK_URL_END = re.compile(r'[)\s"]')
TITLE_REF_END = re.compile(r'["\s]')
# The blanks between a linked citation's URL and its title.
LINK_BLANKS = re.compile(r"[ \t]*+")
# A run of backticks (a code span opens and closes with one).
BACKTICKS = re.compile(r"`+")
# CODE_SPAN with the whole span as group 1, for split().
CODE_SPAN_SPLIT = re.compile(r"((`+)[^\n]+?\2)")
# A guide's front matter: "---" lines around "key: value" lines at the very start.
FRONT_MATTER = re.compile(r"\A---\n(?P<body>.*?)\n---\n", re.DOTALL)
# --- signs (build/render/signpage.py) -------------------------------------------------------------------
# A sign or road-marking code as the regulation writes it: "P-1", "R-101", "S-880", "M-4.3b";
# the BOE sometimes puts a non-breaking hyphen (U+2011) in "R‑500".
SIGN_CATALOGUE_CODE = re.compile(r"(?<![\w-])([PRSM])[-\u2011](\d{1,4}(?:\.\d{1,2})?[a-z]?)(?![\w-])")
# A road-marking definition of ANEXO I §5: "– Marca de paso para peatones (M-4.3): una serie…".
MARKING_DEFINITION = re.compile(r"^[–●]\s*(?P<name>[^()]+?)\s*\((?P<codes>M-[^()]+)\):\s*(?P<meaning>.+)$",
                                re.DOTALL)
# A practice question id: "<topic>-NNN".
QUESTION_ID = re.compile(r"^[a-z0-9-]+-\d{3}$")

# --- the published site (build/web/) -------------------------------------------------------------

# A content-hashed asset name: "app.3f2a9c01d4.css" (10 hex digits before the extension).
HASHED_ASSET = re.compile(r"\.[0-9a-f]{10}\.[a-z0-9]+$")
# A URL attribute as jinja writes it (always double-quoted); not "data-href". The white space
# before it is matched, not looked behind for: the same matches, found in half the time.
URL_ATTRIBUTE = re.compile(r'(?P<ws>\s)(?P<attr>src|href)="(?P<url>[^"]*)"')
# A URL that is not a file of the site relative to the page: scheme, //host, /root, #fragment.
NOT_RELATIVE_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//|/|#|$)", re.IGNORECASE)
