"""Benchmark: `citavial check` throughput (MB/s) on hostile notes and on normal ones (issue 26).

Prints figures; asserts nothing. Run:
    .venv/bin/python tests/bench/bench_check_hostile.py [--runs 5]
Target (issue 26): >= 5 MB/s on the hostile notes (before the fix: a 1.2 MB note of repeated
``(cita:`` ran past 60 s, 0.8 MB of ``«x» <!-- cita:`` 8.9 s, 20,000 valid citations 16.4 s).
Each note is written to a temporary file and checked in-process by ``check_notes`` (read, scan,
gate) against a warm regulation cache, so the figure is the check's own, not the one-off render;
the median of ``--runs`` is printed, with the fastest and slowest run (other sessions' load
only ever slows a run down), and the median CPU time of this process (less sensitive to that
load on a shared machine). ``--only TEXT`` runs the notes whose name holds TEXT. The last four hostile shapes were quadratic in the scan's patterns
(issue 26, check/scan.py): they are small so that the figure before the fix could be taken
(the fixed cost then dominates), and repeated at sizes only the fix can scan.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from citavial.build.check.notes import check_notes  # noqa: E402
from citavial.build.content.guides import read_guides  # noqa: E402
from citavial.build.refs import NORMS, fragment  # noqa: E402

AS_OF = "2026-11-29"


def _valid_lines() -> list[str]:
    cits = [c for g in read_guides(ROOT / "site_src" / "content") for c in g.citations]
    return [f"- [«{c.quote}»](cita:{fragment(c.ref)})" for c in cits]


def _other_norm_lines(cache: Path, kw: dict) -> list[str]:
    """A citation of every 10th passage of the three other norms (its whole text as the quote;
    most pass, a few are ambiguous: judged either way), from the warm cache."""
    from citavial.build.check.cache import site_for_check
    site = site_for_check(kw["corpus"], kw["site_src"], kw["as_of"], cache)
    lines = []
    for prefix in sorted(NORMS):
        loaded = site.norm(prefix) if prefix != "RD-1428/2003" else None
        if loaded is None:
            continue
        blocks = [b for u in loaded[0].units for b in u.passages
                  if not any(c in b.text for c in "«»[]\n")]
        lines += [f"- [«{b.text}»](cita:{b.ref})" for b in blocks[::10]]
    return lines


def notes(others: list[str]) -> dict[str, str]:
    valid = _valid_lines()
    normal = "\n\n".join(p.read_text("utf-8")
                         for p in sorted((ROOT / "site_src" / "content").rglob("*.md")))
    return {
        "hostile: 1.2 MB of '(cita:' on one line": "(cita:" * 200_000,
        "hostile: 0.8 MB of '«x» <!-- cita:'": "«x» <!-- cita:" * 57_000,
        "hostile: 0.8 MB of '[«' lines": "[«\n" * 200_000,
        "hostile: 0.5 MB of unclosed backtick runs": ("``a" * 1000 + "\n") * 170,
        "hostile: 0.08 MB of '[«x»](' (10,000 openers on one line)": "[«x»](" * 10_000,
        "hostile: 0.13 MB of '[«x»](cita:' (10,000 openers on one line)": "[«x»](cita:" * 10_000,
        "hostile: one 6 kB line: 2,000 backticks, then 'a`' 2,000 times": "`" * 2000 + "a`" * 2000,
        "hostile: a code fence, then 0.15 MB of '[«'": "```\n```\n" + "[«" * 50_000,
        # the same shapes at sizes the patterns could not scan (hours, by their quadratic growth)
        "hostile: 1.6 MB of '[«x»](' (200,000 openers on one line)": "[«x»](" * 200_000,
        "hostile: one 0.6 MB line: 200,000 backticks, then 'a`' 200,000 times":
            "`" * 200_000 + "a`" * 200_000,
        "hostile: a code fence, then 1.5 MB of '[«'": "```\n```\n" + "[«" * 500_000,
        "hostile: 20,000 valid citations": "\n".join(valid[i % len(valid)]
                                                     for i in range(20_000)) + "\n",
        "hostile: 20,000 valid citations of the other three norms": "\n".join(
            others[i % len(others)] for i in range(20_000)) + "\n",
        # a gate run per distinct quote: each quote searched on its page (issue 26)
        "hostile: 20,000 distinct quotes not on their pages": "\n".join(
            f"- [«palabra{i} el adelantamiento deberá efectuarse por la izquierda»](cita:"
            f"{('art82.1', 'art48.1.a', 'anexoI.5', 'art117.1', 'art3')[i % 5]})"
            for i in range(20_000)) + "\n",
        f"normal: the study guides' prose ({len(valid)} citations)": normal,
        f"normal: every 10th passage of the other norms ({len(others)} citations)":
            "\n".join(others) + "\n",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help="only the notes whose name holds this text")
    args = ap.parse_args()
    as_of = date.fromisoformat(AS_OF)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        kw = dict(corpus=ROOT / "corpus", site_src=ROOT / "site_src", as_of=as_of,
                  cache_dir=cache)
        warm = Path(tmp) / "warm.md"
        warm.write_text("nada\n", "utf-8")
        check_notes([warm], **kw)                      # fills the regulation cache once
        others = _other_norm_lines(cache, kw)          # and renders the other norms once
        t0 = time.perf_counter()
        check_notes([warm], **kw)
        fixed = time.perf_counter() - t0               # loading the cached regulation
        print(f"citavial check throughput, median of n={args.runs} runs (python "
              f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores); target >= 5 MB/s on hostile notes")
        print(f"  fixed cost per run (the cached regulation loaded): {fixed:.2f} s; MB/s "
              "below count the whole run")
        for name, text in notes(others).items():
            if args.only not in name:
                continue
            path = Path(tmp) / "note.md"
            path.write_text(text, "utf-8")
            size = path.stat().st_size
            times, cpu, n = [], [], 0
            for _ in range(args.runs):
                t0, c0 = time.perf_counter(), time.process_time()
                report, _ = check_notes([path], **kw)
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                n = len(report.results)
            mid, mid_cpu = statistics.median(times), statistics.median(cpu)
            print(f"  {name}: {size / 1e6:.2f} MB, {n} citation(s) judged, median {mid:.3f} s "
                  f"({min(times):.3f}–{max(times):.3f}), {size / 1e6 / mid:.2f} MB/s; "
                  f"CPU {mid_cpu:.3f} s, {size / 1e6 / mid_cpu:.2f} MB/s")


if __name__ == "__main__":
    main()
