"""The prose check: the words around the quotes hold up against the passages they cite.

The gate (verify.py) proves every quote; this module checks the prose a student reads next to
it — each guide block (paragraph, list item, table row, heading) and each practice question's
explanation and correct option — against the passages that item cites. Three rules:

* **numbers** — every number, amount, unit or age (``120 km/h``, ``catorce años``, ``3.500 kg``,
  a sign code such as ``R-2``) occurs in a cited passage, with its unit; references such as
  "art. 48.1" are not amounts, and a practice item may repeat a number of its own question;
* **absolutes** — "siempre", "nunca", "en ningún caso", "en todo caso", "solo", "únicamente",
  "prohibido"… are backed by the same word or an equivalent in a cited passage, or the item
  names an exception ("salvo…") and cites a passage that states one;
* **lead-ins** — a cited list item whose lead-in is another passage ("Queda prohibido
  adelantar:" before "b) En los pasos para peatones…") has that lead-in cited too, or shown: at
  least half of its content words are in the item's prose.

A guide block that cites nothing is checked against the passages its section cites, and a
section that cites nothing (a closing summary) against the whole guide's. What is NOT checked:
whether a sentence's meaning matches the passage — the rules catch the slips a machine can see
(a wrong figure, an absolute with an exception, a list item out of its context).
"""

from __future__ import annotations

from dataclasses import dataclass

from citavial.build.errors import BuildError
from citavial.build.gate.verify import regulation_for, subtree, unit_of
from citavial.build.models import NORM, Block, Citation, Regulation
from citavial.build.patterns import (
    DESIGNATED,
    NUMBER_WORDS,
    PROSE_ABSOLUTE,
    PROSE_EXCEPTION,
    PROSE_PUNCT,
    PROSE_QUANTITY,
    PROSE_REFERENCE,
    SEARCH_SIGN,
)
from citavial.build.refs import Ref
from citavial.build.text import fold, stems

# A lead-in is "shown" when LEAD_SHOWN of its first LEAD_WORDS content words (stems) are in the
# item's prose: "Queda prohibido parar:" is shown by "está prohibido parar…".
LEAD_WORDS = 6
LEAD_SHOWN = 2
# Each absolute, and the words that back it in a passage (folded; matched as whole words).
ALWAYS = ("siempre", "en todo caso", "en todo momento", "en cualquier caso", "sin excepcion")
NEVER = ("nunca", "jamas", "en ningun caso", "en ninguna circunstancia", "bajo ningun concepto")
ONLY = ("solo", "solamente", "unicamente", "exclusivamente", "unico", "unica")
FORBIDDEN = ("prohib", "no podra", "no podran", "no se podra", "no se permit", "no esta permitid",
             "no debera", "no deberan", "ningun", "ninguna") + NEVER
BACKING = {"siempre": ALWAYS, "en todo caso": ALWAYS, "en todo momento": ALWAYS,
           "nunca": NEVER, "jamas": NEVER, "en ningun caso": NEVER,
           "en ninguna circunstancia": NEVER, "solo": ONLY, "solamente": ONLY,
           "unicamente": ONLY, "exclusivamente": ONLY}
UNITS = {"km/h": "km/h", "kilometro por hora": "km/h", "km": "km", "kilometro": "km",
         "cm3": "cm3", "cc": "cm3", "centimetro cubico": "cm3", "cm": "cm", "centimetro": "cm",
         "mm": "mm", "milimetro": "mm", "m": "m", "metro": "m", "kg": "kg", "kilogramo": "kg",
         "t": "t", "tonelada": "t", "mg/l": "mg/l", "miligramo por litro": "mg/l",
         "g/l": "g/l", "gramo por litro": "g/l", "%": "%", "por ciento": "%", "kw": "kw",
         "kilovatio": "kw", "año": "año", "mes": "mes", "meses": "mes", "dia": "dia",
         "hora": "h", "h": "h", "minuto": "min", "min": "min", "segundo": "s", "s": "s",
         "euro": "euro", "plaza": "plaza"}


@dataclass(frozen=True)
class ProseItem:
    """One unit of authored prose: where it is, what it says, what it cites."""

    file: str
    line: int
    text: str                         # the prose only (quotes removed)
    citations: tuple[Citation, ...]   # the passages it may rely on
    given: str = ""                   # text whose numbers are given, not claimed (the question)
    inherited: bool = False           # cites nothing itself: relies on its section's citations
    context: str = ""                 # what the reader sees with it (heading, the list's lead-in)

    def __repr__(self) -> str:
        return f"ProseItem({self.file}:{self.line})"


