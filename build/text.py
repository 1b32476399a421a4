"""One text module: fold, words, stop words, stems, numbers and JSONL reading.

The citation gate, the search analyser, the embedding trainer, the worker's support check and its
sanitizer all read text through these functions, so they agree by construction:

* ``normalize`` (from build/normalize.py) is the browser's comparison form — the gate's truth.
* ``fold`` is the same form with one difference: ``ñ`` stays a letter of its own ("año" ≠ "ano"),
  because search and support compare words, not page positions. Everything else — case, accents,
  whitespace runs, compatibility forms, curly quotes — folds exactly as the gate folds it
  (tests/test_text.py proves ``fold(x).replace("ñ", "n") == normalize(x)`` for any text).
* ``words`` / ``stems``: folded content words (Spanish stop words dropped), Snowball-stemmed.
* ``numbers``: numbers in one canonical form ("3.500" → "3500", "0,5" → "0.5").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import Stemmer

from citavial.build.errors import BuildError
from citavial.build.normalize import fold_char, normalize, normalize_with_map
from citavial.build.patterns import SEARCH_WORD, TEXT_NUMBER, TEXT_THOUSANDS

__all__ = ["fold", "normalize", "normalize_with_map", "STOP_WORDS", "QUERY_ALIASES", "stem",
           "words", "stems", "numbers", "canonical_number", "read_jsonl", "ACCENT_FOLDS"]

_KEEP = {"ñ": "ñ", "Ñ": "ñ"}

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

# Everyday words students search with that the four norms do not use (or use only aside), read
# in a question as the words the norms write for the same thing. Query side only: passages are
# indexed as written. Each target is a word of the norms' own text (tests/test_search_parity.py
# checks it against the allowlist); the everyday word is replaced, not kept beside its target,
# because a word the law uses once aside ("controles preventivos de alcoholemia", art. 21.d)
# would otherwise outrank the article that regulates the thing (the alcohol rates, art. 20).
# Not here: words the norms do use for the thing ("ITV", "carril bici", "VMP", "móvil"), and
# words the students' questions written for the passages (hooks) already carry — "moto",
# "aparcar", "paso de cebra": read as "motocicleta", "estacionar", "peatones" they lost
# answers on golden dev (g0264, g0666 unsure; g0331, g0658 another article first).
# Keys and targets are folded (fold below: accents off, ñ kept); one key is one token.
QUERY_ALIASES: dict[str, tuple[str, ...]] = {
    "alcoholemia": ("alcohol",), "alcoholemias": ("alcohol",),
    "carnet": ("permiso",), "carnets": ("permisos",),
    "carne": ("permiso",), "carnes": ("permisos",),         # "carné", "carnés" folded
    "rotonda": ("glorieta",), "rotondas": ("glorietas",),
    "patinete": ("movilidad", "personal"), "patinetes": ("movilidad", "personal"),
    "trailer": ("remolque",), "trailers": ("remolques",),
}

_STEMMER = Stemmer.Stemmer("spanish")
_STEM_CACHE: dict[str, str] = {}


class _FoldTable(dict):
    """str.translate table filled on first sight of each character (ñ kept, else the gate's)."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        folded = _KEEP.get(ch)
        if folded is None:
            folded = fold_char(ch)
        self[code] = folded
        return folded


_TABLE = _FoldTable()


def fold(text: str) -> str:
    """The gate's comparison form of ``text`` with ``ñ`` kept (see the module docstring)."""
    # Every White_Space character folds to " " and nothing else folds to whitespace, so
    # split/join collapses runs and strips exactly as normalize does.
    return " ".join(text.translate(_TABLE).split())


def stem(word: str) -> str:
    """Snowball Spanish stem of an already folded word (cached: the vocabulary is small)."""
    s = _STEM_CACHE.get(word)
    if s is None:
        s = _STEMMER.stemWord(word)
        if len(_STEM_CACHE) < 200_000:
            _STEM_CACHE[word] = s
    return s


def words(text: str) -> list[str]:
    """Folded content words of ``text`` in order (letters only, stop words and 1-letter words
    dropped; no stemming)."""
    return [w for w in SEARCH_WORD.findall(fold(text)) if len(w) > 1 and w not in STOP_WORDS]


def stems(text: str) -> list[str]:
    """The Snowball stems of ``words(text)``, in order."""
    return [stem(w) for w in words(text)]


def canonical_number(raw: str) -> str:
    """A written number in canonical form: thousands dots dropped ("3.500" → "3500"), decimal
    comma → dot ("0,5" → "0.5")."""
    if TEXT_THOUSANDS.fullmatch(raw):
        raw = raw.replace(".", "")
    return raw.replace(",", ".")


def numbers(text: str) -> set[str]:
    """The numbers of ``text`` in canonical form (``canonical_number``)."""
    return {canonical_number(raw) for raw in TEXT_NUMBER.findall(text)}


def iter_jsonl(path: Path) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) of each non-blank line; a missing file, bad UTF-8 or a line
    that is not JSON raises BuildError naming ``file:line``."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BuildError(str(path), "file not found", "check the path") from None
    except UnicodeDecodeError as err:
        raise BuildError(str(path), f"is not UTF-8 ({err.reason} at byte {err.start})",
                         "save it as UTF-8, one JSON object per line") from None
    except OSError as err:
        raise BuildError(str(path), f"cannot read ({err.strerror})", "check the path") from None
    for lineno, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as err:
            raise BuildError(f"{path}:{lineno}", f"is not valid JSON ({err.msg})",
                             "fix the line: one JSON object per line") from None


def read_jsonl(path: Path) -> list[dict]:
    """Every non-blank line of a JSON Lines file, each of which must be an object."""
    out = []
    for lineno, obj in iter_jsonl(path):
        if not isinstance(obj, dict):
            raise BuildError(f"{path}:{lineno}", f"is a JSON {type(obj).__name__}, not an object",
                             "write one JSON object per line")
        out.append(obj)
    return out


def _accent_folds() -> tuple[tuple[str, str], ...]:
    """(character, fold) for every lower-case Latin letter whose fold differs — the table a
    tokenizers normalizer needs to fold as ``fold`` does."""
    pairs = []
    for code in range(0xC0, 0x250):
        ch = chr(code)
        if ch.islower() and ch not in _KEEP and fold(ch) != ch and fold(ch).isascii():
            pairs.append((ch, fold(ch)))
    return tuple(pairs)


ACCENT_FOLDS = _accent_folds()
