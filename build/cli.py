"""The build's `citavial` subcommands: build, verify-quote, fetch (+ search and eval).

``add_parsers(subparsers)`` registers them; the console script itself is composed in
citavial.worker.cli, because the worker may import the build and never the reverse.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from citavial.build import paths


def _as_of(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--as-of {value!r} is not a date; use YYYY-MM-DD, e.g. 2026-11-29") from None


def _cmd_build(args: argparse.Namespace) -> int:
    from citavial.build.pipeline import build_site
    report = build_site(corpus_dir=args.corpus, out_dir=args.out, as_of=args.as_of,
                        site_src=args.site_src, regulation_only=args.regulation_only,
                        base_url=args.base_url)
    print(report)
    return 0


def _cmd_verify_quote(args: argparse.Namespace) -> int:
    from citavial.build.pipeline import check_one_quote
    ok, message = check_one_quote(args.ref, args.text, corpus_dir=args.corpus,
                                  as_of=args.as_of, site_src=args.site_src)
    print(message, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


def _cmd_fetch(args: argparse.Namespace) -> int:
    from citavial.build.fetch import fetch
    print(fetch(args.boe_id, corpus_dir=args.corpus, base_url=args.base_url, timeout=args.timeout))
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Register the build's subcommands (and search/eval) on the main parser."""
    b = sub.add_parser("build", help="verify the corpus, ingest, render and check the site into dist/")
    b.add_argument("--as-of", type=_as_of, default=date.today(),
                   help="date whose in-force wording is built (YYYY-MM-DD, default: today)")
    b.add_argument("--corpus", type=Path, default=paths.CORPUS)
    b.add_argument("--site-src", type=Path, default=paths.SITE_SRC)
    b.add_argument("--out", type=Path, default=paths.DIST)
    b.add_argument("--regulation-only", action="store_true",
                   help="build only the regulation pages and allowlist, without the guides and "
                        "practice (whose quotes are written for today's wording), e.g. for a "
                        "past --as-of date")
    b.add_argument("--base-url", default="",
                   help="absolute URL the site will be published at, e.g. "
                        "https://autoescuela.example/rgc/: adds canonical links, sitemap.xml "
                        "and OpenGraph URLs (default: none, every URL relative)")
    b.set_defaults(func=_cmd_build)

    v = sub.add_parser("verify-quote", help="check one quote exactly as the build's gate does "
                                            "(exit 0 if it passes, 1 if not)")
    v.add_argument("ref", help="e.g. 'art48.1.a', 'RD-1428/2003#art82.2' or 'artículo 82.2'")
    v.add_argument("text", help="the literal words quoted")
    v.add_argument("--as-of", type=_as_of, default=date.today())
    v.add_argument("--corpus", type=Path, default=paths.CORPUS)
    v.add_argument("--site-src", type=Path, default=paths.SITE_SRC)
    v.set_defaults(func=_cmd_verify_quote)

    f = sub.add_parser("fetch", help="refresh a norm from the BOE open-data API into corpus/")
    f.add_argument("boe_id", help="BOE identifier, e.g. BOE-A-2003-23514")
    f.add_argument("--corpus", type=Path, default=paths.CORPUS)
    f.add_argument("--base-url", default="https://www.boe.es/datosabiertos/api/legislacion-consolidada",
                   help="API base URL (the test suite points it at a local server)")
    f.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    f.set_defaults(func=_cmd_fetch)

    from citavial.build.search_cli import add_parsers as add_search_parsers
    add_search_parsers(sub)
