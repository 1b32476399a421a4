"""Write the README's "Figures" block from the committed reports (golden/reports/*.json).

    .venv/bin/python docs/figures.py           # rewrite the block between the markers
    .venv/bin/python docs/figures.py --check   # exit 1 if the block is not what the reports say

Every number in the block comes from a report; a report that does not exist shows no line (we
never print a figure that was not measured). The commands that regenerate each report are in
docs/evaluation.md. Standard library only, so it runs before the package is installed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
REPORTS = ROOT / "golden" / "reports"
START = "<!-- figures:start -->"
END = "<!-- figures:end -->"
KNOWN = ("exam.json", "claims.json", "retrieval.json", "answers.json", "browser-links.json",
         "model-lead.json", "search-bytes.json", "search-page.json")


def _load(path: Path) -> dict | None:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SystemExit(f"{path}: not valid JSON ({exc}); regenerate it with the command in "
                         "docs/evaluation.md") from None


def _rate(m: dict) -> str:
    """``0.960 [0.931, 0.984] (n = 247)`` from ``{"rate", "ci95", "n"}``."""
    ci = m.get("ci95")
    interval = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    return f"{m['rate']:.3f}{interval} (n = {m['n']})"


def _count(m: dict) -> str:
    """``0.014 [0.005, 0.035] (4 of 294)`` from ``{"rate", "ci95", "count", "n"}``."""
    if m.get("rate") is None:
        return f"— ({m.get('count', 0)} of {m.get('n', 0)})"
    ci = m["ci95"]
    return f"{m['rate']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}] ({m['count']} of {m['n']})"


def _exam(e: dict) -> list[str]:
    r, o = e["reglamento"], e["other"]
    return [
        f"**Real DGT exam questions** (`tests/bench/bench_exam.py --split {e['split']}`: the real "
        f"bank's {e['split']} split, text-only, pasted in one line; {e['questions']} questions; "
        "extractive, no model; report only):",
        "",
        "| figure | topics the Reglamento governs | other topics | target |",
        "|---|---|---|---|",
        f"| **a wrong option named** | {_count(r['wrong'])} | {_count(o['wrong'])} "
        "| ≤ 0.03 / ≤ 0.02 |",
        f"| the right option named | {_count(r['right'])} | {_count(o['right'])} | ≥ 0.60 |",
        f"| \"no puedo elegir\", with the deciding words | {_count(r['undecided'])} "
        f"| {_count(o['undecided'])} | |",
        f"| declined («no lo regula» or «no lo tengo claro») | {_count(r['declined'])} "
        f"| {_count(o['declined'])} | ≤ 0.10 |",
        f"| right when it names one (precision) | {_count(r['precision'])} "
        f"| {_count(o['precision'])} | ≥ 0.97 |",
        "",
        "Against the deciding article two blind labellers agree on: first citation "
        f"{_count(e['first_citation_is_labelled_article'])}; search article recall@1 "
        f"{_count(e['search_article_recall_at_1'])}, @5 {_count(e['search_article_recall_at_5'])}"
        f". Time to the answer in process p50 {e['latency_ms']['p50']} ms, p95 "
        f"{e['latency_ms']['p95']} ms (n = {e['latency_ms']['n']}); invented refs "
        f"{e['invented_refs']}, non-literal quotes {e['non_literal_quotes']}."
        + _by_label(e.get("reglamento_by_label")),
        "",
        *_other_norms(e.get("other_norms")),
    ]


def _by_label(b: dict | None) -> str:
    if not b:
        return ""
    a, n = b["article"], b["no-rgc"]
    return (" Reglamento topics split by the blind labels: where both labellers name a deciding "
            f"Reglamento article, declined {_count(a['declined'])}, wrong {_count(a['wrong'])}; "
            "where both say no Reglamento article decides it, declined "
            f"{_count(n['declined'])}, wrong {_count(n['wrong'])}.")


def _other_norms(o: dict | None) -> list[str]:
    if not o:
        return []
    return [f"Questions on licences, points, sanctions and vehicle papers, labelled over the four "
            f"norms: search article recall@1 {_count(o['search_article_recall_at_1'])}, @5 "
            f"{_count(o['search_article_recall_at_5'])}.", ""]


def _claims(c: dict) -> list[str]:
    return [f"**`citavial check --claims`** on real-bank pairs (split {c['split']}, "
            f"{c['pairs']} option/passage pairs): a flag is right {_count(c['precision'])}; it "
            f"catches {_count(c['recall'])} of the options that do not follow.", ""]


def _retrieval(r: dict) -> list[str]:
    g, default = r["golden"], r["channels"]["default"]
    art, apt = default["article"], default["apartado"]

    def cell(level: dict, metric: str) -> str:
        ci = level.get("ci95", {}).get(metric)
        return f"{level[metric]:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")

    return [
        f"**Search** on our own golden questions (written from the passages by helpers: a "
        f"regression figure, not a real-exam one; `citavial eval`: {g['file']}, split "
        f"{g['split']}, {g['positives']} answerable questions; index `{r['index']['backend']}`):",
        "",
        "| level | R@1 | R@5 [95% CI] | R@30 | MRR |",
        "|---|---|---|---|---|",
        *(f"| {name} | {lv['recall@1']:.3f} | {cell(lv, 'recall@5')} | {lv['recall@30']:.3f} "
          f"| {lv['mrr']:.3f} |" for name, lv in (("article", art), ("apartado", apt))),
        "",
    ]


ANSWER_ROWS = (
    ("false_abstention", "answerable questions not answered", "≤ 0.10"),
    ("false_answer", "unanswerable questions answered", "≤ 0.10"),
    ("first_citation_article", "first citation in the expected article", "≥ 0.85"),
    ("apartado_among_citations", "expected apartado among the citations", "≥ 0.75"),
    ("covers_reference", "shown answer covers the reference answer", "≥ 0.70"),
)


def _answers(a: dict) -> list[str]:
    al = a["all"]
    lines = [
        f"**Answers** to our own golden questions (a regression figure, as above; "
        f"`tests/bench/bench_answers.py`: split {a['split']}, {al['questions']} "
        f"questions, {al['positives']} answerable, {al['negatives']} not; extractive, no model):",
        "",
        "| figure | rate [95% CI] | target |",
        "|---|---|---|",
    ]
    lines += [f"| {what} | {_rate(al[key])} | {target} |"
              for key, what, target in ANSWER_ROWS if key in al]
    lines.append(f"| invented refs / non-literal quotes | {al['invented_refs']} / "
                 f"{0 if al['literal'] else 'some'} | 0 / 0 |")
    lines.append("")
    p = a.get("practice")
    if p:
        lines += [f"Our own practice bank pasted with its options (written from the passages, "
                  f"like the hooks: a regression figure, not a real-exam one; n = {p['n']}): the right "
                  f"option named in {p['right']}, a wrong one in {p['wrong']}, \"cannot decide\" "
                  f"in {p['undecided']} ({p['accuracy_when_deciding']:.3f} right when it "
                  "decides).", ""]
    return lines


def _links(b: dict) -> list[str]:
    return [f"**Deep links in Chromium** {b['browser']} ({b['date']}, wording of {b['as_of']}): "
            f"{b['checked']} opened, {b['failed']} failed to land on their passage.", ""]


def _lead(m: dict) -> list[str]:
    e, lead = m["extractive"], m["model_lead"]
    return [f"**Model lead** (`tests/bench/bench_model_lead.py`, our own golden questions, "
            f"split dev: in-sample, where it is tuned): covers the reference "
            f"answer {_rate(e['covers_reference'])} extractive, "
            f"{_rate(lead['covers_reference'])} with the lead; "
            f"{lead['answers_with_a_kept_lead']} leads kept, "
            f"{lead['lead_sentences_retracted']} sentences retracted.", ""]


def _search_bytes(s: dict) -> list[str]:
    f = s["first_result"]
    return [f"**Static search bytes** (`tests/bench/bench_search_bytes.py`, {s['questions']} golden "
            f"questions): the first result needs a median {f['gzip_median'] / 1024:.0f} KB gzip "
            f"(p95 {f['gzip_p95'] / 1024:.0f} KB; one script of {s['before_gzip'] / 1024:.0f} KB "
            f"before the shards); {s['first_result_within_budget']} of {f['n']} within "
            f"{s['budget_gzip'] // 1024} KB.", ""]


def _search_page(s: dict) -> list[str]:
    w, m, f = s["warm"], s["memory"], s["first"]
    return [f"**Static search time in Chromium** {s['browser']} (`tests/bench/bench_search_page.py`, "
            f"submit to every result shown, {w['n']} golden questions on one page): the page's own "
            f"work median {m['median_ms']:.1f} ms, p95 {m['p95_ms']:.1f} ms; with the shards each "
            f"question still fetches from `citavial serve`, median {w['median_ms']:.1f} ms, p95 "
            f"{w['p95_ms']:.1f} ms; a first search on a fresh page, median {f['median_ms']:.0f} ms "
            f"(n = {f['n']}).", ""]


def render(reports: Path = REPORTS) -> str:
    """The whole block, markers included."""
    body = ["<!-- generated by `.venv/bin/python docs/figures.py` from golden/reports/*.json: "
            "do not edit by hand -->", ""]
    for name, fn in zip(KNOWN, (_exam, _claims, _retrieval, _answers, _links, _lead,
                                _search_bytes, _search_page), strict=True):
        data = _load(reports / name)
        if data is not None:
            body += fn(data)
    others = sorted(p.name for p in reports.glob("*.json") if p.name not in KNOWN)
    if others:
        body += ["Other reports, not summarised here: "
                 + ", ".join(f"`golden/reports/{n}`" for n in others) + ".", ""]
    return "\n".join([START, *body, END])


def splice(readme: str, block: str) -> str:
    """``readme`` with the text between the markers replaced by ``block``."""
    i, j = readme.find(START), readme.find(END)
    if i < 0 or j < i:
        raise SystemExit(f"{README}: markers {START} … {END} not found (in that order); put "
                         "them where the figures go")
    return readme[:i] + block + readme[j + len(END):]


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if the README's block differs from what the reports say")
    args = ap.parse_args(argv)
    old = README.read_text(encoding="utf-8")
    new = splice(old, render())
    if args.check:
        if new != old:
            print(f"{README}: the figures block is out of date; run "
                  ".venv/bin/python docs/figures.py", file=sys.stderr)
            return 1
        return 0
    if new != old:
        _write_atomic(README, new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
