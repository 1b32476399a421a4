"""Evaluate: the search against the golden set → a deterministic report (and a readable table).

A positive question is found at article level when a hit's unit is the unit of one of its
expected refs, at apartado level when a hit lies in the same apartado (metrics.apartado_key).
recall@k is the share of positives found in the top k. Every channel is scored on its own and
fused; intervals are 95% bootstrap percentiles (fixed seed). The evidence features are scored by
how well they separate positives from negatives (AUC) — the worker's abstention gate reads them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from citavial.build.errors import BuildError
from citavial.build.golden import Question
from citavial.build.golden import load_golden as _load_golden
from citavial.build.index.analyze import fold
from citavial.build.index.eval import metrics as M
from citavial.build.index.query.evidence import FEATURES
from citavial.build.index.query.rankers import Settings
from citavial.build.index.query.search import CHANNELS, Searcher
from citavial.build.refs import Ref

KS = (1, 5, 10, 30)
DEPTH = 30
# The golden validator's near-duplicate rule (token Jaccard >= 0.8 after dropping function
# words), applied between golden questions and hook questions to audit leakage; 0.5 is a
# stricter cut reported alongside.
LEAK_CUTS = (0.8, 0.5)
_GOLDEN_STOP = frozenset("""a al algo algun alguna alguno ante como con cual cuales cuando de
del donde el ella en era es esta este esto ha hay la las le les lo los me mi mis muy ni no o
para pero por que se si sin sobre su sus te tu un una unas uno unos y ya yo""".split())


def load_golden(path: Path, split: str | None = None) -> tuple[Question, ...]:
    """The golden questions of ``path`` (one split, or all with ``split=None``)."""
    path = Path(path)
    if not path.is_file():
        raise BuildError(str(path), "golden file not found", "pass --golden golden/golden-vN.jsonl")
    return _load_golden(path, split)


def _unit_of(searcher: Searcher, ref: str) -> str:
    d = searcher.docs
    i = d.ref_row.get(ref)
    if i is not None:
        return d.units[d.unit_of[i]]
    # A ref not citable in this index: its unit is the longest unit ref that prefixes it.
    r = Ref.parse(ref)
    cands = [u for u in d.units if Ref.parse(u).contains(r)]
    return max(cands, key=len) if cands else ref


def _score_channel(searcher: Searcher, positives: Sequence[Question],
                   rank: Callable[[str], list[tuple[str, str]]]) -> dict[str, Any]:
    """Metrics of one ranking function (question → [(ref, unit_ref)…]) over the positives."""
    firsts: dict[str, list[int]] = {"article": [], "apartado": []}
    ndcgs: dict[str, list[float]] = {"article": [], "apartado": []}
    for q in positives:
        hits = rank(q.question)
        units = [u for _, u in hits]
        aparts = [M.apartado_key(r, u) for r, u in hits]
        rel_u = {_unit_of(searcher, r) for r in q.expected}
        rel_a = {M.apartado_key(r, _unit_of(searcher, r)) for r in q.expected}
        for level, keys, rel in (("article", units, rel_u), ("apartado", aparts, rel_a)):
            firsts[level].append(M.first_hit(keys, rel))
            ndcgs[level].append(M.ndcg(keys, rel, 10))
    out: dict[str, Any] = {"first": firsts}
    for level in ("article", "apartado"):
        f, n = np.array(firsts[level]), np.array(ndcgs[level])
        out[level] = {**M.summarize(f, n, KS),
                      "ci95": {k: list(v) for k, v in M.bootstrap(f, n, KS).items()}}
    return out


def _searcher_ranking(searcher: Searcher, settings: Settings):
    def rank(question: str) -> list[tuple[str, str]]:
        return [(h.ref, h.unit_ref)
                for h in searcher.search(question, k=DEPTH, settings=settings).hits]
    return rank


def channel_settings(base: Settings) -> dict[str, Settings]:
    """Each channel alone (no exact-term bonus), and the index's own fusion."""
    out = {c: replace(base, weights=((c, 1.0),), exact_bonus=0.0, ranker="fusion")
           for c in CHANNELS}
    out["fusion"] = replace(base, weights=(("bm25", 0.0), ("hooks", 1.0), ("vector", 0.5)),
                            ranker="fusion")   # the earlier default, for comparison
    out["default"] = base
    return out


