"""Benchmark: the prior of another norm's passages in the ranking (lexical.OTHER_NORM_PRIOR).

For each prior, builds the dev-clean index of all four norms in a temporary folder (the build's
own passages and hooks) and prints, with n: the golden dev split's article recall@1/@5 (the
Reglamento's questions: a prior must not cost them), and on the real DGT bank's dev split the
labelled deciding article's recall@1/@5 (the Reglamento's labels, and those over the four
norms: golden/dgt-labels/agreed-norms.jsonl) and how many questions with a licence/points,
sanctions or ITV/papers hint, and how many with a first-aid/mechanics/human-factors hint, get
another norm's passage first. Asserts nothing; dev only (the choice is made here). The bank is
third-party data read at run time from ../shared/eval/; without it only the golden line prints.

    .venv/bin/python tests/bench/bench_norm_prior.py [--priors 0.5,0.65,0.8,1.0] [--dist dist]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from citavial.build.index.collect import collect  # noqa: E402
from citavial.build.index.eval.retrieval import evaluate  # noqa: E402
from citavial.build.index.hooks import DEV_INDEX_DIR, promoted_hooks  # noqa: E402
from citavial.build.index.make import build_index  # noqa: E402
from citavial.build.index.query import lexical  # noqa: E402
from citavial.build.index.query.search import Searcher  # noqa: E402
from citavial.build.ingest import load_regulation  # noqa: E402
from citavial.build.ingest.markdown import load_norms  # noqa: E402
from citavial.build.models import NORM  # noqa: E402
from citavial.build.refs import Ref  # noqa: E402
from citavial.worker.eval.exam_bank import ONE_LINE, load_bank, paste  # noqa: E402

BANK = ROOT.parent / "shared" / "eval" / "dgt-bank.jsonl"
LABELS = ROOT / "golden" / "dgt-labels" / "agreed.jsonl"
NORM_LABELS = ROOT / "golden" / "dgt-labels" / "agreed-norms.jsonl"   # over the four norms
GOLDEN = ROOT / "golden" / "golden-v2.jsonl"
OTHER_NORM_HINTS = {"licence_points", "sanctions", "vehicle_docs_itv_insurance"}


def _article(ref: str) -> str:
    return str(Ref.parse(ref).unit)   # as the labels' articles (golden/dgt-labels/agree.py)


def _bank_figures(searcher: Searcher, items, labels: dict, norm_labels: dict) -> Counter:
    c: Counter = Counter()
    for item in items:
        hits = searcher.search(paste(item, ONE_LINE), 30).hits
        arts = list(dict.fromkeys(_article(h.ref) for h in hits))
        nl = norm_labels.get(item.id)
        if nl and nl["agree"] == "article":
            gold = set(nl["articles"])
            c["norm_labelled"] += 1
            c["n_r1"] += bool(gold & set(arts[:1]))
            c["n_r5"] += bool(gold & set(arts[:5]))
        lab, hints = labels.get(item.id), set(item.scope_hint)
        first_other = bool(hits) and Ref.parse(hits[0].ref).norm != NORM
        if lab and lab["agree"] == "article":
            gold = set(lab["articles"])
            c["labelled"] += 1
            c["r1"] += bool(gold & set(arts[:1]))
            c["r5"] += bool(gold & set(arts[:5]))
        if hints & OTHER_NORM_HINTS:
            c["norm_hint"] += 1
            c["norm_hint_other"] += first_other
        elif hints:
            c["no_norm_hint"] += 1
            c["no_norm_hint_other"] += first_other
    return c


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--priors", default="0.5,0.65,0.8,1.0")
    p.add_argument("--dist", type=Path, default=ROOT / "dist", help="a built site (its urls)")
    p.add_argument("--bank", type=Path, default=BANK)
    args = p.parse_args()
    corpus = ROOT / "corpus"
    allow = json.loads((args.dist / "allowlist.json").read_text(encoding="utf-8"))
    as_of = __import__("datetime").date.fromisoformat(allow["as_of"])
    regs = (load_regulation(corpus, as_of), *load_norms(corpus, as_of).values())
    passages = tuple(p for reg in regs for p in collect(reg))
    urls = {e["ref"]: e["url"] for e in allow["entries"]}
    items, labels, norm_labels = [], {}, {}
    if args.bank.is_file():
        items = [i for i in load_bank(args.bank) if i.split == "dev" and not i.needs_image]
        labels = {o["id"]: o for o in map(json.loads, LABELS.read_text("utf-8").splitlines())}
        norm_labels = {o["id"]: o for o in map(json.loads,
                                                NORM_LABELS.read_text("utf-8").splitlines())}
    else:
        print(f"{args.bank} not found: the real bank's figures are skipped")
    print(f"norm prior sweep · {len(passages)} passages of {len(regs)} norms · dev only")
    for prior in (float(x) for x in args.priors.split(",")):
        lexical.OTHER_NORM_PRIOR = prior
        with tempfile.TemporaryDirectory() as tmp:
            build_index(passages, urls, promoted_hooks(corpus, dev_clean=True), Path(tmp),
                        index_dir=DEV_INDEX_DIR, static=False)
            searcher = Searcher.load(Path(tmp) / DEV_INDEX_DIR)
            g = evaluate(searcher, GOLDEN, split="dev")
            art = g["channels"]["default"]["article"]
            line = (f"prior {prior:.2f}: golden dev article R@1 {art['recall@1']} "
                    f"R@5 {art['recall@5']} (n={g['golden']['positives']})")
            if items:
                c = _bank_figures(searcher, items, labels, norm_labels)
                line += (f" | bank dev labelled article R@1 {c['r1'] / c['labelled']:.3f} "
                         f"R@5 {c['r5'] / c['labelled']:.3f} (n={c['labelled']}); another "
                         f"norm first: norm hint {c['norm_hint_other']}/{c['norm_hint']}, "
                         f"no-norm hint {c['no_norm_hint_other']}/{c['no_norm_hint']} | four-norm "
                         f"labels R@1 {c['n_r1'] / max(1, c['norm_labelled']):.3f} R@5 "
                         f"{c['n_r5'] / max(1, c['norm_labelled']):.3f} (n={c['norm_labelled']})")
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
