"""`citavial exam BANK`: paste every question of a bank into the worker and score what it says.

For a driving school checking its own bank before class, and for us measuring on real exam
questions. Each question is pasted as a student pastes it (exam_bank.paste), answered in
process by the one answer path (worker/answer.py) and folded into one row (``score``):

    named          the worker answered and named an option (the cited words state it)
    undecided      it answered with the deciding words but could not choose an option
    not_this_norm  none of the four norms covered governs the topic (``not_regulated``)
    unsure         it did not find words that answer (``unsure``, or a sign without a rule)

``summarize`` turns the rows into rates with 95 % Wilson score intervals, overall and per
``scope_hint`` value, ``tier`` and ``split``. exam_report.py writes the files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from citavial.worker.answer.allowlist import Allowlist
from citavial.worker.eval.exam_bank import ONE_LINE, ExamItem, paste
from citavial.worker.eval.scoring import unit_of
from citavial.worker.http.validate import InvalidInput, check_question

NAMED, UNDECIDED, NOT_THIS_NORM, UNSURE = "named", "undecided", "not_this_norm", "unsure"
OUTCOMES = (NAMED, UNDECIDED, NOT_THIS_NORM, UNSURE)
Z95 = 1.959963984540054   # the normal quantile of 0.975
INTERVAL = "Wilson score interval, 95 %"


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of k successes in n (None for n = 0). Five lines of arithmetic:
    not worth a statistics dependency."""
    if n <= 0:
        return None
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def rate(k: int, n: int) -> dict:
    ci = wilson(k, n)
    return {"count": k, "n": n, "rate": round(k / n, 4) if n else None,
            "ci95": list(ci) if ci else None}


def outcome_of(record: dict) -> str:
    if record["outcome"] == "not_regulated":
        return NOT_THIS_NORM
    if not record["answered"]:
        return UNSURE
    option = (record["answer"] or {}).get("option")
    return NAMED if option and option["letter"] else UNDECIDED


def check_items(items: Sequence[ExamItem], mode: str) -> tuple[list[ExamItem], list[dict]]:
    """(the items the worker accepts pasted, the refused ones with the reason)."""
    kept, refused = [], []
    for item in items:
        try:
            check_question(paste(item, mode))
        except InvalidInput as why:
            refused.append({"id": item.id, "line": item.line, "reason": str(why)})
        else:
            kept.append(item)
    return kept, refused


def run(items: Sequence[ExamItem], deps, mode: str = ONE_LINE,
        labels: dict[str, list[str]] | None = None, warm_up: int = 3) -> list[dict]:
    """Answer every item in process; one scored row each (file order). The first few are
    answered once before (page cache, first-call costs), so that the timings are the steady
    worker's."""
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    for item in items[:warm_up]:
        collect(answer(paste(item, mode), deps))
    return [score(item, collect(answer(paste(item, mode), deps)), deps.allowlist, labels)
            for item in items]


def score(item: ExamItem, record: dict, allowlist: Allowlist,
          labels: dict[str, list[str]] | None = None) -> dict:
    """One row of results.jsonl (no question text: the bank holds it)."""
    outcome = outcome_of(record)
    option = (record["answer"] or {}).get("option") or {}
    letter = option.get("letter") if outcome == NAMED else None
    cits = record["citations"] or record["passages"]
    first = cits[0] if cits else None
    lat = record["latencies"] or {}
    row = {
        "id": item.id, "line": item.line, "split": item.split, "group": item.group,
        "tier": item.tier, "scope_hint": list(item.scope_hint), "outcome": outcome,
        "worker_outcome": record["outcome"], "letter": letter, "key": item.key,
        "correct": None if item.key is None or outcome != NAMED else letter == item.key,
        "reason": option.get("reason"),
        "words": option.get("words"), "words_ref": option.get("ref"),
        "words_label": (e.label if (e := allowlist.get(option.get("ref") or "")) else None),
        "words_url": option.get("url"), "answer_text": (record["answer"] or {}).get("text"),
        "norm": first.get("norm") if first else None,
        "first_citation": None if first is None else {
            "ref": first["ref"], "label": first["label"], "url": first["url"],
            "quote": first["quote"], "span_url": first.get("span_url"),
            "shown_as": "citation" if record["citations"] else "passage"},
        "latency_ms": lat.get("first_token") or lat.get("total"),
        "invented_refs": _invented(record, allowlist),
        "non_literal_quotes": _non_literal(record, allowlist),
    }
    if labels is not None:
        articles = labels.get(item.id)
        row["labelled_article"] = (None if articles is None or first is None
                                   or not record["citations"] else unit_of(first["ref"]) in articles)
    return row


