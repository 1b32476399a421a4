"""Shared fixtures: the regulation ingested once per session, and a built site."""

from __future__ import annotations

import pytest

from support import AS_OF, CORPUS, ROOT, SITE_SRC  # noqa: F401 - re-exported for fixtures


@pytest.fixture(scope="session")
def reg():
    from build.pipeline import load_regulation
    return load_regulation(CORPUS, AS_OF)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """A full `citavial build` into a temporary dist/ (the real one is left alone)."""
    from build.pipeline import build_site
    out = tmp_path_factory.mktemp("site") / "dist"
    build_site(corpus_dir=CORPUS, out_dir=out, as_of=AS_OF, site_src=SITE_SRC)
    return out
