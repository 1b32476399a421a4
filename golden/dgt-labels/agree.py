"""Derive the agreed labels from the two blind labellers' files of each chunk (see README.md).

    .venv/bin/python golden/dgt-labels/agree.py [--check]

Mechanical: two labels agree when both name a passage and share an article, or both say no
passage decides the question. ``agreed.jsonl``: the Reglamento's chunks (``no-rgc``: no passage
of the Reglamento decides it); ``agreed-norms.jsonl``: the ``norms`` chunk, labelled over all
four norms (``none``: no passage of any of them decides it). ``--check`` exits 1 if either file
differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from citavial.build.refs import Ref

HERE = Path(__file__).resolve().parent
CHUNKS = {"devA": "dev", "devB": "dev", "test": "test"}
# Labelled over the four norms; each writer row carries its question's split.
NORM_CHUNKS = {"norms": None}
OUTPUTS = {"agreed.jsonl": (CHUNKS, "no-rgc"), "agreed-norms.jsonl": (NORM_CHUNKS, "none")}


def unit(ref: str) -> str:
    """The unit a passage ref belongs to, as the product rolls refs up (``Ref.unit``):
    ``…#art82.2.b`` → ``…#art82``; annex sections and the Real Decreto's own preceptos keep their
    second part (``…#anexoI.5``, ``…#rd.df1``); a table row is its table (``…#anexoII.r4`` →
    ``…#anexoII``)."""
    return str(Ref.parse(ref).unit)


def _load(path: Path) -> dict[str, dict]:
    return {row["id"]: row for row in map(json.loads, path.read_text("utf-8").splitlines())}


def _names_passage(label: dict) -> bool:
    return label["decides"] != "no" and bool(label["refs"])


def agree(a: dict, b: dict, nothing: str = "no-rgc") -> dict | None:
    if not _names_passage(a) and not _names_passage(b):
        return {"agree": nothing, "refs": [], "articles": []}
    if not _names_passage(a) or not _names_passage(b):
        return None
    units_b = {unit(r) for r in b["refs"]}
    common = [u for u in dict.fromkeys(unit(r) for r in a["refs"]) if u in units_b]
    if not common:
        return None
    return {"agree": "article", "refs": [r for r in a["refs"] if r in b["refs"]],
            "articles": common}


def derive(chunks: dict[str, str | None] = CHUNKS, nothing: str = "no-rgc") -> str:
    rows = []
    for chunk, split in chunks.items():
        a = _load(HERE / "writers" / f"{chunk}-1.jsonl")
        b = _load(HERE / "writers" / f"{chunk}-2.jsonl")
        for qid in a:
            if qid in b and (found := agree(a[qid], b[qid], nothing)) is not None:
                rows.append({"id": qid, "split": split or a[qid]["split"], **found})
    rows.sort(key=lambda r: (r["split"], r["id"]))
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    args = ap.parse_args(argv)
    status = 0
    for name, (chunks, nothing) in OUTPUTS.items():
        text, target = derive(chunks, nothing), HERE / name
        if args.check:
            same = target.is_file() and target.read_text("utf-8") == text
            print(f"{name} is up to date" if same else f"{name} differs: re-run agree.py")
            status |= 0 if same else 1
            continue
        tmp = target.with_suffix(".tmp")
        tmp.write_text(text, "utf-8")
        tmp.replace(target)
        print(f"{text.count(chr(10))} agreed labels → {target}")
    return status


if __name__ == "__main__":
    sys.exit(main())
