"""The build's `citavial` subcommands: build, verify-quote, check, fetch (+ search and eval).

``add_parsers(subparsers)`` registers them; the console script itself is composed in
citavial.worker.cli, because the worker may import the build and never the reverse.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from citavial.build import paths


def _as_of(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--as-of {value!r} is not a date; use YYYY-MM-DD, e.g. 2026-11-29") from None


def base_url_arg(value: str) -> str:
    """The one validator of every ``--base-url`` that says where the site is published (build,
    check --fix-links, mcp): share.normalize_base_url, its refusal as a usage error."""
    from citavial.build.errors import BuildError
    from citavial.build.web.share import normalize_base_url
    try:
        return normalize_base_url(value)
    except BuildError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


@contextmanager
def exit_on_sigterm() -> Iterator[None]:
    """SIGTERM (a cancelled CI job, `timeout`, systemd) raised as SystemExit(143) while a
    command writes: the staging folder and temporary files of the interrupted build or
    --fix-links are removed on the way out (atomic.staged_dir, atomic.write_bytes), where the
    default action stops the process where it stands and leaves them to the next run."""
    if threading.current_thread() is not threading.main_thread():
        yield   # only the main thread may set a handler (a test calling main() in a thread)
        return
    before = signal.signal(signal.SIGTERM, _exit_143)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _exit_143(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def _cmd_build(args: argparse.Namespace) -> int:
    with exit_on_sigterm():
        return _build(args)


def _build(args: argparse.Namespace) -> int:
    import time

    from citavial.build.stagecache import restore_site, site_entry
    started = time.perf_counter(), time.process_time()
    cache_dir = None if args.no_cache else paths.build_cache_root()
    # nothing changed: swap in the cached site before loading the pipeline (~0.5 s of imports)
    entry = site_entry(cache_dir, args.corpus, args.site_src, paths.REPORTS, args.as_of,
                       args.base_url, args.regulation_only)
    report = restore_site(entry[0], entry[2], args.as_of, args.out, started)
    if report is None:
        from citavial.build.ingest.read import begin_tables
        # the PDF tables (poppler, if their committed file is stale) on the core the
        # pipeline's loading leaves idle
        begun = begin_tables(args.corpus, cache_dir, entry[:2])
        from citavial.build.pipeline import build_site
        report = build_site(corpus_dir=args.corpus, out_dir=args.out, as_of=args.as_of,
                            site_src=args.site_src, regulation_only=args.regulation_only,
                            base_url=args.base_url, cache_dir=cache_dir, entry=entry,
                            begun=begun)
    print(report)
    return 0


def _cmd_verify_quote(args: argparse.Namespace) -> int:
    from citavial.build.pipeline import check_one_quote
    ok, message = check_one_quote(args.ref, args.text, corpus_dir=args.corpus,
                                  as_of=args.as_of, site_src=args.site_src)
    print(message, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


def _cmd_fetch(args: argparse.Namespace) -> int:
    if args.tables:
        from citavial.build.ingest.markdown import write_tables
        print(write_tables(args.corpus, args.boe_id))
        return 0
    if args.images:
        from citavial.build.corpus.images import fetch_images
        from citavial.build.corpus.integrity import verify_corpus
        texto = verify_corpus(args.corpus).texto_path
        print(fetch_images(args.boe_id, args.corpus, texto, base_url=args.image_base_url,
                           timeout=args.timeout))
        return 0
    from citavial.build.corpus.fetch import fetch
    print(fetch(args.boe_id, corpus_dir=args.corpus, base_url=args.base_url, timeout=args.timeout))
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    """Exit 0 when every citation passes, 1 when one does not, 2 when the check cannot run."""
    from citavial.build.check import report as out
    from citavial.build.check.notes import CheckUsageError, check_notes, fix_links
    try:
        with exit_on_sigterm():   # the cache's first rendering and --fix-links write
            report, texts = check_notes(args.paths, corpus=args.corpus, site_src=args.site_src,
                                        as_of=args.as_of, cache_dir=args.cache_dir,
                                        base_url=args.base_url, claims=args.claims)
            fixed = fix_links(report, texts, args.base_url) if args.fix_links else {}
    except (CheckUsageError, OSError) as err:
        message = out.printable(f"citavial check: error: {err}")
        print(message, file=sys.stderr)
        if args.format != "human":
            print(out.error_json(message) if args.format == "json" else out.github_error(message),
                  end="")
        return 2
    if fixed:
        from citavial.build.check.notes import settle_fixed
        report = settle_fixed(report, fixed)
    text = {"human": lambda: out.human(report, args.verbose, fixed),
            "json": lambda: out.as_json(report, fixed),
            "github": lambda: out.github(report, fixed)}[args.format]()
    print(text, end="")
    return 1 if report.failed_count or report.claims else 0


def _add_check(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("check", help="verify every citation in Markdown notes with the build's "
                       "gate (exit 0 ok, 1 bad citations, 2 usage or I/O error)")
    c.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                   help="Markdown files, or folders searched for *.md / *.markdown")
    c.add_argument("--format", choices=("human", "json", "github"), default="human",
                   help="human lines (default), one JSON object, or GitHub annotations")
    c.add_argument("--fix-links", action="store_true",
                   help="rewrite each verified citation's link to its proven deep link "
                        "(the ref stays in the link title)")
    c.add_argument("--base-url", default="", type=base_url_arg,
                   help="where the site is published, prefixed to --fix-links links and "
                        "the only absolute links a citation may hold, e.g. "
                        "https://example.org/citavial/ (default: site-relative links only)")
    c.add_argument("--claims", action="store_true",
                   help="also read the sentence around each passing citation against its "
                        "passage: figures and absolutes it does not state (reported apart, "
                        "exit 1)")
    c.add_argument("-v", "--verbose", action="store_true", help="also list passing citations")
    c.add_argument("--as-of", type=_as_of, default=date.today(),
                   help="date whose in-force wording is checked (default: today)")
    c.add_argument("--corpus", type=Path, default=paths.CORPUS)
    c.add_argument("--site-src", type=Path, default=paths.SITE_SRC)
    c.add_argument("--cache-dir", type=Path, default=None,
                   help="rendered-page cache (default: $CITAVIAL_CACHE or ~/.cache/citavial)")
    c.set_defaults(func=_cmd_check)


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
    b.add_argument("--base-url", default="", type=base_url_arg,
                   help="absolute URL the site will be published at, e.g. "
                        "https://autoescuela.example/rgc/: adds canonical links, sitemap.xml "
                        "and OpenGraph URLs (default: none, every URL relative)")
    b.add_argument("--no-cache", action="store_true",
                   help="read and write no build cache (default: reuse the stages whose inputs "
                        "did not change, from $CITAVIAL_BUILD_CACHE or ~/.cache/citavial/build; "
                        "the output is the same bytes either way), e.g. in CI")
    b.set_defaults(func=_cmd_build)

    v = sub.add_parser("verify-quote", help="check one quote exactly as the build's gate does "
                                            "(exit 0 if it passes, 1 if not)")
    v.add_argument("ref", help="e.g. 'art48.1.a', 'RD-1428/2003#art82.2', 'artículo 82.2' or "
                                "another norm's full ref, 'RDL-6/2015#anexoII.r10'")
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
    f.add_argument("--images", action="store_true",
                   help="download the images the corpus text refers to (the sign catalogue) into "
                        "corpus/images/ with their sha256 in corpus/images/MANIFEST.json; the "
                        "text itself is not refetched")
    f.add_argument("--tables", action="store_true",
                   help="read the norm's ruled tables from its PDF in corpus/norms/ with poppler "
                        "into <id>.tables.json beside it (after the PDF, the table reader or "
                        "poppler changed); builds read that file instead of the PDF; nothing "
                        "is downloaded")
    f.add_argument("--image-base-url", default="https://www.boe.es",
                   help="site the /datos/imagenes/ paths are fetched from (tests: a local server)")
    f.set_defaults(func=_cmd_fetch)

    _add_check(sub)

    from citavial.build.search_cli import add_parsers as add_search_parsers
    add_search_parsers(sub)
