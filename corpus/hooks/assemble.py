#!/usr/bin/env python3
"""Assemble a hooks file from blind writers' outputs, mechanically.

Usage:
    .venv/bin/python corpus/hooks/assemble.py OUT WRITER.jsonl [WRITER.jsonl ...] \\
        --known corpus/hooks/hooks-v2.jsonl

Writers' files are in the hooks format ({"ref", "questions"}), in passage order. For each
question, in order:

* a question pasted with its options keeps its stem line only: the wrong options would lend
  their words to the passage;
* a stem ending in ":" is written with "..." and a question typed without "?" gets one — the
  forms validate.py accepts; the ranking ignores punctuation, the words stay the writer's;
* a question already in a --known file or earlier in the output (compared as validate.py
  compares) is dropped.

Then run decontaminate.py on OUT. Deterministic; written atomically.
"""
import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validate import norm  # noqa: E402

from citavial.build.atomic import write_text  # noqa: E402


def file_form(question):
    """The question as the hooks format writes it (stem line, "..." or "?" at the end)."""
    q = question.strip().splitlines()[0].strip()
    if q.endswith(":"):
        return q[:-1].rstrip() + "..."
    if q.endswith(("?", "...", "…")):
        return q
    return q.rstrip(".") + "?"


def assemble(writers, known_files):
    """(output lines, questions dropped as duplicates)."""
    seen = set()
    for path in known_files:
        with open(path, encoding="utf-8") as f:
            seen.update(norm(q) for line in f if line.strip()
                        for q in json.loads(line)["questions"])
    lines, dropped = [], 0
    for path in writers:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                obj, keep = json.loads(line), []
                for q in obj["questions"]:
                    q = file_form(q)
                    if norm(q) in seen:
                        dropped += 1
                        continue
                    seen.add(norm(q))
                    keep.append(q)
                if keep:
                    lines.append(json.dumps({"ref": obj["ref"], "questions": keep},
                                            ensure_ascii=False))
    return lines, dropped


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("writers", nargs="+")
    ap.add_argument("--known", nargs="*", default=[],
                    help="published hooks files whose questions are not repeated")
    args = ap.parse_args(argv)
    lines, dropped = assemble(args.writers, args.known)
    write_text(Path(args.out), "\n".join(lines) + "\n")
    print(f"{args.out}: {len(lines)} lines, {sum(len(json.loads(x)['questions']) for x in lines)}"
          f" questions ({dropped} duplicates dropped)")


if __name__ == "__main__":
    main()
