"""Dump a Markdown-ingested norm's passages with their refs (for labellers and tests).

    python -m citavial.build.ingest.markdown dump RDL-6/2015 [--corpus corpus] [--json]

One line per passage: ``ref<TAB>text`` (tables: their cells in order), or JSON lines with ref,
unit, kind and text. Output is deterministic (document order).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from citavial.build.corpus.norms import verify_norms
from citavial.build.errors import BuildError
from citavial.build.ingest.markdown import ingest_norm
from citavial.build.ingest.markdown.norms import NORMS
from citavial.build.models import Regulation
from citavial.build.paths import CORPUS

# The copies have no per-date history; the date is recorded only.
_AS_OF = date(2026, 8, 7)


def passages(reg: Regulation) -> Iterator[dict[str, str]]:
    for unit in reg.units:
        for b in unit.passages:
            assert b.ref is not None
            yield {"ref": b.ref, "unit": unit.ref, "kind": b.kind, "text": b.text}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m citavial.build.ingest.markdown",
                                     description="Dump a norm's passages with their refs.")
    sub = parser.add_subparsers(dest="command", required=True)
    dump = sub.add_parser("dump", help="one passage per line: ref, tab, text")
    dump.add_argument("norm", choices=sorted(NORMS))
    dump.add_argument("--corpus", type=Path, default=CORPUS, help="corpus directory")
    dump.add_argument("--json", action="store_true", help="JSON lines instead of ref<TAB>text")
    args = parser.parse_args(argv)
    try:
        reg = ingest_norm(verify_norms(args.corpus)[args.norm], _AS_OF)
    except (BuildError, KeyError) as exc:
        print(f"citavial: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    try:
        for p in passages(reg):
            out.write(json.dumps(p, ensure_ascii=False) + "\n" if args.json
                      else f"{p['ref']}\t{p['text']}\n")
        out.flush()
    except BrokenPipeError:      # `… dump RDL-6/2015 | head`: the reader stopped, not an error
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python's documented SIGPIPE recipe
    return 0
