"""The `citavial` console script: the build's subcommands plus the worker's (serve, ask,
model-setup, calibrate, mcp).

The composition lives here because the worker may import the build, never the reverse. Each
subcommand sets ``func`` to a function of the parsed arguments that returns the exit status.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from citavial.build import cli as build_cli
from citavial.build import paths, search_cli
from citavial.build.errors import BuildError


def _existing_file(value: str) -> Path:
    path = Path(value)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{value!r} is not a file; give the calibration.json "
                                         "that `citavial calibrate --out` wrote")
    return path


def _shared() -> dict[str, argparse.ArgumentParser]:
    """Options several subcommands share, each declared once (argparse parent parsers)."""
    dist = search_cli.dist_option()
    answering = argparse.ArgumentParser(add_help=False)
    answering.add_argument("--no-model", action="store_true", help="never load the language "
                           "model (the default answer path does not use it)")
    answering.add_argument("--model-lead", action="store_true",
                           help="let the model phrase a one-line lead above the extractive "
                                "answer (off by default: it did not help on the dev split)")
    answering.add_argument("--calibration", type=_existing_file, default=None, metavar="FILE",
                           help="calibration.json written by `citavial calibrate` (default: "
                                "the one packaged with the worker)")
    return {"dist": dist, "answering": answering}


def add_parsers(subparsers) -> None:
    shared = _shared()
    s = subparsers.add_parser("serve", help="serve dist/ and the answer API on 127.0.0.1:8000",
                              parents=[shared["dist"], shared["answering"]])
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--rate", type=float, default=20,
                   help="questions per minute per client (0 = unlimited)")
    s.add_argument("--queue", type=int, default=4, help="answers that may wait for the model")
    s.add_argument("--log-questions", action="store_true",
                   help="write each question to the log (debugging only; off by default so "
                        "that students' questions are not recorded)")
    s.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="let pages of this origin use the API (CORS), e.g. "
                        "http://127.0.0.1:9000, or null for the site opened from file://; "
                        "repeatable (default: none — the site served here needs none)")
    s.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a Host name the worker answers to besides IP addresses and "
                        "localhost (against DNS rebinding); repeatable")
    s.set_defaults(func=_cmd_serve)

    a = subparsers.add_parser("ask", help="answer a question (or a file of them) and exit",
                              parents=[shared["dist"], shared["answering"]])
    a.add_argument("question", nargs="?", help="the question, in Spanish")
    a.add_argument("--json", action="store_true", help="print one JSON object")
    a.add_argument("--batch", type=Path, metavar="FILE",
                   help="one question per line in; one JSON object per line out")
    a.set_defaults(func=_cmd_ask)

    m = subparsers.add_parser("model-setup",
                              help="assemble and verify the default model once (set-up)")
    m.add_argument("--path", type=Path, default=None, help="where to write the GGUF")
    m.set_defaults(func=_cmd_model_setup)

    c = subparsers.add_parser("calibrate", help="fit the abstention gate and support threshold "
                              "on the golden set → calibration.json (--out)",
                              parents=[shared["dist"]])
    c.add_argument("--golden", type=Path, default=paths.GOLDEN / "golden-v2.jsonl",
                   help="golden file; only its dev split is read")
    c.add_argument("--labels", type=Path, default=Path(__file__).resolve().parent / "lead" / "support-labels.jsonl")
    c.add_argument("--out", type=Path, default=None, metavar="FILE",
                   help="where to write it (default: $CITAVIAL_CACHE or ~/.cache/citavial/"
                        "calibration.json; never the installed package); serve and ask read "
                        "it with --calibration FILE")
    c.set_defaults(func=_cmd_calibrate)

    e = subparsers.add_parser("exam", help="paste every question of a bank (JSONL or CSV) as a "
                              "student would, and report what the worker names → exam-report/",
                              parents=[shared["dist"]])
    e.add_argument("bank", type=Path, help="the bank: .jsonl (question, options, answer…) or "
                   ".csv (id,question,a,b,c,answer…)")
    e.add_argument("--split", choices=("dev", "test", "all"), default="all",
                   help="only the bank's questions of this split (default all)")
    e.add_argument("--out", type=Path, default=Path("exam-report"),
                   help="report folder (default exam-report/), replaced atomically")
    e.add_argument("--with-images", action="store_true",
                   help="also questions marked needs_image (skipped by default)")
    e.add_argument("--labels", type=Path, default=None, metavar="FILE",
                   help="deciding-article labels (golden/dgt-labels/agreed.jsonl)")
    e.add_argument("--paste", choices=("one-line", "multi-line"), default="one-line",
                   help="how a question is pasted: 'stem a) … b) …' or one option a line")
    e.set_defaults(func=_cmd_exam)

    mc = subparsers.add_parser("mcp", help="serve the verified passages to an MCP client on "
                               "stdio (tools search, get_passage, verify_quote, deep_link)",
                               parents=[shared["dist"]])
    mc.add_argument("--base-url", default="", type=build_cli.base_url_arg,
                    help="where the site is published, e.g. https://example.org/citavial/ "
                         "(default: links relative to the site root)")
    mc.set_defaults(func=_cmd_mcp)


def _cmd_serve(args: argparse.Namespace) -> int:
    from citavial.worker.http.serve import serve
    serve(args.dist, host=args.host, port=args.port, ask_per_minute=args.rate,
          max_waiting=args.queue, load_llm=not args.no_model, model_lead=args.model_lead,
          log_questions=args.log_questions, allowed_origins=tuple(args.allow_origin),
          allowed_hosts=tuple(args.allowed_host), calibration_path=args.calibration)
    return 0


def _cmd_mcp(args: argparse.Namespace) -> int:
    from citavial.worker.mcp.server import serve_stdio
    serve_stdio(args.dist, args.base_url)   # stdout is the protocol: nothing else is printed
    return 0


def _cmd_exam(args: argparse.Namespace) -> int:
    from citavial.worker.eval.exam import main as exam_main
    return exam_main(args)


def _cmd_model_setup(args: argparse.Namespace) -> int:
    from citavial.worker.lead.model import assemble_default, sha256_file
    path = assemble_default(args.path)
    print(f"model ready: {path} (sha256 {sha256_file(path)})")
    return 0


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from citavial.worker.answer.calibration import user_path
    from citavial.worker.eval.calibrate import calibrate
    out = args.out or user_path()
    print(calibrate(args.golden, args.labels, args.dist, out))
    print(f"wrote {out}; start the worker with --calibration {out}")
    return 0


def _cmd_ask(args: argparse.Namespace) -> int:
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    from citavial.worker.http.serve import load_deps
    from citavial.worker.http.validate import InvalidInput, check_question
    if bool(args.question) == bool(args.batch):
        print("citavial ask: give either a question or --batch FILE", file=sys.stderr)
        return 2
    deps, why, _ = load_deps(args.dist, load_llm=not args.no_model, model_lead=args.model_lead,
                             calibration_path=args.calibration)
    if deps is None:
        print(f"citavial ask: cannot answer: {why}", file=sys.stderr)
        return 1
    if args.batch:
        return _batch(args.batch, deps)
    try:
        question = check_question(args.question)
    except InvalidInput as bad:
        print(f"citavial ask: {bad}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(_public(collect(answer(question, deps))), ensure_ascii=False))
        return 0
    _print_human(collect(answer(question, deps)))
    return 0


def _batch(path: Path, deps) -> int:
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    from citavial.worker.http.validate import InvalidInput, check_question
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        print(f"citavial ask: {path}: cannot read ({err}); give a UTF-8 text file, one "
              "question per line", file=sys.stderr)
        return 1
    status = 0
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = _public(collect(answer(check_question(line), deps)))
        except InvalidInput as bad:
            record, status = {"line": lineno, "ok": False, "error": str(bad)}, 1
        print(json.dumps(record, ensure_ascii=False), flush=True)
    return status


NORM_FIELDS = ("norm", "boe_id", "consolidated")   # from the allowlist (cite.norm_fields)

def _public(record: dict) -> dict:
    """The documented CLI record (docs/answers.md, "citavial ask --json")."""
    return {
        "answered": record["answered"], "outcome": record["outcome"], "mode": record["mode"],
        "kind": record["kind"], "text": record["text"], "answer": record["answer"],
        "message": record["message"],
        "citations": [{k: c[k] for k in ("n", "ref", "label", "url", "quote", "span", "span_url",
                                         *NORM_FIELDS) if k in c} for c in record["citations"]],
        "passages": [{k: c[k] for k in ("n", "ref", "label", "url", "quote", *NORM_FIELDS)}
                     for c in record["passages"]],
        "retracted": len(record["retractions"]), "latencies": record["latencies"],
        "model": record["model"], "prompt": record["prompt"],
        "index_version": record["index_version"],
    }


def _print_human(record: dict) -> None:
    if not record["answered"]:
        print(record["message"])
        for c in record["passages"]:
            print(f"\n[{c['n']}] {c['label']} — {c['url']}\n    «{c['quote']}»")
        return
    _print_option(record)
    for c in record["citations"]:
        print(f"\n[{c['n']}] {c['label']} — {c.get('span_url', c['url'])}\n    «{c['quote']}»")
    if record["retractions"]:
        print(f"\n({len(record['retractions'])} frase(s) retirada(s) por falta de respaldo)")


def _print_option(record: dict) -> None:
    """The chosen option first ("Respuesta: b) …") with the words that decide it and their
    link, then the answer; "No puedo elegir…:" before the answer's words otherwise."""
    from citavial.worker.answer.record import shown_text
    option = (record["answer"] or {}).get("option")
    if not option:
        print(record["text"])
        return
    if option["letter"]:
        print(f"Respuesta: {option['letter']}) {option['text']}")
        if option["words"]:
            print(f"  «{option['words']}» — {option['url']}")
    else:
        print(option["text"])
    print(shown_text({**record["answer"], "option": None}))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="citavial", description="Spanish traffic law for the "
                                "driving-theory exam (Reglamento General de Circulación, Ley "
                                "sobre Tráfico, Reglamentos de Vehículos y de Conductores) as a "
                                "verified static site, and its answer worker.")
    sub = p.add_subparsers(dest="command", required=True)
    build_cli.add_parsers(sub)
    add_parsers(sub)
    return p


def one_blas_thread() -> None:
    """One OpenBLAS thread unless the user set otherwise; called before numpy is imported (no
    command's module imports it at load). The worker's products are a question's vector against
    the passages' and hooks' (matrix-vector), which BLAS threads only slow down on a small
    machine: the exam on the real bank's test split, p50 63 -> 28 ms, p95 206 -> 131 ms, CPU
    11.9 -> 6.1 s (n=2 each, load 5-10); a --no-cache build's CPU is unchanged."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> int:
    one_blas_thread()
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except BuildError as err:
        print(f"citavial: error: {err}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # `citavial search … | head`: the reader left; say nothing more, and keep Python from
        # complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141   # 128 + SIGPIPE, as a shell reports a command killed by a closed pipe


def console() -> None:
    """`citavial` as installed (the console script): ``main``; after a build that succeeded,
    the process ends without the interpreter's teardown, which frees the build's objects one
    by one (~0.15 s of a cold build's ~6 s). Its output is flushed first, and the build has
    joined its threads and ended its children by then."""
    argv = sys.argv[1:]
    code = main(argv)
    if code == 0 and argv[:1] == ["build"]:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    sys.exit(code)


if __name__ == "__main__":
    console()
