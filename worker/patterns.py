"""The worker's regular expressions: what model text may carry and how a question is read.

They judge text the model wrote or a user typed, never the regulation text; the build's own
patterns (the regulation's designators, refs, the search analyzer) stay in build/patterns.py.
Each constant has a table test (tests/test_worker_patterns.py, tests/test_patterns.py).
"""

from __future__ import annotations

import re

# --- the answer worker: model output and user input (tests/test_worker_patterns.py) ------------
# These judge text the model wrote or a user typed, never the regulation text.
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
# A dotted IPv4 address ("10.0.0.1/x"): a host as much as a domain is (issue 26.8). Browsers
# also take a short form ("127.1" is 127.0.0.1) as a host, but "127.1" alone is an apartado
# ("artículo 127.1"): a short form counts only with a path or a port after it ("127.1/x").
BARE_IP = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.]*\d)"
                     r"|(?<![\w.])\d{1,3}(?:\.\d{1,3}){1,2}(?=[/:]\w)")
# An IPv6 address ("2001:db8::1", "[::1]:8000/x" once its brackets are dropped): groups
# compressed by "::", or all eight written; a time ("10:30:15") is neither.
BARE_IPV6 = re.compile(r"(?<![\w:])(?=[0-9a-f:]*::)[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?!\w)"
                       r"|(?<![\w:])[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){7}(?![\w:])", re.IGNORECASE)
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
# Line breaks and tabs are allowed: students paste exam questions with their options on lines.
QUESTION_FORBIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")

# --- reading a question (worker/answer/question.py, on folded text where noted) -------------------------

# A pasted option on its own line: "a) Sí.", "B. No, salvo…", "c)Nunca".
OPTION_LINE = re.compile(r"^([a-dA-D])\s*[).]\s*(\S.*)$")
# Options run together on one line: "… a) 120 km/h b) 100 km/h c) 90 km/h" (split keeps letters).
OPTION_INLINE = re.compile(r"(?:^|\s)([a-dA-D])\)\s+")
# Folded question asking for a number: a speed, distance, age, time, amount or count.
Q_NUMBER = re.compile(
    r"\b(?:cuant[oa]s?|a que velocidad|que velocidad|velocidad maxima|velocidad minima|"
    r"que distancia|distancia (?:minima|de seguridad)|a cuantos|cuantos? (?:metros|kilometros|"
    r"km|anos|dias|horas|personas|ocupantes|plazas|centimetros)|que edad|edad minima|"
    r"tasa de alcohol|limite de (?:velocidad|alcohol)|no (?:podra|debe|puede) superar|"
    r"(?:superar|rebasar) (?:los|las)?\.\.\.|hasta (?:que|cuantos))")
# Folded question about an exception or a universal claim ("¿siempre?", "en ningún caso").
Q_EXCEPTION = re.compile(
    r"\b(?:salvo|excepto|excepcion(?:es)?|siempre|nunca|en ningun caso|en todo caso|"
    r"como norma general|alguna vez|hay alguna|solo|unicamente|sin excepcion)\b")
# Folded yes/no question: permission, prohibition, obligation.
Q_YESNO = re.compile(
    r"(?:^|¿)\s*(?:se puede|puedo|puede|podra|podemos|es obligatorio|esta permitido|"
    r"esta prohibido|se permite|se prohibe|debe|debo|hay que|tengo que|tiene que|es correct[oa]|"
    r"es legal|esta bien|estoy obligado)\b")

# --- choosing the answer span (worker/answer/span.py) ---------------------------------------------------

# Where a passage splits into clauses a student can read alone: after ". ", "; " or ": " that is
# followed by a capital, a letter designator or a digit — not in "art. 48" or "3.500".
CLAUSE_BREAK = re.compile(r"(?<=[.;:])\s+(?=[A-ZÁÉÍÓÚÑ¿(]|[a-zñ]\)\s|\d+\.[ºª]?\s)")
# Folded words that carry a rule's force: emphasised in an answer.
RULE_WORDS = re.compile(
    r"\b(?:prohibid[oa]s?|se prohibe|queda prohibid[oa]|prohibe|no podran?|no deberan?|"
    r"deberan?|obligatori[oa]s?|estan? obligad[oa]s?|podran?|salvo|excepto|en ningun caso)\b")
# A number with its unit, emphasised in an answer: "120 km/h", "1,5 metros", "3.500 kg", "0,5".
NUMBER_WITH_UNIT = re.compile(
    r"\d+(?:[.,]\d+)*(?:\s*(?:km/h|kilómetros por hora|kilómetros|metros|m|cm|kg|toneladas|"
    r"gramos por litro|miligramos por litro|g/l|mg/l|años|horas|minutos|segundos|por ciento|%))?")
# A speed stated in a question ("limitada a 100 km/h", "a 90 kilómetros por hora"): the limit
# is given, not asked.
SPEED_FIGURE = re.compile(r"\b\d+\s*(?:km/h|km por hora|kilómetros por hora|kilometros por hora)",
                          re.IGNORECASE)
