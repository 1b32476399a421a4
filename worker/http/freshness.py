"""A worker never cites from an allowlist that is not the one on disk (issue 26, item 3).

`citavial build` replaces dist/ whole (a daily rebuild with the default ``--as-of`` changes the
wording when a reform takes effect). Before every API request and /health, the worker compares
dist/allowlist.json with the one it loaded — by ``os.stat`` first (cheap), by sha256 when the
stat changed — and on a difference stops answering (503, /health not ok) while a background
thread loads the new dist/; the new state replaces the old in one assignment, between requests.
An answer already streaming finishes on the state it started with. dist/ removed: the worker
stays unavailable until a build puts it back.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Callable

log = logging.getLogger("citavial.worker")


def _signature(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


class DistWatch:
    """Whether ``path`` still holds the allowlist whose sha256 was loaded."""

    def __init__(self, path: Path, sha256: str | None) -> None:
        self.path, self.sha256 = Path(path), sha256
        self._sig = _signature(self.path)

    def changed(self) -> bool:
        sig = _signature(self.path)
        if sig == self._sig:
            return False
        sha = _sha256(self.path) if sig is not None else None
        if sha == self.sha256:       # touched or copied over with the same bytes
            self._sig = sig
            return False
        return True

    def accept(self, sig: tuple | None, sha256: str | None) -> None:
        """``sig``: the stat taken *before* loading, so a change during the load is seen."""
        self._sig, self.sha256 = sig, sha256


class Reloader:
    """Loads the deps again from dist/ (the language model, if any, is kept: it does not
    depend on dist/) and swaps them into ``state``; at most one reload at a time."""

    def __init__(self, load: Callable[[], tuple], model_from=None) -> None:
        self.load = load
        self._lock = threading.Lock()
        self.running = False
        # (model, status, lead) of the first load, put into every reloaded state
        self.model = ((model_from.model, model_from.model_status, model_from.model_lead)
                      if model_from is not None and model_from.model is not None else None)

    def check(self, state) -> None:
        watch = state.watch
        if watch is None or self.running or not watch.changed():
            return
        with self._lock:
            if self.running:
                return
            self.running = True
        state.deps = None            # from now on nothing is cited from the old allowlist
        state.unavailable = ("dist/allowlist.json changed since the worker loaded it; "
                             "reloading the new build")
        threading.Thread(target=self._reload, args=(state,), name="citavial-reload",
                         daemon=True).start()

    def _reload(self, state) -> None:
        sig = _signature(state.watch.path)
        try:
            deps, why, index = self.load()
        except Exception as err:  # a broken new dist/ must leave a worker that says why
            deps, why, index = None, f"reload failed: {type(err).__name__}: {err}", {}
        if deps is not None and self.model is not None:
            model, status, lead = self.model
            deps = replace(deps, model=model, model_status=status, model_lead=lead)
        state.watch.accept(sig, deps.allowlist.sha256 if deps is not None else None)
        state.index_info, state.unavailable = index, why
        state.deps = deps
        log.warning("dist/ changed: %s", "reloaded" if deps is not None else why)
        self.running = False
