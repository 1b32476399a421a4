"""Score answers on the golden set the way docs/evaluation.md defines the metrics.

One row per question (``score_row``), then the split's figures with bootstrap 95 % intervals
(``summarize``): abstention false positives (an answerable question not answered) and false
negatives (an unanswerable one answered), first-citation precision (its unit holds an expected
ref), expected apartado among the citations, **answer covers reference** (≥ 60 % of the
reference answer's content stems in what the reader is shown first: the answer text plus the
first citation's quote) with the median length of that text, invented refs and literal quotes.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence

import numpy as np

from citavial.build.golden import Question
from citavial.build.index.eval.metrics import apartado_key
from citavial.build.refs import Ref
from citavial.build.text import stems
from citavial.worker.answer.allowlist import Allowlist

COVER = 0.6
BOOTSTRAP, SEED = 1000, 20261201


def unit_of(ref: str) -> str:
    """The ref of the unit a passage belongs to ("…#art48.1.b" → "…#art48")."""
    return str(Ref.parse(ref).unit)


def covers(reference: str, shown: str) -> bool | None:
    """Whether ``shown`` holds ≥ 60 % of the reference's content stems (None: no reference)."""
    want = set(stems(reference))
    if not want:
        return None
    have = set(stems(shown))
    return len(want & have) / len(want) >= COVER


def score_row(q: Question, record: dict, allowlist: Allowlist) -> dict:
    cits = record["citations"]
    answered = bool(record["answered"])
    first = cits[0] if cits else None
    shown = record["text"] + (" " + first["quote"] if first else "")
    units = {unit_of(r) for r in q.expected}
    aparts = {apartado_key(r, unit_of(r)) for r in q.expected}
    return {
        "id": q.id, "split": q.split, "style": q.style, "kind": q.kind, "answered": answered,
        "outcome": record["outcome"], "covered_by": list(q.covered_by),
        "first_norm": first.get("norm") if first else None,
        "first_ok": first is not None and unit_of(first["ref"]) in units,
        "apartado_ok": any(apartado_key(c["ref"], unit_of(c["ref"])) in aparts for c in cits),
        "covers": covers(q.answer, shown) if answered and q.answer else
        (False if q.answer else None),
        "shown_chars": len(shown) if answered else 0,
        "invented": sum(1 for c in cits if (e := allowlist.get(c["ref"])) is None
                        or e.url != c["url"]),
        "literal": all((e := allowlist.get(c["ref"])) is not None and e.text == c["quote"]
                       and c.get("span", c["quote"]) in c["quote"] for c in cits),
        "latency_ms": (record["latencies"] or {}).get("first_token") or
        (record["latencies"] or {}).get("total"),
    }


def _rate(values: Sequence[bool]) -> dict:
    if not values:
        return {"n": 0, "rate": None, "ci95": None}
    arr = np.asarray(values, dtype=float)
    rng = np.random.default_rng(SEED)
    boots = [float(arr[rng.integers(0, len(arr), len(arr))].mean()) for _ in range(BOOTSTRAP)]
    return {"n": len(arr), "rate": round(float(arr.mean()), 4),
            "ci95": [round(float(np.percentile(boots, 2.5)), 4),
                     round(float(np.percentile(boots, 97.5)), 4)]}


def summarize(rows: Iterable[dict]) -> dict:
    rows = list(rows)
    pos = [r for r in rows if r["kind"] == "positive"]
    neg = [r for r in rows if r["kind"] == "negative" and not r.get("covered_by")]
    other = [r for r in rows if r.get("covered_by")]   # build/golden.py covered_by
    answered = [r for r in pos if r["answered"]]
    with_ref = [r for r in pos if r["covers"] is not None]
    lat = sorted(r["latency_ms"] for r in rows if r["latency_ms"] is not None)
    shown = [r["shown_chars"] for r in answered]
    return {
        "questions": len(rows), "positives": len(pos), "negatives": len(neg),
        "false_abstention": _rate([not r["answered"] for r in pos]),
        "false_answer": _rate([r["answered"] for r in neg]),
        "other_norm": {"n": len(other),
                       "answered": _rate([r["answered"] for r in other]),
                       "first_citation_in_named_norm": _rate(
                           [r["first_norm"] in r["covered_by"] for r in other if r["answered"]])},
        "first_citation_article": _rate([r["first_ok"] for r in answered]),
        "apartado_among_citations": _rate([r["apartado_ok"] for r in answered]),
        "covers_reference": _rate([bool(r["covers"]) for r in with_ref]),
        "shown_chars_median": statistics.median(shown) if shown else None,
        "invented_refs": sum(r["invented"] for r in rows),
        "literal": all(r["literal"] for r in rows),
        "outcomes": {k: sum(1 for r in rows if r["outcome"] == k)
                     for k in sorted({r["outcome"] for r in rows if r["outcome"]})},
        "latency_ms": {"n": len(lat), "p50": _pct(lat, 50), "p95": _pct(lat, 95)},
    }


def _pct(values: list[float], q: int) -> float | None:
    if not values:
        return None
    return round(float(np.percentile(values, q)), 2)
