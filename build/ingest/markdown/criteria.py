"""RD 818/2009 anexo IV (medical criteria): one passage per exploración, ``anexoIV.r12``.

The annex's tables are read from the BOE PDF (pdftables.py), one per section ("1. Capacidad
visual" …), five columns: exploración, criteria for grupo 1 and grupo 2, adaptations for grupo 1
and grupo 2. A student asks about one exploración ("agudeza visual", "diabetes"): each is a table
passage of its own, its row plus the rows below it whose exploración cell is empty (the BOE rules
them as separate cells: "1.1 Agudeza visual" › visión monocular › cirugía refractiva). A row with
only its exploración ("4.2 Trastornos del ritmo.") is a passage too, so every cell is citable.
Each section's header rows are a table block without a ref: shown, not citable. The rows are
numbered through the annex (r1, r2 …), apart from the paragraphs' ``p`` refs, which therefore
keep the numbers they had before the tables were recovered (links and hooks still land).
"""

from __future__ import annotations

from dataclasses import replace

from citavial.build.errors import BuildError
from citavial.build.ingest.markdown.tables import table_text
from citavial.build.ingest.structure import assign_sequential_refs
from citavial.build.models import Block, Cell, Table


def assign_criteria_refs(unit_ref: str, blocks: list[Block]) -> list[Block]:
    """Paragraphs ``p1``… in order, as if the tables were absent; each table's header block
    without a ref, then its exploración groups ``r1``… numbered through the annex."""
    paragraphs = iter(assign_sequential_refs(unit_ref, [b for b in blocks if b.kind != "table"]))
    out: list[Block] = []
    n = 0
    for block in blocks:
        if block.kind != "table":
            out.append(next(paragraphs))
            continue
        row_blocks = _row_blocks(unit_ref, block, n)
        n += len(row_blocks) - 1
        out.extend(row_blocks)
    return out


def _row_blocks(unit_ref: str, block: Block, start: int) -> list[Block]:
    """The header block (no ref) and one block per exploración group, ``r{start + 1}``…"""
    if block.table is None:
        raise BuildError(unit_ref, "has a table block without its table", "check the ingest")
    header = tuple(r for r in block.table.rows if r and r[0].header)
    groups: list[list[tuple[Cell, ...]]] = []
    for row in block.table.rows[len(header):]:
        if row[0].text:
            groups.append([row])
        elif groups:
            groups[-1].append(row)   # a further criterion of the exploración above
        else:
            raise BuildError(unit_ref, f"a table row ({table_text(Table(rows=(row,)))[:50]!r}) "
                             "precedes the first exploración", "check pdftables.TABLES")
    out = [replace(block, table=Table(rows=header), text=table_text(Table(rows=header)),
                   ref=None)]
    for k, rows in enumerate(groups, start + 1):
        t = Table(rows=tuple(rows))
        out.append(replace(block, table=t, text=table_text(t), ref=f"{unit_ref}.r{k}"))
    return out
