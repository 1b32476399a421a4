"""Where the project's data lives: the one place that knows the folder layout.

The code installs as ``citavial.build`` / ``citavial.worker``; the data it reads (corpus/,
site_src/, prompts/, golden/) and writes (dist/) lives in a *project folder*. That folder is, in
order: ``$CITAVIAL_HOME``; the source checkout this code was imported from (an editable install);
otherwise the current directory. Every command also takes explicit paths (``--corpus``,
``--site-src``, ``--out``/``--dist``), so an installed wheel works from anywhere.
"""

from __future__ import annotations

import os
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def project_root() -> Path:
    """The project folder (see the module docstring)."""
    env = os.environ.get("CITAVIAL_HOME")
    if env:
        return Path(env)
    if (_CHECKOUT / "corpus").is_dir() and (_CHECKOUT / "site_src").is_dir():
        return _CHECKOUT
    return Path.cwd()


ROOT = project_root()
CORPUS = ROOT / "corpus"
SITE_SRC = ROOT / "site_src"
DIST = ROOT / "dist"
GOLDEN = ROOT / "golden"
PROMPTS = ROOT / "prompts"
HOOKS = CORPUS / "hooks"
EMBEDDINGS = CORPUS / "embeddings"
EMBEDDINGS_ENV = "CITAVIAL_EMBEDDINGS"   # another static-embeddings model (index/embed.py)
REPORTS = _CHECKOUT / "golden" / "reports"   # the "Por qué" page's figures (the build reads them)


def cache_root() -> Path:
    """The user's cache folder for build caches: ``$CITAVIAL_CACHE``, else
    ``$XDG_CACHE_HOME/citavial``, else ``~/.cache/citavial`` (never inside the project)."""
    if os.environ.get("CITAVIAL_CACHE"):
        return Path(os.environ["CITAVIAL_CACHE"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "citavial"


def build_cache_root() -> Path:
    """The build's caches (the site and the index by input hash, the embeddings, the PDF's
    tables): ``$CITAVIAL_BUILD_CACHE``, else ``<cache_root()>/build``. Its own variable so the
    tests can point the build's cache at a temporary folder and keep the model's cache."""
    env = os.environ.get("CITAVIAL_BUILD_CACHE")
    return Path(env) if env else cache_root() / "build"
