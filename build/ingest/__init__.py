"""Ingest: the frozen BOE XML → a typed Regulation as in force on an as-of date.

The XML is a flat sequence of <bloque>; the hierarchy exists only as the order of heading blocks,
and three numbering spaces share it (the Real Decreto's preceptos, the Reglamento, each ANEXO).
``ingest`` walks the blocks once, tracking the numbering space and the open headings.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

from citavial.build.corpus.integrity import verify_corpus
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
    source = read_source(metadatos)
    root = parse_file(texto)
    status = root.findtext("status/code")
    if status != "200":
        raise BuildError(str(texto), f"BOE status code is {status!r}, expected '200'",
                         "restore the file from the BOE open-data API")
    bloques = root.findall("data/texto/bloque")
    if not bloques:
        raise BuildError(str(texto), "has no data/texto/bloque elements (truncated?)",
                         "restore the file from the BOE open-data API")
    units, toc, initial, preamble, inactive = walk(bloques, as_of)
    return Regulation(as_of=as_of, source=source, units=tuple(units), toc=tuple(toc),
                      initial_notes=tuple(initial), preamble=tuple(preamble),
                      inactive=tuple(inactive))


def read_source(metadatos: Path) -> Source:
    root = parse_file(metadatos)
    meta = root.find("data/metadatos")
    if meta is None:
        raise BuildError(str(metadatos), "has no data/metadatos element",
                         "restore the file from the BOE open-data API")

    def field(name: str) -> str:
        value = (meta.findtext(name) or "").strip()
        if not value:
            raise BuildError(f"{metadatos}:{name}", "is missing or empty",
                             "restore the file from the BOE open-data API")
        return value

    norm_id = field("identificador")
    updated = field("fecha_actualizacion")
    return Source(
        norm_id=norm_id,
        title=field("titulo"),
        consolidated=f"{updated[0:4]}-{updated[4:6]}-{updated[6:8]}",
        eli=field("url_eli"),
        html_url=field("url_html_consolidada"),
        api_url=f"https://www.boe.es/datosabiertos/api/legislacion-consolidada/id/{norm_id}",
        license=LICENSE,
    )
