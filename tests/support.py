"""Paths and the reference date shared by the test modules (importable from any test dir)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SITE_SRC = ROOT / "site_src"
AS_OF = date(2026, 11, 29)


def tree_hash(path: Path) -> str:
    """sha256 over every file's relative path and bytes: equal iff the tree is byte-identical."""
    import hashlib

    h = hashlib.sha256()
    for p in sorted(Path(path).rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(path)).encode() + p.read_bytes())
    return h.hexdigest()
