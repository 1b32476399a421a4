"""`citavial search` and `citavial eval`: the prebuilt index (dist/index/) from the command line.

build/cli.py registers them with ``add_parsers(subparsers)``. Both read what `citavial build`
wrote; neither re-indexes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from citavial.build import paths
from citavial.build.atomic import write_text
from citavial.build.errors import BuildError
from citavial.build.models import SearchResult, SignEntry
from citavial.build.refs import NORMS, Ref

GOLDEN_DIR = paths.GOLDEN


JSON_SCHEMA = """--json prints one object (--batch: one per line, without "text"):
  {"query": str, "backend": str, "index_version": str,
   "results": [{"rank": int (1-based), "ref": "RD-1428/2003#art48.1.a",
                "unit_ref": "RD-1428/2003#art48", "label": "Artículo 48",
                "norm": the ref's norm prefix ("RD-1428/2003", "RDL-6/2015", …),
                "url": deep link relative to the site root (from dist/allowlist.json),
                "score": float (higher is better; comparable within one query only),
                "channels": {"bm25": int, "vector": int, "hooks": int} (each channel's rank of
                            this passage, 0 = not ranked; diagnostic),
                "text": the passage's exact text}],
   "signs": [{"code": "R-101", "name": str, "name_in_force": bool (false: the name comes from
              the previous catalogue and is not a quote), "url": "senales.html#senal-R-101",
              "definition": ref or "", "mentions": [ref], "match": "code" | "family" |
              "name" | "partial"}] (signs the question names; shown above the passages),
   "evidence": {feature: float} (what the worker's abstention gate reads)}"""

PREVIOUS = "nombre del catálogo anterior"   # a vertical sign's name is not in-force text
IN_FORCE = "definida en el texto en vigor"


def latest_golden(golden_dir: Path = GOLDEN_DIR) -> Path:
    """The highest golden-vN.jsonl (later versions contain the earlier ones)."""
    found = sorted(((int(m.group(1)), p) for p in Path(golden_dir).glob("golden-v*.jsonl")
                    if (m := re.fullmatch(r"golden-v(\d+)\.jsonl", p.name))))
    if not found:
        raise BuildError(str(golden_dir), "has no golden-vN.jsonl file",
                         "pass --golden FILE")
    return found[-1][1]


def result_json(result: SearchResult, with_text: bool = False) -> dict[str, Any]:
    """One result as the JSON the --json and --batch outputs print."""
    hits = []
    for h in result.hits:
        hit = {"rank": h.rank, "ref": h.ref, "unit_ref": h.unit_ref, "url": h.url,
               "score": h.score, "label": h.label, "channels": dict(h.channels),
               "norm": Ref.parse(h.ref).norm}
        if with_text:
            hit["text"] = h.text
        hits.append(hit)
    signs = [{"code": g.sign.code, "name": g.sign.name, "name_in_force": g.sign.name_in_force,
              "url": g.sign.url, "definition": g.sign.definition,
              "mentions": list(g.sign.mentions), "match": g.how} for g in result.signs]
    return {"query": result.query, "backend": result.backend,
            "index_version": result.index_version, "results": hits, "signs": signs,
            "evidence": dict(result.evidence)}


def sign_line(sign: SignEntry) -> str:
    """"Señal R-101 · Entrada prohibida (nombre del catálogo anterior)" — the same words as
    the static search page."""
    kind = "Marca vial" if sign.code.startswith("M-") else "Señal"
    return (f"{kind} {sign.code} · {sign.name} "
            f"({IN_FORCE if sign.name_in_force else PREVIOUS})")


def _load(dist: Path):
    from citavial.build.index.query.retriever import load_retriever
    return load_retriever(dist)


def _print_human(result: SearchResult, out: TextIO) -> None:
    for g in result.signs:
        print(f" ▸ {sign_line(g.sign)}\n    {g.sign.url}", file=out)
    print(f"{len(result.hits)} resultados · {result.backend} · índice {result.index_version}",
          file=out)
    for h in result.hits:
        text = h.text if len(h.text) <= 160 else h.text[:157].rsplit(" ", 1)[0] + "…"
        norm = NORMS[Ref.parse(h.ref).norm].title
        print(f"{h.rank:>2}. {h.label} ({norm}) — {h.ref}  ({h.score:.4f})\n    {h.url}\n"
              f"    {text}", file=out)


def _cmd_search(args: argparse.Namespace) -> int:
    if (args.question is None) == (args.batch is None):
        raise BuildError("citavial search", "needs either a question or --batch FILE "
                         "(not both)", 'run `citavial search "pregunta"` or '
                         "`citavial search --batch preguntas.txt`")
    retriever = _load(args.dist)
    if args.batch is not None:
        lines = _read_batch(args.batch)
        for q in lines:
            print(json.dumps(result_json(retriever.search(q, k=args.k)), ensure_ascii=False,
                             sort_keys=True))
        return 0
    result = retriever.search(args.question, k=args.k)
    if args.json:
        print(json.dumps(result_json(result, with_text=True), ensure_ascii=False,
                         sort_keys=True, indent=2))
    else:
        _print_human(result, sys.stdout)
    return 0


def _read_batch(path: str) -> list[str]:
    if path == "-":
        text = sys.stdin.read()
    else:
        p = Path(path)
        if not p.is_file():
            raise BuildError(str(p), "batch file not found",
                             "pass a text file with one question per line (or - for stdin)")
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise BuildError(str(p), f"is not UTF-8 text ({err.reason} at byte {err.start})",
                             "save it as UTF-8, one question per line") from None
    return [line.strip() for line in text.splitlines() if line.strip()]


def _cmd_eval(args: argparse.Namespace) -> int:
    from citavial.build.index.eval.retrieval import evaluate, table
    from citavial.build.index.hooks import index_dir_for
    from citavial.build.index.query.search import Searcher
    golden = args.golden or latest_golden()
    searcher = Searcher.load(Path(args.dist) / index_dir_for(args.split))
    split = None if args.split == "all" else args.split
    report = evaluate(searcher, golden, split=split)
    if args.json:
        write_text(Path(args.json), json.dumps(report, ensure_ascii=False, sort_keys=True,
                                               indent=2) + "\n")
    print(table(report))
    return 0


def _k(value: str) -> int:
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"-k {value!r} is not a number; use e.g. -k 10") from None
    if not 1 <= k <= 100:
        raise argparse.ArgumentTypeError(f"-k {k} is out of range; use 1 to 100")
    return k


def dist_option() -> argparse.ArgumentParser:
    """``--dist``, declared once for every subcommand that reads the built site (search, eval
    and the worker's): an argparse parent parser."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--dist", type=Path, default=paths.DIST,
                        help="site built by `citavial build` (default: dist/)")
    return parent


def add_parsers(subparsers: Any) -> None:
    """Register `search` and `eval` on build/cli.py's subparsers."""
    dist = dist_option()
    s = subparsers.add_parser(
        "search", help="search the prebuilt index in dist/", parents=[dist],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=JSON_SCHEMA)
    s.add_argument("question", nargs="?", help="a question or words, in Spanish")
    s.add_argument("-k", type=_k, default=10, help="number of results (1-100, default 10)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.add_argument("--batch", metavar="FILE",
                   help="one question per line (- for stdin) → one JSON object per line")
    s.set_defaults(func=_cmd_search)

    e = subparsers.add_parser("eval", help="evaluate the search on the golden set",
                              parents=[dist])
    e.add_argument("--golden", type=Path, default=None,
                   help="golden JSONL file (default: the latest golden/golden-vN.jsonl)")
    e.add_argument("--split", choices=("test", "dev", "all"), default="test",
                   help="golden split to score (default: test, the sealed split; dev is "
                        "in-sample — everything is tuned on it; dev and all read the "
                        "dev-clean index, dist/index-dev/)")
    e.add_argument("--json", metavar="OUT", help="also write the full report as JSON to OUT")
    e.set_defaults(func=_cmd_eval)
