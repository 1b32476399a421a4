"""How fast this machine is right now, for reading a benchmark's figures beside another day's.

This machine is shared and its speed changes from hour to hour: in session 38 the same build
code took 12.5 s and, forty minutes later, 7.6 s, while a pure-Python loop took the same 2.0 s
throughout. So two references are printed, each the median of three: the CPU (a fixed
pure-Python loop) and the filesystem (1,000 small files created, written and removed, the
kind of work a build does ~3,500 times). A figure is comparable across days only when both
references are close; otherwise compare builds alternated in the same minutes.

The filesystem reference also depends on what was removed just before: on this machine's ext4
(no journal) each file created within a minute or so of thousands being removed costs several
times more (docs/architecture.md, "Files created after files removed"). And it removes files
itself, so a benchmark takes it after its builds, or leaves it out (``files=False``).
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time

LOOP = 3_000_000
FILES = 1_000
SIZE = 8 * 1024


def _loop() -> float:
    t0 = time.perf_counter()
    total = 0
    for i in range(LOOP):
        total += i
    return time.perf_counter() - t0


def _files(where: str) -> float:
    folder = tempfile.mkdtemp(prefix="machine-ref-", dir=where)
    data = b"x" * SIZE
    t0 = time.perf_counter()
    try:
        for i in range(FILES):
            with open(os.path.join(folder, f"{i}.html"), "wb") as fh:
                fh.write(data)
        for i in range(FILES):
            os.unlink(os.path.join(folder, f"{i}.html"))
        return time.perf_counter() - t0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def reference(where: str | None = None, files: bool = True) -> str:
    """One line: the CPU and (unless not ``files``) filesystem references (median of 3 each,
    in ms)."""
    where = where or tempfile.gettempdir()
    loop = statistics.median(_loop() for _ in range(3))
    if not files:
        return f"machine reference: pure-Python loop {loop * 1000:.0f} ms (median of 3)"
    took = statistics.median(_files(where) for _ in range(3))
    return (f"machine reference: pure-Python loop {loop * 1000:.0f} ms, {FILES:,} files "
            f"written and removed {took * 1000:.0f} ms (median of 3 each; {where})")


if __name__ == "__main__":
    print(reference())
