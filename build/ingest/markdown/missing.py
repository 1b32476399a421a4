"""Tables the Markdown copy of RD 818/2009 lacks (its older renderer dropped every table).

Art. 4.2 (classes and ages), anexo I (EU and national codes) and anexo IV (medical aptitude
criteria) exist here only in the BOE PDF, and all are recovered from it (pdftables.py), every
cell checked against the PDF's text. A table a copy lacks and the build cannot recover is listed
here: its unit then says so with a note pointing to the BOE — never an approximation.
"""

from __future__ import annotations

from dataclasses import replace

from citavial.build.models import Note, Unit

MISSING_TABLE = "missing_table"   # Note.kind: a table of the BOE text this copy does not hold

# norm → {unit fragment: what the BOE's table holds}; none since anexo IV was recovered
MISSING: dict[str, dict[str, str]] = {}
BOE_ACT = "https://www.boe.es/buscar/act.php?id="
BOE_IDS = {"RD-818/2009": "BOE-A-2009-9481"}


def add_missing_tables(norm: str, units: tuple[Unit, ...]) -> tuple[Unit, ...]:
    missing = MISSING.get(norm, {})
    out = []
    for unit in units:
        what = missing.get(unit.ref.split("#", 1)[1])
        if what:
            note = Note(MISSING_TABLE, (f"Tabla no disponible: ver el BOE ({what}).",),
                        ((f"BOE {BOE_IDS[norm]}", BOE_ACT + BOE_IDS[norm]),))
            unit = replace(unit, notes=unit.notes + (note,))
        out.append(unit)
    return tuple(out)
