"""Work beside the build: a function of picklable values, run in a child interpreter while the
build goes on (issue 27: the build's own process is its critical path, and the second core
idles through parts of it).

``Beside("package.module:function", value)`` starts ``python -c`` (the parent's ``sys.path``,
never a fork: builds run inside threaded processes) at once; a thread writes the pickled
``value`` to its stdin and reads the pickled return value from its stdout. ``result()`` waits
for it and returns ``(True, value)``, or ``(False, None)`` when the child could not start or
failed (logged with the end of its stderr): the caller then computes the same value in its own
process. A child only ever saves time, never changes an answer: what it computes is a pure
function of what it is given and of files it reads, the same in either process.

A child outlives its parent by at most its own computation: its stdout is a pipe whose reader
is gone, so it ends when it writes its answer (or reads its input's end).
"""

from __future__ import annotations

import gc
import importlib
import json
import logging
import os
import pickle
import subprocess
import sys
import threading
from typing import Any

log = logging.getLogger(__name__)

_CHILD = ("import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
          "from citavial.build.beside import _child_main; _child_main()")


def python_argv(code: str, *args: str) -> list[str]:
    """The command of a child interpreter that runs ``code`` (``python -c``) with this
    process's ``sys.path`` as its first argument (``code`` puts it in place), then ``args``;
    ``-B`` when this process writes no bytecode either."""
    return [sys.executable, *(["-B"] if sys.flags.dont_write_bytecode else []), "-c", code,
            json.dumps(sys.path), *args]


def cpus() -> int:
    """CPUs this process may run on: a child beside it is worth starting only with two."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        return os.cpu_count() or 1


class Beside:
    """``entry(value)`` computed in a child process (see the module docstring)."""

    def __init__(self, entry: str, value: Any, nice: int = 0) -> None:
        """``nice``: the child's niceness (Linux: 19 runs it only when a core would idle
        otherwise, so it never slows the build's own process)."""
        self.entry, self.nice = entry, nice
        self._ok, self._value = False, None
        self._data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            proc = subprocess.Popen(python_argv(_CHILD, self.entry, str(self.nice)),
                                    stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            out, err = proc.communicate(self._data)
        except OSError as exc:
            log.warning("%s beside the build could not start (%s); computing it here",
                        self.entry, exc)
            return
        if proc.returncode != 0:
            log.warning("%s beside the build failed (exit %s); computing it here:\n%s",
                        self.entry, proc.returncode, err.decode("utf-8", "replace")[-2000:])
            return
        try:
            self._value, self._ok = pickle.loads(out), True   # our own child's answer
        except Exception as exc:   # noqa: BLE001 -- any unreadable answer: computed here
            log.warning("%s beside the build answered nothing readable (%s); computing it "
                        "here", self.entry, exc)

    def result(self) -> tuple[bool, Any]:
        """(True, the child's return value), or (False, None) when it failed."""
        self._thread.join()
        return self._ok, self._value


def _child_main() -> None:
    """The child: argv[2] names ``module:function``; its argument pickled on stdin, its
    return value pickled on stdout."""
    gc.disable()   # short-lived: what it allocates is freed when it exits
    if len(sys.argv) > 3 and int(sys.argv[3]):
        os.nice(int(sys.argv[3]))
    module, _, name = sys.argv[2].partition(":")
    fn = getattr(importlib.import_module(module), name)
    value = pickle.load(sys.stdin.buffer)
    out = pickle.dumps(fn(value), protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    # the parent reads the answer until the pipe closes: end now, without the teardown that
    # frees what ``fn`` built object by object (tens of ms the parent would wait)
    os._exit(0)
