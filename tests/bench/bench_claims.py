"""Benchmark: `citavial check --claims` on sentence/passage pairs made from the real DGT bank.

Prints figures; asserts nothing. For every question of a split whose deciding passage two blind
labellers agree on (golden/dgt-labels/agreed.jsonl), each option becomes a claim — the option
read with its stem as premise — judged against the labelled passage: the key option follows from
it (a flag there is a false alarm), every other option does not (a flag there is a catch).

    .venv/bin/python tests/bench/bench_claims.py [--split dev|test] [--bank PATH]

The bank is read from ../shared/eval/ at run time; without it the benchmark says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT.parent / "shared" / "eval" / "dgt-bank.jsonl"
LABELS = ROOT / "golden" / "dgt-labels" / "agreed.jsonl"


def wilson(k: int, n: int) -> tuple[float, float]:
    from citavial.worker.eval.exam import wilson as score  # the exam report's interval
    ci = score(k, n)
    return (0.0, 0.0) if ci is None else (round(ci[0], 3), round(ci[1], 3))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    ap.add_argument("--bank", type=Path, default=BANK)
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--json", type=Path, default=None,
                    help="also write the figures as JSON (e.g. golden/reports/claims.json)")
    args = ap.parse_args(argv)
    if not args.bank.is_file():
        print(f"skipped: the real DGT bank is not at {args.bank} (evaluation data, not shipped)")
        return 0
    from citavial.build.check.claims import judge_claim
    texts = {e["ref"]: e["text"] for e in
             json.loads((args.dist / "allowlist.json").read_text("utf-8"))["entries"]}
    labels = {r["id"]: r for r in map(json.loads, LABELS.read_text("utf-8").splitlines())}
    c: Counter = Counter()
    for q in map(json.loads, args.bank.read_text("utf-8").splitlines()):
        label = labels.get(q["id"])
        if q["split"] != args.split or not label or label["agree"] != "article":
            continue
        passages = [texts[r] for r in label["refs"] if r in texts]
        if not passages:
            continue
        for letter, option in q["options"].items():
            flagged = bool(judge_claim(option, passages, given=q["question"]))
            c["key" if letter == q["answer"] else "other", flagged] += 1
    caught, alarms, missed = c["other", True], c["key", True], c["other", False]
    n = sum(c.values())
    print(f"claims on real-bank pairs, {args.split} split: n = {n} pairs "
          f"({c['key', True] + c['key', False]} that follow, {caught + missed} that do not)")
    print(f"  flag precision {caught / max(1, caught + alarms):.3f} "
          f"{list(wilson(caught, caught + alarms))}  (flags right: {caught} of {caught + alarms})")
    print(f"  flag recall    {caught / max(1, caught + missed):.3f} "
          f"{list(wilson(caught, caught + missed))}  (caught {caught} of {caught + missed})")
    print(f"  false alarms on claims that follow: {alarms} of {c['key', True] + c['key', False]}")
    if args.json:
        doc = {"schema": "citavial-claims-figures/1", "split": args.split, "pairs": n,
               "follow": c["key", True] + c["key", False], "do_not_follow": caught + missed,
               "precision": {"rate": round(caught / max(1, caught + alarms), 4),
                             "ci95": list(wilson(caught, caught + alarms)),
                             "count": caught, "n": caught + alarms},
               "recall": {"rate": round(caught / max(1, caught + missed), 4),
                          "ci95": list(wilson(caught, caught + missed)),
                          "count": caught, "n": caught + missed}}
        tmp = args.json.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
