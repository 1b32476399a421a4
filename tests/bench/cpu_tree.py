"""The CPU time of a command and of every process below it, the orphans included.

    python3 tests/bench/cpu_tree.py .venv/bin/python -m pytest -n 0 -q tests/browser/test_axe.py

runs the command as a child subreaper (prctl PR_SET_CHILD_SUBREAPER, Linux): a process whose
parent ends before it -- Chromium's renderers and zygotes, which outlive the browser process
that started them -- is re-parented to this process instead of to init, and reaped here, so its
CPU time reaches this process's RUSAGE_CHILDREN. `/usr/bin/time` misses those processes, and a
clock that follows the test process's tree (tests/suite_clock.py) sees them only while they hang
below it. Waits until every descendant has ended, then prints to stderr one line: the command's
exit code, CPU seconds (user + sys, and each) and wall seconds; exits with the command's code.
Asserts nothing.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    start = time.monotonic()
    command, code = subprocess.Popen(argv), 0
    while True:   # the command, then every orphan re-parented to us, until none is left
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        if pid == command.pid:
            code = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"cpu_tree: exit {code}, CPU {used.ru_utime + used.ru_stime:.1f} s (user"
          f" {used.ru_utime:.1f}, sys {used.ru_stime:.1f}), wall {wall:.1f} s", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
