"""The signs page: every sign and road-marking code, with what the regulation says about it.

Where the words come from, honestly labelled on the page:
- Road markings (M-…): ANEXO I §5 defines each in force in text ("– Marca de paso para peatones
  (M-4.3): una serie…"); those passages are shown whole, with their allowlisted deep link.
- Vertical signs (P-, R-, S-): the catalogue in force since 1 July 2025 (RD 465/2025) gives each
  sign's code, name and meaning only inside images. Their names here come from the catalogue's
  previous wording (the 2003 text of ANEXO I §5, whose table cells read "R-101 / Entrada
  prohibida"), are marked as such and are never presented as citations; what the text in force
  says about a code (every passage that mentions it) is listed with verified deep links.
"""

from __future__ import annotations

from dataclasses import dataclass

from citavial.build.errors import BuildError
from citavial.build.ingest.wordings import Wordings
from citavial.build.models import AllowlistEntry, SignEntry, Version
from citavial.build.patterns import MARKING_DEFINITION, SIGN_CATALOGUE_CODE

CATALOGUE_BLOCK = "A5"   # the BOE block of ANEXO I §5 (catálogo de señales)
GROUP_ORDER = "PRSM"
MARKINGS = "Marcas viales"


@dataclass(frozen=True)
class Mention:
    ref: str
    label: str
    url: str
    text: str


@dataclass(frozen=True)
class Sign:
    code: str             # "R-101"
    name: str             # from the previous catalogue, or the marking's in-force definition
    group: str            # the catalogue chapter, e.g. "Señales de prohibición de entrada"
    image: str            # the BOE image of the previous catalogue ("" for markings)
    definition: Mention | None   # the in-force passage defining it (markings)
    mentions: tuple[Mention, ...]

    def __repr__(self) -> str:
        return f"Sign({self.code})"


def code_key(code: str) -> tuple:
    """Natural order: P-2 < P-10, M-4.3 < M-4.3a < M-4.10."""
    letter, rest = code.split("-", 1)
    num, _, sub = rest.partition(".")
    sub_digits = "".join(ch for ch in sub if ch.isdigit())
    tail = rest.lstrip("0123456789.")
    return (GROUP_ORDER.index(letter), int("".join(c for c in num if c.isdigit()) or 0),
            int(sub_digits or 0), tail)


def previous_catalogue(wordings: Wordings) -> tuple[Version, list[tuple[str, str, str, str]]]:
    """(that wording's version, [(code, name, chapter, image url)]) from the first wording of
    ANEXO I §5, whose table cells hold an image, the code and the name."""
    if CATALOGUE_BLOCK not in wordings:
        raise BuildError(f"bloque id={CATALOGUE_BLOCK!r}", "has no earlier wording (the signs "
                         "page names vertical signs from the 2003 catalogue)",
                         "restore the corpus file from the BOE")
    first = wordings[CATALOGUE_BLOCK][0]
    out, chapter = [], ""
    for b in first.blocks:
        if b.kind == "heading":
            chapter = _chapter(b.text) or chapter
        elif b.kind == "table" and b.table is not None:
            out += [e for row in b.table.rows for cell in row
                    if (e := _entry(cell.text, cell.images, chapter))]
    return first.version, out


def _chapter(text: str) -> str:
    """"5.2. SEÑALES DE PRIORIDAD" → "Señales de prioridad"."""
    words = text.split(" ", 1)
    if len(words) < 2 or not words[0][:1].isdigit():
        return ""
    return words[1][:1].upper() + words[1][1:].lower()


def _entry(text: str, images, chapter: str) -> tuple[str, str, str, str] | None:
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    if len(lines) < 2:
        return None
    m = SIGN_CATALOGUE_CODE.fullmatch(lines[0].replace(" ", ""))
    if not m:
        return None
    return (f"{m.group(1)}-{m.group(2)}", " ".join(lines[1:]), chapter,
            images[0].src if images else "")


def mentions(allowlist: list[AllowlistEntry]) -> dict[str, list[Mention]]:
    """{code: in-force passages that mention it}, in allowlist (document) order."""
    out: dict[str, list[Mention]] = {}
    for e in allowlist:
        for letter, number in dict.fromkeys(SIGN_CATALOGUE_CODE.findall(e.text)):
            out.setdefault(f"{letter}-{number}", []).append(
                Mention(e.ref, e.label, e.url, e.text))
    return out


def markings(allowlist: list[AllowlistEntry]) -> dict[str, tuple[str, Mention]]:
    """{M code: (name, defining passage)} from ANEXO I §5's in-force definitions."""
    out: dict[str, tuple[str, Mention]] = {}
    for e in allowlist:
        m = MARKING_DEFINITION.match(e.text)
        if not m:
            continue
        for letter, number in SIGN_CATALOGUE_CODE.findall(m.group("codes")):
            out.setdefault(f"{letter}-{number}", (" ".join(m.group("name").split()),
                                                   Mention(e.ref, e.label, e.url, e.text)))
    return out


def catalogue(wordings: Wordings,
              allowlist: list[AllowlistEntry]) -> tuple[Version, list[Sign]]:
    """Every code: the previous catalogue's signs plus the in-force road markings."""
    version, old = previous_catalogue(wordings)
    said = mentions(allowlist)
    signs = {code: Sign(code, name, chapter, image, None, tuple(said.get(code, ())))
             for code, name, chapter, image in old}
    for code, (name, definition) in markings(allowlist).items():
        signs[code] = Sign(code, name, MARKINGS, "", definition,
                           tuple(m for m in said.get(code, ()) if m.ref != definition.ref))
    return version, sorted(signs.values(), key=lambda s: code_key(s.code))


def groups(signs: list[Sign]) -> list[dict]:
    """Signs grouped by chapter, chapters in the order of their first sign."""
    out: dict[str, list[Sign]] = {}
    for s in signs:
        out.setdefault(s.group, []).append(s)
    return [{"title": title, "id": f"g{i + 1}", "signs": items}
            for i, (title, items) in enumerate(out.items())]


def sign_entries(grouped: list[dict]) -> tuple[SignEntry, ...]:
    """Every code as the search and the worker see it, in the signs page's order."""
    return tuple(SignEntry(code=s.code, name=s.name, group=g["title"],
                           url=f"senales.html#senal-{s.code}",
                           name_in_force=s.definition is not None,
                           definition=s.definition.ref if s.definition else "",
                           mentions=tuple(m.ref for m in s.mentions))
                 for g in grouped for s in g["signs"])


def signs_json(grouped: list[dict]) -> dict:
    """Every code as data (for the search and other tools): where it is on the signs page, its
    name, group, whether the name is in-force text, and the refs of in-force passages about it."""
    return {"schema": "citavial-signs/1", "signs": [
        {"code": e.code, "name": e.name, "group": e.group, "url": e.url,
         "name_in_force": e.name_in_force, "definition": e.definition,
         "mentions": list(e.mentions)}
        for e in sign_entries(grouped)]}
