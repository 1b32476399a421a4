"""Benchmark: search index build, load and query latency, and recall on the golden set.

Prints figures; asserts nothing. Run:
    .venv/bin/python tests/bench/bench_search.py [--runs N] [--sweep]
Targets: index build <= 10 s; load <= 1 s; query p50 <= 2 ms, p95 <= 10 ms (after warm-up,
over the golden questions); on the sealed test split article recall@5 >= 0.92, apartado
recall@5 >= 0.75, article recall@30 >= 0.98.
--sweep also prints the variants that were compared to choose the default ranking, on the DEV
split only (all of it, and its questions written after golden-v1) — never on test.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from citavial.build.index.collect import collect  # noqa: E402
from citavial.build.index.eval.retrieval import evaluate, load_golden, nearest_hook, table  # noqa: E402
from citavial.build.index.hooks import DEFAULT_HOOKS  # noqa: E402
from citavial.build.index.make import build_index  # noqa: E402
from citavial.build.index.query.search import Searcher  # noqa: E402
from citavial.build.ingest import load_regulation  # noqa: E402
from citavial.build.search_cli import latest_golden  # noqa: E402

AS_OF = date(2026, 11, 29)
HOOKS = DEFAULT_HOOKS   # the product's (build/index/hooks.py)
LOAD_SNIPPET = ("import sys, time; t = time.perf_counter(); sys.path.insert(0, {root!r}); "
                "from citavial.build.index.query.retriever import load_retriever; r = load_retriever({dist!r}); "
                "r.search('velocidad máxima en autopista', k=10); "
                "print(time.perf_counter() - t)")


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def bench_build(passages, runs: int, out: Path) -> list[float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        build_index(passages, {}, HOOKS, out)
        times.append(time.perf_counter() - t)
    return times


def bench_load(dist: Path, runs: int) -> tuple[list[float], list[float]]:
    """(in-process Searcher.load seconds, fresh-process import+load+first query seconds)."""
    inproc, fresh = [], []
    for _ in range(runs):
        t = time.perf_counter()
        Searcher.load(dist / "index")
        inproc.append(time.perf_counter() - t)
        code = LOAD_SNIPPET.format(root=str(ROOT), dist=str(dist))
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
        fresh.append(float(res.stdout.strip().splitlines()[-1]))
    return inproc, fresh


def bench_queries(searcher: Searcher, questions: list[str], rounds: int) -> list[float]:
    for q in questions:                      # warm-up: caches, first-call costs
        searcher.search(q, k=10)
    lat = []
    for _ in range(rounds):
        for q in questions:
            t = time.perf_counter()
            searcher.search(q, k=10)
            lat.append((time.perf_counter() - t) * 1000)
    return lat


def _first_hits(searcher: Searcher, positives, settings) -> tuple[list[int], list[int]]:
    from citavial.build.index.eval import metrics as M
    from citavial.build.index.eval.retrieval import _unit_of
    art, apt = [], []
    for q in positives:
        hits = searcher.search(q.question, k=30, settings=settings).hits
        ru = {_unit_of(searcher, r) for r in q.expected}
        ra = {M.apartado_key(r, _unit_of(searcher, r)) for r in q.expected}
        art.append(M.first_hit([h.unit_ref for h in hits], ru))
        apt.append(M.first_hit([M.apartado_key(h.ref, h.unit_ref) for h in hits], ra))
    return art, apt


def _row(name: str, searcher: Searcher, positives, settings, masks) -> str:
    art, apt = _first_hits(searcher, positives, settings)
    cells = []
    for mask in masks.values():
        sel = [i for i, keep in enumerate(mask) if keep]
        a = sum(0 < art[i] <= 5 for i in sel) / len(sel)
        b = sum(0 < apt[i] <= 5 for i in sel) / len(sel)
        cells.append(f"{a:.3f}/{b:.3f}")
    mrr = sum(1 / f for f in art if f) / len(art)
    return f"{name:<38} " + "  ".join(f"{c:>11}" for c in cells) + f"  {mrr:.3f}"


def sweep(searcher: Searcher, golden: Path, passages, tmp: Path) -> None:
    """The variants tried to choose the defaults (article/apartado recall@5, article MRR)."""
    from citavial.build.index.make.train import train
    positives = [q for q in load_golden(golden, "dev") if q.kind == "positive"]
    near = nearest_hook(positives, searcher.docs.hook_questions)
    masks = {"dev": [True] * len(positives),
             "dev new": [int(q.id.lstrip("g")) > 381 for q in positives],
             "dev J<0.5": [j < 0.5 for j in near]}
    print("variants: article/apartado recall@5 per subset (n=" + ", ".join(
        f"{k} {sum(v)}" for k, v in masks.items()) + "), article MRR on all")
    print(f"{'variant':<38} " + "  ".join(f"{k:>11}" for k in masks) + "    MRR")
    d = replace(searcher.settings, ranker="fusion")
    variants = [
        ("default: lexical (expanded BM25)", searcher.settings),
        ("bm25 alone", replace(d, weights=(("bm25", 1.0),), exact_bonus=0.0)),
        ("vector alone", replace(d, weights=(("vector", 1.0),), exact_bonus=0.0)),
        ("hooks alone", replace(d, weights=(("hooks", 1.0),), exact_bonus=0.0)),
        ("bm25+vector 1:1, k60", replace(d, weights=(("bm25", 1.0), ("vector", 1.0)),
                                         rrf_k=60)),
        ("bm25+vector+hooks 1:1:1, k60", replace(d, weights=(
            ("bm25", 1.0), ("vector", 1.0), ("hooks", 1.0)), rrf_k=60)),
        ("default + bm25 0.25", replace(d, weights=tuple(sorted(
            {**dict(d.weights), "bm25": 0.25}.items())))),
        ("default, collapse before fusion", replace(d, collapse="before")),
        ("default, 2 passages per group", replace(d, per_unit=2)),
        ("default, roll-up over the whole list", replace(d, head=10**6)),
        ("default, no exact bonus", replace(d, exact_bonus=0.0)),
        ("earlier default: fusion", d),
    ]
    for name, settings in variants:
        print(_row(name, searcher, positives, settings, masks))
    # No hooks at all: no hook channel, and vectors trained on the passages alone.
    empty = tmp / "no-hooks.jsonl"
    empty.write_text("", encoding="utf-8")
    model = tmp / "citavial-static-nohooks"
    train(passages, (), model, name=model.name)
    build_index(passages, {}, empty, tmp / "nohooks", embeddings=str(model))
    bare = Searcher.load(tmp / "nohooks" / "index")
    print(_row("no hooks: bm25+vector 1:1, k60", bare, positives,
               replace(d, weights=(("bm25", 1.0), ("vector", 1.0)), rrf_k=60), masks))
    print(_row("no hooks: vector alone", bare, positives,
               replace(d, weights=(("vector", 1.0),), exact_bonus=0.0), masks))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--sweep", action="store_true")
    args = p.parse_args()
    golden = latest_golden()
    t = time.perf_counter()
    passages = collect(load_regulation(ROOT / "corpus", AS_OF))
    ingest_s = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        dist = Path(tmp) / "dist"
        builds = bench_build(passages, args.runs, dist)
        inproc, fresh = bench_load(dist, args.runs)
        searcher = Searcher.load(dist / "index")
        qs = [q.question for q in load_golden(golden)]
        lat = bench_queries(searcher, qs, rounds=5)
        size = sum(f.stat().st_size for f in (dist / "index").rglob("*") if f.is_file())
        static = (dist / "search-index.js").stat().st_size
        shards = sum(f.stat().st_size for f in (dist / "search").glob("*.js"))
        print(f"citavial search benchmark · {len(passages)} passages · backend "
              f"{searcher.backend} · index {searcher.version}")
        print(f"(ingest for the benchmark: {ingest_s:.2f} s)")
        print(f"index build        median {statistics.median(builds):.2f} s  max "
              f"{max(builds):.2f} s  (n={len(builds)}; target <= 10 s)")
        print(f"index size         {size / 1024:.0f} KB in dist/index/, static page index "
              f"{static / 1024:.0f} KB + shards {shards / 1024:.0f} KB "
              "(tests/bench/bench_search_bytes.py: what a search loads)")
        print(f"load in-process    median {statistics.median(inproc) * 1000:.0f} ms  max "
              f"{max(inproc) * 1000:.0f} ms  (n={len(inproc)})")
        print(f"load fresh process median {statistics.median(fresh):.2f} s  max "
              f"{max(fresh):.2f} s  (imports + load + first query; n={len(fresh)}; "
              f"target <= 1 s)")
        print(f"query latency      p50 {_pct(lat, 50):.2f} ms  p95 {_pct(lat, 95):.2f} ms  "
              f"max {max(lat):.2f} ms  (n={len(lat)}: {len(qs)} golden questions x 5, k=10, "
              f"after warm-up; targets p50 <= 2 ms, p95 <= 10 ms)")
        print()
        print(table(evaluate(searcher, golden)))
        if args.sweep:
            print()
            sweep(searcher, golden, passages, Path(tmp))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
