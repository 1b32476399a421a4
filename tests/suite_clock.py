"""Per-test wall and CPU time, to find where the suite waits (issue 27, a suite that fits).

With ``CITAVIAL_SUITE_CLOCK=<file>`` set, every test process (each pytest-xdist worker) appends
one JSON line per test to ``<file>``: its id, the worker, the wall-clock start and end of the
test's setup, call and teardown, and the CPU seconds (user + sys) spent meanwhile by the test
process and every process below it -- the subprocesses it waited for (RUSAGE_CHILDREN, in
/proc/<pid>/stat's cutime and cstime) and the ones still running (Chromium under Playwright's
driver, a worker subprocess, nginx: read from /proc). A test whose wall time is far above its
CPU time waited: on a sleep, a timeout, a server starting, or the cores taken by the other
workers. ``python tests/suite_clock.py <file>`` summarises the file: per worker, busy and idle
wall time; the tests that waited most; the groups' spans. Off by default: reading /proc costs
a little per test. A negative CPU reading means a process that was below the test when it
started ended without being waited for by one still below it (e.g. Chromium closed under
Playwright's driver): its time is not seen; on a machine loaded by other work, every test's
wall time is long, and only the CPU figures compare.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[int, float]]:
    """Every process on the machine: pid -> (parent pid, CPU seconds of it and its waited
    children). The tree is built from each process's parent pid, read from one pass over /proc:
    /proc/<pid>/task/<tid>/children is not reliable while children come and go (Chromium's do),
    and a subtree missed at a test's start and seen at its end would count its whole life."""
    out: dict[int, tuple[int, float]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:   # a process that ended meanwhile
            continue
        out[int(name)] = (int(fields[1]), sum(int(x) for x in fields[11:15]) / _TICK)
    return out


def below(pid: int | None = None, procs: dict[int, tuple[int, float]] | None = None) -> list[int]:
    """``pid`` (this process by default) and every live process below it."""
    procs = _processes() if procs is None else procs
    kids: dict[int, list[int]] = {}
    for child, (parent, _cpu) in procs.items():
        kids.setdefault(parent, []).append(child)
    found, todo = [], [os.getpid() if pid is None else pid]
    while todo:
        at = todo.pop()
        found.append(at)
        todo += kids.get(at, [])
    return found


def tree_cpu(pid: int | None = None) -> float:
    """CPU seconds of ``pid`` (this process by default) and every live process below it."""
    procs = _processes()
    return sum(procs.get(at, (0, 0.0))[1] for at in below(pid, procs))


def record(path: str, nodeid: str, start: float, cpu0: float) -> None:
    line = {"id": nodeid, "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            "start": round(start, 3), "end": round(time.time(), 3),
            "cpu": round(tree_cpu() - cpu0, 2)}
    with open(path, "a", encoding="utf-8") as out:   # one short write per line: atomic
        out.write(json.dumps(line) + "\n")


def summarise(lines: list[dict], top: int = 25) -> str:
    """Per worker, busy and idle wall time; the tests that waited most (wall - CPU)."""
    if not lines:
        return "no tests recorded"
    t0, t1 = min(x["start"] for x in lines), max(x["end"] for x in lines)
    cpu = lambda xs: sum(max(0.0, x["cpu"]) for x in xs)   # noqa: E731 - negatives: unseen time
    lost = sum(1 for x in lines if x["cpu"] < 0)
    out = [f"run: {t1 - t0:.0f} s wall, {cpu(lines):.0f} CPU s in tests"
           f" ({lost} negative readings counted as 0)"]
    for worker in sorted({x["worker"] for x in lines}):
        mine = [x for x in lines if x["worker"] == worker]
        busy = sum(x["end"] - x["start"] for x in mine)
        last = max(x["end"] for x in mine)
        out.append(f"{worker}: {len(mine)} tests, busy {busy:.0f} s, CPU {cpu(mine):.0f} s,"
                   f" done {t1 - last:.0f} s before the end")
    groups: dict[str, list[dict]] = {}
    for x in lines:
        groups.setdefault(x["id"].rsplit("@", 1)[-1], []).append(x)
    out.append("groups with most CPU (s): CPU, wall span, group")
    for name, xs in sorted(groups.items(), key=lambda kv: -cpu(kv[1]))[:top]:
        span = max(x["end"] for x in xs) - min(x["start"] for x in xs)
        out.append(f"  {cpu(xs):7.1f} {span:7.0f}  {name}")
    out.append("waited most (wall - CPU, s): wall, CPU, test")
    for x in sorted(lines, key=lambda x: max(0.0, x["cpu"]) - (x["end"] - x["start"]))[:top]:
        wall = x["end"] - x["start"]
        out.append(f"  {wall - x['cpu']:6.1f} {wall:6.1f} {x['cpu']:6.1f}  {x['id']}")
    out.append("most CPU (s): wall, CPU, test")
    for x in sorted(lines, key=lambda x: -x["cpu"])[:top]:
        out.append(f"  {x['end'] - x['start']:6.1f} {x['cpu']:6.1f}  {x['id']}")
    return "\n".join(out)


if __name__ == "__main__":
    rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines() if line]
    print(summarise(rows, int(sys.argv[2]) if len(sys.argv) > 2 else 25))
