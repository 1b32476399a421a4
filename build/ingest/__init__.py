"""Ingest: the frozen BOE XML → a typed Regulation as in force on an as-of date.

The XML is a flat sequence of <bloque>; the hierarchy exists only as the order of heading blocks,
and three numbering spaces share it (the Real Decreto's preceptos, the Reglamento, each ANEXO).
``ingest`` walks the blocks once, tracking the numbering space and the open headings. A build reads
the whole corpus once through :func:`citavial.build.ingest.read.read_corpus`.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Protocol

from lxml import etree

from citavial.build.corpus.integrity import read_metadata, verify_corpus
from citavial.build.errors import BuildError
from citavial.build.ingest.walk import walk
from citavial.build.models import Regulation, Source
from citavial.build.renames import check_renames, load_renames
from citavial.build.safexml import parse_file

LICENSE = ("Fuente: Agencia Estatal Boletín Oficial del Estado (BOE). Reutilización permitida "
           "citando la fuente y la fecha de actualización (Ley 37/2007 y aviso legal del BOE).")


def load_regulation(corpus_dir: Path, as_of: date) -> Regulation:
    """Verify the corpus hashes, then ingest it for ``as_of``."""
    info = verify_corpus(Path(corpus_dir))
    return with_renames(ingest(info.texto_path, info.metadatos_path, as_of), Path(corpus_dir))


def with_renames(reg: Regulation, corpus_dir: Path) -> Regulation:
    """``reg`` carrying the corpus's rename table, checked against its passages."""
    renames = load_renames(corpus_dir)
    check_renames(renames, [b.ref for u in reg.units for b in u.blocks if b.ref]
                  + [u.ref for u in reg.units])
    return replace(reg, renames=renames)


def ingest(texto: Path, metadatos: Path, as_of: date) -> Regulation:
    """Parse the corpus files into the Regulation in force on ``as_of``."""
    return from_bloques(parse_texto(texto), read_source(metadatos), as_of)


def parse_texto(texto: Path) -> list[etree._Element]:
    """The <bloque> elements of a BOE texto XML, after checking the API envelope."""
    root = parse_file(texto)
    status = root.findtext("status/code")
    if status != "200":
        raise BuildError(str(texto), f"BOE status code is {status!r}, expected '200'",
                         "restore the file from the BOE open-data API")
    bloques = root.findall("data/texto/bloque")
    if not bloques:
        raise BuildError(str(texto), "has no data/texto/bloque elements (truncated?)",
                         "restore the file from the BOE open-data API")
    return bloques


def from_bloques(bloques: list[etree._Element], source: Source, as_of: date) -> Regulation:
    """The Regulation in force on ``as_of`` from the texto's blocks (:func:`parse_texto`)."""
    units, toc, initial, preamble, inactive = walk(bloques, as_of)
    return Regulation(as_of=as_of, source=source, units=tuple(units), toc=tuple(toc),
                      initial_notes=tuple(initial), preamble=tuple(preamble),
                      inactive=tuple(inactive))


class BoeRecord(Protocol):
    """What the corpus's verification knows of a norm (CorpusInfo, NormMetadata, NormCopy)."""

    @property
    def boe_id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def consolidated(self) -> str: ...   # ISO date, or ISO 8601 UTC (its date is kept)
    @property
    def eli(self) -> str: ...
    @property
    def html_url(self) -> str: ...


def source_of(record: BoeRecord) -> Source:
    """The Source shown on a norm's pages, from its verified record."""
    return Source(norm_id=record.boe_id, title=record.title,
                  consolidated=record.consolidated[:10], eli=record.eli,
                  html_url=record.html_url,
                  api_url=f"https://www.boe.es/datosabiertos/api/legislacion-consolidada/id/"
                          f"{record.boe_id}",
                  license=LICENSE)


def read_source(metadatos: Path) -> Source:
    """The Source of a metadatos XML file (corpus/integrity.py reads and checks its fields)."""
    return source_of(read_metadata(metadatos))
