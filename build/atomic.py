"""Atomic writes: a reader sees the old content or the new, never a half-written file or tree."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

DIR_MODE = 0o755
FILE_MODE = 0o644


def _unlocked(fd: int) -> bool:
    """Whether no live process holds ``fd``'s file (a lock dies with its process)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


def remove_stale_temps(path: Path) -> list[Path]:
    """Remove ``.<name>.*.tmp`` next to ``path`` left by a writer that was killed (a live
    writer holds a lock on its temporary file); return what was removed."""
    path = Path(path)
    gone = []
    for tmp in sorted(path.parent.glob(f".{glob_escape(path.name)}.*.tmp")):
        try:
            fd = os.open(tmp, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            if _unlocked(fd):
                tmp.unlink(missing_ok=True)
                gone.append(tmp)
        finally:
            os.close(fd)
    return gone


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary sibling and ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Made as .new, renamed .tmp once locked ("in use" for remove_stale_temps in other
    # processes), so their clean-up never meets it unlocked (as _locked_dir does for stages).
    fd, fresh = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
    tmp = fresh.removesuffix(".new") + ".tmp"
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.rename(fresh, tmp)
        os.fchmod(fd, FILE_MODE)   # mkstemp's 0600 would make a published file unreadable
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        for name in (fresh, tmp):
            Path(name).unlink(missing_ok=True)
        raise


def publish_permissions(root: Path) -> None:
    """Make a tree world-readable (dirs 0755, files 0644): a copy to a web server that keeps
    permissions must not answer 403. mkdtemp/mkstemp create 0700/0600."""
    os.chmod(root, DIR_MODE)
    for folder, dirs, files in os.walk(root):
        for d in dirs:
            os.chmod(os.path.join(folder, d), DIR_MODE)
        for f in files:
            os.chmod(os.path.join(folder, f), FILE_MODE)


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_staged(path: Path, text: str) -> None:
    """Write into a staging directory (see ``staged_dir``): nobody reads it before the whole
    tree is swapped in, so neither a temporary file nor an fsync per file is needed. A file
    already there is unlinked first, never written through: it may be a hard link to a build
    cache blob (stagecache.unpack), which must keep its bytes."""
    write_staged_bytes(path, text.encode("utf-8"))


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC


def write_staged_bytes(path: Path, data: bytes) -> None:
    """``write_staged`` for bytes (images copied into the site). A build writes ~3,500 files
    into an empty stage: one exclusive create each, the folder made and an old file unlinked
    only when that fails (a mkdir and an unlink before every write cost ~25 % more)."""
    name = os.fspath(path)
    try:
        fd = os.open(name, _NEW_FILE, 0o666)
    except FileNotFoundError:   # its folder is not there yet
        os.makedirs(os.path.dirname(name), exist_ok=True)
        fd = os.open(name, _NEW_FILE, 0o666)
    except FileExistsError:     # replaced, not written through (a link to a blob, maybe)
        os.unlink(name)
        fd = os.open(name, _NEW_FILE, 0o666)
    with open(fd, "wb") as fh:
        fh.write(data)


@contextmanager
def staged_dir(target: Path) -> Iterator[Path]:
    """Yield an empty staging directory; on success it replaces ``target`` as a whole.

    The staging directory is a sibling of ``target`` (same filesystem, so the final rename is
    atomic). If the body raises, the staging directory is removed and ``target`` is untouched.
    The swap is two renames (old aside, new in); a crash between them leaves ``target`` missing
    but never half-written, and the old tree is still next to it.
    """
    target = Path(target).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(target, "stage")
    stage, held = _locked_dir(f".{target.name}.stage-", target.parent)   # live while held
    try:
        yield stage
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        os.close(held)
        raise
    try:
        publish_permissions(stage)
        old = _swap_in(stage, target)
    except BaseException:
        # interrupted before the swap (a SIGTERM while waiting for the swap lock, see
        # cli.exit_on_sigterm): the stage goes now, not at the next run; the target is whole
        shutil.rmtree(stage, ignore_errors=True)
        raise
    finally:
        os.close(held)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


@contextmanager
def side_dir(stage: Path) -> Iterator[Path]:
    """Yield an empty folder beside the staging directory ``stage`` (the same filesystem, so
    its files move into the stage by rename), for what another process writes while the build
    goes on (build/index/job.py); removed on exit. Named and locked like a stage, so one that a
    killed build left is removed by the next build (``_remove_stale``)."""
    stage = Path(stage)
    folder, held = _locked_dir(f"{stage.name}-side-", stage.parent)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        os.close(held)


def _locked_dir(prefix: str, parent: Path) -> tuple[Path, int]:
    """A new folder ``prefix`` + a random suffix in ``parent``, and a descriptor that holds an
    exclusive lock on it. The folder is made under another name and renamed once locked: another
    build's clean-up of stale ``prefix`` folders (``_remove_stale``) never meets it unlocked. (Two
    builds started together once did: one removed the stage the other had just made, whose
    build then failed with FileNotFoundError, in CI.)"""
    fresh = Path(tempfile.mkdtemp(prefix=f".new{prefix}", dir=parent))
    held = os.open(fresh, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        folder = parent / (prefix + fresh.name.removeprefix(f".new{prefix}"))
        os.rename(fresh, folder)
    except BaseException:
        os.close(held)
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    return folder, held


def _swap_in(stage: Path, target: Path) -> Path | None:
    """Put ``stage`` in place of ``target``; return where the old tree was moved (or None).
    Two builds may finish at once: the swap is serialised by an exclusive lock next to the
    target, so each swap is whole and the last build to finish wins. The two renames run
    with SIGTERM and SIGINT held back, so a handler that raises cannot fall between them."""
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
        try:
            _remove_stale(target, "old")   # under the swap lock: no swap is between its renames
            old = None
            if target.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
                os.rmdir(old)
                os.replace(target, old)
            os.replace(stage, target)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return old


def _remove_stale(target: Path, kind: str) -> None:
    """Remove ``.<target>.<kind>-*`` folders that a killed build left (6–27 MB each). A stage
    is live while its build holds a lock on it; an ``old-`` folder only exists between two
    renames under the swap lock, or after them while its build removes it."""
    for folder in sorted(target.parent.glob(f".{glob_escape(target.name)}.{kind}-*")):
        if folder.is_symlink() or not folder.is_dir():
            continue
        if kind == "stage":
            try:
                fd = os.open(folder, os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                if _unlocked(fd):
                    shutil.rmtree(folder, ignore_errors=True)
            finally:
                os.close(fd)
        else:
            shutil.rmtree(folder, ignore_errors=True)
