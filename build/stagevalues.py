"""Typed values kept in the build cache as pickles, read back only from this cache's own
entries (issue 27).

A guide edit reads back what earlier builds computed from the corpus: the parsed corpus
(ingest/read.py, ~6 MB of typed JSON) and the proven allowlist (gate/linkcache.py, ~5,900
entries). Their plain-data forms are checked field by field on every read (typedjson.py), most
of the CPU of reading them back; a pickle of the same frozen dataclass tree loads in a third of
the time. A pickle is code-capable data, so it is read only where nobody else could have
written it:

- its entry's manifest is one this cache wrote itself and nothing changed since
  (stagecache.StageCache.ours: the very bytes, inode and ctime recorded when it was written;
  a copied or CI-restored cache, or a forged record, fails it), so the blob it names (checked
  against its sha256 or its stamp, as every blob) holds the bytes this code pickled;
- and, besides, through an unpickler that resolves no global but the dataclasses of the
  value's own annotations and ``datetime.date`` (the "restricting globals" of the pickle
  documentation): no other callable can be reached.

Anything else — not ours, a miss, a value of another type, any error while loading — is None:
the caller falls back to the checked plain-data form (or computes the value again), and may
``save`` the pickle for the next build.
"""

from __future__ import annotations

import io
import pickle
from dataclasses import fields, is_dataclass
from datetime import date
from functools import cache
from typing import Any, TypeVar, get_args, get_type_hints

from citavial.build.stagecache import StageCache

FILE = "value.pickle"
T = TypeVar("T")


@cache
def classes(tp: Any) -> frozenset[type]:
    """Every dataclass named by ``tp``'s annotations, recursively, and ``date``."""
    found: set[type] = {date}
    todo = [tp]
    while todo:
        t = todo.pop()
        if isinstance(t, type) and is_dataclass(t):
            if t in found:
                continue
            found.add(t)
            hints = get_type_hints(t)
            todo += [hints[f.name] for f in fields(t)]
        else:
            todo += list(get_args(t))
    return frozenset(found)


class _Unpickler(pickle.Unpickler):
    """Resolves only the classes it is given (module, qualified name)."""

    def __init__(self, data: bytes, allowed: frozenset[type]) -> None:
        super().__init__(io.BytesIO(data))
        self.allowed = {(c.__module__, c.__qualname__): c for c in allowed}

    def find_class(self, module: str, name: str) -> Any:
        try:
            return self.allowed[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed here") from None


def load(cache: StageCache, stage: str, key: str, tp: Any, check: type) -> Any:
    """The value ``save`` kept under ``stage`` and ``key``, when the entry is this cache's own;
    ``tp``: its annotation (what may be unpickled), ``check``: the type it must have. None
    otherwise."""
    if not key or not cache.ours(stage, key):
        return None
    found = cache.lookup(stage, key)
    if found is None or [f[0] for f in found[0].files] != [FILE]:
        return None
    try:
        with open(found[1][0], "rb") as fh:
            value = _Unpickler(fh.read(), classes(tp)).load()
    except Exception:   # noqa: BLE001 - any failure to load is a miss, never an error
        return None
    return value if isinstance(value, check) else None


def save(cache: StageCache, stage: str, key: str, value: object) -> bytes | None:
    """Keep ``value`` (a tree of frozen dataclasses, tuples, lists, dicts and plain values)
    under ``stage`` and ``key`` (when the cache is on); the pickle kept, else None."""
    if not key or cache.root is None:
        return None
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    cache.commit(cache.stash_data({FILE: data}), stage, key)
    return data


def unpickle(data: bytes, tp: Any) -> Any:
    """A pickle ``save`` made in this build, read through the same restricted unpickler as
    ``load`` (``tp``: the annotation of what it may hold)."""
    return _Unpickler(data, classes(tp)).load()