@dataclass(frozen=True)
class Quantity:
    value: str        # canonical number: "3500", "0.5", "14"
    unit: str         # canonical unit or ""
    shown: str        # as written

    def __repr__(self) -> str:
        return f"Quantity({self.shown})"


def quantities(text: str) -> list[Quantity]:
    """Numbers with their units in ``text``, references masked; sign codes as unit "code"."""
    folded = PROSE_REFERENCE.sub(lambda m: " " * len(m.group(0)), fold(text))
    out = [Quantity(f"{m.group(1)}-{m.group(2)}", "code", m.group(0))
           for m in SEARCH_SIGN.finditer(text)]
    for shown in sorted({q.shown for q in out}, key=len, reverse=True):  # "R-200" before "R-2"
        folded = folded.replace(fold(shown), " ")
    for m in PROSE_QUANTITY.finditer(folded):
        num, unit = m.group(1), m.group(2) or ""
        value = str(NUMBER_WORDS[num]) if num in NUMBER_WORDS else _canonical(num)
        out.append(Quantity(value, _unit(unit), m.group(0)))
    return out


def _canonical(num: str) -> str:
    if "." in num:          # PROSE_QUANTITY only lets a dot through as a thousands separator
        num = num.replace(".", "")
    return num.replace(",", ".")


def _unit(unit: str) -> str:
    u = " ".join(unit.split())
    if u in UNITS:
        return UNITS[u]
    for suffix in ("es", "s"):
        if u.endswith(suffix) and u[: -len(suffix)] in UNITS:
            return UNITS[u[: -len(suffix)]]
    return UNITS.get(u.replace("s por", " por").replace("  ", " "), u)


def absolutes(text: str) -> list[str]:
    """The absolute words of ``text`` (folded), in order."""
    return [" ".join(m.group(1).split()) for m in PROSE_ABSOLUTE.finditer(fold(text))]


def _has_word(folded: str, words: tuple[str, ...]) -> bool:
    """Whether ``folded`` says one of ``words`` (whole words; a word ending in "prohib" or
    "permit" is a prefix: "prohíbe", "prohibido", "permitido")."""
    pad = f" {' '.join(PROSE_PUNCT.sub(' ', folded).split())} "
    for w in words:
        if w == "siempre":
            if any(m.group(1) == "siempre" for m in PROSE_ABSOLUTE.finditer(folded)):
                return True
        elif f" {w}{'' if w.endswith(('prohib', 'permit', 'permitid')) else ' '}" in pad:
            return True
    return False


class Passages:
    """Passage texts by ref, and the lead-in of a list item: the Reglamento's, and those of
    the other norms (``others``) for refs with their prefix."""

    def __init__(self, reg: Regulation, others: tuple[Regulation, ...] = ()) -> None:
        self.reg = reg
        self.others = others
        # ~700 items cite ~400 passages: each passage's text, numbers and folded form are
        # computed once (the same values; a check of every item was ~0.5 s of the read stage)
        self._texts: dict[str, str] = {}
        self._quantities: dict[str, list[Quantity]] = {}
        self._folded: dict[str, str] = {}

    def text(self, ref: str) -> str:
        """The passage (with its descendants) and, for a list item, its lead-ins: "Queda
        prohibido adelantar:" is what "d) En los pasos a nivel" says."""
        if ref not in self._texts:
            self._texts[ref] = self._text(ref)
        return self._texts[ref]

    def quantities(self, text: str) -> list[Quantity]:
        """``quantities(text)`` of a passage text (shared: not to be changed)."""
        if text not in self._quantities:
            self._quantities[text] = quantities(text)
        return self._quantities[text]

    def folded(self, text: str) -> str:
        """``fold(text)`` of a passage text."""
        if text not in self._folded:
            self._folded[text] = fold(text)
        return self._folded[text]

    def _text(self, ref: str) -> str:
        unit = unit_of(regulation_for(ref, self.reg, self.others), ref)
        if unit is None:
            return ""
        own = "\n".join(b.text for b in subtree(unit, ref)) or (
            "\n".join(b.text for b in unit.passages) if ref == unit.ref else "")
        return f"{self._leads(ref)}{own}"

    def _leads(self, ref: str) -> str:
        """The text of ``ref``'s lead-in, and of the lead-in's own lead-in, outermost first (the
        lead-in's paragraph only, never its other list items)."""
        lead = self.lead_in(ref)
        if lead is None or lead.ref is None:
            return ""
        return f"{self._leads(lead.ref)}{lead.text}\n"

    def lead_in(self, ref: str) -> Block | None:
        """The passage that introduces ``ref`` as an item of a list, when it is one."""
        unit = unit_of(regulation_for(ref, self.reg, self.others), ref)
        if unit is None:
            return None
        passages = [b for b in unit.blocks if b.ref]
        index = next((i for i, b in enumerate(passages) if b.ref == ref), None)
        if index is None:
            return None
        parent_ref, _, last = ref.rpartition(".")
        if parent_ref and not (last.startswith("p") and last[1:].isdigit()):
            parent = next((b for b in passages if b.ref == parent_ref), None)
            return parent if parent and parent.text.rstrip().endswith(":") else None
        if not DESIGNATED.match(passages[index].text):
            return None
        for b in reversed(passages[:index]):
            if not DESIGNATED.match(b.text):
                return b if b.text.rstrip().endswith(":") else None
        return None


