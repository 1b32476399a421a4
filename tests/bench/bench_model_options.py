"""Benchmark: can the default language model pick a pasted option, given the deciding passage?

Prints figures; asserts nothing. For each question of the real DGT bank's dev split (text-only)
whose deciding passage two blind labellers agree on (golden/dgt-labels/agreed.jsonl), the model
(Gemma 3 270M, as `citavial model-setup` installs it) reads that passage, the question and its
options, and the next-token probabilities of the option letters are compared. This is the model's
best case (the right passage is given). Figures: accuracy, and the precision it would have if it
named an option only above a probability threshold, overall and on yes/no questions.

    .venv/bin/python tests/bench/bench_model_options.py [--bank PATH] [--limit N]

The bank is read from ../shared/eval/ at run time (never copied into the repo); without it the
benchmark says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT.parent / "shared" / "eval" / "dgt-bank.jsonl"
LABELS = ROOT / "golden" / "dgt-labels" / "agreed.jsonl"
# A measurement prompt, not a product prompt: the product never asks the model for a letter.
TEMPLATE = ("Texto del Reglamento General de Circulación:\n{passage}\n\n"
            "Pregunta de examen: {question}\n{options}\n"
            "Según el texto, la opción correcta es la letra")
YESNO = re.compile(r"^\s*(s[ií]|no)\b", re.IGNORECASE)


def letter_probs(llm, prompt: str, letters: list[str]) -> dict[str, float]:
    """Softmax over the next-token logits of the option letters (" a", "a", " A", "A")."""
    import numpy as np
    llm.reset()
    llm.eval(llm.tokenize(prompt.encode("utf-8"), add_bos=True))
    logits = np.asarray(llm.scores[llm.n_tokens - 1], dtype=np.float64)
    best = {}
    for x in letters:
        ids = {t for form in (x, " " + x, x.upper(), " " + x.upper())
               for t in llm.tokenize(form.encode("utf-8"), add_bos=False)[:1]}
        best[x] = max(logits[i] for i in ids)
    top = max(best.values())
    z = {x: math.exp(v - top) for x, v in best.items()}
    total = sum(z.values())
    return {x: v / total for x, v in z.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bank", type=Path, default=BANK)
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args(argv)
    if not args.bank.is_file():
        print(f"skipped: the real DGT bank is not at {args.bank} (evaluation data, not shipped)")
        return 0
    from citavial.worker.lead.model import _llama, default_model_path
    texts = {e["ref"]: e["text"] for e in
             json.loads((args.dist / "allowlist.json").read_text("utf-8"))["entries"]}
    labels = {r["id"]: r for r in map(json.loads, LABELS.read_text("utf-8").splitlines())}
    rows = [q for q in map(json.loads, args.bank.read_text("utf-8").splitlines())
            if q["split"] == "dev" and not q["needs_image"]
            and labels.get(q["id"], {}).get("agree") == "article" and labels[q["id"]]["refs"]]
    rows = rows[:args.limit] if args.limit else rows
    llm = _llama(default_model_path())
    results = []
    for q in rows:
        letters = [k.lower() for k in q["options"]]
        opts = "\n".join(f"{k.lower()}) {v}" for k, v in q["options"].items())
        passage = "\n".join(texts[r] for r in labels[q["id"]]["refs"] if r in texts)
        probs = letter_probs(llm, TEMPLATE.format(passage=passage, question=q["question"],
                                                  options=opts), letters)
        best = max(letters, key=lambda x: (probs[x], x))
        results.append((best == q["answer"].lower(), probs[best],
                        bool(YESNO.match(q["options"][q["answer"]]))))
        if len(results) % 20 == 0:
            print(f"  … {len(results)} questions, accuracy so far "
                  f"{sum(r[0] for r in results) / len(results):.3f}", flush=True)
    n = len(results)
    print(f"model option choice given the labelled deciding passage (dev, n = {n})")
    print(f"  accuracy {sum(r[0] for r in results) / max(1, n):.3f} (chance ≈ 0.35)")
    yn = [r for r in results if r[2]]
    print(f"  yes/no-keyed questions: accuracy {sum(r[0] for r in yn) / max(1, len(yn)):.3f}"
          f" (n = {len(yn)})")
    for thr in (0.5, 0.6, 0.7, 0.8, 0.9):
        sel = [r for r in results if r[1] >= thr]
        right = sum(r[0] for r in sel)
        print(f"  named when p ≥ {thr}: named {len(sel)}, right {right}, precision "
              f"{right / max(1, len(sel)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
