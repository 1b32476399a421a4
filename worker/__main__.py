"""`python -m citavial.worker`: the same as `citavial serve` (same options)."""

from __future__ import annotations

import argparse
import sys

from citavial.worker.cli import add_parsers, one_blas_thread


def main(argv: list[str] | None = None) -> int:
    one_blas_thread()
    parser = argparse.ArgumentParser(prog="python -m citavial.worker")
    sub = parser.add_subparsers(dest="command")
    add_parsers(sub)
    args = parser.parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