def _shown(record: dict) -> list[dict]:
    return list(record["citations"]) + list(record["passages"])


def _invented(record: dict, allowlist: Allowlist) -> int:
    """Citations whose ref is not an allowlist entry or whose url is not that entry's, and a
    named option whose deciding words cite a ref the allowlist does not hold."""
    bad = sum(1 for c in _shown(record) if (e := allowlist.get(c["ref"])) is None
              or e.url != c["url"])
    option = (record["answer"] or {}).get("option") or {}
    return bad + (1 if option.get("ref") and allowlist.get(option["ref"]) is None else 0)


def _non_literal(record: dict, allowlist: Allowlist) -> int:
    """Quotes that are not their entry's text, spans not inside their quote, deciding words
    not inside their passage."""
    bad = sum(1 for c in _shown(record) if (e := allowlist.get(c["ref"])) is None
              or e.text != c["quote"] or c.get("span", c["quote"]) not in c["quote"])
    option = (record["answer"] or {}).get("option") or {}
    if option.get("words"):
        e = allowlist.get(option.get("ref") or "")
        bad += 0 if e is not None and option["words"] in e.text else 1
    return bad


def load_labels(path: Path) -> dict[str, list[str]]:
    """id → the labelled deciding articles (unit refs) of the questions both labellers agree
    on (golden/dgt-labels/agreed.jsonl: ``agree: "article"``)."""
    out = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if row.get("agree") == "article":
                out[row["id"]] = list(row["articles"])
    return out


def stats(rows: Sequence[dict]) -> dict:
    """The figures of one group of rows: counts of each outcome; right, wrong (over the keyed
    rows), undecided and declined (over all) as rates; precision = right / (right + wrong)."""
    n = len(rows)
    count = {o: sum(1 for r in rows if r["outcome"] == o) for o in OUTCOMES}
    keyed = [r for r in rows if r["key"] is not None]
    right = sum(1 for r in keyed if r["correct"] is True)
    wrong = sum(1 for r in keyed if r["correct"] is False)
    return {"n": n, "outcomes": count, "keyed": len(keyed),
            "right": rate(right, len(keyed)), "wrong": rate(wrong, len(keyed)),
            "undecided": rate(count[UNDECIDED], n),
            "declined": rate(count[NOT_THIS_NORM] + count[UNSURE], n),
            "precision": rate(right, right + wrong)}


def _by(rows: Sequence[dict], key: Callable[[dict], Iterable[str]]) -> dict:
    groups: dict[str, list[dict]] = {}
    for r in rows:
        for value in key(r):
            groups.setdefault(value, []).append(r)
    return {k: stats(v) for k, v in sorted(groups.items())}


