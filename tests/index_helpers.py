"""Shared by the tests/test_index_*.py modules: one search index built per test process."""

from __future__ import annotations

from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
AS_OF = date(2026, 11, 29)   # as tests/conftest.py (imported by path, not as "conftest":
                             # tests/browser/ has a conftest of its own)

HOOKS = ROOT / "corpus" / "hooks" / "hooks-v3.jsonl"
_CACHE: dict[str, object] = {}


def passages():
    if "passages" not in _CACHE:
        from citavial.build.index.collect import collect
        from citavial.build.ingest import load_regulation
        from citavial.build.ingest.markdown import load_norms
        regs = (load_regulation(CORPUS, AS_OF), *load_norms(CORPUS, AS_OF).values())
        _CACHE["passages"] = tuple(p for reg in regs for p in collect(reg))   # as the build
    return _CACHE["passages"]


def built_dist() -> Path:
    """THE built site of the test process (support.built_site_dir), whose index/ and
    search-index.js the index tests read."""
    from support import built_site_dir
    return built_site_dir()


def searcher():
    if "searcher" not in _CACHE:
        from citavial.build.index.query.search import Searcher
        _CACHE["searcher"] = Searcher.load(built_dist() / "index")
    return _CACHE["searcher"]
