"""Store: the prebuilt index on disk (dist/index/), written deterministically, read back checked.

Layout (schema "citavial-index/1"):
  manifest.json       schema, version, backend, parameters, counts, sha256 of every other file
  passages.json       refs, unit refs, urls, labels, texts (what a hit shows)
  terms.json          the BM25 vocabularies of passages and hook questions
  hooks.json          hook questions and the passage each returns
  lexical.json        the shared lexical ranking (lexical.py), also written as search-index.js
  signs.json          the sign catalogue's codes (build/render/signpage.py: name, page link, in-force refs)
  arrays.safetensors  BM25 postings, passage and hook vectors
  model/              the embedding model (copied when it is small, else referenced by path)
Same input → same bytes: JSON with sorted keys, safetensors (no timestamps), no dates.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from citavial.build.atomic import write_bytes
from citavial.build.errors import BuildError

SCHEMA = "citavial-index/1"
FILES = ("passages.json", "terms.json", "hooks.json", "lexical.json", "signs.json",
         "arrays.safetensors")
FIX = "run `citavial build` to rebuild dist/"


def dump_json(obj: Any) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            + "\n").encode("utf-8")


def write_index(index_dir: Path, docs: dict[str, Any], arrays: dict[str, np.ndarray],
                manifest: dict[str, Any], model_dir: Path | None) -> dict[str, Any]:
    """Write every file, then the manifest (last: a reader never sees a manifest whose files
    are missing). Returns the manifest written, with its ``version`` and file hashes. A
    document given as bytes is its JSON already (``dump_json``'s), written as is."""
    from safetensors.numpy import save
    index_dir = Path(index_dir)
    blobs = {name: doc if isinstance(doc := docs[name.removesuffix(".json")], bytes)
             else dump_json(doc) for name in FILES if name.endswith(".json")}
    blobs["arrays.safetensors"] = save({k: np.ascontiguousarray(v) for k, v in arrays.items()})
    if model_dir is not None:
        for f in sorted(p for p in model_dir.iterdir() if p.is_file() and p.suffix != ".md"):
            blobs[f"model/{f.name}"] = f.read_bytes()
    hashes = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(blobs.items())}
    version = hashlib.sha256(dump_json([manifest, hashes])).hexdigest()[:12]
    manifest = {**manifest, "schema": SCHEMA, "version": version, "files": hashes}
    if (index_dir / "model").exists():
        shutil.rmtree(index_dir / "model")
    for name, data in blobs.items():
        write_bytes(index_dir / name, data)
    write_bytes(index_dir / "manifest.json", dump_json(manifest))
    return manifest


def _corrupt(path: Path, problem: str) -> BuildError:
    return BuildError(str(path), problem, FIX)


def read_manifest(index_dir: Path) -> dict[str, Any]:
    path = Path(index_dir) / "manifest.json"
    if not path.is_file():
        raise BuildError(str(path), "search index not found", FIX)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise _corrupt(path, f"is not valid JSON ({err})") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA:
        got = manifest.get("schema") if isinstance(manifest, dict) else type(manifest).__name__
        raise _corrupt(path, f"schema is {got!r}, expected {SCHEMA!r}")
    return manifest


def read_index(index_dir: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, np.ndarray]]:
    """Manifest, JSON documents and arrays of an index, every file checked against its hash."""
    from safetensors.numpy import load
    index_dir = Path(index_dir)
    manifest = read_manifest(index_dir)
    data: dict[str, bytes] = {}
    for name, digest in sorted(manifest.get("files", {}).items()):
        path = index_dir / name
        if not path.is_file():
            raise _corrupt(path, "is missing from the search index")
        raw = path.read_bytes()
        if hashlib.sha256(raw).hexdigest() != digest:
            raise _corrupt(path, "does not match the sha256 in manifest.json (corrupt or "
                                 "from another build)")
        data[name] = raw
    for name in FILES:
        if name not in data:
            raise _corrupt(index_dir / "manifest.json", f"does not list {name}")
    docs = {n.removesuffix(".json"): json.loads(data[n]) for n in FILES if n.endswith(".json")}
    try:
        arrays = load(data["arrays.safetensors"])
    except Exception as err:  # safetensors raises its own untyped errors
        raise _corrupt(index_dir / "arrays.safetensors", f"cannot be read ({err})") from None
    return manifest, docs, arrays
