"""The worker's regular expressions, named, in one place (table tests: tests/test_worker_patterns.py).

They judge *model output* and *user input*, never the regulation text (that is build/patterns.py).
"""

from __future__ import annotations

import re

# --- the slot the model writes instead of a citation -------------------------------------------

# A complete, well-formed slot: "[[REF:3]]". The number is range-checked by the guard.
SLOT = re.compile(r"^\[\[REF:([1-9][0-9]*)\]\]$")
# Every string that can still grow into a well-formed slot ("[", "[[RE", "[[REF:1", "[[REF:12]").
SLOT_PREFIX = re.compile(r"^\[(?:\[(?:R(?:E(?:F(?::(?:[1-9][0-9]*(?:\](?:\])?)?)?)?)?)?)?)?$")

# --- things model text may never carry (word level) --------------------------------------------

# A word that is, or contains, a link: a scheme ("http://", "javascript:"), "www.", an e-mail, a
# file name with a web extension, or a bare domain ("boe.es", "boe.es/buscar").
URL_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:(?://|[^\s]*[a-z])", re.IGNORECASE)
URL_WWW = re.compile(r"(?:^|\W)www\.", re.IGNORECASE)
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
WEB_FILE = re.compile(r"\.(?:html?|php|aspx?|jsp|pdf|xml|json|js|css)\b", re.IGNORECASE)
BARE_DOMAIN = re.compile(r"[\w-]+\.[a-z]{2,}(?![^\W\d_])", re.IGNORECASE)
# Canonical refs and norm numbers in prose: "RD-1428/2003#art48", "#art48", "1428/2003".
CANONICAL_IN_PROSE = re.compile(r"#|\bRD-\d|\b\d{1,4}/(?:19|20)\d\d\b|REF\b", re.IGNORECASE)

# --- refs written in prose ("artículo 48", "art. 48.1", "apartado 2", "anexo II") ---------------

# A word that introduces a reference (compared after lowercasing and dropping accents).
REF_TRIGGER = re.compile(
    r"^(?:art(?:iculos?|s?\.)?|apartados?|parrafos?|letras?|anexos?|disposicion(?:es)?|"
    r"secciones|seccion|capitulos?|titulos?|ordinal|ley|leyes|real|decreto|rd|rdl|"
    r"reglamento)$")
# The word after a trigger that makes it a reference: a number ("48", "48.1", "14", "2.º"),
# a letter designator ("a)"), a roman numeral ("II"), or a disposition kind ("adicional").
REF_DESIGNATOR = re.compile(
    r"^(?:\d\S*|[a-zñ]\)[.,;:]?|[ivxlc]+[.,;:]?|adicional|transitoria|derogatoria|"
    r"final|legislativo|n\.?º.*)$",
    re.IGNORECASE)
# A reference glued to its number ("artículo48", "art.48.1") is one word.
REF_GLUED = re.compile(r"^(?:art(?:iculos?|s)?\.?|apartados?)\d")

# --- characters removed from model text ---------------------------------------------------------

# Markup (HTML, markdown) and quotation marks: the model may neither format nor quote.
MARKUP_CHARS = re.compile(r"[<>&*_`#\[\]{}|~\\^=\"“”«»„‹›'‘’]")
# Control characters and characters outside the Basic Multilingual Plane (emoji), which would
# also make JavaScript's UTF-16 offsets differ from Python's.
UNSAFE_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\U00010000-\U0010ffff]")

# --- sentences -----------------------------------------------------------------------------------

# The characters that can end a sentence, and those that can open the next one.
SENTENCE_END = frozenset(".!?…")
SENTENCE_OPEN = re.compile(r"[A-ZÁÉÍÓÚÑÜ¿¡0-9]")
# A sentence needs a word of two letters or more ("1." or "a)" alone is a designator).
WORDS = re.compile(r"[^\W\d_]{2,}")

# --- user input ----------------------------------------------------------------------------------

# Control characters (C0, DEL, C1) and unpaired surrogates are refused in a question.
QUESTION_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
