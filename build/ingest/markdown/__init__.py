"""Ingest of the norms held as Markdown copies (corpus/norms/): the Ley sobre Tráfico (RDL 6/2015),
the Reglamento General de Vehículos (RD 2822/1998), the Reglamento General de Conductores (RD
818/2009) → the same typed Regulation as the XML ingest.

API for the next stages::

    copies = verify_norms(corpus_dir)                    # build/corpus/norms.py, by ref prefix
    reg = ingest_norm(copies["RDL-6/2015"], as_of)       # one Regulation
    regs = load_norms(corpus_dir, as_of)                 # {ref prefix: Regulation}, all three

Refs come from one function per norm, ``NORMS[norm].ref(fragment)`` (norms.py); a unit's page is
``page_of(norm, fragment)``. What differs from the XML ingest's output, for render and gate:
``Regulation.per_date_history`` is False (units carry no versions: say so on the page);
``Source.norm_id`` is the BOE id; block kinds add "signature" (the decree's "Dado en …" and
signatories, not citable) and a table block without a ref (the points table's header row, shown,
not citable); the Ley's anexo II rows are table passages ``anexoII.r1`` … ``r21``; tables read from
the PDF have ``source_class == "pdf-table"``; a table still missing is a unit note of kind
``missing_table``. Expired wording is in ``Unit.notes`` (kind "previous"), never in blocks; what
was skipped is reported by :func:`ingest_report`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from citavial.build.corpus.norms import NormCopy, verify_norms
from citavial.build.errors import BuildError
from citavial.build.ingest import source_of
from citavial.build.ingest.markdown.lines import Item, scan
from citavial.build.ingest.markdown.missing import add_missing_tables
from citavial.build.ingest.markdown.norms import NORMS, spec
from citavial.build.ingest.markdown.pdftables import TABLES, read_tables, recover, write_committed
from citavial.build.ingest.markdown.units import Walk
from citavial.build.models import Regulation


@dataclass(frozen=True)
class IngestReport:
    """What the ingest of one copy set aside (for tests and the fidelity report)."""

    norm: str
    expired: tuple[Item, ...]   # previous wordings skipped, with every line they span

    def __repr__(self) -> str:
        return f"IngestReport({self.norm}, {len(self.expired)} expired blocks)"


Tables = Mapping[str, "Future[dict[int, list]]"]   # a norm's PDF tables, being read


def ingest_report(copy: NormCopy, as_of: date, cache_dir: Path | None = None,
                  tables: Tables | None = None) -> tuple[Regulation, IngestReport]:
    """The Regulation of one verified copy, and what its ingest skipped. ``cache_dir`` keeps
    the tables read from the PDF between builds (pdftables.read_tables); ``tables``: those
    reads begun earlier (:func:`start_tables`), by norm."""
    norm_spec = spec(copy.norm)
    text = copy.markdown.read_text(encoding="utf-8")
    walk = Walk(spec=norm_spec)
    specs = TABLES.get(copy.norm, ())
    if specs:
        if copy.pdf is None:
            raise BuildError(str(copy.markdown), f"{copy.norm} needs its PDF for {specs[0]}",
                             "list the PDF in corpus/norms/MANIFEST.json")
        read = (tables[copy.norm].result() if tables and copy.norm in tables
                else read_tables(copy.pdf, _pages(copy.norm), cache_dir))
        for table_spec in specs:
            walk.recovered.setdefault(table_spec.unit, []).append(
                (table_spec.after, recover(table_spec, copy.pdf, read)))
    walk.run(scan(text, str(copy.markdown)))
    units = add_missing_tables(norm_spec.norm, tuple(walk.units))
    # ``as_of`` is recorded, not applied: the copy has one wording per block and no dates.
    reg = Regulation(as_of=as_of, source=source_of(copy), units=units, toc=walk.frozen_toc(),
                     initial_notes=tuple(walk.initial), preamble=tuple(walk.preamble),
                     per_date_history=False)
    return reg, IngestReport(norm=copy.norm, expired=tuple(walk.expired))


def ingest_norm(copy: NormCopy, as_of: date, cache_dir: Path | None = None) -> Regulation:
    """One norm's Regulation as the copy has it (see :func:`ingest_report`)."""
    return ingest_report(copy, as_of, cache_dir)[0]


def write_tables(corpus_dir: Path, boe_id: str) -> str:
    """Read the PDF tables of the copy ``boe_id`` with poppler into the file builds read
    (pdftables.write_committed); a one-line report. BuildError for a copy without tables."""
    copies = [c for c in verify_norms(corpus_dir).values() if c.boe_id == boe_id]
    if not copies or copies[0].norm not in TABLES or copies[0].pdf is None:
        with_tables = ", ".join(sorted(c.boe_id for c in verify_norms(corpus_dir).values()
                                       if c.norm in TABLES and c.pdf is not None))
        raise BuildError(boe_id, "is not a copy in corpus/norms/ whose tables are read from "
                                 "its PDF", f"name one of: {with_tables or 'none'}")
    return write_committed(copies[0].pdf, _pages(copies[0].norm))


def load_norms(corpus_dir: Path, as_of: date,
               cache_dir: Path | None = None) -> dict[str, Regulation]:
    """Verify corpus/norms/ and ingest every Markdown norm, keyed by ref prefix."""
    return ingest_norms(verify_norms(corpus_dir).values(), as_of, cache_dir)


def start_tables(copies: Iterable[NormCopy], pool: Executor,
                 cache_dir: Path | None = None) -> Tables:
    """Begin reading the PDF tables of every copy that has some, in ``pool``: mostly a wait on
    poppler's processes (~0.4 s), which the build spends parsing the XML and the other norms
    instead. A copy without its PDF is left out (ingest_report names that error)."""
    return {c.norm: pool.submit(read_tables, c.pdf, _pages(c.norm), cache_dir)
            for c in copies if c.norm in TABLES and c.pdf is not None}


def _pages(norm: str) -> list[int]:
    return sorted({page for table_spec in TABLES[norm] for page, _ in table_spec.parts})


def ingest_norms(copies: Iterable[NormCopy], as_of: date, cache_dir: Path | None = None,
                 tables: Tables | None = None) -> dict[str, Regulation]:
    """Every verified copy's Regulation, keyed by ref prefix in NORMS order (``tables``: see
    ingest_report)."""
    by_norm = {c.norm: c for c in copies}
    return {norm: ingest_report(by_norm[norm], as_of, cache_dir, tables)[0] for norm in NORMS
            if norm in by_norm}
