"""What `citavial check` keeps in its cache entry, as plain data: never code.

A cache folder may come from elsewhere (a CI cache restored from another run), so nothing in it
is executed or trusted blindly:

* the ingested :class:`Regulation` is JSON, read back through a validator of the frozen
  dataclass tree (build/models.py) — a file of the wrong shape is refused, not half-loaded;
* ``pages.sha256.json`` lists every file of the entry with its sha256 and is checked on load —
  a changed, missing or extra file makes the whole entry a miss.

Either refusal is a cache miss: the caller renders the entry again. The manifest detects
corruption and stale or partial writes; it does not stop someone who can write the cache (they
can rewrite the manifest too) — against that, do not restore a cache across trust boundaries
(docs/check.md, "GitHub Actions").

The reader is build/typedjson.py's, driven by the dataclasses' annotations (shared with the
build's cache of the parsed corpus, build/ingest/read.py).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from citavial.build import typedjson
from citavial.build.models import Regulation

REGULATION_FILE = "regulation.json"
MANIFEST_FILE = "pages.sha256.json"
MANIFEST_SCHEMA = "citavial-check-cache/1"


def dump_regulation(reg: Regulation) -> bytes:
    return typedjson.dumps(reg)


def load_regulation(data: bytes) -> Regulation | None:
    """The Regulation in ``data``, or None when it is not one (wrong shape, types or JSON)."""
    return typedjson.loads(Regulation, data)


def _files(root: Path, skip: str) -> list[str]:
    """Every file under ``root`` (relative, POSIX) but the manifest and the ``skip`` subfolder,
    which holds other entries with their own manifests (os.walk prunes it unread)."""
    found = []
    for top, dirs, names in os.walk(root):
        if top == str(root):
            dirs[:] = [d for d in dirs if d != skip]
        rel = Path(top).relative_to(root)
        found += [(rel / n).as_posix() for n in names if n != MANIFEST_FILE or top != str(root)]
    return sorted(found)


def _sha256(root: Path, name: str) -> str:
    return hashlib.sha256((root / name).read_bytes()).hexdigest()


def write_manifest(root: Path, skip: str = "") -> None:
    """Record the sha256 of every file under ``root`` in its manifest (call before publishing)."""
    body = {"schema": MANIFEST_SCHEMA,
            "files": {name: _sha256(root, name) for name in _files(root, skip)}}
    (root / MANIFEST_FILE).write_text(json.dumps(body, sort_keys=True, indent=0) + "\n",
                                      encoding="utf-8")


def entry_intact(root: Path, skip: str = "") -> bool:
    """True when ``root``'s files are exactly those of its manifest, each with its sha256."""
    try:
        body = json.loads((root / MANIFEST_FILE).read_bytes())
        listed = body.get("files") if body.get("schema") == MANIFEST_SCHEMA else None
        if not isinstance(listed, dict):
            return False
        found = _files(root, skip)
        return sorted(listed) == found and all(_sha256(root, n) == listed[n] for n in found)
    except (OSError, ValueError, AttributeError):   # absent, unreadable, not JSON, not an object
        return False


def read_entry(root: Path, skip: str = "") -> Regulation | None:
    """The Regulation of an intact cache entry at ``root``; None (a miss) otherwise."""
    if not entry_intact(root, skip):
        return None
    try:
        data = (root / REGULATION_FILE).read_bytes()
    except OSError:
        return None
    return load_regulation(data)


def write_entry(stage: Path, reg: Regulation, skip: str = "") -> None:
    """Write ``reg`` beside the pages rendered into ``stage``, then the manifest of them all."""
    (stage / REGULATION_FILE).write_bytes(dump_regulation(reg))
    write_manifest(stage, skip)
