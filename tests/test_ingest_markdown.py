"""Fidelity of the Markdown ingest (build/ingest/markdown/) of the three norms in corpus/norms/.

The reference is the Markdown itself, re-read here with the simplest possible rules: every line of
the norm that is not a heading, a table row, a note, or part of an expired wording must be the text
of exactly one passage. The exceptions (preamble, signatures, image lines) are counted and pinned.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest
from support import CORPUS

from citavial.build.corpus.norms import verify_norms
from citavial.build.errors import BuildError
from citavial.build.ingest.markdown import IngestReport, ingest_report
from citavial.build.ingest.markdown.inline import plain
from citavial.build.ingest.markdown.lines import body_lines, scan, split_row
from citavial.build.ingest.markdown.missing import MISSING_TABLE
from citavial.build.ingest.markdown.tables import table
from citavial.build.models import IN_FORCE, Regulation
from citavial.build.refs import Ref

AS_OF = date(2026, 12, 1)
NORMS = ("RDL-6/2015", "RD-2822/1998", "RD-818/2009")


@pytest.fixture(scope="module")
def ingested() -> dict[str, tuple[Regulation, IngestReport, Path]]:
    copies = verify_norms(CORPUS)
    out = {}
    for norm in NORMS:
        reg, report = ingest_report(copies[norm], AS_OF)
        out[norm] = (reg, report, copies[norm].markdown)
    return out


def _expired_lines(report: IngestReport) -> set[int]:
    return {n for item in report.expired for n in item.lines}


def _reference_paragraphs(path: Path, report: IngestReport) -> list[tuple[int, str]]:
    """(line, text) of every wording-in-force paragraph line, by the plainest rules."""
    expired = _expired_lines(report)
    out = []
    for n, line in body_lines(path.read_text(encoding="utf-8")):
        if not line.strip() or n in expired or line.startswith(("#", "|", "> <small>",
                                                                "> Téngase", "> Redacción")):
            continue
        text = plain(line[2:] if line.startswith("> ") else line)
        if text:
            out.append((n, text))
    return out


# (norm, paragraph lines, of them not passages: (preamble, signature, figure, suppressed/repealed
#  texts), expired blocks, non-empty lines they span)
COUNTS = [
    ("RDL-6/2015", 1043, (15, 4, 0, 2), 28, 95),
    ("RD-2822/1998", 2271, (25, 4, 58, 0), 12, 196),
    ("RD-818/2009", 1168, (34, 4, 0, 8), 0, 0),
]


@pytest.mark.parametrize("norm,paragraphs,exceptions,blocks,spanned", COUNTS,
                         ids=[c[0] for c in COUNTS])
def test_every_paragraph_in_force_is_a_passage(ingested, norm, paragraphs, exceptions, blocks,
                                               spanned) -> None:
    reg, report, path = ingested[norm]
    passages: dict[str, int] = {}
    for unit in reg.units:
        for b in unit.passages:
            if b.kind == "paragraph":
                passages[b.text] = passages.get(b.text, 0) + 1
    signatures = {b.text for u in reg.units for b in u.blocks if b.kind == "signature"}
    figures = sum(1 for u in reg.units for b in u.blocks if b.kind == "figure")
    preamble = set(reg.preamble)
    # "(Suprimido)" / "(Derogado)" paragraphs are blocks, marked so, but not citable passages.
    dropped = {b.text for u in reg.units for b in u.blocks if b.ref and b.status != IN_FORCE}
    # RD 818/2009 writes "ANEXO I" and its title, and every copy the approved text's title
    # ("REGLAMENTO GENERAL DE VEHÍCULOS"), as plain paragraphs: they are headings here.
    headings = {t for u in reg.units for t in (u.label, u.title)} | \
        {t for e in reg.toc if e.heading for t in (e.heading.label, e.heading.title)}
    missing = []
    for n, text in _reference_paragraphs(path, report):
        if text not in passages and not {text} & (preamble | signatures | dropped | headings):
            missing.append((n, text[:60]))
    assert missing == []
    ref = _reference_paragraphs(path, report)   # image-only lines read "" and are not counted
    assert (len(ref), (len(preamble), len(signatures), figures, len(dropped))) == \
        (paragraphs, exceptions)
    assert len(report.expired) == blocks
    assert len(_expired_lines(report)) == spanned


@pytest.mark.parametrize("norm", NORMS)
def test_refs_unique_and_of_the_norm(ingested, norm) -> None:
    reg, _, _ = ingested[norm]
    refs = [b.ref for u in reg.units for b in u.passages]
    assert len(refs) == len(set(refs))
    assert all(r.startswith(norm + "#") for r in refs + [u.ref for u in reg.units])
    assert reg.per_date_history is False
    assert all(u.versions == () and u.version is None for u in reg.units)
    assert reg.source.consolidated and reg.source.html_url.endswith(reg.source.norm_id)


# Lines the shared PROVENANCE.md names as traps: expired wording without its "> " marker.
TRAPS = [
    ("RDL-6/2015", range(2441, 2469)),        # the pre-2022 points table
    ("RD-2822/1998", range(1665, 1666)),      # old art. 49 heading
    ("RD-2822/1998", range(3083, 3106)),      # expired anexo IX tabla 1
    ("RD-2822/1998", range(3109, 3140)),      # expired anexo IX tabla 2
    ("RD-2822/1998", range(3236, 3264)),      # expired anexo IX tabla 3
]


@pytest.mark.parametrize("norm,lines", TRAPS, ids=[f"{t[0]}:{t[1].start}" for t in TRAPS])
def test_trap_lines_are_expired(ingested, norm, lines) -> None:
    _, report, _ = ingested[norm]
    expired = _expired_lines(report)
    text = ingested[norm][2].read_text(encoding="utf-8").split("\n")
    spanned = [n for n in lines if text[n - 1].strip()]
    assert spanned and all(n in expired for n in spanned)


@pytest.mark.parametrize("norm,line", [("RD-2822/1998", 3001), ("RD-2822/1998", 3026),
                                       ("RD-2822/1998", 3163), ("RDL-6/2015", 2405)])
def test_tables_in_force_are_not_expired(ingested, norm, line) -> None:
    _, report, _ = ingested[norm]
    assert not set(range(line, line + 5)) & _expired_lines(report)


@pytest.mark.parametrize("norm", NORMS)
def test_no_expired_text_among_passages(ingested, norm) -> None:
    reg, report, path = ingested[norm]
    lines = path.read_text(encoding="utf-8").split("\n")
    expired = _expired_lines(report)
    in_force: set[str] = set()
    for n, line in enumerate(lines, 1):
        if n not in expired:
            cells = split_row(line) if line.startswith("|") else (re.sub(r"^> ", "", line),)
            in_force.update(plain(c) for c in cells)
    texts = {b.text for u in reg.units for b in u.passages}
    cells = {c.text for u in reg.units for b in u.passages if b.table for r in b.table.rows for c in r}
    leaked = [t for item in report.expired for t in item.texts
              if (plain(t) in texts or plain(t) in cells) and plain(t) not in in_force
              and len(plain(t)) > 3]
    assert leaked == []
    # The old points table's seat-belt row (3 points before 2022) is nowhere among passages.
    if norm == "RDL-6/2015":
        assert not any("No hacer uso del cinturón de seguridad, sistemas de retención infantil, "
                       "casco y demás elementos de protección 3" in t for t in texts)


POINTS = [("r1", ("", "6", "4"))] + [(f"r{n}", (p,)) for n, p in zip(
    range(2, 22), "6 6 6 6 6 6 6 6 4 4 6 4 4 4 4 4 4 3 3 3".split(), strict=False)]


def test_points_table_one_passage_per_row(ingested) -> None:
    reg, _, _ = ingested["RDL-6/2015"]
    unit = reg.unit("RDL-6/2015#anexoII")
    rows = [(b.ref.rsplit(".", 1)[1], tuple(r[-1].text for r in b.table.rows))
            for b in unit.passages if b.table is not None]
    assert rows == POINTS
    r10 = next(b for b in unit.passages if b.ref == "RDL-6/2015#anexoII.r10")
    assert "semáforos con luz roja encendida" in r10.text and r10.status == IN_FORCE
    header = [b for b in unit.blocks if b.kind == "table" and b.ref is None]
    assert [c.text for b in header for r in b.table.rows for c in r] == ["", "Puntos"]


def test_speed_table_spans_restored(ingested) -> None:
    reg, _, _ = ingested["RDL-6/2015"]
    tables = [b.table for b in reg.unit("RDL-6/2015#anexoIV").passages if b.table]
    speed = next(t for t in tables if t.rows[0][0].text == "Límite")
    assert (speed.rows[0][0].colspan, speed.rows[1][0].text, speed.rows[1][0].rowspan,
            speed.rows[1][1].text, speed.rows[1][1].rowspan) == (2, "Exceso velocidad", 5, "Grave", 4)
    assert [c.text for c in speed.rows[1]][-4:-2] == ["121 150", "131 150"]
    assert [c.text for c in speed.rows[2]][-4:-2] == ["151 170", "151 170"]  # equal numbers stay


@pytest.mark.parametrize("norm", NORMS)
def test_no_repeated_letter_cells_side_by_side(ingested, norm) -> None:
    reg, _, _ = ingested[norm]
    for u in reg.units:
        for b in u.blocks:
            if b.source_class == "pdf-table":
                continue   # the PDF's rules show its cells: "No se admiten." twice is two
            for row in (b.table.rows if b.table else ()):
                pairs = zip(row, row[1:], strict=False)
                assert not [a.text for a, c in pairs if a.text == c.text and re.search(r"[a-z]", a.text)]


TABLES = [
    ("colspan", [["A", "Todo automóvil", "Todo automóvil"], ["x", "1", "1"]], [[1, 2], [1, 1, 1]], [[1, 1], [1, 1, 1]]),
    ("numbers stay", [["h", "h2"], ["5", "5"]], [[1, 1], [1, 1]], [[1, 1], [1, 1]]),
    ("rowspan first column", [["h", "v"], ["Grave", "1"], ["Grave", "2"]], [[1, 1], [1, 1], [1]],
     [[1, 1], [2, 1], [1]]),
    ("data column stays", [["h", "v"], ["a", "Sí"], ["b", "Sí"]], [[1, 1]] * 3, [[1, 1]] * 3),
]


@pytest.mark.parametrize("name,rows,colspans,rowspans", TABLES, ids=[t[0] for t in TABLES])
def test_table_spans(name, rows, colspans, rowspans) -> None:
    t = table(tuple(tuple(r) for r in rows))
    assert [[c.colspan for c in r] for r in t.rows] == colspans
    assert [[c.rowspan for c in r] for r in t.rows] == rowspans


def test_rd_818_tables_are_recovered_none_noted_missing(ingested) -> None:
    reg, _, _ = ingested["RD-818/2009"]
    noted = sorted(u.ref for u in reg.units if any(n.kind == MISSING_TABLE for n in u.notes))
    assert noted == []
    recovered = [b.ref for u in reg.units for b in u.passages if b.source_class == "pdf-table"]
    assert recovered == (["RD-818/2009#art4.2.p2"]
                         + [f"RD-818/2009#anexoI.p{k}" for k in (31, 32, 33, 34, 37)]
                         + [f"RD-818/2009#anexoIV.r{k}" for k in range(1, 90)])
    table = next(b for b in reg.unit("RD-818/2009#art4").passages if b.table is not None)
    assert (table.ref, table.source_class, len(table.table.rows)) == ("RD-818/2009#art4.2.p2",
                                                                      "pdf-table", 15)


@pytest.mark.parametrize("text,where", [
    ('x\n\n> Redacción anterior:\n\n> sin comillas\n', "x.md:5"),
    ('x\n\n> Redacción anterior:\n\n> "abre y nunca cierra\n\nmás\n', "x.md:3"),
], ids=["unquoted", "unclosed"])
def test_expired_block_errors_name_the_line(text, where) -> None:
    with pytest.raises(BuildError) as err:
        scan(text, "x.md")
    assert str(err.value).startswith(where)


@pytest.mark.parametrize("norm", ["RDL-6/2015", "RD-2822/1998"])
def test_expired_blocks_close_where_the_text_in_force_resumes(ingested, norm) -> None:
    """A block closed too early would leave old wording as law: after each one comes its
    modification note or the next designator of the text in force ("2. …", "b) …", "B) …")."""
    _, report, path = ingested[norm]
    lines = path.read_text(encoding="utf-8").split("\n")
    after = []
    for item in report.expired:
        j = item.lines[-1]
        while not lines[j].strip():
            j += 1
        after.append(lines[j])
    resumes = re.compile(r"^(?:> <small>|\d{1,3}\.\s|[a-zA-Z]\)\s)")
    assert [a[:40] for a in after if not resumes.match(a)] == []


# Adjacent passage pairs the typed Ref's document order cannot place from the refs alone (as
# the Reglamento's rd.df1.2): the Ley's anexo II closing paragraph (p2) after its rows (r1…r21);
# RGV art. 50.2 c)'s own list "1. … 2. … 3." reopening apartados; RD 818/2009 art. 36.3's "A)"
# and "B)" (upper-case letters, no level of the scheme) restarting "a)", "b)".
ORDER_EXCEPTIONS = {
    "RDL-6/2015": [("RDL-6/2015#anexoII.r21", "RDL-6/2015#anexoII.p2")],
    "RD-2822/1998": [("RD-2822/1998#art50.2.c", "RD-2822/1998#art50.1.p2")],
    # anexo IV's exploraciones (r) are numbered apart from its paragraphs (p), which keep the
    # refs they had before the tables were recovered: each table before a paragraph inverts
    "RD-818/2009": [("RD-818/2009#art36.3.b.p2", "RD-818/2009#art36.3.a.p2")]
    + [(f"RD-818/2009#anexoIV.r{r}", f"RD-818/2009#anexoIV.p{p}")
       for r, p in ((8, 3), (12, 4), (52, 5), (55, 6), (60, 7), (76, 9), (83, 10), (87, 13),
                    (88, 14))],
}


@pytest.mark.parametrize("norm", NORMS)
def test_refs_are_typed_refs_of_their_unit(ingested, norm) -> None:
    reg, _, _ = ingested[norm]
    for unit in reg.units:
        typed = Ref.parse(unit.ref)
        assert (str(typed), typed.unit, typed.page) == (unit.ref, typed, unit.page)
        for b in unit.passages:
            assert str(Ref.parse(b.ref)) == b.ref and Ref.parse(b.ref).unit == typed, b.ref
    refs = [b.ref for u in reg.units for b in u.passages]
    inverted = [(a, b) for a, b in zip(refs, refs[1:], strict=False)
                if Ref.parse(a).sort_key > Ref.parse(b).sort_key]
    print(f"\n{norm}: {len(refs) - 1 - len(inverted)}/{len(refs) - 1} adjacent passage pairs in "
          "Ref.sort_key order")
    assert inverted == ORDER_EXCEPTIONS[norm]


def test_ref_orders_the_leys_letters() -> None:
    """Letters p), r), s) are letters, not paragraphs/rows/sections; "b) bis." and "z1)" sit right
    after their letter (build/refs.py)."""
    doc = ["RDL-6/2015#art75.b", "RDL-6/2015#art75.bbis", "RDL-6/2015#art75.bter",
           "RDL-6/2015#art75.c", "RDL-6/2015#art76.o", "RDL-6/2015#art76.p", "RDL-6/2015#art76.r",
           "RDL-6/2015#art76.s", "RDL-6/2015#art76.z", "RDL-6/2015#art76.z.p2",
           "RDL-6/2015#art76.z1", "RDL-6/2015#art76.z2"]
    assert sorted(reversed(doc), key=lambda r: Ref.parse(r).sort_key) == doc
    assert [Ref.parse(r).letter for r in doc[:3] + doc[-2:]] == ["b", "bbis", "bter", "z1", "z2"]
    assert Ref.parse("RD-818/2009#art4.2.p2").letter is None