def summarize(rows: Sequence[dict], skipped: dict[str, int] | None = None,
              meta: dict | None = None) -> dict:
    lat = sorted(r["latency_ms"] for r in rows if r["latency_ms"] is not None)
    out = {
        "interval": INTERVAL, "all": stats(rows), "skipped": dict(sorted((skipped or {}).items())),
        "by_scope_hint": _by(rows, lambda r: r["scope_hint"] or [""]),
        "by_scope": _by(rows, lambda r: ["other" if r["scope_hint"] else "reglamento"]),
        "by_tier": _by(rows, lambda r: [r["tier"]]),
        "by_split": _by(rows, lambda r: [r["split"]]),
        "latency_ms": {"n": len(lat), "p50": _pct(lat, 50), "p95": _pct(lat, 95),
                       "what": "time to the answer's words (or the abstention), per question, "
                               "in process"},
        "invented_refs": sum(r["invented_refs"] for r in rows),
        "non_literal_quotes": sum(r["non_literal_quotes"] for r in rows),
        **(meta or {}),
    }
    if rows and "labelled_article" in rows[0]:
        judged = [r["labelled_article"] for r in rows if r["labelled_article"] is not None]
        out["first_citation_is_labelled_article"] = {
            **rate(sum(judged), len(judged)),
            "what": "answered questions with an agreed deciding-article label whose first "
                    "citation lies in a labelled article"}
    return out


def _pct(values: list[float], q: int) -> float | None:
    return round(float(np.percentile(values, q)), 2) if values else None


def main(args) -> int:
    """`citavial exam` (worker/cli.py): 0 after writing the report; 2 on a usage or I/O error,
    with one line naming the file, line and field."""
    import sys

    from citavial.build.index.hooks import DEV_INDEX_DIR, INDEX_DIR
    from citavial.worker.eval.exam_bank import BankError, load_bank
    from citavial.worker.eval.exam_report import ReportError, human, render, write_report
    from citavial.worker.http.serve import load_deps

    def fail(message: str) -> int:
        print(f"citavial exam: {message}", file=sys.stderr)
        return 2

    try:
        items = load_bank(args.bank)
        labels = load_labels(args.labels) if args.labels else None
    except BankError as err:
        return fail(str(err))
    except OSError as err:
        return fail(f"{err.filename}: cannot read ({err.strerror}); give a readable file")
    except (ValueError, KeyError, TypeError) as err:
        return fail(f"{args.labels}: not a labels file ({err}); give lines like "
                    "golden/dgt-labels/agreed.jsonl's")
    chosen = [i for i in items if args.split == "all" or i.split == args.split]
    if not chosen:
        return fail(f"{args.bank}: no question has split {args.split!r}; give --split all")
    skipped = {}
    if not args.with_images:
        skipped["needs_image"] = sum(1 for i in chosen if i.needs_image)
        chosen = [i for i in chosen if not i.needs_image]
    chosen, refused = check_items(chosen, args.paste)
    for r in refused:
        print(f"citavial exam: {args.bank}:{r['line']}: skipped: {r['reason']}", file=sys.stderr)
    skipped["refused"] = len(refused)
    # Our dev split is measured on the dev-clean index (build/index/hooks.py); a school's bank
    # and our test split on the product's.
    index = DEV_INDEX_DIR if any(i.split == "dev" for i in chosen) and args.split != "test" \
        else INDEX_DIR
    deps, why, _ = load_deps(args.dist, load_llm=False, index=index)
    if deps is None:
        return fail(f"{args.dist}: cannot answer ({why}); run `citavial build` first")
    rows = run(chosen, deps, args.paste, labels)
    meta = {"bank": str(args.bank), "split": args.split, "paste": args.paste, "index": index,
            "as_of": deps.allowlist.as_of, "labels": str(args.labels) if args.labels else None,
            "with_images": bool(args.with_images), "refused": refused}
    summary = summarize(rows, {k: v for k, v in skipped.items() if v}, meta)
    files = render(chosen, rows, summary, args.out, args.dist, Path(args.bank).name)
    try:
        write_report(args.out, files)
    except ReportError as err:
        return fail(str(err))
    except OSError as err:
        return fail(f"{args.out}: cannot write the report ({err.strerror}); give --out a "
                    "folder you may write")
    print(human(summary, Path(args.out)))
    return 0
