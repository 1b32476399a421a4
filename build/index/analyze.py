"""Analyze: Spanish text → search terms, the same way for passages, hooks and questions.

Case and accent folding (ñ is kept: "año" ≠ "ano"), Snowball Spanish stemming, stop words
removed; numbers and units kept as terms of their own ("50 km/h" → "50", "km/h", "50km/h"), so
a question about 50 km/h does not match every passage that mentions a speed; article, annex and
sign designators kept ("art. 48" → "art48", "anexo II" → "anexoii", "R-301" → "r-301").
"""

from __future__ import annotations

import unicodedata

import Stemmer

from .. import patterns as P

# Accents folded the way a student types without them; ñ stays (it is a letter of its own).
_FOLD = str.maketrans("áéíóúüàèìòùâêîôûäëïö", "aeiouuaeiouaeiouaeio")

# Canonical unit of each spelling the SEARCH_NUMBER pattern accepts (keys are folded).
UNITS = {
    "km/h": "km/h", "kilometro por hora": "km/h", "kilometros por hora": "km/h",
    "km": "km", "kilometro": "km", "kilometros": "km",
    "cm": "cm", "centimetro": "cm", "centimetros": "cm",
    "mm": "mm", "milimetro": "mm", "milimetros": "mm",
    "m": "m", "metro": "m", "metros": "m",
    "kg": "kg", "kilogramo": "kg", "kilogramos": "kg",
    "t": "t", "tonelada": "t", "toneladas": "t",
    "mg/l": "mg/l", "miligramo por litro": "mg/l", "miligramos por litro": "mg/l",
    "g/l": "g/l", "gramo por litro": "g/l", "gramos por litro": "g/l",
    "%": "%", "por ciento": "%", "kw": "kw", "cc": "cm3", "cm3": "cm3", "cv": "cv",
}

# Snowball's Spanish stop list (folded), plus the question words of exam questions.
STOP_WORDS = frozenset("""
de la que el en y a los del se las por un para con no una su al lo como mas pero sus le ya o
este si porque esta entre cuando muy sin sobre tambien me hasta hay donde quien desde todo nos
durante todos uno les ni contra otros ese eso ante ellos e esto mi antes algunos que unos yo
otro otras otra el tanto esa estos mucho quienes nada muchos cual poco ella estar estas algunas
algo nosotros mis tu te ti tus ellas nosotras vosotros vosotras os mio mia mios mias tuyo tuya
tuyos tuyas suyo suya suyos suyas nuestro nuestra nuestros nuestras vuestro vuestra vuestros
vuestras esos esas estoy estas esta estamos estais estan este estes estemos esteis esten estare
estaras estara estaremos estareis estaran estaria estarias estariamos estariais estarian estaba
estabas estabamos estabais estaban estuve estuviste estuvo estuvimos estuvisteis estuvieron
he has ha hemos habeis han haya hayas hayamos hayais hayan habre habras habra habremos habreis
habran habria habrias habriamos habriais habrian habia habias habiamos habiais habian hube
hubiste hubo hubimos hubisteis hubieron soy eres es somos sois son sea seas seamos seais sean
sere seras sera seremos sereis seran seria serias seriamos seriais serian era eras eramos erais
eran fui fuiste fue fuimos fuisteis fueron tengo tienes tiene tenemos teneis tienen tenga
tengas tengamos tengais tengan tendre tendras tendra tendremos tendreis tendran tendria
tendrias tendriamos tendriais tendrian tenia tenias teniamos teniais tenian tuve tuviste tuvo
tuvimos tuvisteis tuvieron
cuales cuanto cuanta cuantos cuantas como cuando donde adonde usted ustedes alguna alguno algun
""".split())

_STEMMER = Stemmer.Stemmer("spanish")
_STEM_CACHE: dict[str, str] = {}


def fold(text: str) -> str:
    """Lower-case and strip accents (keeping ñ), after NFC so composed and decomposed agree."""
    return unicodedata.normalize("NFC", text).lower().translate(_FOLD)


def stem(word: str) -> str:
    """Snowball Spanish stem of an already folded word (cached: the vocabulary is small)."""
    s = _STEM_CACHE.get(word)
    if s is None:
        s = _STEMMER.stemWord(word)
        if len(_STEM_CACHE) < 200_000:
            _STEM_CACHE[word] = s
    return s


def _mask(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _designators(text: str, out: list[tuple[int, str]]) -> str:
    """Collect article, annex and sign designators; return the text with them blanked out."""
    for m in list(P.SEARCH_ARTICLE.finditer(text)):
        out.append((m.start(), "art" + m.group(1) + (m.group(2) or "").lower()))
        text = _mask(text, m.start(), m.end())
    for m in list(P.SEARCH_ANNEX.finditer(text)):
        out.append((m.start(), "anexo" + m.group(1).lower()))
        text = _mask(text, m.start(), m.end())
    for m in list(P.SEARCH_SIGN.finditer(text)):
        out.append((m.start(), f"{m.group(1).lower()}-{m.group(2).lower()}"))
        text = _mask(text, m.start(), m.end())
    return text


def _numbers(text: str, out: list[tuple[int, str]]) -> str:
    """Collect numbers (thousands dots dropped, decimal comma kept) and number+unit terms."""
    for m in list(P.SEARCH_NUMBER.finditer(text)):
        num = m.group(1)
        if "." in num:
            num = num.replace(".", "")
        out.append((m.start(), num))
        if m.group(2):
            unit = UNITS[" ".join(fold(m.group(2)).split())]
            out.append((m.start() + 1, unit))
            out.append((m.start() + 2, num + unit))
        text = _mask(text, m.start(), m.end())
    return text


def words(text: str) -> list[str]:
    """Folded content words of ``text`` (no stemming): what the embedding vocabulary sees."""
    return [w for w in P.SEARCH_WORD.findall(fold(text)) if len(w) > 1 and w not in STOP_WORDS]


def analyze(text: str) -> list[str]:
    """The search terms of ``text`` in reading order (duplicates kept: BM25 counts them)."""
    text = unicodedata.normalize("NFC", text)
    found: list[tuple[int, str]] = []
    rest = _numbers(_designators(text, found), found)
    for m in P.SEARCH_WORD.finditer(fold(rest)):
        w = m.group(0)
        if len(w) > 1 and w not in STOP_WORDS:
            found.append((m.start(), stem(w)))
    found.sort(key=lambda t: t[0])
    return [t for _, t in found]


def is_exact(term: str) -> bool:
    """Whether a term names something exactly: an article or annex designator, a sign code, a
    number with its unit or a decimal ("art48", "anexoii", "m-6.3", "50km/h", "0,5"); plain
    integers are too common to count."""
    if term.startswith("art") and term[3:4].isdigit():
        return True
    if term.startswith("anexo") and len(term) > 5:
        return True
    return any(c.isdigit() for c in term) and not term.isdigit()
