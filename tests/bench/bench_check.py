"""Benchmark: `citavial check` on a 20-citation note, as a pre-commit hook runs it.

Prints figures; asserts nothing. Run:
    .venv/bin/python tests/bench/bench_check.py [--runs 20] [--citations 20]
Target (issue 14): <= 300 ms wall time per run after the first (the rendered pages are cached by
corpus hash). The note holds the first ``--citations`` citations of the study guides
(site_src/content), all passing. Each run is a fresh `citavial check` process (interpreter start,
imports, corpus hash check, gate), timed from outside (wall) and by its CPU time (which other
load on the machine does not inflate); the first run fills an empty cache.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from citavial.build.content.guides import read_guides  # noqa: E402
from citavial.build.refs import fragment  # noqa: E402

AS_OF = "2026-11-29"


def note(n: int) -> str:
    cits = [c for g in read_guides(ROOT / "site_src" / "content") for c in g.citations][:n]
    lines = [f"- [«{c.quote}»](cita:{fragment(c.ref)})" for c in cits]
    assert len(lines) == n, f"the guides hold only {len(lines)} citations"
    return "# Apuntes\n\n" + "\n".join(lines) + "\n"


def timed(cmd: list[str]) -> tuple[float, int, float]:
    """(wall seconds, exit status, CPU seconds user+sys of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, proc.returncode, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--citations", type=int, default=20)
    args = ap.parse_args()
    exe = str(Path(sys.executable).with_name("citavial"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "apuntes.md"
        path.write_text(note(args.citations), encoding="utf-8")
        cmd = [exe, "check", str(path), "--as-of", AS_OF, "--cache-dir", str(Path(tmp) / "cache")]
        first, status, _ = timed(cmd)
        if status != 0:
            sys.exit(f"check failed (exit {status}): {' '.join(cmd)}")
        runs = [timed(cmd) for _ in range(args.runs)]
    ms = sorted(1000 * r[0] for r in runs)
    cpu = sorted(1000 * r[2] for r in runs)
    print(f"citavial check, {args.citations} citations, 1 file (python {sys.version.split()[0]})")
    print(f"  first run (empty cache: ingest + render 219 pages): {1000 * first:.0f} ms")
    print(f"  cached runs: n={len(ms)} median {statistics.median(ms):.0f} ms, "
          f"p90 {ms[int(0.9 * (len(ms) - 1))]:.0f} ms, min {ms[0]:.0f} ms, max {ms[-1]:.0f} ms "
          f"(target <= 300 ms)")
    print(f"  cached runs, CPU time (user+sys): median {statistics.median(cpu):.0f} ms, "
          f"max {cpu[-1]:.0f} ms; load average during the runs {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
