"""Definition questions: "¿Qué es un remolque?" is answered by the law's own definition.

The Ley sobre Tráfico (anexo I) and the Reglamento General de Vehículos (anexos II, III, VIII,
IX, X) define their terms one passage each: "20. Remolque. Vehículo no autopropulsado…",
"1.16 Catadióptrico (o retrocatadióptrico): dispositivo…". A question that asks what a term is
("¿Qué es…?", "¿Qué se entiende por…?", "Se considera peatón a…", "Un semirremolque es un…",
"Un trolebús, ¿se considera un vehículo de motor?") is settled by that passage, which word
overlap ranks below any passage that merely uses the term ("Se podrán utilizar en las
bicicletas … remolques"). So when the question's shape asks for a definition and names a defined
term — the whole term, opening the phrase asked about — the definition is the answer.

``Glossary.from_entries`` finds the defined terms in the passages themselves (no list to keep):
a unit whose first passages announce definitions ("se entiende por:", "… las siguientes
definiciones:"), and in it each passage that opens with a short capitalised term followed by "."
or ":". Where two norms define one term, the Ley's definition is kept: the Reglamentos'
definitions apply "a efectos de este Reglamento". Chosen on the real bank's dev split: 13 dev
questions take this path, 12 with a labelled deciding passage, all of them the definition's
annex (docs/answers.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from citavial.build.models import AllowlistEntry
from citavial.build.refs import Ref
from citavial.build.text import fold

__all__ = ["Glossary", "term_key"]

# The passages a unit opens with that announce a list of definitions.
_INTRO = re.compile(r"se entiende por|definiciones|se consideraran?\b.*:$")
_INTRO_DEPTH = 3
# "20. Remolque. Vehículo…", "1.16 Catadióptrico (o retrocatadióptrico): dispositivo…",
# "04. Taxi: vehículo…": an optional number, the term, an optional alias, then "." or ":".
_TERM = re.compile(r"^(?:\d+(?:\.\d+)*\.?\s+)?(?P<term>[A-ZÁÉÍÓÚÑ][^.:()\d]{1,60}?)"
                   r"(?:\s*\((?:o\s+)?(?P<alias>[^)]{1,40})\))?\s*[.:]\s+\S")
_MAX_WORDS = 6
# Headings of annex sections, not defined terms.
_NOT_TERMS = frozenset({"objeto", "clase", "descripcion", "sin especificar", "contenido",
                        "preparacion"})
# "Uno. Queda suprimido…", "Dos. Se modifican…": an amending provision's numbered items.
_ITEMS = frozenset({"uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve",
                    "diez", "once", "doce"})
_LEY_DEFINITIONS = "RDL-6/2015#anexoI."
_ABBREVIATION = re.compile(r"\b(\w)\.(?=\w\b)")   # "m.m.a." → "mma."

# The shapes of a question that asks what a term is, over the term key of the question (folded,
# singular words): the group ``t`` is the phrase asked about; ``t2`` a second candidate ("Un
# trolebús, ¿se considera un vehículo de motor?": the trolebús is not defined, the vehículo de
# motor is, and its definition names the trolebús).
_ASKS = tuple(re.compile(p) for p in (
    r"^(?:que|cual) (?:es|son) (?P<t>.+)",
    r"^que se entiende por (?P<t>.+)",
    r"^como se define (?P<t>.+)",
    r"^se (?:denomina|define|considera|llama) (?P<t>.+)",
    r"^(?P<t>.+?) (?:es|son)(?: (?:un|una|el|la|aquel|aquella|lo|la|uno))?$",
    r"^(?P<t>.+?) (?:es|son|se considera) (?:un|una|uno) (?P<t2>.+)$",
))
_ARTICLE = re.compile(r"^(?:un|una|el|la|lo|uno|los|las)\s+")
# What may follow the term in the phrase asked about: "la MMA de un vehículo", "remolque ligero
# a aquél cuya MMA…" ("de" only before an article: "dispositivo de seguridad activa" is not
# the defined "dispositivo"); a second candidate must be the whole phrase.
_TAIL = frozenset({"de", "del", "a", "al", "cuando", "que", "aquel", "aquella", "en"})


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("es") and word[-3] in "rlnd":
        return word[:-2]
    if len(word) > 3 and word.endswith("s"):
        return word[:-1]
    return word


def term_key(text: str) -> str:
    """The comparison form of a term or a question: folded, abbreviations' dots dropped, each
    word singular ("Remolques ligeros" → "remolque ligero", "M.M.A." → "mma")."""
    folded = _ABBREVIATION.sub(r"\1", _ABBREVIATION.sub(r"\1", fold(text)))
    return " ".join(_singular(w) for w in re.findall(r"\w+", folded))


@dataclass(frozen=True)
class Glossary:
    """Defined term (its ``term_key``) → the ref of the passage that defines it; and each such
    ref → the other norms' definitions of the same term (``alike``)."""

    terms: Mapping[str, str]
    others: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Glossary({len(self.terms)} terms)"

    @classmethod
    def from_entries(cls, entries: Iterable[AllowlistEntry]) -> Glossary:
        units: dict[str, list[AllowlistEntry]] = {}
        for e in entries:   # document order: a unit's passages stay in order
            units.setdefault(str(Ref.parse(e.ref).unit), []).append(e)
        every: dict[str, list[str]] = {}
        for passages in units.values():
            if not any(_INTRO.search(fold(p.text).rstrip()) for p in passages[:_INTRO_DEPTH]):
                continue
            for p in passages:
                for key in _defined(p.text):
                    if p.ref not in every.setdefault(key, []):
                        every[key].append(p.ref)
        terms: dict[str, str] = {}
        others: dict[str, set[str]] = {}
        for key, refs in sorted(every.items()):
            ley = [r for r in refs if r.startswith(_LEY_DEFINITIONS)]
            terms[key] = (ley or refs)[0]
            others.setdefault(terms[key], set()).update(r for r in refs if r != terms[key])
        return cls(terms, {r: tuple(sorted(o)) for r, o in sorted(others.items()) if o})

    def alike(self, ref: str) -> tuple[str, ...]:
        """The other norms' definitions of the term ``ref`` defines ("Vía interurbana" in the
        Ley's anexo I and in the Reglamento's final provision): the same rule in other words."""
        return self.others.get(ref, ())

    def asked(self, question: str) -> str | None:
        """The ref of the definition ``question`` asks for, or None."""
        text = term_key(question)
        for shape in _ASKS:
            m = shape.search(text)
            if m is None:
                continue
            for group, tail_ok in (("t", True), ("t2", False)):
                phrase = m.groupdict().get(group)
                ref = self._opening(phrase, tail_ok) if phrase else None
                if ref is not None:
                    return ref
        return None

    def _opening(self, phrase: str, tail_ok: bool) -> str | None:
        """The definition of the longest term that opens ``phrase`` (after an article) and is
        all of it, or followed by a word that continues a definition's subject."""
        words = _ARTICLE.sub("", phrase.strip()).split()
        for end in range(min(len(words), _MAX_WORDS), 0, -1):
            ref = self.terms.get(" ".join(words[:end]))
            if ref is None:
                continue
            rest = words[end:]
            if not rest or (tail_ok and rest[0] in _TAIL and (
                    rest[0] not in ("de", "del") or rest[1:2] in (["un"], ["una"], ["el"]))):
                return ref
            return None
        return None


def _defined(text: str) -> list[str]:
    """The term keys a definition passage defines (the term, its alias, "A o B" as both)."""
    m = _TERM.match(text)
    if m is None:
        return []
    names = [m.group("term")] + ([m.group("alias")] if m.group("alias") else [])
    keys = []
    for name in names:
        key = term_key(name)
        if fold(name).strip() in _ITEMS or len(key) < 3 or not key[0].isalpha() or key in _NOT_TERMS \
                or len(key.split()) > _MAX_WORDS:
            continue
        keys.append(key)
        parts = key.split(" o ")
        if len(parts) == 2 and all(len(p.split()) == 1 for p in parts):   # "autobús o autocar"
            keys += parts
    return keys