def _abstention(searcher: Searcher, questions: Sequence[Question]) -> dict[str, Any]:
    feats = {q.id: dict(searcher.search(q.question, k=1).evidence) for q in questions}
    pos = [q.id for q in questions if q.kind == "positive"]
    neg = [q.id for q in questions if q.kind == "negative" and q.scored]
    out = {}
    for name in FEATURES:
        p = [feats[i][name] for i in pos]
        n = [feats[i][name] for i in neg]
        out[name] = {"auc": M.auc(p, n), **M.best_threshold(p, n)}
    best = max(FEATURES, key=lambda f: (out[f]["auc"], f))
    return {"features": out, "best": best, "positives": len(pos), "negatives": len(neg)}


def _topics(positives: Sequence[Question], first: dict[str, list[int]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, q in enumerate(positives):
        t = out.setdefault(q.topic, {"n": 0, "article@5": 0, "apartado@5": 0})
        t["n"] += 1
        t["article@5"] += 0 < first["article"][i] <= 5
        t["apartado@5"] += 0 < first["apartado"][i] <= 5
    return {k: {"n": v["n"], "article_recall@5": v["article@5"] / v["n"],
                "apartado_recall@5": v["apartado@5"] / v["n"]} for k, v in sorted(out.items())}


def _tokens(text: str) -> frozenset[str]:
    return frozenset(t for t in re.findall(r"[a-z0-9]+", fold(text).replace("ñ", "n"))
                     if t not in _GOLDEN_STOP)


def nearest_hook(questions: Sequence[Question], hooks: Sequence[str]) -> list[float]:
    """Each question's largest token Jaccard with any hook question."""
    hook_sets = [_tokens(h) for h in hooks]
    out = []
    for q in questions:
        t = _tokens(q.question)
        out.append(max((len(t & h) / len(t | h) for h in hook_sets if t | h), default=0.0))
    return out


def _leakage(positives: Sequence[Question], hooks: Sequence[str],
             first: dict[str, list[int]]) -> dict[str, Any]:
    """Recall@5 on the positives that have no near-duplicate among the hooks."""
    near = nearest_hook(positives, hooks)
    out: dict[str, Any] = {}
    for cut in LEAK_CUTS:
        keep = [i for i, j in enumerate(near) if j < cut]
        out[f"jaccard<{cut}"] = {
            "n": len(keep), "excluded": len(positives) - len(keep),
            **{f"{lv}_recall@5": float(np.mean([0 < first[lv][i] <= 5 for i in keep]))
               if keep else 0.0 for lv in ("article", "apartado")}}
    return out


EXAM_STYLES = ("stem", "situational", "options", "yesno")


def _styles(positives: Sequence[Question], first: dict[str, list[int]]) -> dict[str, Any]:
    """recall@5/@30 per question style, plus "exam" (every style but plain), with intervals."""
    groups = {st: [i for i, q in enumerate(positives) if q.style == st]
              for st in ("plain", *EXAM_STYLES)}
    groups["exam"] = [i for i, q in enumerate(positives) if q.style in EXAM_STYLES]
    out: dict[str, Any] = {}
    for name, idx in groups.items():
        if not idx:
            continue
        entry: dict[str, Any] = {"n": len(idx)}
        for level in ("article", "apartado"):
            f = np.array([first[level][i] for i in idx])
            summary = M.summarize(f, np.zeros(len(f)), (5, 30))
            ci = M.bootstrap(f, np.zeros(len(f)), (5, 30))
            entry[level] = {"recall@5": summary["recall@5"], "recall@30": summary["recall@30"],
                            "ci95@5": list(ci["recall@5"])}
        out[name] = entry
    return out


def evaluate(searcher: Searcher, golden_path: Path, split: str | None = "test") -> dict[str, Any]:
    """The report of ``searcher`` on one split of the golden file (``test`` by default; None for
    all), deterministic (no timings). The static page ranks exactly as ``default`` (tested)."""
    questions = load_golden(golden_path, split)
    positives = [q for q in questions if q.kind == "positive"]
    rankers = {name: _searcher_ranking(searcher, s)
               for name, s in channel_settings(searcher.settings).items()}
    channels = {name: _score_channel(searcher, positives, r) for name, r in rankers.items()}
    fused_first = channels["default"]["first"]
    missing = sorted({r for q in positives for r in q.expected if r not in searcher.docs.ref_row})
    report = {
        "golden": {"file": Path(golden_path).name, "split": split or "all",
                   "questions": len(questions),
                   "positives": len(positives), "negatives": len(questions) - len(positives)},
        "index": {"version": searcher.version, "backend": searcher.backend,
                  "settings": searcher.settings.as_json()},
        "channels": {n: {lv: c[lv] for lv in ("article", "apartado")} for n, c in channels.items()},
        "topics": _topics(positives, fused_first),
        "styles": _styles(positives, fused_first),
        "leakage": _leakage(positives, searcher.docs.hook_questions, fused_first),
        "abstention": _abstention(searcher, questions),
        "missing_refs": missing,
    }
    return _round(report)


def _round(obj: Any) -> Any:
    if isinstance(obj, float):
        return round(obj, 4)
    if isinstance(obj, dict):
        return {k: _round(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_round(v) for v in obj]
    return obj


def table(report: dict[str, Any]) -> str:
    """The report as a readable plain-text table."""
    g, ix = report["golden"], report["index"]
    lines = [f"golden {g['file']} · split {g['split']}: {g['questions']} questions ({g['positives']} positive, "
             f"{g['negatives']} negative) · index {ix['version']} · {ix['backend']}", "",
             f"{'channel':<8} {'level':<9} {'R@1':>6} {'R@5':>6} {'95% CI':>13} {'R@10':>6} "
             f"{'95% CI':>13} {'R@30':>6} {'MRR':>6} {'nDCG10':>7}"]
    for name, ch in report["channels"].items():
        for level in ("article", "apartado"):
            m = ch[level]
            ci5, ci10 = m["ci95"]["recall@5"], m["ci95"]["recall@10"]
            lines.append(f"{name:<8} {level:<9} {m['recall@1']:>6.3f} {m['recall@5']:>6.3f} "
                         f"[{ci5[0]:.3f},{ci5[1]:.3f}] {m['recall@10']:>6.3f} "
                         f"[{ci10[0]:.3f},{ci10[1]:.3f}] {m['recall@30']:>6.3f} "
                         f"{m['mrr']:>6.3f} {m['ndcg@10']:>7.3f}")
    lines += ["", f"{'topic (default)':<28} {'n':>4} {'art R@5':>8} {'apt R@5':>8}"]
    for t, v in report["topics"].items():
        lines.append(f"{t:<28} {v['n']:>4} {v['article_recall@5']:>8.3f} "
                     f"{v['apartado_recall@5']:>8.3f}")
    ab = report["abstention"]
    lines += ["", f"abstention evidence ({ab['positives']} positives vs {ab['negatives']} "
              f"negatives): answer if feature >= threshold",
              f"{'feature':<14} {'AUC':>6} {'threshold':>10} {'TPR':>6} {'FPR':>6}"]
    for f, v in ab["features"].items():
        mark = "  <- best" if f == ab["best"] else ""
        lines.append(f"{f:<14} {v['auc']:>6.3f} {v['threshold']:>10.4f} {v['tpr']:>6.3f} "
                     f"{v['fpr']:>6.3f}{mark}")
    lines += ["", f"{'style (default)':<14} {'n':>4} {'art R@5':>8} {'95% CI':>13} {'art R@30':>9} "
              f"{'apt R@5':>8} {'95% CI':>13}"]
    for st, v in report["styles"].items():
        a, p = v["article"], v["apartado"]
        lines.append(f"{st:<14} {v['n']:>4} {a['recall@5']:>8.3f} [{a['ci95@5'][0]:.3f},"
                     f"{a['ci95@5'][1]:.3f}] {a['recall@30']:>9.3f} {p['recall@5']:>8.3f} "
                     f"[{p['ci95@5'][0]:.3f},{p['ci95@5'][1]:.3f}]")
    lines.append("hooks leakage audit (fused R@5 without golden positives that have a "
                 "near-duplicate hook): " + ", ".join(
                     f"{k}: n={v['n']} article {v['article_recall@5']:.3f} apartado "
                     f"{v['apartado_recall@5']:.3f}" for k, v in report["leakage"].items()))
    if report["missing_refs"]:
        lines.append(f"expected refs not in the index: {', '.join(report['missing_refs'])}")
    return "\n".join(lines)
