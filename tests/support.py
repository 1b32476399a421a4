"""Paths, the reference date and THE built site shared by the test modules (importable from
any test dir)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from datetime import date
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SITE_SRC = ROOT / "site_src"
AS_OF = date(2026, 11, 29)
CHROMIUM = Path("/usr/bin/chromium")   # Debian's; Playwright never downloads a browser here
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def tree_hash(path: Path) -> str:
    """sha256 over every file's relative path and bytes: equal iff the tree is byte-identical."""
    import hashlib

    h = hashlib.sha256()
    for p in sorted(Path(path).rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(path)).encode() + p.read_bytes())
    return h.hexdigest()


def copy_cache(filled: Path, dest: Path) -> Path:
    """A copy of the build cache ``filled`` (tests/conftest.py: filled_build_cache) at ``dest``:
    copies, never hard links, so a build that writes into a file it restored cannot reach the
    shared cache's blobs."""
    shutil.copytree(filled, dest)
    return dest


@lru_cache(maxsize=1)
def built_site_dir() -> Path:
    """The one built site of a test process: a full `citavial build` of the committed corpus and
    site_src for AS_OF into a temporary dist/ (built on first use, removed at exit). Tests read
    it and never write into it; the repo's own dist/ is never read. The fixture ``built_site``
    (tests/conftest.py) is this path."""
    from citavial.build.pipeline import build_site
    tmp = Path(tempfile.mkdtemp(prefix="citavial-site-"))
    atexit.register(shutil.rmtree, tmp, True)
    out = tmp / "dist"
    build_site(corpus_dir=CORPUS, out_dir=out, as_of=AS_OF, site_src=SITE_SRC)
    return out