def check_item(item: ProseItem, passages: Passages) -> list[BuildError]:
    """Every finding of the three rules for one item."""
    texts = {c.ref: passages.text(c.ref) for c in item.citations if not c.ref_error}
    where = f"{item.file}:{item.line}"
    cited = ", ".join(r.fragment if r.norm == NORM else str(r)   # another norm's in full
                      for r in sorted(map(Ref.parse, texts), key=lambda r: r.sort_key)) or "nothing"
    return (_numbers(item, texts, where, cited, passages)
            + _absolutes(item, texts, where, cited, passages)
            + ([] if item.inherited else _lead_ins(item, passages, where)))


def _numbers(item: ProseItem, texts: dict[str, str], where: str, cited: str,
             passages: Passages) -> list[BuildError]:
    have = [passages.quantities(t) for t in texts.values()]
    given = {q.value for q in quantities(item.given)}
    out = []
    for q in quantities(item.text):
        if q.value in given and q.unit != "code":
            continue
        if q.unit == "code":
            ok = any(any(h.unit == "code" and h.value == q.value for h in qs) for qs in have)
        else:
            ok = any(any(h.value == q.value for h in qs)
                     and (not q.unit or any(h.unit == q.unit for h in qs)) for qs in have)
        if not ok:
            out.append(BuildError(where, f"number «{q.shown}» does not occur in a cited passage "
                                         f"({cited})",
                                  "cite the passage that states it, or write what the cited "
                                  "passage says"))
    return out


def _absolutes(item: ProseItem, texts: dict[str, str], where: str,
               cited: str, passages: Passages) -> list[BuildError]:
    folded = [passages.folded(t) for t in texts.values()]
    excepted = (bool(PROSE_EXCEPTION.search(fold(item.text))) and len(item.citations) > 1
                and any(PROSE_EXCEPTION.search(t) for t in folded))
    out = []
    for word in dict.fromkeys(absolutes(item.text)):
        if excepted or any(backs(word, t) for t in folded):
            continue
        out.append(BuildError(where, f"absolute «{word}» is not backed by a cited passage "
                                     f"({cited}): none says «{word}» or an equivalent",
                              "cite the passage that says it, or name the exception and cite "
                              "it too, or drop the absolute"))
    return out


def backs(word: str, passage: str) -> bool:
    """Whether one (folded) passage backs an absolute: the same word or an equivalent; "solo X"
    is also what "se prohíbe …, salvo X" says."""
    if word.startswith("prohib"):
        return _has_word(passage, FORBIDDEN)
    if BACKING[word] is ONLY and _has_word(passage, FORBIDDEN) and PROSE_EXCEPTION.search(passage):
        return True
    return _has_word(passage, BACKING[word])


def _lead_ins(item: ProseItem, passages: Passages, where: str) -> list[BuildError]:
    refs = [c.ref for c in item.citations if not c.ref_error]
    prose = set(stems(f"{item.text} {item.given} {item.context}"))
    out = []
    for ref in dict.fromkeys(refs):
        lead = passages.lead_in(ref)
        if lead is None or lead.ref is None:
            continue
        if any(Ref.parse(r).contains(Ref.parse(lead.ref)) for r in refs if r != ref):
            continue
        words = list(dict.fromkeys(stems(DESIGNATED.sub("", lead.text))))[:LEAD_WORDS]
        if words and sum(w in prose for w in words) >= min(LEAD_SHOWN, len(words)):
            continue
        out.append(BuildError(where, f"{ref.split('#')[-1]} is an item of a list whose lead-in "
                                     f"is {lead.ref.split('#')[-1]} «{lead.text[:60]}»: the "
                                     "item neither cites nor shows it",
                              "cite the lead-in too, or say in the prose what it says"))
    return out


def check_prose(reg: Regulation, items: list[ProseItem],
                others: tuple[Regulation, ...] = ()) -> list[BuildError]:
    """All findings over ``items``, in order; ``others``: the norms besides ``reg`` that
    items may cite."""
    passages = Passages(reg, others)
    return [f for item in items for f in check_item(item, passages)]
