"""Frozen dataclass trees as JSON and back, strictly: plain data, never code (issue 27).

Caches that may come from elsewhere (a CI cache restored from another run: `citavial check`'s
entry, build/check/stored.py; the build's parsed corpus, build/ingest/read.py) keep typed values
as JSON and read them back through a reader driven by the dataclasses' annotations: a value of
the wrong shape (a missing or extra field, a wrong type, a bool for an int) is refused whole
(``loads`` returns None: a cache miss), never half-loaded.

Supported annotations: str, int, bool, date, ``X | None``, ``tuple[X, ...]``, fixed tuples and
frozen dataclasses of these. A dataclass without ``__post_init__`` is built without its
``__init__`` (every field checked here, none defaulted: the same object, a third of the time of
~100,000 ``__init__`` calls on frozen dataclasses).

The reader is a small one, not pydantic's TypeAdapter: that round-trips the tree as well, but
importing pydantic and building the adapter doubled the CPU time of a cached `check` run
(median 498 vs 225 ms, n=10, tests/bench/bench_check.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from datetime import date
from functools import cache
from types import UnionType
from typing import Any, TypeVar, Union, cast, get_args, get_origin, get_type_hints

T = TypeVar("T")


class Shape(ValueError):
    """The JSON does not have the shape of the dataclass tree."""


def encode(value: Any) -> Any:
    """The JSON form of ``value``: a dataclass as an object of its fields, a tuple as a list,
    a date as its ISO string, anything else as it is (str, int, bool, None)."""
    enc = _ENCODERS.get(type(value))
    if enc is not None:
        return enc(value)
    if is_dataclass(value) and not isinstance(value, type):
        enc = _ENCODERS[type(value)] = _dataclass_encoder(type(value))
        return enc(value)
    if isinstance(value, tuple):
        return [v if type(v) in _LEAF else encode(v) for v in value]
    if isinstance(value, date):
        return value.isoformat()
    return value


# Values that are their own JSON form: taken without a call (a parsed corpus is ~180,000 values;
# one ``encode`` call and a ``fields()`` per dataclass were two thirds of writing it).
_LEAF = frozenset({str, int, bool, float, type(None)})
_ENCODERS: dict[type, Callable[[Any], Any]] = {}


def _dataclass_encoder(cls: type) -> Callable[[Any], dict[str, Any]]:
    names = tuple(f.name for f in fields(cls))

    def enc(value: Any) -> dict[str, Any]:
        out = {}
        for name in names:
            v = getattr(value, name)
            out[name] = v if type(v) in _LEAF else encode(v)
        return out
    return enc


def _expect(kind: type, value: Any) -> Any:
    if type(value) is not kind:
        raise Shape(f"expected {kind.__name__}, got {type(value).__name__}")
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
    raise TypeError(f"{tp!r} has no JSON form here")   # a new field type


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
        raise Shape(f"expected a list of {kind.__name__}")
    return items


def _sized(value: Any, n: int) -> list[Any]:
    if len(_expect(list, value)) != n:
        raise Shape(f"expected {n} items, got {len(value)}")
    return value


def _dataclass_decoder(cls: type) -> Callable[[Any], Any]:
    every = get_type_hints(cls)
    hints = {f.name: every[f.name] for f in fields(cls)}
    plain = [(k, t) for k, t in hints.items() if t in _PLAIN]
    nested = [(k, _decoder(t)) for k, t in hints.items() if t not in _PLAIN]
    names = hints.keys()
    bare = not hasattr(cls, "__post_init__") and not hasattr(cls, "__slots__")
    new = object.__new__

    def read(v: Any) -> Any:
        if type(v) is not dict or v.keys() != names:   # every field written, nothing else
            raise Shape(f"{cls.__name__}: not an object with fields {sorted(names)}")
        for k, t in plain:
            if type(v[k]) is not t:   # type(), not isinstance(): True is not an int here
                raise Shape(f"{cls.__name__}.{k}: expected {t.__name__}")
        values = {**v, **{k: r(v[k]) for k, r in nested}}
        if not bare:
            return cls(**values)
        obj: Any = new(cls)
        obj.__dict__.update(values)   # what the frozen __init__ would set, field by field
        return obj
    return read


def dumps(value: Any) -> bytes:
    """``value`` (a dataclass tree) as compact UTF-8 JSON."""
    return json.dumps(encode(value), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def loads(tp: type[T], data: bytes) -> T | None:
    """The ``tp`` in ``data``, or None when it is not one (wrong shape, types or JSON)."""
    read = _decoder(cast(Any, tp))   # outside the try: a field type it cannot read is a bug
    try:
        value = read(json.loads(data))
    except (ValueError, TypeError, RecursionError):   # Shape is a ValueError, as bad JSON is
        return None
    return value if isinstance(value, tp) else None
