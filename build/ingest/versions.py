"""Which wording of a BOE block is in force on a date.

The rule (corpus-notes): the version with the greatest ``fecha_vigencia`` <= as-of, in a block whose
``fecha_caducidad`` (if any) is > as-of. "The last version" is wrong: RD 518/2026's versions take
effect on 2026-10-01 and must not be shown for an earlier date.
"""

from __future__ import annotations

from datetime import date

from lxml import etree

from citavial.build.errors import BuildError
from citavial.build.models import EXPIRED, IN_FORCE, NOT_YET, Version


def parse_date(value: str, where: str) -> date:
    """Parse the BOE's YYYYMMDD dates."""
    try:
        return date(int(value[0:4]), int(value[4:6]), int(value[6:8]))
    except (ValueError, TypeError):
        raise BuildError(where, f"date {value!r} is not YYYYMMDD",
                         "restore the corpus file from the BOE") from None


def version_of(el: etree._Element, where: str) -> Version:
    return Version(
        norm_id=el.get("id_norma", ""),
        published=parse_date(el.get("fecha_publicacion", ""), where),
        in_force=parse_date(el.get("fecha_vigencia", ""), where),
    )


def select(bloque: etree._Element, as_of: date) -> tuple[str, etree._Element | None,
                                                        tuple[Version, ...], date | None]:
    """Return (status, version element or None, all versions, expiry date) for ``as_of``."""
    where = f"bloque id={bloque.get('id')!r}"
    elements = bloque.findall("version")
    if not elements:
        raise BuildError(where, "has no <version>", "restore the corpus file from the BOE")
    versions = tuple(version_of(v, where) for v in elements)
    caducidad = bloque.get("fecha_caducidad")
    expires = parse_date(caducidad, where) if caducidad else None
    if expires is not None and expires <= as_of:
        return EXPIRED, None, versions, expires
    candidates = [(v.in_force, i) for i, v in enumerate(versions) if v.in_force <= as_of]
    if not candidates:
        return NOT_YET, None, versions, expires
    # Ties on the date: the later element in document order is the later consolidation.
    _, index = max(candidates)
    return IN_FORCE, elements[index], versions, expires
