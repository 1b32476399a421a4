"""Signs in a question: the catalogue codes and names a question writes ("R-101", "r101",
"señal de ceda el paso", "calle residencial") → the signs page's entries, shown ABOVE the passage
results and never as citations (a vertical sign's name comes from the previous catalogue).

site_src/static/search-core.js mirrors this module line for line (tests/test_search_parity.py):

* codes: ``SIGN_QUERY_CODE`` in the folded question ("r-101", "r101", "r 101", "m-6.3"); a code
  the catalogue has is a hit ("code"), else, when written with its hyphen, the codes of its
  family ("family": "p-13" → P-13a, P-13b; "m-6" → M-6.1…; but not "m2", square metres). A
  question that writes a code gets no name hits.
* names: a name's words (folded, with a light plural fold: ``sign_key``) in a row in the question,
  either right after a cue word ("señal de ceda el paso": at most ``ADJACENT`` − 1 of the
  ``CONNECT`` words between),
  or in a question about nothing else ("entrada prohibida", "¿qué significa calle
  residencial?") — a one-word name ("Peatones") needs a cue somewhere — is a hit ("name");
  a question whose words (two or more, or one with a cue) are a run of a longer name's words
  is a "partial" hit ("señal de stop" → R-2 "Detención obligatoria o STOP").
* order: codes in the question's order; then names, longest first; then partial names,
  shortest first (in both, road markings first when the question says "marca"); ties in
  catalogue order; at most ``MAX_SIGNS``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from citavial.build import patterns as P
from citavial.build.models import SignEntry
from citavial.build.text import fold

MAX_SIGNS = 5
ADJACENT = 3
# Words that say the question is about a sign ("cue") or only asks what it means ("filler").
CUE = frozenset({"señal", "señales", "senal", "senales", "marca", "marcas", "vial", "viales", "panel", "paneles",
                 "cartel", "carteles"})
MARKING_CUE = frozenset({"marca", "marcas"})
# What may stand between a cue and the name: "señal de ceda el paso", "la marca de la…"; not
# "ninguna señal ni semáforo", "no hay señal. ¿A qué velocidad máxima…?".
CONNECT = frozenset({"de", "del", "la", "el", "las", "los", "un", "una"})
FILLER = CUE | frozenset({"significa", "significan", "significado", "indica", "indican",
                          "quiere", "decir", "representa", "llama", "nombre", "codigo"})
SOFT_PLURAL = "lnrdzj"   # "calles"/"calle", "peatones"/"peaton", "señales"/"señal" fold alike
HYPHENS = "-\u2010\u2011"


def sign_key(tok: str) -> str:
    """A light plural fold: drop a final "s", then a final "e" after l/n/r/d/z/j."""
    if len(tok) > 3 and tok.endswith("s"):
        tok = tok[:-1]
    if len(tok) > 3 and tok.endswith("e") and tok[-2] in SOFT_PLURAL:
        tok = tok[:-1]
    return tok


def sign_table(signs: Sequence[SignEntry]) -> dict[str, Any]:
    """What the static page and the CLI match against (stored with the lexical data)."""
    return {"signs": [[s.code, s.name, int(s.name_in_force)] for s in signs],
            "sign_cue": sorted(CUE), "sign_marking_cue": sorted(MARKING_CUE),
            "sign_filler": sorted(FILLER), "sign_connect": sorted(CONNECT),
            "max_signs": MAX_SIGNS, "sign_adjacent": ADJACENT}


def sign_json(s: SignEntry) -> dict[str, Any]:
    """A sign as the index stores it for the CLI and the worker (dist/index/docs)."""
    return {"code": s.code, "name": s.name, "group": s.group, "url": s.url,
            "name_in_force": s.name_in_force, "definition": s.definition,
            "mentions": list(s.mentions)}


def sign_entry(obj: Mapping[str, Any]) -> SignEntry:
    return SignEntry(code=obj["code"], name=obj["name"], group=obj["group"], url=obj["url"],
                     name_in_force=bool(obj["name_in_force"]), definition=obj["definition"],
                     mentions=tuple(obj["mentions"]))


def tokens(folded: str) -> list[str]:
    return [m.group(0) for m in P.SEARCH_CLIENT_TOKEN.finditer(folded)]


@dataclass(frozen=True)
class Prepared:
    """The table with each name's words, computed once per loaded index."""

    codes: tuple[str, ...]
    row: Mapping[str, int]
    names: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]   # (tokens, keys) per row

    def __repr__(self) -> str:
        return f"Prepared({len(self.codes)} signs)"


_PREPARED: list[tuple[object, Prepared]] = []   # (the table object it was made from, result)


