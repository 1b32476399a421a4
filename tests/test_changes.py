"""Qué ha cambiado: the word-level diff between consecutive wordings, the art. 48 change of
1 October 2026 (RD 518/2026) word for word, and the recent-change map behind the warnings."""

from __future__ import annotations

from datetime import date

import pytest
from support import CORPUS

from citavial.build.ingest import parse_texto
from citavial.build.ingest.wordings import read_wordings
from citavial.build.render.changes import (
    DELETED,
    EQUAL,
    INSERTED,
    by_date,
    change_id,
    compact,
    latest_change,
    passage_changed,
    unit_changes,
    word_diff,
)

R = "RD-1428/2003#"


@pytest.mark.parametrize("old, new, ops", [
    ("a b c", "a b c", ((EQUAL, "a b c"),)),
    ("a b c", "a x c", ((EQUAL, "a"), (DELETED, "b"), (INSERTED, "x"), (EQUAL, "c"))),
    ("a b", "a b c d", ((EQUAL, "a b"), (INSERTED, "c d"))),
    ("a b c d", "c d", ((DELETED, "a b"), (EQUAL, "c d"))),
    ("", "nuevo texto", ((INSERTED, "nuevo texto"),)),
    ("viejo texto", "", ((DELETED, "viejo texto"),)),
    ("a  b\nc", "a b c", ((EQUAL, "a b c"),)),          # whitespace is not a change
], ids=["same", "replace", "append", "cut-head", "new", "deleted", "whitespace"])
def test_word_diff(old, new, ops):
    assert word_diff(old, new) == ops


def test_compact_keeps_context_around_changes():
    long = " ".join(f"w{i}" for i in range(40))
    ops = ((EQUAL, long), (DELETED, "x"), (INSERTED, "y"), (EQUAL, long), (DELETED, "z"),
           (EQUAL, long))
    out = compact(ops)
    assert out[0] == (EQUAL, "… " + " ".join(f"w{i}" for i in range(32, 40)))
    assert out[3][1].startswith("w0 w1") and " … w32" in out[3][1]
    assert out[-1] == (EQUAL, " ".join(f"w{i}" for i in range(8)) + " …")
    assert out[1:3] == ops[1:3]


@pytest.fixture(scope="module")
def changes(reg):
    wordings = read_wordings(parse_texto(CORPUS / "BOE-A-2003-23514.xml"), reg.as_of)
    return unit_changes(wordings, reg)


def test_art48_on_2026_10_01_shows_exactly_the_changed_words(changes):
    last = changes[R + "art48"][-1]
    assert last.in_force == date(2026, 10, 1) and last.after.norm_id == "BOE-A-2026-13889"
    assert change_id(last) == "c-art48-20261001"
    assert [p.ref for p in last.paragraphs] == [R + "art48.1.b.p2"]
    changed = [(k, t) for k, t in last.paragraphs[0].ops if k != EQUAL]
    assert changed == [(DELETED, "máxima en vías convencionales"),
                       (INSERTED, "máxima, cualquiera que sea el tipo de vía fuera de poblado,")]


def test_recent_changes_and_pages(reg, changes):
    recent = passage_changed(changes, reg.as_of)
    assert latest_change(R + "art48.1.b.p2", recent) == date(2026, 10, 1)
    assert latest_change(R + "art48.1", recent) != date(2026, 10, 1)   # a parent is not flagged
    assert all(d <= reg.as_of for d in recent.values())
    days = by_date(reg, changes)
    assert [d["date"] for d in days] == sorted((d["date"] for d in days), reverse=True)
    oct1 = next(d for d in days if d["date"] == date(2026, 10, 1))
    assert "c-art48-20261001" in [c["id"] for c in oct1["changes"]]


def test_every_change_is_a_real_difference(changes):
    for cs in changes.values():
        for c in cs:
            assert c.before.in_force <= c.after.in_force
            for p in c.paragraphs:
                assert any(k != EQUAL for k, _ in p.ops), (c, p)


@pytest.mark.parametrize("old, new, shown", [
    pytest.param("a b c d e f", "a b c d e g", None, id="one-word-changed-diff"),
    pytest.param("los ciclos podrán llevar un menor", "en los ciclomotores puede viajar un pasajero",
                 ("los ciclos podrán llevar un menor",
                  "en los ciclomotores puede viajar un pasajero"), id="rewritten-side-by-side"),
    pytest.param("uno dos tres", "", None, id="deleted-stays-a-diff"),
])
def test_rewritten_paragraphs_are_shown_side_by_side(old, new, shown):
    """Issue 25.7: when most words of a paragraph changed, the two wordings side by side."""
    from citavial.build.render.changes import sides, word_diff
    assert sides(word_diff(old, new)) == shown


def test_the_signs_catalogue_without_its_earlier_wording_names_the_block():
    """The signs page reads ANEXO I §5's first wording from the ingest's wordings; a corpus
    without it stops the build naming the block, not with a bare KeyError."""
    from citavial.build.errors import BuildError
    from citavial.build.render.signpage import CATALOGUE_BLOCK, previous_catalogue
    with pytest.raises(BuildError) as err:
        previous_catalogue({})
    assert CATALOGUE_BLOCK in str(err.value)
