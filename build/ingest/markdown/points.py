"""The Ley's anexo II (points): one passage per infraction row, ``anexoII.r10`` for the 10th.

A student asks "¿cuántos puntos por saltarme un semáforo?" and a teacher links the row: each
numbered infraction, with its points, is a table passage of its own. Row 1 ("Conducir con una
tasa de alcohol …:") keeps its two graded sub-rows, which have no number of their own. The header
row ("Puntos") is a table block without a ref: shown, not citable. Other paragraphs of the annex
are numbered in order (``anexoII.p1``) as in every annex.
"""

from __future__ import annotations

from dataclasses import replace

from citavial.build.errors import BuildError
from citavial.build.ingest.markdown.syntax import POINTS_ROW
from citavial.build.ingest.markdown.tables import table_text
from citavial.build.ingest.structure import assign_sequential_refs
from citavial.build.models import Block, Cell, Table


def assign_points_refs(unit_ref: str, blocks: list[Block]) -> list[Block]:
    tables = [b for b in blocks if b.kind == "table"]
    if len(tables) != 1 or tables[0].table is None:
        raise BuildError(unit_ref, f"has {len(tables)} tables, expected the one points table",
                         "check the Markdown copy; extend build/ingest/markdown/points.py")
    others = assign_sequential_refs(unit_ref, [b for b in blocks if b.kind != "table"])
    rows_out = _row_blocks(unit_ref, tables[0])
    at = blocks.index(tables[0])
    return others[:at] + rows_out + others[at:]


def _row_blocks(unit_ref: str, block: Block) -> list[Block]:
    assert block.table is not None
    header = tuple(r for r in block.table.rows if r and r[0].header)
    groups: list[tuple[int, list[tuple[Cell, ...]]]] = []
    for row in block.table.rows[len(header):]:
        m = POINTS_ROW.match(row[0].text)
        if m:
            groups.append((int(m.group(1)), [row]))
        elif groups:
            groups[-1][1].append(row)   # a graded sub-row of the infraction above
        else:
            raise BuildError(unit_ref, f"table row {row[0].text[:40]!r} precedes the first "
                             "numbered infraction", "check the Markdown copy")
    numbers = [n for n, _ in groups]
    if numbers != list(range(1, len(numbers) + 1)):
        raise BuildError(unit_ref, f"infraction numbers are {numbers}, expected 1…{len(numbers)}",
                         "check the Markdown copy")
    out = [replace(block, table=Table(rows=header), text=table_text(Table(rows=header)), ref=None)]
    for n, rows in groups:
        t = Table(rows=tuple(rows))
        out.append(replace(block, table=t, text=table_text(t), ref=f"{unit_ref}.r{n}", images=()))
    return out