def prepare(data: Mapping[str, Any]) -> Prepared:
    """The prepared table of ``data`` (cached for the same table object: one index, one)."""
    table = data.get("signs", [])
    for made_from, prep in _PREPARED:
        if made_from is table:
            return prep
    prep = _prepare(table)
    _PREPARED[:] = [(table, prep)] + _PREPARED[:3]
    return prep


def _prepare(table: Sequence[Sequence[Any]]) -> Prepared:
    names = []
    for _, name, _ in table:
        toks = tokens(fold(name))
        names.append((tuple(toks), tuple(sign_key(t) for t in toks)))
    codes = tuple(r[0] for r in table)
    return Prepared(codes, {c: i for i, c in enumerate(codes)}, tuple(names))


def code_rows(prep: Prepared, folded: str) -> list[tuple[int, int, list[int], str]]:
    """(start, end, rows, how) for each code the folded question writes that the catalogue
    knows, exactly or as a family; unknown codes are left out."""
    out = []
    for m in P.SIGN_QUERY_CODE.finditer(folded):
        code = f"{m.group(1).upper()}-{m.group(2)}"
        if code in prep.row:
            out.append((m.start(), m.end(), [prep.row[code]], "code"))
            continue
        if m.group(0)[1] not in HYPHENS:   # "m 2", "m2" (square metres): exact codes only
            continue
        family = [i for i, c in enumerate(prep.codes) if c.startswith(code)
                  and len(c) > len(code) and (c[len(code)] == "." or c[len(code)].isalpha())]
        if family:
            out.append((m.start(), m.end(), family, "family"))
    return out


def mask(folded: str, spans: Sequence[tuple[int, int, list[int], str]]) -> str:
    """The folded question with the codes' characters blanked (their numbers are not words)."""
    for start, end, _, _ in spans:
        folded = folded[:start] + " " * (end - start) + folded[end:]
    return folded


def _find(keys: Sequence[str], name: Sequence[str]) -> int:
    n = len(name)
    for i in range(len(keys) - n + 1):
        if tuple(keys[i:i + n]) == tuple(name):
            return i
    return -1


def _cued(toks: Sequence[str], at: int) -> bool:
    for j in range(max(0, at - ADJACENT), at):
        if toks[j] in CUE and all(toks[x] in CONNECT for x in range(j + 1, at)):
            return True
    return False


def _contains(seq: Sequence[str], part: Sequence[str]) -> bool:
    return bool(part) and _find(seq, part) >= 0


def name_rows(prep: Prepared, folded: str, stop: frozenset[str]) -> list[tuple[int, str]]:
    """(row, "name" | "partial") for the names the question writes (module docstring)."""
    toks = tokens(folded)
    keys = [sign_key(t) for t in toks]
    cued_any = any(t in CUE for t in toks)
    marking = any(t in MARKING_CUE for t in toks)
    content = [k for t, k in zip(toks, keys, strict=False) if t not in stop and t not in FILLER]
    full: list[tuple[int, int, int]] = []
    partial: list[tuple[int, int, int]] = []
    for row, (ntoks, nkeys) in enumerate(prep.names):
        name_content = [k for t, k in zip(ntoks, nkeys, strict=False) if t not in stop]
        prefer = 0 if marking == prep.codes[row].startswith("M-") else 1
        at = _find(keys, nkeys) if nkeys else -1
        if at >= 0:
            about = all(t in stop or t in FILLER or k in nkeys for t, k in zip(toks, keys, strict=False))
            if _cued(toks, at) or (about and (len(name_content) >= 2 or cued_any)):
                full.append((prefer, -len(nkeys), row))
                continue
        if (len(content) >= 2 or (content and cued_any)) and _contains(name_content, content):
            partial.append((prefer, len(nkeys), row))
    return ([(r, "name") for *_, r in sorted(full)] +
            [(r, "partial") for *_, r in sorted(partial)])


def match(prep: Prepared, question: str, stop: frozenset[str]) -> list[tuple[int, str]]:
    """(row, how) of the signs ``question`` names, best first, at most MAX_SIGNS."""
    folded = fold(question)
    spans = code_rows(prep, folded)
    out: list[tuple[int, str]] = []
    if spans:
        for _, _, rows, how in spans:
            out += [(r, how) for r in rows]
    else:
        out = name_rows(prep, folded, stop)
    seen: set[int] = set()
    unique: list[tuple[int, str]] = []
    for r, h in out:   # first (best) mention of each row
        if r not in seen:
            seen.add(r)
            unique.append((r, h))
    return unique[:MAX_SIGNS]
