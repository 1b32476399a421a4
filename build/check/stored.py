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

The reader is a small one driven by the dataclasses' annotations, not pydantic's TypeAdapter:
that round-trips the tree as well, but importing pydantic and building the adapter doubled the
CPU time of a cached `check` run (median 498 vs 225 ms, n=10, tests/bench/bench_check.py).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from datetime import date
from functools import cache
from pathlib import Path
from types import UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

from citavial.build.models import Regulation

REGULATION_FILE = "regulation.json"
MANIFEST_FILE = "pages.sha256.json"
MANIFEST_SCHEMA = "citavial-check-cache/1"


class _Shape(ValueError):
    """The JSON does not have the shape of the dataclass tree."""


def _encode(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    if isinstance(value, date):
        return value.isoformat()
    return value   # str, int, bool, None


def _expect(kind: type, value: Any) -> Any:
    if type(value) is not kind:
        raise _Shape(f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def _iso(value: Any) -> date:
    return date.fromisoformat(_expect(str, value))


_PLAIN = (str, int, bool)


@cache
def _decoder(tp: Any) -> Callable[[Any], Any]:
    """A strict reader of ``tp`` from its JSON form, built once per annotation."""
    if tp in _PLAIN:
        return lambda v: _expect(tp, v)
    if tp is date:
        return _iso
    origin, args = get_origin(tp), get_args(tp)
    if origin is tuple:
        return _tuple_decoder(args)
    if origin in (Union, UnionType) and type(None) in args and len(args) == 2:
        inner = _decoder(next(a for a in args if a is not type(None)))
        return lambda v: None if v is None else inner(v)
    if isinstance(tp, type) and is_dataclass(tp):
        return _dataclass_decoder(tp)
    raise TypeError(f"{tp!r} has no JSON form in the check cache")   # a new field type


def _tuple_decoder(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    # a tuple of plain values is checked in one pass, without a call per item (speed)
    if len(args) == 2 and args[1] is Ellipsis:
        if args[0] in _PLAIN:
            return lambda v: tuple(_plain_items(v, args[0], None))
        item = _decoder(args[0])
        return lambda v: tuple([item(x) for x in _expect(list, v)])
    if all(a is args[0] for a in args) and args[0] in _PLAIN:
        return lambda v: tuple(_plain_items(v, args[0], len(args)))
    parts = [_decoder(a) for a in args]
    return lambda v: tuple([d(x) for d, x in zip(parts, _sized(v, len(parts)), strict=True)])


def _plain_items(value: Any, kind: type, n: int | None) -> list[Any]:
    items = _expect(list, value) if n is None else _sized(value, n)
    if not all(type(x) is kind for x in items):
        raise _Shape(f"expected a list of {kind.__name__}")
    return items


def _sized(value: Any, n: int) -> list[Any]:
    if len(_expect(list, value)) != n:
        raise _Shape(f"expected {n} items, got {len(value)}")
    return value


def _dataclass_decoder(cls: type) -> Callable[[Any], Any]:
    every = get_type_hints(cls)
    hints = {f.name: every[f.name] for f in fields(cls)}
    plain = [(k, t) for k, t in hints.items() if t in _PLAIN]
    nested = [(k, _decoder(t)) for k, t in hints.items() if t not in _PLAIN]
    names = hints.keys()

    def read(v: Any) -> Any:
        if type(v) is not dict or v.keys() != names:   # every field written, nothing else
            raise _Shape(f"{cls.__name__}: not an object with fields {sorted(names)}")
        for k, t in plain:
            if type(v[k]) is not t:   # type(), not isinstance(): True is not an int here
                raise _Shape(f"{cls.__name__}.{k}: expected {t.__name__}")
        return cls(**{**v, **{k: r(v[k]) for k, r in nested}})
    return read


def dump_regulation(reg: Regulation) -> bytes:
    return json.dumps(_encode(reg), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def load_regulation(data: bytes) -> Regulation | None:
    """The Regulation in ``data``, or None when it is not one (wrong shape, types or JSON)."""
    read = _decoder(Regulation)   # outside the try: a field type it cannot read is a bug
    try:
        reg = read(json.loads(data))
    except (ValueError, TypeError, RecursionError):   # _Shape is a ValueError, as bad JSON is
        return None
    return reg if isinstance(reg, Regulation) else None


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
