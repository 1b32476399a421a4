"""Benchmark: does the default model's one-line lead help? Measured on the golden DEV split.

Prints figures; asserts nothing. Answers every dev question twice — extractive only (the
default), and with the model's lead (`--model-lead`) — and compares the answer metric
(docs/evaluation.md: the shown text covers the reference answer), how many lead sentences
the support check kept or retracted, and the time to the first answer words.

    .venv/bin/python tests/bench/bench_model_lead.py [--limit N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from citavial.build.golden import load_golden  # noqa: E402
from citavial.worker.answer.ask import answer  # noqa: E402
from citavial.worker.answer.record import collect  # noqa: E402
from citavial.worker.eval.scoring import score_row, summarize  # noqa: E402
from citavial.worker.http.serve import load_deps  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--json", type=Path, help="also write the figures here (e.g. golden/reports/model-lead.json)")
    args = p.parse_args()
    deps, why, _ = load_deps(ROOT / "dist", model_lead=True)
    if deps is None or deps.model is None:
        sys.exit(f"the model did not load: {why or deps.model_status.reason}")
    plain = replace(deps, model_lead=False)
    qs = [q for q in load_golden(ROOT / "golden" / "golden-v2.jsonl", "dev") if q.answer]
    qs = qs[: args.limit] if args.limit else qs
    out = {}
    for name, d in (("extractive", plain), ("model_lead", deps)):
        rows, kept, retracted, first = [], 0, 0, []
        for q in qs:
            rec = collect(answer(q.question, d))
            rows.append(score_row(q, rec, d.allowlist))
            retracted += len(rec["retractions"])
            kept += 1 if rec["mode"] == "generated" else 0
            if rec["latencies"].get("first_token") is not None:
                first.append(rec["latencies"]["first_token"])
        s = summarize(rows)
        out[name] = {"covers_reference": s["covers_reference"],
                     "first_citation_article": s["first_citation_article"],
                     "answers_with_a_kept_lead": kept, "lead_sentences_retracted": retracted,
                     "first_words_ms_median": statistics.median(first) if first else None,
                     "total_ms_median": statistics.median(r["latency_ms"] or 0 for r in rows)}
        c = s["covers_reference"]
        print(f"{name:<11} covers reference {c['rate']:.3f} {c['ci95']} n={c['n']}; kept leads "
              f"{kept}, retracted lead sentences {retracted}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
