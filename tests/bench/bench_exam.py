"""Benchmark: the target figures of issue 22 on the real DGT bank (text-only questions).

Prints figures with n and 95 % Wilson intervals; asserts nothing. The bank is third-party
evaluation data read at run time from ../shared/eval/ (never copied into the repository):

    .venv/bin/python tests/bench/bench_exam.py [--split dev|test] [--bank FILE] [--dist DIR]

Runs `citavial exam`'s path in process (worker/exam.py: one-line paste, the extractive answer
path, no language model) on the split's questions without a picture, then searches each pasted
question with the retriever and rolls the passages up to their article. Labels: the deciding
articles both blind labellers agree on (golden/dgt-labels/agreed.jsonl, ``agree: article``).
The Reglamento topics are also split by those labels (a deciding Reglamento article; "no-rgc";
no agreement): the declined target is about the first group. The dev split reads the dev-clean index (in-sample: tuned on it), test the product's (report
only — the lead runs it).

Targets (issue 22, test split): topics the Reglamento governs right ≥ 0.60, wrong ≤ 0.03,
declined ≤ 0.10; other topics wrong ≤ 0.02; first citation is the labelled article ≥ 0.85;
search article recall@1 ≥ 0.80, @5 ≥ 0.95; time to the answer p95 ≤ 100 ms; 0 invented refs;
quotes literal.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

# as every `citavial` command runs (worker/cli.one_blas_thread), set before numpy loads
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[2]

from citavial.build.index.hooks import index_dir_for  # noqa: E402
from citavial.worker.eval.exam import check_items, load_labels, rate, run, stats, summarize  # noqa: E402
from citavial.worker.eval.exam_bank import ONE_LINE, load_bank, paste  # noqa: E402
from citavial.worker.eval.scoring import unit_of  # noqa: E402
from citavial.worker.http.serve import load_deps  # noqa: E402

BANK = ROOT.parent / "shared" / "eval" / "dgt-bank.jsonl"
LABELS = ROOT / "golden" / "dgt-labels" / "agreed.jsonl"
# The questions on licences, points, sanctions and vehicle papers (and those no Reglamento
# passage decides), labelled over all four norms by two more blind labellers.
NORM_LABELS = ROOT / "golden" / "dgt-labels" / "agreed-norms.jsonl"
SEARCH_K = 60   # passages read to find the first five distinct articles


def recall(items, retriever, labels: dict[str, list[str]]) -> tuple[dict, dict]:
    """Search article recall@1 and @5 over the labelled questions: the passages of the ranking
    rolled up to their article (first occurrence keeps its rank)."""
    at1 = at5 = n = 0
    for item in items:
        articles = labels.get(item.id)
        if articles is None:
            continue
        hits = retriever.search(paste(item, ONE_LINE), SEARCH_K).hits
        units = list(dict.fromkeys(unit_of(h.ref) for h in hits))
        n += 1
        at1 += bool(units[:1]) and units[0] in articles
        at5 += any(u in articles for u in units[:5])
    return rate(at1, n), rate(at5, n)


def shown_first(rows, labels: dict[str, list[str]]) -> dict:
    """Over the questions labelled with a deciding article: the first passage the worker shows
    (cited, or shown as the nearest one when it is unsure) lies in a labelled article."""
    judged = [r for r in rows if r["id"] in labels and r["first_citation"] is not None]
    return rate(sum(unit_of(r["first_citation"]["ref"]) in labels[r["id"]] for r in judged),
                len(judged))


def other_norms(items, rows, retriever) -> dict | None:
    """The figures on the questions labelled over the four norms (None without the file)."""
    if not NORM_LABELS.is_file():
        return None
    labels = load_labels(NORM_LABELS)
    ids = {json.loads(line)["id"] for line in NORM_LABELS.read_text("utf-8").splitlines()}
    r1, r5 = recall(items, retriever, labels)
    none = [r for r in rows if r["id"] in ids and r["id"] not in labels]
    return {"labelled": sum(1 for i in items if i.id in labels),
            "first_shown_is_labelled_article": shown_first(rows, labels),
            "search_article_recall_at_1": r1, "search_article_recall_at_5": r5,
            "decided_by_none": stats(none)}


def by_label(rows, path: Path) -> dict[str, dict]:
    """The Reglamento-topic rows split by what both blind labellers agree on: a deciding
    Reglamento article, no Reglamento article decides it ("no-rgc"), or no agreement. A decline
    on the second group is the right outcome; the declined target is read on the first."""
    agree = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            agree[row["id"]] = row.get("agree")
    groups: dict[str, list] = {"article": [], "no-rgc": [], "no agreement": []}
    for r in rows:
        groups.get(agree.get(r["id"]) or "no agreement", groups["no agreement"]).append(r)
    return {name: stats(g) for name, g in groups.items()}


def fmt(r: dict) -> str:
    if not r["n"]:
        return "n=0"
    lo, hi = r["ci95"]
    return f"{r['rate']:.3f} [{lo:.3f}, {hi:.3f}]  ({r['count']}/{r['n']})"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--split", choices=("dev", "test"), default="dev")
    p.add_argument("--bank", type=Path, default=BANK)
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--json", type=Path, default=None,
                   help="also write these aggregate figures (no question text) as JSON, e.g. "
                        "golden/reports/exam.json")
    args = p.parse_args()
    if not args.bank.is_file():
        print(f"bench_exam: {args.bank} is absent: the real DGT bank lives outside the repo "
              "(../shared/eval/); nothing measured")
        return 0
    t = time.perf_counter()
    items = [i for i in load_bank(args.bank) if i.split == args.split and not i.needs_image]
    items, refused = check_items(items, ONE_LINE)
    index = index_dir_for(args.split)
    deps, why, _ = load_deps(args.dist, load_llm=False, index=index)
    if deps is None:
        print(f"bench_exam: cannot answer: {why}")
        return 1
    labels = load_labels(LABELS)
    rows = run(items, deps, ONE_LINE, labels)
    s = summarize(rows)
    r1, r5 = recall(items, deps.retriever, labels)
    inside = stats([r for r in rows if not r["scope_hint"]])
    outside = stats([r for r in rows if r["scope_hint"]])
    print(f"citavial exam · real DGT bank, split {args.split} "
          f"({'in-sample: tuned on it' if args.split == 'dev' else 'report only'}) · text-only, "
          f"one-line paste · index {index} · extractive, no language model · "
          f"{len(rows)} questions ({len(refused)} refused: over 500 characters) · "
          f"{time.perf_counter() - t:.1f} s · Wilson 95 % intervals")
    print(f"topics the Reglamento governs (no scope_hint), n={inside['n']}")
    for name, target in (("right", "≥ 0.60"), ("wrong", "≤ 0.03"), ("declined", "≤ 0.10"),
                         ("undecided", ""), ("precision", "")):
        print(f"  {name:<34} {fmt(inside[name]):<36} {target}")
    split = by_label([r for r in rows if not r["scope_hint"]], LABELS)
    for name, what in (("article", "a Reglamento article decides it"),
                       ("no-rgc", "no Reglamento article decides it"),
                       ("no agreement", "labellers disagree")):
        g = split[name]
        print(f"  of which labelled {what!r}, n={g['n']}: right {fmt(g['right'])}, wrong "
              f"{fmt(g['wrong'])}, declined {fmt(g['declined'])}")
    print(f"other topics (a scope_hint), n={outside['n']}")
    print(f"  {'wrong':<34} {fmt(outside['wrong']):<36} ≤ 0.02")
    print(f"  {'right':<34} {fmt(outside['right'])}")
    print(f"  {'declined':<34} {fmt(outside['declined'])}")
    lab = s["first_citation_is_labelled_article"]
    print(f"labelled deciding articles ({args.split}, agree: article; first citation over the "
          "answered ones)")
    print(f"  {'first citation is the labelled article':<34} {fmt(lab):<36} ≥ 0.85")
    print(f"  {'search article recall@1':<34} {fmt(r1):<36} ≥ 0.80")
    print(f"  {'search article recall@5':<34} {fmt(r5):<36} ≥ 0.95")
    norms = other_norms(items, rows, deps.retriever)
    if norms is not None:
        print(f"labelled over the four norms ({args.split}: {norms['labelled']} with an agreed "
              "deciding article, most of another norm)")
        print(f"  {'first passage shown is labelled':<34} {fmt(norms['first_shown_is_labelled_article'])}")
        print(f"  {'search article recall@1':<34} {fmt(norms['search_article_recall_at_1'])}")
        print(f"  {'search article recall@5':<34} {fmt(norms['search_article_recall_at_5'])}")
        nd = norms["decided_by_none"]
        print(f"  no norm decides it (n={nd['n']}): declined {fmt(nd['declined'])}, "
              f"wrong {fmt(nd['wrong'])}")
    lat = s["latency_ms"]
    print(f"time to the answer p50 {lat['p50']} ms, p95 {lat['p95']} ms (n={lat['n']}, in "
          f"process; target p95 ≤ 100 ms); invented refs {s['invented_refs']} (target 0); "
          f"non-literal quotes {s['non_literal_quotes']} (target 0)")
    if args.json:
        doc = {"schema": "citavial-exam-figures/1", "bank": "real DGT bank (../shared/eval)",
               "split": args.split, "index": index, "paste": "one-line", "model": None,
               "questions": len(rows), "refused": len(refused), "reglamento": inside,
               "other": outside, "reglamento_by_label": split, "first_citation_is_labelled_article": lab,
               "search_article_recall_at_1": r1, "search_article_recall_at_5": r5,
               "other_norms": norms, "latency_ms": lat, "invented_refs": s["invented_refs"],
               "non_literal_quotes": s["non_literal_quotes"]}
        tmp = args.json.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                       encoding="utf-8")
        tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
