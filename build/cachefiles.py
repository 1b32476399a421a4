"""The stage cache's file operations (stagecache.py): listing a staged tree, checking a
relative path from a manifest, putting a blob in place whole. Kept apart from the store, which
re-exports ``files``, ``listing``, ``written`` and ``safe_rel``."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
from pathlib import Path


def listing(root: Path) -> dict[str, tuple[int, int]]:
    """{relative posix path: (size, mtime_ns)} of every file under ``root`` (``files``, each
    stated once)."""
    out: dict[str, tuple[int, int]] = {}
    for rel in files(root):
        st = os.stat(os.path.join(root, rel))
        out[rel] = (st.st_size, st.st_mtime_ns)
    return out


def files(root: Path) -> list[str]:
    """The relative posix paths of every file under ``root``, sorted (``listing``'s keys,
    without a stat per file)."""
    out = []
    for folder, _dirs, names in os.walk(root):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        out += [name if rel == "." else f"{rel}/{name}" for name in names]
    return sorted(out)


def written(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """The files of ``after`` that are new or changed since ``before`` (two ``listing``s)."""
    return sorted(rel for rel, st in after.items() if before.get(rel) != st)


def safe_rel(rel: object) -> bool:
    """A relative path that stays inside the folder it is restored into, written as
    ``PurePosixPath`` would write it (no empty, "." or ".." part)."""
    if not isinstance(rel, str) or not rel or "\\" in rel or "\0" in rel or rel[0] == "/":
        return False
    return all(p not in ("", ".", "..") for p in rel.split("/"))


def holds(blob: str, size: int) -> bool:
    """Whether ``blob`` is a file of ``size`` bytes."""
    try:
        st = os.stat(blob)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size == size


def put(source: str | bytes, blob: str) -> None:
    """``source`` (a file, or bytes) as ``blob``, renamed into place whole (a cache needs no
    fsync: a torn blob fails its sha256 and is written again)."""
    head, name = os.path.split(blob)
    tmp = os.path.join(head, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        if isinstance(source, bytes):
            with open(tmp, "wb") as fh:
                fh.write(source)
        else:
            link_or_copy(source, tmp)
        os.replace(tmp, blob)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def link_or_copy(src: str | Path, dst: str | Path) -> None:
    try:
        os.link(src, dst)
    except OSError:   # another filesystem (or one without hard links): copy
        shutil.copyfile(src, dst)
