"""The corpus as one build reads it: every file verified once and parsed once.

``read_corpus`` is the build's only way in: it verifies the manifests (corpus/integrity.py),
parses the BOE XML once into the Reglamento and the wordings its history pages need, and ingests
the Markdown norms; the later stages receive these typed values, never a path to re-read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from citavial.build.corpus.integrity import CorpusInfo, verify_corpus
from citavial.build.ingest import from_bloques, parse_texto, source_of, with_renames
from citavial.build.ingest.markdown import ingest_norms
from citavial.build.ingest.wordings import Wordings, read_wordings
from citavial.build.models import Regulation


@dataclass(frozen=True)
class Corpus:
    """The verified, parsed corpus of one build."""

    info: CorpusInfo
    regulation: Regulation          # the Reglamento in force on the as-of date, with its renames
    wordings: Wordings              # its blocks' wordings (changes page, previous sign catalogue)
    others: tuple[Regulation, ...]  # the Markdown norms, in NORMS order

    def __repr__(self) -> str:
        return f"Corpus({self.regulation!r}, {len(self.others)} other norms)"


def read_corpus(corpus_dir: Path, as_of: date, cache_dir: Path | None = None) -> Corpus:
    """Verify and parse the corpus for ``as_of``; ``cache_dir`` keeps the tables read from the
    PDFs between builds (ingest/markdown/pdftables.py)."""
    info = verify_corpus(Path(corpus_dir), norms_required=True)
    bloques = parse_texto(info.texto_path)
    reg = with_renames(from_bloques(bloques, source_of(info), as_of), Path(corpus_dir))
    others = tuple(ingest_norms(info.norms, as_of, cache_dir).values())
    return Corpus(info, reg, read_wordings(bloques, as_of), others)
