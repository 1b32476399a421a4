"""Benchmark: the answer worker on the golden set (and pasted practice questions).

Prints figures; asserts nothing. Runs the real answer path in process (the default: extractive
spans, no language model), one question at a time, over one golden split:

    .venv/bin/python tests/bench/bench_answers.py [--split test|dev] [--json OUT] [--practice]

Targets (issue «Answers that answer», on the sealed test split): abstains on ≤ 10 % of
answerable questions, answers ≤ 10 % of unanswerable ones; first citation in the expected
article ≥ 85 %; expected apartado among the citations ≥ 75 %; the shown answer covers the
reference answer for ≥ 70 % of answerable questions; time to the first answer words p95 ≤ 100 ms;
0 invented refs; every quote literal. The dev split reads the dev-clean index
(dist/index-dev/, build/index/hooks.py), test the product's. ``--practice`` pastes each
practice-bank question with its options and counts how often the worker names the correct
option (or says it cannot decide).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from citavial.build.golden import load_golden  # noqa: E402
from citavial.build.index.hooks import index_dir_for  # noqa: E402
from citavial.worker.answer.ask import answer  # noqa: E402
from citavial.worker.answer.record import collect  # noqa: E402
from citavial.worker.eval.scoring import score_row, summarize  # noqa: E402
from citavial.worker.http.serve import load_deps  # noqa: E402


def run(split: str, dist: Path) -> tuple[dict, list[dict]]:
    deps, why, _ = load_deps(dist, load_llm=False, index=index_dir_for(split))
    if deps is None:
        sys.exit(f"cannot answer: {why}")
    questions = load_golden(ROOT / "golden" / "golden-v2.jsonl", split)
    for q in questions[:5]:                    # warm-up: page cache, first-call costs
        collect(answer(q.question, deps))
    rows = [score_row(q, collect(answer(q.question, deps)), deps.allowlist) for q in questions]
    report = {"split": split, "all": summarize(rows),
              "exam_styles": summarize(r for r in rows if r["style"] != "plain"),
              "plain": summarize(r for r in rows if r["style"] == "plain"),
              "by_style": {st: summarize(r for r in rows if r["style"] == st)
                           for st in sorted({r["style"] for r in rows})}}
    return report, rows


def practice(dist: Path) -> dict:
    deps, _, _ = load_deps(dist, load_llm=False)
    bank = json.loads((dist / "practice-bank.json").read_text(encoding="utf-8"))["questions"]
    right = wrong = undecided = abstained = 0
    for item in bank:
        pasted = item["question"] + "\n" + "\n".join(
            f"{'abc'[i]}) {o}" for i, o in enumerate(item["options"]))
        rec = collect(answer(pasted, deps))
        option = (rec["answer"] or {}).get("option")
        if not rec["answered"]:
            abstained += 1
        elif not option or option["letter"] is None:
            undecided += 1
        elif option["letter"] == "abc"[item["correct"]]:
            right += 1
        else:
            wrong += 1
    n = len(bank)
    return {"n": n, "right": right, "wrong": wrong, "undecided": undecided,
            "abstained": abstained, "accuracy_when_deciding": round(right / max(1, right + wrong), 4),
            "right_share": round(right / n, 4)}


def _fmt(name: str, m: dict) -> str:
    if m["n"] == 0:
        return f"  {name:<28} n=0"
    lo, hi = m["ci95"]
    return f"  {name:<28} {m['rate']:.3f} [{lo:.3f}, {hi:.3f}]  n={m['n']}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--split", choices=("test", "dev"), default="test")
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--json", type=Path)
    p.add_argument("--practice", action="store_true")
    args = p.parse_args()
    t = time.perf_counter()
    report, rows = run(args.split, args.dist)
    print(f"citavial answers · golden-v2 split {args.split} "
          f"({'sealed: report only' if args.split == 'test' else 'in-sample: tuned on it'}) · "
          f"extractive, no language model · {time.perf_counter() - t:.1f} s")
    for part in ("all", "exam_styles", "plain"):
        s = report[part]
        print(f"{part}: {s['questions']} questions ({s['positives']} answerable, "
              f"{s['negatives']} not); outcomes {s['outcomes']}")
        for key in ("false_abstention", "false_answer", "first_citation_article",
                    "apartado_among_citations", "covers_reference"):
            print(_fmt(key, s[key]))
        o = s["other_norm"]   # negatives whose note names a norm now covered (golden.py)
        print(f"  named another covered norm: {o['n']} questions, answered "
              f"{o['answered']['rate']} (n={o['answered']['n']}), first citation in that norm "
              f"{o['first_citation_in_named_norm']['rate']} "
              f"(n={o['first_citation_in_named_norm']['n']})")
        print(f"  shown text median {s['shown_chars_median']} chars; invented refs "
              f"{s['invented_refs']}; literal quotes {s['literal']}; time to answer words "
              f"p50 {s['latency_ms']['p50']} ms p95 {s['latency_ms']['p95']} ms "
              f"(n={s['latency_ms']['n']}, in process)")
    if args.practice:
        report["practice"] = practice(args.dist)
        print("practice bank, pasted with options:", report["practice"])
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1, sort_keys=True)
                             + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
