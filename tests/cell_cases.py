"""Table cells whose span link is proven (and some whose is not), on the real built site: shared by
tests/test_worker_cellink.py (the gate's matcher) and tests/browser/test_cell_links.py (Chromium)."""

from __future__ import annotations

import pytest

SPEED = "RD-1428/2003#art48.1.a"       # art. 48's speed table
CODES = "RD-818/2009#anexoI.p31"       # the licence codes of the Reglamento de Conductores
FINES = "RDL-6/2015#anexoIV.p1"        # the Ley's table of speeding fines, values repeated
CRITERIA = "RD-818/2009#anexoIV.r1"    # the medical criteria's "1.1 Agudeza visual" (no header row)

# (ref, row, column, the cell's text): row 0 is the header row, column 0 the row headers
CELLS = [
    pytest.param(SPEED, 1, 1, "120", id="speed-autopista-turismos"),
    pytest.param(SPEED, 1, 2, "90", id="speed-autopista-camiones"),
    pytest.param(SPEED, 1, 3, "100", id="speed-autopista-autobuses"),
    pytest.param(SPEED, 2, 1, "90", id="speed-convencional-turismos"),
    pytest.param(SPEED, 2, 2, "80", id="speed-convencional-camiones"),
    pytest.param(SPEED, 2, 3, "90", id="speed-convencional-autobuses"),
    pytest.param(CODES, 2, 1, "01.01", id="codes-subcode"),
    pytest.param(CODES, 2, 2, "Gafas.", id="codes-meaning"),
    pytest.param(CRITERIA, 0, 1, "Se debe poseer, si es preciso con lentes correctoras, una "
                 "agudeza visual binocular de, al menos, 0,5.", id="criteria-agudeza-grupo-1"),
    pytest.param(CRITERIA, 1, 1, "No se admite la visión monocular.",
                 id="criteria-monocular-grupo-1"),
    pytest.param(FINES, 2, 10, "151 170", id="fines-repeated-left"),
    pytest.param(FINES, 2, 11, "151 170", id="fines-repeated-right"),
]

# cells whose text no prefix/suffix of the matcher's can single out: no link is emitted
UNPROVEN = [
    pytest.param(FINES, 3, 1, id="fines-61-70"),
    pytest.param("RD-2822/1998#anexoXI.p181", 1, 0, id="plate-material"),
]

_HEADERS = ("Autopista y autovía", "Camiones, tractocamiones, furgonetas, autocaravanas de masa "
            "máxima autorizada superior a 3.500 kg, vehículos articulados, automóviles con "
            "remolque y resto de vehículos")
# A table answer of several cells of the speed table: (row, column) cells in the answer's
# order, its ``span``, and the header its link falls back to when unproven (None: the passage)
SEVERAL = [
    pytest.param([(1, 1), (1, 2), (1, 3)], "120 90 100", _HEADERS[0], id="row-autopista"),
    pytest.param([(1, 2), (2, 2)], "90", _HEADERS[1], id="column-camiones"),
    pytest.param([(r, c) for r in (1, 2) for c in (1, 2, 3)], "120", None, id="whole-table"),
]
