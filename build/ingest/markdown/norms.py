"""The norms read from Markdown copies, and how their refs are made (one function per norm).

Fragments follow the Reglamento's scheme (build/refs.py): ``art76.a``, ``art10.1``, ``da1``,
``dt2``, ``df3``, ``anexoII.p3``; the approving decree's own preceptos carry ``rd.``
(``RDL-6/2015#rd.artunico``, ``RD-818/2009#rd.df6``). The Ley's points table is one passage per
infraction: ``RDL-6/2015#anexoII.r10``; RD 818/2009's medical criteria one per exploración:
``RD-818/2009#anexoIV.r1``. The prefixes, BOE ids and page folders are the typed
Ref's registry (build/refs.py ``NORMS``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from citavial.build.ingest.markdown.syntax import DISPOSITION_CODES, ORDINALS
from citavial.build.refs import NORMS as REGISTRY
from citavial.build.refs import Ref, RefError


@dataclass(frozen=True)
class NormSpec:
    norm: str                  # ref prefix, a key of build/refs.py NORMS
    ref: Callable[[str], str]  # fragment → canonical ref (checked by the typed Ref)
    points_annex: str = ""     # the annex whose table rows are passages ("anexoII")
    criteria_annex: str = ""   # the annex whose exploración rows are passages ("anexoIV")

    @property
    def boe_id(self) -> str:
        return REGISTRY[self.norm].boe_id

    @property
    def short(self) -> str:
        return REGISTRY[self.norm].title

    def __repr__(self) -> str:
        return f"NormSpec({self.norm})"


def _typed(norm: str, fragment: str) -> str:
    """The canonical string of ``norm#fragment``, parsed once by the typed Ref (RefError if the
    fragment breaks the grammar)."""
    return str(Ref.parse(f"{norm}#{fragment}"))


def _rdl_6_2015(fragment: str) -> str:
    return _typed("RDL-6/2015", fragment)


def _rd_2822_1998(fragment: str) -> str:
    return _typed("RD-2822/1998", fragment)


def _rd_818_2009(fragment: str) -> str:
    return _typed("RD-818/2009", fragment)


NORMS: dict[str, NormSpec] = {
    "RDL-6/2015": NormSpec("RDL-6/2015", _rdl_6_2015, points_annex="anexoII"),
    "RD-2822/1998": NormSpec("RD-2822/1998", _rd_2822_1998),
    "RD-818/2009": NormSpec("RD-818/2009", _rd_818_2009, criteria_annex="anexoIV"),
}


def spec(norm: str) -> NormSpec:
    if norm not in NORMS:
        raise RefError(f"{norm!r} is not a Markdown-ingested norm; known: {', '.join(NORMS)}")
    return NORMS[norm]


def article_fragment(number: str, suffix: str | None) -> str:
    n = "unico" if number.lower() in ("único", "unico") else number
    return f"art{n}{(suffix or '').lower()}"


def disposition_fragment(kind: str, ordinal: str, suffix: str | None) -> str:
    """("adicional", "tercera", "bis") → ``da3bis``; "única" gives the bare code (``dd``)."""
    code = DISPOSITION_CODES[kind.lower()]
    word = ordinal.lower()
    if word not in ORDINALS:
        raise RefError(f"{ordinal!r} is not an ordinal like 'primera' or 'decimoquinta'")
    number = "" if word == "única" else str(ORDINALS[word])
    return f"{code}{number}{(suffix or '').lower()}"


def page_of(norm: str, fragment: str) -> str:
    """The unit's page, in its norm's folder (``ley-trafico/art76.html``): the typed Ref's."""
    return Ref.parse(f"{norm}#{fragment}").page
