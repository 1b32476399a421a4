"""Benchmark: `citavial check` on a 20-citation note, as a pre-commit hook runs it.

Prints figures; asserts nothing. Run:
    .venv/bin/python tests/bench/bench_check.py [--runs 20] [--citations 20]
Target (issue 14): <= 300 ms wall time per run after the first (the rendered pages are cached by
corpus hash). The note holds the first ``--citations`` citations of the study guides
(site_src/content), all passing. Each run is a fresh `citavial check` process (interpreter start,
imports, corpus hash check, gate), timed from outside; the first run fills an empty cache.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from citavial.build.guides import read_guides  # noqa: E402
from citavial.build.refs import fragment  # noqa: E402

AS_OF = "2026-11-29"


def note(n: int) -> str:
    cits = [c for g in read_guides(ROOT / "site_src" / "content") for c in g.citations][:n]
    lines = [f"- [«{c.quote}»](cita:{fragment(c.ref)})" for c in cits]
    assert len(lines) == n, f"the guides hold only {len(lines)} citations"
    return "# Apuntes\n\n" + "\n".join(lines) + "\n"


def timed(cmd: list[str]) -> tuple[float, int]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - t0, proc.returncode


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
        first, status = timed(cmd)
        if status != 0:
            sys.exit(f"check failed (exit {status}): {' '.join(cmd)}")
        warm = [timed(cmd)[0] for _ in range(args.runs)]
    ms = sorted(1000 * t for t in warm)
    print(f"citavial check, {args.citations} citations, 1 file (python {sys.version.split()[0]})")
    print(f"  first run (empty cache: ingest + render 219 pages): {1000 * first:.0f} ms")
    print(f"  cached runs: n={len(ms)} median {statistics.median(ms):.0f} ms, "
          f"p90 {ms[int(0.9 * (len(ms) - 1))]:.0f} ms, min {ms[0]:.0f} ms, max {ms[-1]:.0f} ms "
          f"(target <= 300 ms)")


if __name__ == "__main__":
    main()
