"""The stage cache's keys (stagecache.py): sha256 over a stage's labelled inputs — the corpus's
bytes, site_src, the build's code and the versions of the libraries it computes with, the
options. Kept apart from the store itself, which re-exports them."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
from datetime import date
from functools import lru_cache
from pathlib import Path

from citavial.build import paths

SCHEMA = "citavial-stage-cache/1"
_BUILD_CODE = Path(__file__).resolve().parent   # the whole build package
# Libraries whose results land in the output (text analysis, embeddings, XML, templates).
_LIBRARIES = ("numpy", "pystemmer", "tokenizers", "safetensors", "model2vec", "lxml", "jinja2",
              "markdown-it-py", "rank-bm25")


class Key:
    """sha256 over labelled inputs; the same inputs in the same order give the same key."""

    def __init__(self, stage: str) -> None:
        self._h = hashlib.sha256(f"{SCHEMA}\0{stage}\0".encode("utf-8"))

    def text(self, label: str, value: str) -> Key:
        return self.data(label, value.encode("utf-8"))

    def data(self, label: str, value: bytes) -> Key:
        self._h.update(f"{label}\0{len(value)}\0".encode("utf-8") + value)
        return self

    def tree(self, label: str, root: Path) -> Key:
        """Every file under ``root`` (relative path and bytes); a missing folder hashes as such."""
        return self.text(label, tree_digest(Path(root)))

    def hexdigest(self) -> str:
        return self._h.hexdigest()


def tree_digest(root: Path) -> str:
    """Every file's relative path and bytes, in the order of the paths' parts (as sorted
    ``Path`` objects compare), outside ``__pycache__`` folders."""
    if not root.is_dir():
        return "missing"
    rels = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        rels += [n if rel == "." else f"{rel}/{n}" for n in names
                 if os.path.isfile(os.path.join(folder, n))]
    h = hashlib.sha256()
    for rel in sorted(rels, key=lambda r: r.split("/")):
        with open(os.path.join(root, rel), "rb") as fh:
            data = fh.read()
        h.update(f"{rel}\0{len(data)}\0".encode("utf-8") + data)
    return h.hexdigest()


@lru_cache(maxsize=1)
def code_version() -> str:
    """The build package's source and the versions of the libraries it computes with."""
    h = hashlib.sha256(tree_digest(_BUILD_CODE).encode("ascii"))
    versions = _versions(_LIBRARIES)
    for lib in _LIBRARIES:
        h.update(f"{lib}={versions[lib]}\0".encode("utf-8"))
    return h.hexdigest()


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _versions(names: tuple[str, ...]) -> dict[str, str]:
    """{name: version} ("-" when not installed) from the ``<name>-<version>.dist-info``
    folders on sys.path, the first of each name as importlib.metadata finds them; a name
    without one asks importlib.metadata (whose import, email's parser with it, costs ~0.03 s
    of CPU that a guide-edit build need not pay)."""
    want = {_normal(n): n for n in names}
    found: dict[str, str] = {}
    for folder in sys.path:
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in entries:
            name, _, version = entry.removesuffix(".dist-info").partition("-")
            lib = want.get(_normal(name)) if entry.endswith(".dist-info") else None
            if lib is not None and lib not in found:
                found[lib] = version
    for lib in (n for n in names if n not in found):
        from importlib import metadata
        try:
            found[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            found[lib] = "-"
    return found


def inputs_digest(corpus_dir: Path, as_of: date, code: str) -> str:
    """What every stage reads besides site_src and the options: the corpus's bytes (hooks and
    the bundled embeddings model included), a model folder named by $CITAVIAL_EMBEDDINGS,
    poppler (it reads RD 818/2009's tables; its binary's size and time stand for its version),
    the as-of date and the build's code (``code``: stagecache.code_version). "" (cache nothing) when $CITAVIAL_EMBEDDINGS names a
    model by name: its files are not ours to hash."""
    key = Key("inputs").text("code", code).text("as_of", as_of.isoformat())
    key.tree("corpus", Path(corpus_dir))
    model = os.environ.get(paths.EMBEDDINGS_ENV)
    if model:
        if not Path(model).expanduser().is_dir():
            return ""
        key.tree("model", Path(model).expanduser())
    tool = shutil.which("pdftotext")
    stat = Path(tool).stat() if tool else None
    return key.text("poppler", f"{tool} {stat.st_size} {stat.st_mtime_ns}" if stat else "-"
                    ).hexdigest()


def site_key(inputs: str, site_src: Path, reports_dir: Path, base_url: str,
             regulation_only: bool) -> str:
    """The whole site's key: ``inputs_digest`` with site_src, the golden reports (the "Por qué"
    page's figures) and the options; "" when ``inputs`` is."""
    if not inputs:
        return ""
    return (Key("site").text("inputs", inputs).tree("site_src", Path(site_src))
            .tree("reports", Path(reports_dir))
            .text("options", json.dumps([base_url, regulation_only])).hexdigest())
