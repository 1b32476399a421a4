"""Benchmark: full build (corpus check + ingest + render) of the whole regulation.

Prints figures; asserts nothing. Run: .venv/bin/python tests/bench/bench_build.py [--runs N]
Whole `citavial build` processes, per stage as the build's summary line reports them (median
of N, with CPU time): cold (an empty cache folder), warm (the cache filled by a previous build,
nothing changed) and after one guide edit (a copy of site_src/ with one sentence added to a
guide, cache filled). Targets (issue 27): cold <= 2 s, warm <= 0.5 s, one edit <= 1 s.
Targets: <= 2 s wall for ingest + render (issue 2); the citation gate over every quote and
every passage's deep link costs <= 1.5x the render time, and the whole `citavial build` process
takes <= 2 s (issue 10). The gate/render ratio is taken per run (both stages in the same run, so
a busy machine slows both) and its median printed; CPU time is printed too, as it is less
sensitive to other load on the machine than wall time.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from citavial.build.content.guides import read_guides  # noqa: E402
from citavial.build.content.practice import read_bank  # noqa: E402
from citavial.build.corpus.integrity import verify_corpus  # noqa: E402
from citavial.build.gate.verify import verify  # noqa: E402
from citavial.build.ingest import ingest  # noqa: E402
from citavial.build.render.pages import render  # noqa: E402


def _stage_times(as_of: date) -> tuple[float, ...]:
    """Wall seconds of (corpus check, ingest, render, gate), then CPU seconds of render, gate."""
    t0 = time.perf_counter()
    info = verify_corpus(ROOT / "corpus")
    t1 = time.perf_counter()
    reg = ingest(info.texto_path, info.metadatos_path, as_of)
    t2 = time.perf_counter()
    cits = [c for g in read_guides(ROOT / "site_src" / "content") for c in g.citations]
    cits += [q.citation for q in read_bank(ROOT / "site_src" / "practice")]
    with tempfile.TemporaryDirectory() as out:
        t2b, c2 = time.perf_counter(), time.process_time()
        render(reg, ROOT / "site_src", Path(out))
        t3, c3 = time.perf_counter(), time.process_time()
        verify(reg, Path(out), cits)
        t4, c4 = time.perf_counter(), time.process_time()
    return t1 - t0, t2 - t1, t3 - t2b, t4 - t3, c3 - c2, c4 - c3


STAGE = re.compile(r"\b(read|render|gate|pages|index|publish|total|CPU) ([0-9.]+) s\b")
STAGES = ("read", "render", "gate", "pages", "index", "publish", "total", "CPU")


def _cli_build(as_of: date, out: Path, cache: Path, site_src: Path) -> tuple[float, dict]:
    """(process wall seconds, the build line's stage seconds) of one `citavial build`."""
    env = {**os.environ, "CITAVIAL_CACHE": str(cache)}
    t0 = time.perf_counter()
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "citavial"), "build", "--as-of",
                           as_of.isoformat(), "--out", str(out), "--site-src", str(site_src)],
                          check=True, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    return wall, {k: float(v) for k, v in STAGE.findall(done.stdout)}


def _edit_guide(site_src: Path, n: int) -> None:
    """Add one plain sentence (no quote, no number: the prose check would ask for a citation)
    to the first guide, a different one each run: a one-page edit."""
    guide = sorted(p for p in (site_src / "content").glob("*.md") if p.name != "README.md")[0]
    guide.write_text(guide.read_text(encoding="utf-8").rstrip("\n")
                     + "\n\n" + "Conviene repasar esta guía. " * (n + 1) + "\n", encoding="utf-8")


def _scenarios(as_of: date, runs: int) -> dict[str, list[tuple[float, dict]]]:
    out: dict[str, list[tuple[float, dict]]] = {"cold": [], "warm": [], "one guide edit": []}
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        site = t / "site_src"
        shutil.copytree(ROOT / "site_src", site)
        for i in range(runs):
            cache = t / f"cache-{i}"
            out["cold"].append(_cli_build(as_of, t / "dist", cache, site))
            out["warm"].append(_cli_build(as_of, t / "dist", cache, site))
            _edit_guide(site, i)
            out["one guide edit"].append(_cli_build(as_of, t / "dist", cache, site))
    return out


def _print_scenarios(results: dict[str, list[tuple[float, dict]]]) -> None:
    print("citavial build (whole process; stages from its summary line; median, n runs):")
    print(f"  {'':15s} {'process':>8s} " + " ".join(f"{s:>7s}" for s in STAGES))
    for name, rows in results.items():
        med = [statistics.median(r[1].get(s, float("nan")) for r in rows) for s in STAGES]
        print(f"  {name:15s} {statistics.median(r[0] for r in rows):7.2f}s "
              + " ".join(f"{m:6.2f}s" for m in med) + f"  n={len(rows)}")
    print(f"  load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          "(a shared machine: compare CPU, not only wall)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--as-of", default="2026-11-29")
    args = ap.parse_args()
    as_of = date.fromisoformat(args.as_of)
    stages = [_stage_times(as_of) for _ in range(args.runs)]
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, runs={args.runs}")
    print(f"gate: {len(read_guides(ROOT / 'site_src' / 'content'))} guides + practice bank "
          f"quotes, deep links for every citable passage")
    for name, i in (("corpus sha256 check", 0), ("ingest", 1), ("render", 2), ("gate + allowlist", 3)):
        xs = [s[i] for s in stages]
        print(f"{name:22s} median {statistics.median(xs):.3f} s  min {min(xs):.3f} s  max {max(xs):.3f} s")
    ir = [s[1] + s[2] for s in stages]
    print(f"{'ingest + render':22s} median {statistics.median(ir):.3f} s  max {max(ir):.3f} s  (target <= 2 s)")
    ratio = [s[3] / s[2] for s in stages]
    cpu_ratio = [s[5] / s[4] for s in stages]
    print(f"{'gate / render (wall)':22s} median {statistics.median(ratio):.2f}x  min {min(ratio):.2f}x  "
          f"max {max(ratio):.2f}x  n={len(ratio)}  (target <= 1.5x)")
    print(f"{'gate / render (CPU)':22s} median {statistics.median(cpu_ratio):.2f}x  "
          f"(CPU: render {statistics.median(s[4] for s in stages):.3f} s, "
          f"gate {statistics.median(s[5] for s in stages):.3f} s)  n={len(cpu_ratio)}")
    _print_scenarios(_scenarios(as_of, args.runs))


if __name__ == "__main__":
    main()
