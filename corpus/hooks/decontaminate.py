#!/usr/bin/env python3
"""Write a new hooks version without the questions that come near golden questions.

Usage:
    .venv/bin/python corpus/hooks/decontaminate.py corpus/hooks/hooks-v2.jsonl \\
        golden/golden-v2.jsonl corpus/hooks/hooks-v3.jsonl --splits test,dev

A hook question is dropped when it is within validate.py's DECONTAMINATION_JACCARD of any
question of the given splits (its stem alone or with its options); a line left without
questions is dropped. Nothing else changes: order, refs and the remaining questions are kept,
so the output is a subset of the input and the run is deterministic. Written atomically.
"""
import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validate import DECONTAMINATION_JACCARD, golden_questions, nearest, token_index  # noqa: E402

from citavial.build.atomic import write_text  # noqa: E402


def decontaminate(hooks_path, golden_path, splits):
    """(kept lines, dropped questions) of ``hooks_path``."""
    golden, jaccard, normalize_tokens = golden_questions(golden_path, splits)
    by_token = token_index(golden)
    lines, dropped = [], []
    with open(hooks_path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            obj = json.loads(line)
            keep = []
            for q in obj["questions"]:
                near = nearest(q, golden, jaccard, normalize_tokens, by_token)
                (dropped.append((q, near[1])) if near[0] >= DECONTAMINATION_JACCARD
                 else keep.append(q))
            if keep:
                lines.append(json.dumps({**obj, "questions": keep}, ensure_ascii=False))
    return lines, dropped


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("hooks")
    ap.add_argument("golden")
    ap.add_argument("out")
    ap.add_argument("--splits", default="test,dev")
    args = ap.parse_args(argv)
    if os.path.abspath(args.out) == os.path.abspath(args.hooks):
        sys.exit(f"{args.out}: refusing to overwrite the input; write a new version")
    lines, dropped = decontaminate(args.hooks, args.golden, tuple(args.splits.split(",")))
    write_text(Path(args.out), "\n".join(lines) + "\n")
    print(f"{args.out}: {len(lines)} lines kept, {len(dropped)} questions dropped "
          f"(Jaccard >= {DECONTAMINATION_JACCARD} to a {args.splits} question)")


if __name__ == "__main__":
    main()