# Folded words that forbid what a clause names (worker/answer/cases.py: a rule's force).
PROHIBITS = re.compile(r"\b(?:prohibid[oa]s?|se prohibe|prohibe|no podran?|no deberan?|no debe)\b")
# Folded text of an exception clause inside a passage ("salvo …", "excepto …", "no obstante").
EXCEPTION_WORDS = re.compile(r"\b(?:salvo|excepto|exceptuan?|excepcion|no obstante|sin perjuicio)\b")

# Folded words that may be a finite verb or carry a rule ("utilizaran", "llevara", "deben", "es",
# "hay"): a short passage with none of them ("Luces de avería y de cruce encendidas.", a line of
# an anexo's list of what a vehicle carries) names things and states no case (span.label).
FINITE = re.compile(r"\b(?:\w{2,}(?:ra|ran|an|en)|es|son|esta|estan|hay|ha|han|"
                    r"debe|puede|tiene|va|se)\b")
# Folded words that open the condition a rule is stated under (span.states_case).
CONDITION = re.compile(r"\b(?:cuando|siempre que|si)\b")

# --- the words beside the answer (worker/answer/beside.py, on folded text) -----------------------

# A clause that opens by pointing back ("Dichos ocupantes…", "En tal caso…", "Estos tramos…",
# "Los citados vehículos…"); group 1 is the noun it points with ("ocupantes"), when there is one.
# "Este reglamento", "esta sección"… point at the text itself, not at a sentence before.
ANAPHOR = re.compile(
    r"^(?:\d+\.[oa]?\s+|[a-zñ]\)\s+)?(?:(?:en|a|para|de|con|por|sobre|durante)\s+)?"
    r"(?:dich[oa]s?|tal(?:es)?|est[oa]s?|este|aquel(?:l[oa]s?)?|ambos|ambas|"
    r"(?:el|la|los|las)\s+(?:mism[oa]s?|citad[oa]s?|referid[oa]s?|mencionad[oa]s?|"
    r"aludid[oa]s?|indicad[oa]s?|señalad[oa]s?))\b"
    r"(?!\s+(?:reglamento|real decreto|ley|texto|normativa|articulo|anexo|seccion|capitulo|"
    r"titulo|disposicion|precepto)\b)(?:\s+([a-zñ]{4,}))?")
# A clause that qualifies the one before it: an exception, a derogation or a restriction.
QUALIFIER = re.compile(
    r"^(?:\d+\.[oa]?\s+)?(?:excepcionalmente|no obstante|salvo|sin embargo|lo dispuesto en|"
    r"lo anterior|se exceptua|quedan? exceptuad|excepto|con excepcion|tampoco|en ningun caso|"
    r"no sera(?:n)? (?:de aplicacion|exigible))\b")
# A passage that opens by qualifying the passage before it ("Excepcionalmente, los mayores…",
# "No obstante lo dispuesto en el apartado anterior…"); "Salvo…" opening an apartado does not.
QUALIFIES_PREVIOUS = re.compile(
    r"^(?:\d+\.[oa]?\s+)?(?:excepcionalmente|no obstante|sin embargo|se exceptua|"
    r"quedan? exceptuad|lo dispuesto en (?:el|los) (?:apartados?|parrafos?) anterior)")
# A continuation paragraph that carries the same rule on ("Igualmente, llevará encendido dicho
# alumbrado en los poblados…", "Asimismo, …").
CONTINUES = re.compile(r"^(?:igualmente|asimismo|del mismo modo|de igual modo|tambien)\b")
# A defining cross-reference inside the same article: "los ocupantes a que se refiere el párrafo
# segundo del apartado 1", "los vehículos mencionados en el apartado anterior".
CROSS_REF = re.compile(
    r"\b(?:a (?:los )?que se refieren?|mencionad[oa]s? en|citad[oa]s? en|aludid[oa]s? en|"
    r"señalad[oa]s? en) (?:el|la) (?:parrafo (primero|segundo|tercero|cuarto|quinto) del )?"
    r"apartado (\d+|anterior)\b")
# A question that asks for the cases a rule applies in: "¿Cuándo hay que…?", "¿En qué casos…?"
Q_CASES = re.compile(r"(?:^|¿|,)\s*(?:cuando\b|en que (?:casos|supuestos|circunstancias|"
                     r"situaciones)\b|que (?:casos|supuestos|circunstancias)\b)")
# A figure a question names without a unit that says it is not a speed: "¿Puedo ir a 100?",
# "a 90 km/h" — not "3 metros", "18 años", "3.500 kg".
Q_FIGURE = re.compile(r"(?<![\d.,])\d{2,3}(?![\d.,]*\d)(?!\s*(?:metros|m\b|cm|kg|kilos|años|%|"
                      r"toneladas|minutos|segundos|horas|gramos|mg|g/l|personas|plazas|puntos|"
                      r"euros))", re.IGNORECASE)
