"""The rendered regulation for `citavial check`, cached by corpus hash.

Ingesting the XML and rendering 219 pages costs about a second; a pre-commit hook cannot pay
that on every commit. The first run renders the pages into
``<cache>/check-<key>/`` (atomically, with the ingested Regulation beside them); later runs only
verify the corpus hashes and load that. ``key`` hashes everything the pages depend on: the
corpus files' sha256, the as-of date, the site templates and static files, and the build's own
source code — so a changed corpus, template or gate never reuses stale pages.

The cache folder is ``--cache-dir``, else ``$CITAVIAL_CACHE``, else ``$XDG_CACHE_HOME/citavial``,
else ``~/.cache/citavial``.
"""

from __future__ import annotations

import hashlib
import pickle
import shutil
from datetime import date
from pathlib import Path

from citavial.build.corpus.integrity import verify_corpus
from citavial.build.ingest import with_renames
from citavial.build.models import Regulation
from citavial.build.paths import cache_root

_BUILD_CODE = Path(__file__).resolve().parent.parent   # the whole build package
REGULATION_FILE = "regulation.pickle"


def _tree_digest(h, root: Path, pattern: str) -> None:
    for f in sorted(p for p in Path(root).rglob(pattern) if p.is_file()):
        h.update(str(f.relative_to(root)).encode("utf-8") + b"\0" + f.read_bytes() + b"\0")


def cache_key(texto_sha256: str, metadatos: Path, site_src: Path, as_of: date) -> str:
    h = hashlib.sha256()
    h.update(f"{texto_sha256}\0{as_of.isoformat()}\0".encode("ascii"))
    h.update(Path(metadatos).read_bytes())
    for sub in ("templates", "static"):
        if (Path(site_src) / sub).is_dir():
            _tree_digest(h, Path(site_src) / sub, "*")
    _tree_digest(h, _BUILD_CODE, "*.py")
    return h.hexdigest()[:20]


def site_for_check(corpus: Path, site_src: Path, as_of: date,
                   cache_dir: Path | None = None) -> tuple[Regulation, Path]:
    """(the ingested regulation, the folder of its rendered pages), from the cache when it
    holds this corpus/as-of/templates/code; otherwise rendered now and cached."""
    info = verify_corpus(Path(corpus))   # the corpus is checked on every run, cache or not
    root = Path(cache_dir) if cache_dir else cache_root()
    folder = root / f"check-{cache_key(info.sha256, info.metadatos_path, site_src, as_of)}"
    reg = _load(folder / REGULATION_FILE)
    if reg is not None:   # the renames are read afresh: they are not part of the cache key
        return with_renames(reg, Path(corpus)), folder
    from citavial.build.atomic import staged_dir
    from citavial.build.ingest import ingest
    from citavial.build.render.pages import render
    reg = ingest(info.texto_path, info.metadatos_path, as_of)
    with staged_dir(folder) as stage:
        render(reg, Path(site_src), stage)
        (stage / REGULATION_FILE).write_bytes(pickle.dumps(reg, protocol=pickle.HIGHEST_PROTOCOL))
    _prune(root, keep=folder)
    return with_renames(reg, Path(corpus)), folder


def _load(path: Path) -> Regulation | None:
    """The cached Regulation, or None when absent or unreadable (then it is rebuilt).

    pickle, because it restores the frozen dataclass tree in ~20 ms; the file is written by
    this code into the user's own cache folder, never taken from elsewhere."""
    try:
        reg = pickle.loads(path.read_bytes())
    except Exception:   # missing, truncated or from another Python: rebuild, never fail
        return None
    return reg if isinstance(reg, Regulation) else None


def _prune(root: Path, keep: Path) -> None:
    """Drop older renderings so the cache holds one corpus version, not one per edit."""
    for old in root.glob("check-*"):
        if old != keep and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
