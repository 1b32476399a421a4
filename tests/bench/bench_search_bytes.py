"""Benchmark: the bytes the static search page needs before its first result, before and after
the index was split into shards (build/index/make/export.py).

Prints figures; asserts nothing; times nothing. Run (after `citavial build`):
    .venv/bin/python tests/bench/bench_search_bytes.py [--dist dist] [--golden golden/golden-v2.jsonl]
        [--json golden/reports/search-bytes.json]

"before" is the single search-index.js the build used to write (every passage's result data and
every posting in one script), rebuilt here byte for byte from the shards; "after" is, per golden
question, the page's search files (search-index.js and the scripts static/util.js,
static/search-core.js and static/search.js) plus the shards of the
question's terms and of its first result (first result), of its top 10, and of the 20 results the
page shows. Gzip sizes are gzip -9, as the build precompresses (what `citavial serve` and nginx
send). n = the golden questions; medians, p95 and max. Target (issue 27): first result after
≤ 150 KB gzip.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from citavial.build.golden import load_golden  # noqa: E402
from citavial.build.index.make.export import HEADER, PREFIX, read_static, shard_of  # noqa: E402
from citavial.build.index.query.lexical import query_ids, ref_key  # noqa: E402
from citavial.build.index.query.retriever import load_retriever  # noqa: E402
from citavial.build.web.assets import asset  # noqa: E402

BUDGET = 150 * 1024


def sizes(data: bytes) -> tuple[int, int]:
    return len(data), len(gzip.compress(data, compresslevel=9, mtime=0))


def _file_sizes(dist: Path, rel: str, cache: dict) -> tuple[int, int]:
    if rel not in cache:
        cache[rel] = sizes((dist / rel).read_bytes())
    return cache[rel]


def monolith(data: dict) -> bytes:
    """The search-index.js of before the split: export_static's old body, same key order."""
    old = {k: v for k, v in data.items() if k not in ("keys", "norms", "term_shards", "doc_shards")}
    body = json.dumps(old, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return f"{HEADER}{PREFIX}{body};\n".encode("utf-8")


def _pct(xs: list[int], p: float) -> int:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def _summary(pairs: list[tuple[int, int]]) -> dict:
    """Aggregate bytes of one kind of page load (no question text): medians, p95 and max."""
    gz = [g for _, g in pairs]
    return {"n": len(pairs), "gzip_median": int(statistics.median(gz)), "gzip_p95": _pct(gz, 95),
            "gzip_max": max(gz), "raw_median": int(statistics.median([r for r, _ in pairs]))}


def _write_json(path: Path, doc: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def _line(label: str, pairs: list[tuple[int, int]]) -> str:
    raw, gz = [r for r, _ in pairs], [g for _, g in pairs]
    return (f"{label:<26} gzip median {statistics.median(gz) / 1024:6.1f} KB  p95 "
            f"{_pct(gz, 95) / 1024:6.1f} KB  max {max(gz) / 1024:6.1f} KB   raw median "
            f"{statistics.median(raw) / 1024:7.1f} KB")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--golden", type=Path, default=ROOT / "golden" / "golden-v2.jsonl")
    p.add_argument("--json", type=Path, default=None,
                   help="also write the aggregate figures as JSON (golden/reports/search-bytes.json)")
    args = p.parse_args()
    dist = args.dist
    first_rel = asset(dist, "search-index.js").relative_to(dist).as_posix()
    data = read_static(dist / first_rel)
    stem_id = {t: i for i, t in enumerate(data["stems"])}
    row = {k: i for i, k in enumerate(data["keys"])}
    retriever = load_retriever(dist)
    cache: dict[str, tuple[int, int]] = {}
    page = [first_rel, *(asset(dist, f"static/{name}.js").relative_to(dist).as_posix()
                         for name in ("util", "search-core", "search"))]
    before = sizes(monolith(data))
    base = [_file_sizes(dist, rel, cache) for rel in page]
    firsts, tops, shown, n_terms = [], [], [], []
    questions = [q.question for q in load_golden(args.golden)]
    for q in questions:
        terms = {data["term_shards"]["files"][shard_of(data["term_shards"]["starts"], t)]
                 for t in query_ids(data, stem_id, q)}
        rows = [row[ref_key(h.ref)] for h in retriever.search(q, k=20).hits]
        n_terms.append(len(terms))
        for out, k in ((firsts, 1), (tops, 10), (shown, 20)):
            docs = {data["doc_shards"]["files"][shard_of(data["doc_shards"]["starts"], r)]
                    for r in rows[:k]}
            files = [*page, *sorted(terms), *sorted(docs)]
            got = [_file_sizes(dist, rel, cache) for rel in files]
            out.append((sum(r for r, _ in got), sum(g for _, g in got)))
    n_shards = len(data["term_shards"]["files"]), len(data["doc_shards"]["files"])
    print(f"citavial static search bytes · {len(data['keys'])} passages · {len(questions)} "
          f"golden questions ({args.golden.name}) · dist {dist}")
    print(f"before (one script)        {before[0] / 1024:7.1f} KB raw  {before[1] / 1024:6.1f} KB "
          "gzip, for every search")
    print(f"after: first script        {base[0][0] / 1024:7.1f} KB raw  {base[0][1] / 1024:6.1f} KB "
          f"gzip + util.js, search-core.js, search.js {sum(r for r, _ in base[1:]) / 1024:.1f} KB "
          f"raw {sum(g for _, g in base[1:]) / 1024:.1f} KB gzip; "
          f"{n_shards[0]} term shards, {n_shards[1]} docs shards")
    print(f"term shards per question   median {statistics.median(n_terms):.0f}  max {max(n_terms)}")
    print(_line("after: first result", firsts))
    print(_line("after: top 10", tops))
    print(_line("after: 20 shown", shown))
    within = sum(1 for _, g in firsts if g <= BUDGET)
    print(f"first result within 150 KB gzip: {within} of {len(firsts)} questions "
          f"(n={len(firsts)})")
    if args.json:
        _write_json(args.json, {
            "schema": "citavial-search-bytes/1", "golden": args.golden.name,
            "passages": len(data["keys"]), "questions": len(questions),
            "before_gzip": before[1], "first_script_gzip": base[0][1],
            "shards": {"terms": n_shards[0], "docs": n_shards[1]},
            "first_result": _summary(firsts), "top10": _summary(tops), "shown20": _summary(shown),
            "budget_gzip": BUDGET, "first_result_within_budget": within})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
