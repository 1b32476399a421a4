"""Benchmark: `citavial build` of the four norms, per stage. Prints figures; asserts nothing.

Run: .venv/bin/python tests/bench/bench_build.py [--runs N] [--only cold|warm|edit] [--no-parts]
[--no-builds]

1. Whole `citavial build` processes, per stage as the build's summary line reports them
   (median of N, with the process's wall and CPU time): --no-cache (reads and writes no cache),
   cold (an empty cache folder: the build also fills it), warm (the cache filled by a previous
   build, nothing changed: the site is swapped in from it) and after one guide edit (a copy of
   site_src/ with one sentence added to a guide, cache filled: the index, the deep links and
   the gzip results, and the norms' pages, the quotes that passed, the clean prose items and
   the pages free of inline code come from it). The --no-cache and cold builds write a new
   output folder, as a clone's first build does; the warm and edit builds replace the output of
   the previous one, as a rebuild replaces dist/. Nothing is removed until the end: on this
   machine's filesystem (ext4 without a journal) a file created within a minute or so of
   thousands being removed costs several times more (docs/architecture.md, "Files created
   after files removed"), which a benchmark removing each build's output would add to the next
   build. Targets (issue 27): cold <= 2 s with the Reglamento alone
   and <= 5 s with four norms, warm <= 0.5 s, one edit <= 1 s. Then the CPU seconds of each
   stage inside the build process (its line's "CPU per stage"; imports excluded).
2. In one process, the parts of the read, render, gate and pages stages that the build line
   lumps together (median of N, wall and CPU): the Reglamento's XML ingest, the three Markdown
   norms' ingest (with RD 818/2009's tables read from its PDF by poppler, no cache), the render
   of every norm's pages, the gate (the guides' and practice quotes, every passage's deep link)
   and the per-page row links. The gate/render ratio is taken per run (target <= 1.5x). Then,
   apart, every norm page read again into its text model (what the gate must do before it
   judges anything: a new ``Pages``, the rendered-text memo emptied), and its ratio to the
   render: the floor of the gate/render ratio while the gate reads the rendered bytes.

CPU time is printed beside wall time: the machine is shared, and CPU is less sensitive to the
other load on it. The machine's speed at the start and at the end (tests/bench/machine.py: a
pure-Python loop; at the end also small files written and removed, which would slow the builds'
file creation if taken first) tells whether two days' figures compare.
``PYTHONDONTWRITEBYTECODE`` set in the environment makes each process compile
every module it imports (~1 s of CPU before the build starts): the note says so when it is set.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
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
from citavial.build.gate.deeplinks import write_page_links  # noqa: E402
from citavial.build.gate.fragments import textmodel  # noqa: E402
from citavial.build.gate.verify import Pages, build_allowlist, gc_paused, verify  # noqa: E402
from citavial.build.ingest import load_regulation  # noqa: E402
from citavial.build.ingest.markdown import load_norms, pdftables  # noqa: E402
from citavial.build.render.pages import render, render_norm  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import reference  # noqa: E402

STAGE = re.compile(r"\b(read|render|gate|pages|index|publish|total|CPU) ([0-9.]+) s\b")
STAGES = ("read", "render", "gate", "pages", "index", "publish", "total", "CPU")
STAGE_CPU = re.compile(r"CPU per stage: ([^);]*)")
CPU_STAGES = ("read", "render", "gate", "pages", "index", "publish")
PARTS = ("ingest RGC (XML)", "ingest 3 norms (Markdown + PDF)", "render 4 norms",
         "gate: quotes + RGC links", "gate: 3 norms' links", "pages: row links",
         "(apart) norm pages read again")


class _Clock:
    """Wall and CPU seconds of consecutive laps."""

    def __init__(self) -> None:
        self.laps: dict[str, tuple[float, float]] = {}
        self._t, self._c = time.perf_counter(), time.process_time()

    def lap(self, name: str) -> None:
        t, c = time.perf_counter(), time.process_time()
        self.laps[name] = (t - self._t, c - self._c)
        self._t, self._c = t, c


def _parts(as_of: date, out: Path) -> dict[str, tuple[float, float]]:
    """One in-process run of the parts (see the module docstring), rendering into ``out``
    (a new folder, removed only at the end: see _scenarios)."""
    cits = [c for g in read_guides(ROOT / "site_src" / "content") for c in g.citations]
    cits += [c for q in read_bank(ROOT / "site_src" / "practice") for c in q.citations]
    pdftables.page_tables.cache_clear()   # read the PDF every run, as a cold build does
    clock = _Clock()
    reg = load_regulation(ROOT / "corpus", as_of)
    clock.lap(PARTS[0])
    others = list(load_norms(ROOT / "corpus", as_of).values())
    clock.lap(PARTS[1])
    render(reg, ROOT / "site_src", out, others=others)
    for other in others:
        render_norm(other, ROOT / "site_src", out)
    clock.lap(PARTS[2])
    pages = Pages(out)
    _checks, allowlist = verify(reg, out, cits, others=others, pages=pages)
    clock.lap(PARTS[3])
    for other in others:
        allowlist += build_allowlist(other, pages, other.source.html_url)
    clock.lap(PARTS[4])
    for norm_reg in (reg, *others):
        write_page_links(norm_reg, out, allowlist, pages)
    clock.lap(PARTS[5])
    textmodel._RENDERED.clear()   # the gate's memo of rendered block texts, as a cold build has it
    _read_all(Pages(out), [u.page for norm_reg in (reg, *others) for u in norm_reg.units])
    clock.lap(PARTS[6])
    return clock.laps


@gc_paused   # as the gate reads them (verify, build_allowlist)
def _read_all(pages: Pages, names: list[str]) -> None:
    for name in names:
        pages[name]


def _print_parts(runs: list[dict[str, tuple[float, float]]]) -> None:
    print(f"in-process parts (median of n={len(runs)}; wall / CPU seconds):")
    for name in PARTS:
        wall = statistics.median(r[name][0] for r in runs)
        cpu = statistics.median(r[name][1] for r in runs)
        print(f"  {name:34s} {wall:6.3f} s / {cpu:6.3f} s")
    gate = [(r[PARTS[3]][0] + r[PARTS[4]][0]) / r[PARTS[2]][0] for r in runs]
    gate_cpu = [(r[PARTS[3]][1] + r[PARTS[4]][1]) / r[PARTS[2]][1] for r in runs]
    print(f"  {'gate / render':34s} {statistics.median(gate):5.2f}x / {statistics.median(gate_cpu):5.2f}x"
          f"  (wall / CPU, per run; target <= 1.5x)")
    floor = [r[PARTS[6]][0] / r[PARTS[2]][0] for r in runs]
    floor_cpu = [r[PARTS[6]][1] / r[PARTS[2]][1] for r in runs]
    print(f"  {'pages read again / render':34s} {statistics.median(floor):5.2f}x / "
          f"{statistics.median(floor_cpu):5.2f}x  (the gate's floor: it reads them all)")


def _cli_build(as_of: date, out: Path, cache: Path, site_src: Path,
               *extra: str) -> tuple[float, float, dict]:
    """(process wall seconds, process CPU seconds, the build line's stage seconds)."""
    env = {**os.environ, "CITAVIAL_BUILD_CACHE": str(cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "citavial"), "build", "--as-of",
                           as_of.isoformat(), "--out", str(out), "--site-src", str(site_src),
                           *extra],
                          check=True, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    stages = {k: float(v) for k, v in STAGE.findall(done.stdout)}
    per = STAGE_CPU.search(done.stdout)
    for item in per.group(1).split(", ") if per else ():
        name, _, value = item.partition(" ")
        stages[f"cpu {name}"] = float(value)
    return wall, cpu, stages


def _edit_guide(site_src: Path, n: int) -> None:
    """Add one plain sentence (no quote, no number: the prose check would ask for a citation)
    to the first guide, a different one each run: a one-page edit."""
    guide = sorted(p for p in (site_src / "content").glob("*.md") if p.name != "README.md")[0]
    guide.write_text(guide.read_text(encoding="utf-8").rstrip("\n")
                     + "\n\n" + "Conviene repasar esta guía. " * (n + 1) + "\n", encoding="utf-8")


def _scenarios(as_of: date, runs: int, only: str | None,
               t: Path) -> dict[str, list[tuple[float, float, dict]]]:
    names = {"uncached": "--no-cache", "cold": "cold", "warm": "warm", "edit": "one guide edit"}
    out: dict[str, list[tuple[float, float, dict]]] = {
        names[k]: [] for k in names if only in (None, k)}
    site = t / "site_src"
    shutil.copytree(ROOT / "site_src", site)
    for i in range(runs):
        cache = t / f"cache-{i}"
        if "--no-cache" in out:
            out["--no-cache"].append(_cli_build(as_of, t / f"uncached-{i}", cache, site,
                                                "--no-cache"))
        cold = _cli_build(as_of, t / f"cold-{i}", cache, site)
        if "cold" in out:
            out["cold"].append(cold)
        if only is None or only == "warm":
            out["warm"].append(_cli_build(as_of, t / "dist", cache, site))
        if only is None or only == "edit":
            _edit_guide(site, i)
            out["one guide edit"].append(_cli_build(as_of, t / "dist", cache, site))
    return out


def _print_scenarios(results: dict[str, list[tuple[float, float, dict]]]) -> None:
    print("citavial build (whole process; stages from its summary line; median of n runs):")
    print(f"  {'':15s} {'wall':>7s} {'CPU':>7s} " + " ".join(f"{s:>7s}" for s in STAGES))
    for name, rows in results.items():
        med = [statistics.median(r[2].get(s, float("nan")) for r in rows) for s in STAGES]
        print(f"  {name:15s} {statistics.median(r[0] for r in rows):6.2f}s "
              f"{statistics.median(r[1] for r in rows):6.2f}s "
              + " ".join(f"{m:6.2f}s" for m in med) + f"  n={len(rows)}")
        walls = [r[0] for r in rows]
        print(f"  {'':15s} wall min {min(walls):.2f} s, max {max(walls):.2f} s")
    print("in-process CPU seconds per stage (the build line's \"CPU per stage\"; a build "
          "served whole from the cache has none; median of n runs):")
    print(f"  {'':15s} " + " ".join(f"{s:>7s}" for s in CPU_STAGES))
    for name, rows in results.items():
        if not any(f"cpu {s}" in r[2] for r in rows for s in CPU_STAGES):
            continue
        med = [statistics.median(r[2].get(f"cpu {s}", float("nan")) for r in rows)
               for s in CPU_STAGES]
        print(f"  {name:15s} " + " ".join(f"{m:6.2f}s" for m in med) + f"  n={len(rows)}")


def _note() -> str:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    pyc = ("; PYTHONDONTWRITEBYTECODE is set: each process compiles every module it imports"
           if os.environ.get("PYTHONDONTWRITEBYTECODE") else "")
    return f"load average {load} on {os.cpu_count()} cores (a shared machine: compare CPU){pyc}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--as-of", default="2026-11-29")
    ap.add_argument("--only", choices=("uncached", "cold", "warm", "edit"),
                    help="one scenario only")
    ap.add_argument("--no-parts", action="store_true", help="skip the in-process parts")
    ap.add_argument("--no-builds", action="store_true", help="skip the build processes")
    args = ap.parse_args()
    as_of = date.fromisoformat(args.as_of)
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, runs={args.runs}; "
          f"{_note()}")
    # tests/bench/machine.py: how fast the machine is at the moment (its files reference at the end)
    print(reference(files=False))
    with tempfile.TemporaryDirectory() as tmp:   # removed at the end (see the docstring)
        if not args.no_parts:
            _print_parts([_parts(as_of, Path(tmp) / f"parts-{i}") for i in range(args.runs)])
        if not args.no_builds:
            _print_scenarios(_scenarios(as_of, args.runs, args.only, Path(tmp)))
    print(f"at the end: {_note()}")
    print(f"at the end: {reference()}")


if __name__ == "__main__":
    main()
