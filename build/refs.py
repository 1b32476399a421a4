"""Canonical references: how a passage is named, where its page is, and how humans write it.

Scheme (documented in docs/refs-and-gate.md "Reference scheme"):

=====================================  ===========================================================
``RD-1428/2003#art48``                 Reglamento article 48 (its lead paragraph as a passage)
``RD-1428/2003#art82.2``               apartado 2 of article 82
``RD-1428/2003#art87.1.b``             letter b) of apartado 1
``RD-1428/2003#art48.1.a.1o``          ordinal 1.º under letter a); ``2a`` for 2.ª
``RD-1428/2003#art48.1.b.p2``          2nd paragraph at the same position (unnumbered text)
``RD-1428/2003#da1`` / ``#df4``        Reglamento's disposición adicional primera / final cuarta
``RD-1428/2003#rd.artunico``           the Real Decreto's own preceptos: ``rd.artunico``, ``rd.dd``
                                       (derogatoria única), ``rd.df1`` … ``rd.df5``
``RD-1428/2003#anexoI``                ANEXO I's own text (its index); ``anexoI.5`` its section 5
``RD-1428/2003#anexoI.5.p37``          37th paragraph/table of ANEXO I §5 (annex sections are
                                       numbered in order: their own numbering repeats)
``RD-1428/2003#anexoII.art14bis.2``    ANEXO II restarts article numbers; ``14bis`` for "14 bis"
``RD-1428/2003#anexoIII.s1.p3``        ANEXO III, sección 1, 3rd paragraph
=====================================  ===========================================================

Anchors replace "." by "-" (``art82-2``); a unit's page is its anchor plus ".html".

Other norms use the same fragment grammar behind their own prefix (``NORMS``): the Ley sobre
Tráfico ``RDL-6/2015#art76.a``, its points table ``RDL-6/2015#anexoII.r10`` (row 10), the
Reglamento General de Conductores ``RD-818/2009#art4.2``, the Reglamento General de Vehículos
``RD-2822/1998#art10.1``. ``Ref`` is the parsed form: compare, sort, roll up and render with
it; serialised forms (allowlist.json, the index, JSON outputs) keep the string, ``str(ref)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from citavial.build.models import NORM
from citavial.build.patterns import (
    CANONICAL_ANY_REF,
    CANONICAL_REF,
    DISPOSITION_CODES,
    HUMAN_ANNEX,
    HUMAN_ARTICLE,
    HUMAN_DISPOSITION,
    HUMAN_NAMED_NORM,
    NAMED_NORM_PREFIXES,
    ORDINAL_WORDS,
    REF_FRAGMENT,
)


class RefError(ValueError):
    """A string that is not a reference in any accepted form."""


@dataclass(frozen=True)
class Norm:
    """A norm whose passages can be cited: its ref prefix, BOE id, title, and the folder of its
    pages ("" for the Reglamento, whose pages sit at the site root since the first published
    link); ``short`` opens the label of each of its passages ("Ley de Tráfico, art. 65.4"), ""
    for the Reglamento, whose labels are unchanged since the first answer was cited."""

    prefix: str
    boe_id: str
    title: str
    folder: str
    short: str = ""


NORMS: dict[str, Norm] = {n.prefix: n for n in (
    Norm(NORM, "BOE-A-2003-23514", "Reglamento General de Circulación", ""),
    Norm("RDL-6/2015", "BOE-A-2015-11722", "Ley sobre Tráfico, Circulación de Vehículos a Motor "
         "y Seguridad Vial", "ley-trafico", "Ley de Tráfico"),
    Norm("RD-818/2009", "BOE-A-2009-9481", "Reglamento General de Conductores", "conductores",
         "Reglamento de Conductores"),
    Norm("RD-2822/1998", "BOE-A-1999-1826", "Reglamento General de Vehículos", "vehiculos",
         "Reglamento de Vehículos"),
)}

# Document order of a fragment's parts. A part is a head (``art14bis``, ``da1``, ``anexoII``,
# ``rd``), a numbered child (apartado ``2``, ordinal ``1o``/``2a``, section ``s1``, paragraph
# ``p3``, table row ``r10``) or a letter (``b``, ``ñ``). A unit's own continuation paragraphs
# (``p2``) come right after its text, before its children; the Real Decreto's preceptos come
# before the Reglamento's articles, dispositions and annexes, as in the BOE text.
_RANK = {"p": 0, "rd": 1, "art": 2, "da": 3, "dt": 4, "dd": 5, "df": 6, "anexo": 7, "s": 8,
         "": 9, "r": 11}
_LETTER_RANK, _OTHER_RANK = 10, 12
_LATIN = ("", "bis", "ter", "quater", "quinquies", "sexies", "septies", "octies", "nonies",
          "decies")
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}
_NUMBERED = re.compile(r"^(anexo|art|da|dt|dd|df|p|s|r|)(\d+)(bis|ter|quater|quinquies|sexies|"
                       r"septies|octies|nonies|decies|[oa])?$")
_ANNEX = re.compile(r"^anexo([IVXL]+)$")
# A letter part: "b", "ñ"; the Ley sobre Tráfico also has "z1)" … "z3)" (after "z)": only z
# takes a digit, so "p2" stays a paragraph) and "b) bis." ("bbis").
_LETTER = re.compile(r"^(?:([a-zñ])(bis|ter|quater)?|(z)(\d))$")
_UNIT_CHILD = re.compile(r"^(?:\d+|s\d+|art\w+)$")   # an annex section or article: its own page


def _roman(numeral: str) -> int:
    values = [_ROMAN[c] for c in numeral]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v
               for i, v in enumerate(values))


def _part_key(part: str) -> tuple[int, int, int, str]:
    """(kind, number, suffix, text) of one part: ``art9`` < ``art10`` < ``art10bis``, ``p9`` <
    ``p10``, ``anexoII`` < ``anexoIII``, letters in Spanish order (``n`` < ``ñ`` < ``o``)."""
    if m := _ANNEX.match(part):
        return (_RANK["anexo"], _roman(m.group(1)), 0, "")
    if m := _NUMBERED.match(part):
        suffix = m.group(3) or ""
        rank = _LATIN.index(suffix) if suffix in _LATIN else 1 + "oa".index(suffix)
        return (_RANK[m.group(1)], int(m.group(2)), rank, "")
    if m := _LETTER.match(part):                        # "b" < "bbis" < "bter" < "c"; "z" < "z1"
        letter = m.group(1) or m.group(3)
        order = int(m.group(4)) if m.group(4) else _LATIN.index(m.group(2) or "")
        return (_LETTER_RANK, 0, 0, letter.replace("ñ", "n~") + f"\x00{order:02d}")
    if part in ("rd", "dd"):     # the decree's preceptos, derogatoria única ("p", "r", "s" alone
        return (_RANK[part], 0, 0, "")   # are letters: art76.p, art5.r)
    if part.startswith("art"):                         # "artunico"
        return (_RANK["art"], 0, 0, part)
    return (_OTHER_RANK, 0, 0, part)


@dataclass(frozen=True)
class Ref:
    """A parsed canonical reference: its norm and the dot-separated parts of its fragment.

    ``str(ref)`` gives back the canonical string byte for byte; build one with ``Ref.parse``.
    """

    norm: str
    parts: tuple[str, ...]

    @staticmethod
    def parse(text: str) -> Ref:
        """``"RD-1428/2003#art82.2"`` → Ref; RefError naming the rule for anything else."""
        return _parse(text)

    def __str__(self) -> str:
        return f"{self.norm}#{self.fragment}"

    @property
    def fragment(self) -> str:
        return ".".join(self.parts)

    @cached_property
    def unit(self) -> Ref:
        """The ref of the page it sits on: ``art48.1.a`` → ``art48``; ``anexoI.5.p37`` →
        ``anexoI.5``; ``anexoII.art14bis.2`` → ``anexoII.art14bis``; ``rd.df1.2`` → ``rd.df1``;
        ``anexoI.p3`` (the annex's own text) → ``anexoI``; ``anexoII.r10`` (a row) → ``anexoII``."""
        head = self.parts[0]
        two = head == "rd" or (head.startswith("anexo") and len(self.parts) > 1
                               and _UNIT_CHILD.match(self.parts[1]) is not None)
        return Ref(self.norm, self.parts[:2 if two else 1])

    @property
    def parent(self) -> Ref | None:
        """The ref one level up (``art48.1.a`` → ``art48.1``); None for a one-part ref."""
        return Ref(self.norm, self.parts[:-1]) if len(self.parts) > 1 else None

    @property
    def inner(self) -> tuple[str, ...]:
        """The parts below the unit: apartado, letter, ordinal or paragraph (``("1", "a")``)."""
        return self.parts[len(self.unit.parts):]

    @property
    def apartado(self) -> str | None:
        """The numbered apartado (or annex section) under the unit, if any: ``art48.1.a`` → "1"."""
        first = self.inner[:1]
        return first[0] if first and first[0].isdigit() else None

    @property
    def letter(self) -> str | None:
        """The letter (``b``, ``ñ``) of a ``letra`` passage, if any."""
        return next((p for p in self.inner if _LETTER.match(p)), None)

    @property
    def paragraph(self) -> str | None:
        """The last part when it is an ordinal (``1o``) or a numbered paragraph (``p2``)."""
        last = self.inner[-1:]
        return last[0] if last and (last[0][:1] == "p" and last[0][1:].isdigit()
                                    or last[0][:-1].isdigit() and last[0][-1] in "oa") else None

    @property
    def row(self) -> int | None:
        """The row number of a table published row by row (``anexoII.r10`` → 10), else None."""
        last = self.inner[-1:]
        return int(last[0][1:]) if last and last[0][:1] == "r" and last[0][1:].isdigit() else None

    def contains(self, other: Ref) -> bool:
        """True for ``other`` equal to this ref or below it (``art48`` contains ``art48.1.a``)."""
        return self.norm == other.norm and other.parts[:len(self.parts)] == self.parts

    @cached_property
    def sort_key(self) -> tuple:
        """Document order, numeric: ``…p9`` before ``…p10``, ``art9`` before ``art10``,
        ``art14`` before ``art14bis``; a ref before its descendants."""
        return (self.norm, tuple(_part_key(p) for p in self.parts))

    @property
    def anchor(self) -> str:
        """HTML id: ``RD-1428/2003#art82.2`` → ``art82-2``."""
        return "-".join(self.parts)

    @property
    def page(self) -> str:
        """The unit's page: ``RD-1428/2003#art82.2`` → ``art82.html``; another norm's pages sit
        in its folder (``RD-818/2009#art4.2`` → ``conductores/art4.html``)."""
        folder = NORMS[self.norm].folder
        return (f"{folder}/" if folder else "") + self.unit.anchor + ".html"


@lru_cache(maxsize=1 << 16)
def _parse(text: str) -> Ref:
    norm, sep, frag = text.partition("#")
    if not sep or norm not in NORMS:
        raise RefError(f"{text!r} is not a canonical ref like 'RD-1428/2003#art82.2': the part "
                       f"before '#' must be one of {', '.join(sorted(NORMS))}")
    if not REF_FRAGMENT.match(frag):
        raise RefError(f"{text!r} is not a canonical ref: after '#' write dot-separated parts "
                       f"of letters and digits, e.g. 'art82.2' or 'anexoI.5.p37'")
    return Ref(norm, tuple(frag.split(".")))


def canonical(fragment: str) -> str:
    return f"{NORM}#{fragment}"


def fragment(ref: str) -> str:
    """``RD-1428/2003#art82.2`` → ``art82.2`` (the Reglamento's refs; RefError otherwise)."""
    if not CANONICAL_REF.match(ref):
        raise RefError(f"{ref!r} is not a canonical ref like 'RD-1428/2003#art82.2'")
    return Ref.parse(ref).fragment


def anchor(ref: str) -> str:
    """HTML id of a passage or unit: ``RD-1428/2003#art82.2`` → ``art82-2`` (any norm's ref:
    ``RDL-6/2015#anexoII.r10`` → ``anexoII-r10``)."""
    return Ref.parse(ref).anchor


def page(unit_ref: str) -> str:
    """The page of a unit: ``RD-1428/2003#art82`` → ``art82.html``."""
    return anchor(unit_ref) + ".html"


def article_fragment(number: str, suffix: str = "") -> str:
    return f"art{number}{suffix.lower()}"


def disposition_fragment(kind: str, ordinal: str) -> str:
    """``("final", "cuarta")`` → ``df4``; "única" gives the bare code (``dd``)."""
    code = DISPOSITION_CODES[kind.lower()]
    n = ORDINAL_WORDS.get(ordinal.lower())
    if n is None:
        raise RefError(f"{ordinal!r} is not an ordinal like 'primera' or 'única'")
    return code if ordinal.lower() in ("única", "unica") else f"{code}{n}"


def _named_norm(raw: str) -> tuple[str, str]:
    """(the norm a human ref names at its end, the ref without that name); the Reglamento's
    when it names none."""
    m = HUMAN_NAMED_NORM.search(raw)
    if not m or m.start() == 0 or m.lastgroup is None:
        return NORM, raw
    return NAMED_NORM_PREFIXES[int(m.lastgroup[1:])], raw[:m.start()]


def parse_ref(text: str) -> str:
    """Return the canonical ref for ``text`` or raise RefError saying what is accepted.

    Accepted: canonical refs of any norm of ``NORMS`` (``RD-1428/2003#art82.2``,
    ``RDL-6/2015#art76.a``), the Reglamento's bare fragments (``art82.2``) and human forms:
    "artículo 82.2", "art. 87.1 b)", "Art 82, apartado 2", "artículo 14 bis del anexo II",
    "anexo I, 5", "disposición final cuarta", "disposición final primera del Real Decreto" —
    the Reglamento's, unless they end with another norm's name (``patterns.NORM_NAMES``): "art. 76 de
    la Ley sobre Tráfico", "artículo 4.2 del Reglamento General de Conductores", "anexo II de
    la LSV". Whether the ref exists is checked against the built passages, not here.
    """
    raw = text.strip()
    if m := CANONICAL_ANY_REF.match(raw):
        if m.group("norm") in NORMS:
            return raw
        raise RefError(f"{text!r} names no norm of this site: write e.g. 'RD-1428/2003#art82.2' "
                       f"or 'RDL-6/2015#art76.a' (the part before '#' is one of "
                       f"{', '.join(sorted(NORMS))})")
    if REF_FRAGMENT.match(raw) and _looks_like_fragment(raw):
        return canonical(raw)
    norm, rest = _named_norm(raw)
    ref = _human_article(rest, letter_alone=norm != NORM) or _human_annex(rest) \
        or _human_disposition(rest)
    if ref:
        return f"{norm}#{Ref.parse(ref).fragment}"
    raise RefError(
        f"{text!r} is not a reference; write e.g. 'RD-1428/2003#art82.2', 'art82.2', "
        f"'artículo 82.2', 'art. 87.1 b)', 'anexo I, 5', 'disposición final cuarta', "
        f"'RDL-6/2015#art76.a' or 'art. 76 de la Ley sobre Tráfico'")


def short_ref(ref: str) -> str:
    """A ref as notes and tools write it: the Reglamento's bare fragment (``art82.2``),
    another norm's whole canonical ref (``RDL-6/2015#art76.a``); anything else unchanged."""
    norm, sep, frag = ref.partition("#")
    return frag if sep and norm == NORM and frag else ref


def _looks_like_fragment(raw: str) -> bool:
    head = raw.split(".", 1)[0]
    return head.startswith(("art", "anexo", "da", "df", "dt", "dd", "rd"))


def _human_article(raw: str, letter_alone: bool = False) -> str | None:
    """``letter_alone``: a letter right under the article ("art. 76 a)"), as the Ley sobre
    Tráfico numbers them; in the Reglamento a letter sits under an apartado ("art. 87 b)" is
    refused: it names none)."""
    m = HUMAN_ARTICLE.match(raw)
    if not m:
        return None
    parts = [article_fragment(m.group("num"), m.group("bis") or "")]
    if m.group("apartado"):
        parts.append(m.group("apartado"))
    if m.group("letra"):
        if not m.group("apartado") and not letter_alone:
            return None
        parts.append(m.group("letra").lower())
    if m.group("anexo"):
        parts.insert(0, f"anexo{m.group('anexo').upper()}")
    return canonical(".".join(parts))


def _human_annex(raw: str) -> str | None:
    m = HUMAN_ANNEX.match(raw)
    if not m:
        return None
    frag = f"anexo{m.group('anexo').upper()}"
    if m.group("section"):
        frag += ("." if m.group("anexo").upper() != "III" else ".s") + m.group("section")
    return canonical(frag)


def _human_disposition(raw: str) -> str | None:
    m = HUMAN_DISPOSITION.match(raw)
    if not m:
        return None
    try:
        frag = disposition_fragment(m.group("kind"), m.group("ord"))
    except RefError:
        return None
    return canonical(("rd." if m.group("rd") else "") + frag)


_DISPOSITION_NAMES = {"da": "disp. adicional", "dt": "disp. transitoria",
                      "dd": "disp. derogatoria", "df": "disp. final"}


def human_label(ref: str) -> str:
    """A short Spanish label for a chip: ``art48.1.a.1o`` → "art. 48.1.a) 1.º"; another
    norm's ref opens with its short name (``RDL-6/2015#anexoII.r10`` → "Ley de Tráfico,
    anexo II, fila 10")."""
    parsed = Ref.parse(ref)
    short = NORMS[parsed.norm].short
    return f"{short}, {_label(parsed)}" if short else _label(parsed)


def _label(parsed: "Ref") -> str:
    parts = list(parsed.parts)
    prefix = ""
    if parts[0] == "rd":
        prefix, parts = "RD, ", parts[1:]
    if parts[0].startswith("anexo"):
        annex, parts = parts[0][len("anexo"):], parts[1:]
        if not parts:
            return f"anexo {annex}"
        if parts[0].startswith("art"):
            return _article_label(parts) + f" del anexo {annex}"
        rest = ", ".join(f"sec. {p[1:]}" if p.startswith("s") and p[1:].isdigit() else p
                         for p in parts)
        return f"anexo {annex}, " + _paragraphs(rest)
    if parts[0].startswith("art"):
        return prefix + _article_label(parts)
    code = parts[0].rstrip("0123456789")
    number = parts[0][len(code):]
    name = _DISPOSITION_NAMES.get(code, code)
    label = f"{name} {number + '.ª' if number else 'única'}"
    return prefix + label + "".join(", " + _paragraphs(p) if p.startswith("p") else f".{p}"
                                    for p in parts[1:])


def passage_label(ref: str) -> str:
    """Where a passage sits inside its unit, in words a student reads: ``art48.1.a`` →
    "apartado 1, letra a)"; ``art48.1.a.1o`` → "apartado 1, letra a), párrafo 1.º";
    ``anexoI.5.p37`` → "apartado 5, párrafo 37"; a unit's lead paragraph → ""."""
    parts = list(Ref.parse(ref).parts)
    if parts[0] == "rd":
        parts = parts[1:]
    parts = parts[2:] if parts[0].startswith("anexo") and len(parts) > 1 and \
        parts[1].startswith("art") else parts[1:]
    words = []
    for p in parts:
        if p.isdigit():
            words.append(f"apartado {p}")
        elif p.startswith("s") and p[1:].isdigit():
            words.append(f"sección {p[1:]}")
        elif p.startswith("p") and p[1:].isdigit():
            words.append(f"párrafo {p[1:]}")
        elif p.startswith("r") and p[1:].isdigit():
            words.append(f"fila {p[1:]}")
        elif p[:-1].isdigit() and p[-1] in "oa":
            words.append(f"párrafo {p[:-1]}.{'º' if p[-1] == 'o' else 'ª'}")
        else:
            words.append(f"letra {p})")
    return ", ".join(words)


def _article_label(parts: list[str]) -> str:
    head = parts[0][len("art"):]
    if head.endswith("bis"):
        head = head[:-3] + " bis"
    elif head == "unico":
        head = "único"
    out = f"art. {head}"
    for p in parts[1:]:
        if p.isdigit():
            out += f".{p}"
        elif len(p) == 1 or p == "ñ":
            out += f".{p})"
        elif p[:-1].isdigit() and p[-1] in "oa":
            out += f" {p[:-1]}.{'º' if p[-1] == 'o' else 'ª'}"
        else:
            out += " " + _paragraphs(p)
    return out


def _paragraphs(text: str) -> str:
    """``p37`` → "párr. 37", ``r10`` (a table row) → "fila 10", wherever they appear."""
    return ", ".join(f"párr. {p[1:]}" if p.startswith("p") and p[1:].isdigit()
                     else f"fila {p[1:]}" if p.startswith("r") and p[1:].isdigit() else p
                     for p in text.split(", "))
