"""Every wording of the BOE blocks that have more than one, read in the ingest's one parse.

The pages that show history (what changed between wordings: render/changes.py; the signs
catalogue's previous wording: render/signpage.py) read these typed values instead of the XML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from lxml import etree

from citavial.build.ingest.blocks import read_version
from citavial.build.ingest.versions import version_of
from citavial.build.models import Block, Version


@dataclass(frozen=True)
class Wording:
    """One <version> of a BOE block: its dates and its blocks as read (refs not yet assigned)."""

    version: Version
    blocks: tuple[Block, ...]

    def __repr__(self) -> str:
        return f"Wording({self.version.norm_id} from {self.version.in_force}, {len(self.blocks)} blocks)"


# {BOE block id: its wordings in document order}, for every block with more than one.
Wordings = Mapping[str, tuple[Wording, ...]]


def read_wordings(bloques: list[etree._Element], as_of: date) -> dict[str, tuple[Wording, ...]]:
    """The wordings of every block with more than one (a block's text does not depend on
    ``as_of``; only the notes read_version drops here do)."""
    out: dict[str, tuple[Wording, ...]] = {}
    for bloque in bloques:
        elements = bloque.findall("version")
        if len(elements) < 2:
            continue
        where = f"bloque id={bloque.get('id')!r}"
        out[bloque.get("id") or ""] = tuple(
            Wording(version_of(v, where), tuple(read_version(v, as_of)[0])) for v in elements)
    return out
