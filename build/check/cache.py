"""The rendered norms for `citavial check`, cached by corpus hash.

Ingesting the XML and rendering 219 pages costs about a second; a pre-commit hook cannot pay
that on every commit. The first run renders the Reglamento's pages into
``<cache>/check-<key>/`` (atomically, with the ingested Regulation beside them); later runs only
verify the corpus hashes and load that. Another norm (the Ley sobre Tráfico, the Reglamentos
Generales de Conductores and de Vehículos) is ingested and rendered the first time a note cites
it, into ``<cache>/check-<key>/norms/<folder>/`` — its own site root, its pages in its folder as
on the site (``ley-trafico/art76.html``) — and loaded only when cited: a note that cites the
Reglamento alone costs what it did before the other norms came. ``key`` hashes everything the
pages depend on: the corpus manifests (every file's sha256, the other norms' copies included),
the as-of date, the site templates and static files, and the build's own source code — so a
changed corpus, template or gate never reuses stale pages.

The cache folder is ``--cache-dir``, else ``$CITAVIAL_CACHE``, else ``$XDG_CACHE_HOME/citavial``,
else ``~/.cache/citavial``. An entry holds only data (pages, the Regulation as JSON, a sha256
manifest) and is read back with validation (build/check/stored.py): a damaged entry is a miss.
"""

from __future__ import annotations

import hashlib
import shutil
from datetime import date
from pathlib import Path

from citavial.build.check.stored import read_entry, write_entry
from citavial.build.corpus.integrity import manifest_path, verify_corpus
from citavial.build.corpus.norms import MANIFEST_NAME, norms_dir
from citavial.build.gate.verify import Pages
from citavial.build.ingest import with_renames
from citavial.build.models import NORM, Regulation
from citavial.build.paths import cache_root
from citavial.build.refs import NORMS

_BUILD_CODE = Path(__file__).resolve().parent.parent   # the whole build package
NORMS_SUBDIR = "norms"


def _tree_digest(h, root: Path, pattern: str) -> None:
    for f in sorted(p for p in Path(root).rglob(pattern) if p.is_file()):
        h.update(str(f.relative_to(root)).encode("utf-8") + b"\0" + f.read_bytes() + b"\0")


def cache_key(corpus: Path, site_src: Path, as_of: date) -> str:
    """Hash of what the pages depend on. The manifests stand for the corpus files: each file
    was just checked against its manifest's sha256 (verify_corpus); the PDF tables committed
    beside a PDF are hashed themselves."""
    h = hashlib.sha256(f"{as_of.isoformat()}\0".encode("ascii"))
    for manifest in (manifest_path(corpus), norms_dir(corpus) / MANIFEST_NAME):
        h.update(manifest.read_bytes() if manifest.is_file() else b"-")
        h.update(b"\0")
    # the PDF tables committed beside a PDF (ingest/markdown/pdftables.py) are in no manifest
    for tables in sorted(norms_dir(corpus).glob("*.tables.json")):
        h.update(tables.name.encode("utf-8") + b"\0" + tables.read_bytes() + b"\0")
    for sub in ("templates", "static"):
        if (Path(site_src) / sub).is_dir():
            _tree_digest(h, Path(site_src) / sub, "*")
    _tree_digest(h, _BUILD_CODE, "*.py")
    return h.hexdigest()[:20]


class CheckSite:
    """Every norm `check` judges against, each with its rendered pages, by ref prefix: the
    Reglamento loaded at once, another norm the first time :meth:`norm` asks for it."""

    def __init__(self, corpus: Path, site_src: Path, as_of: date, folder: Path,
                 reglamento: Regulation) -> None:
        self.corpus, self.site_src, self.as_of, self.folder = Path(corpus), site_src, as_of, folder
        self._loaded: dict[str, tuple[Regulation, Pages]] = {NORM: (reglamento, Pages(folder))}

    @property
    def reglamento(self) -> Regulation:
        return self._loaded[NORM][0]

    def norm(self, prefix: str) -> tuple[Regulation, Pages] | None:
        """(the Regulation, its pages) of the norm with ref ``prefix``; None when the corpus
        does not hold it (a corpus written by `citavial fetch` alone)."""
        if prefix not in self._loaded:
            reg = self._other(prefix) if prefix in NORMS else None
            if reg is None:
                return None
            self._loaded[prefix] = (reg, Pages(self._root(prefix)))
        return self._loaded[prefix]

    def sources(self) -> dict[str, tuple[str, str]]:
        """{ref prefix: (BOE id, consolidation date)} of the norms loaded so far."""
        return {p: (reg.source.norm_id, reg.source.consolidated)
                for p, (reg, _) in sorted(self._loaded.items())}

    def _root(self, prefix: str) -> Path:
        return self.folder / NORMS_SUBDIR / NORMS[prefix].folder

    def _other(self, prefix: str) -> Regulation | None:
        root = self._root(prefix)
        reg = read_entry(root)
        if reg is not None:
            return reg
        from citavial.build.atomic import staged_dir
        from citavial.build.corpus.norms import verify_norms
        from citavial.build.ingest.markdown import ingest_norm
        from citavial.build.render.pages import render_norm
        if not norms_dir(self.corpus).is_dir():
            return None
        copy = verify_norms(self.corpus).get(prefix)
        if copy is None:
            return None
        reg = ingest_norm(copy, self.as_of)
        with staged_dir(root) as stage:
            render_norm(reg, Path(self.site_src), stage)
            write_entry(stage, reg)
        return reg


def site_for_check(corpus: Path, site_src: Path, as_of: date,
                   cache_dir: Path | None = None) -> CheckSite:
    """The norms and their rendered pages, from the cache when it holds this
    corpus/as-of/templates/code; the Reglamento rendered now and cached when it does not."""
    info = verify_corpus(Path(corpus))   # the corpus is checked on every run, cache or not
    root = Path(cache_dir) if cache_dir else cache_root()
    folder = root / f"check-{cache_key(Path(corpus), site_src, as_of)}"
    reg = read_entry(folder, skip=NORMS_SUBDIR)   # the norms' entries have their own manifests
    if reg is None:
        from citavial.build.atomic import staged_dir
        from citavial.build.ingest import from_bloques, parse_texto, source_of
        from citavial.build.ingest.wordings import read_wordings
        from citavial.build.render.changes import history_links, unit_changes
        from citavial.build.render.pages import render
        bloques = parse_texto(info.texto_path)   # parsed once, as the build does
        reg = from_bloques(bloques, source_of(info), as_of)
        # the "qué cambió" links as the site has them: a page's words are the site's words
        links = history_links(unit_changes(read_wordings(bloques, as_of), reg))
        with staged_dir(folder) as stage:
            render(reg, Path(site_src), stage, change_links=links)
            write_entry(stage, reg, skip=NORMS_SUBDIR)
        _prune(root, keep=folder)
    # the renames are read afresh: they are not part of the cache key
    return CheckSite(Path(corpus), site_src, as_of, folder, with_renames(reg, Path(corpus)))


def _prune(root: Path, keep: Path) -> None:
    """Drop older renderings so the cache holds one corpus version, not one per edit."""
    for old in root.glob("check-*"):
        if old != keep and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
