"""The norms read from Markdown copies, and how their refs are made (one function per norm).

Fragments follow the Reglamento's scheme (build/refs.py): ``art76.a``, ``art10.1``, ``da1``,
``dt2``, ``df3``, ``anexoII.p3``; the approving decree's own preceptos carry ``rd.``
(``RDL-6/2015#rd.artunico``, ``RD-818/2009#rd.df6``). The Ley's points table is one passage per
infraction: ``RDL-6/2015#anexoII.r10``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from citavial.build.ingest.markdown.syntax import DISPOSITION_CODES, ORDINALS
from citavial.build.refs import RefError


@dataclass(frozen=True)
class NormSpec:
    norm: str                  # ref prefix
    boe_id: str
    short: str                 # "Ley sobre Tráfico"
    ref: Callable[[str], str]  # fragment → canonical ref
    points_annex: str = ""     # the annex whose table rows are passages ("anexoII")

    def __repr__(self) -> str:
        return f"NormSpec({self.norm})"


def _rdl_6_2015(fragment: str) -> str:
    return f"RDL-6/2015#{fragment}"


def _rd_2822_1998(fragment: str) -> str:
    return f"RD-2822/1998#{fragment}"


def _rd_818_2009(fragment: str) -> str:
    return f"RD-818/2009#{fragment}"


NORMS: dict[str, NormSpec] = {
    "RDL-6/2015": NormSpec("RDL-6/2015", "BOE-A-2015-11722", "Ley sobre Tráfico", _rdl_6_2015,
                           points_annex="anexoII"),
    "RD-2822/1998": NormSpec("RD-2822/1998", "BOE-A-1999-1826", "Reglamento General de Vehículos",
                             _rd_2822_1998),
    "RD-818/2009": NormSpec("RD-818/2009", "BOE-A-2009-9481", "Reglamento General de Conductores",
                            _rd_818_2009),
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
    """The unit's page, inside a folder per norm (``rdl-6-2015/art76.html``)."""
    return norm.lower().replace("/", "-") + "/" + fragment.replace(".", "-") + ".html"
