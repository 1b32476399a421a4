"""The build: corpus check → ingest → render → verify → index, staged and swapped in atomically.

Nothing is written to ``out_dir`` unless every stage succeeds: the site is built in a staging
directory next to it and replaces it in one rename (see atomic.staged_dir).
"""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

from .atomic import staged_dir
from .corpus import verify_corpus
from .ingest import ingest
from .models import Regulation
from .render import render


def load_regulation(corpus_dir: Path, as_of: date) -> Regulation:
    """Verify the corpus hashes, then ingest it for ``as_of``."""
    info = verify_corpus(Path(corpus_dir))
    return ingest(info.texto_path, info.metadatos_path, as_of)


def build_site(corpus_dir: Path, out_dir: Path, as_of: date, site_src: Path) -> str:
    """Build the whole site into ``out_dir``; return a one-paragraph report."""
    t0 = time.perf_counter()
    reg = load_regulation(corpus_dir, as_of)
    t1 = time.perf_counter()
    with staged_dir(Path(out_dir)) as stage:
        pages = render(reg, Path(site_src), stage)
    t2 = time.perf_counter()
    passages = sum(len(u.passages) for u in reg.units)
    return (f"built {len(pages)} pages, {len(reg.units)} units, {passages} citable passages "
            f"as of {as_of.isoformat()} into {out_dir} "
            f"(ingest {t1 - t0:.2f} s, render {t2 - t1:.2f} s)")
