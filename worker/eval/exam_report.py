"""The files of `citavial exam`: results.jsonl, summary.json and report.html, written atomically.

Everything is rendered in memory first, then written into a temporary folder beside ``--out``
and renamed into place, so a run that fails (bad bank, a crash, Ctrl-C) leaves the previous
report as it was. report.html is for a teacher, in Spanish: the summary table first, then each
question with its options, its key, what the worker said and the law's words beside it, linked.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from citavial.build.refs import NORMS
from citavial.worker.answer.cite import UNDECIDED
from citavial.worker.eval.exam_bank import ExamItem

TEMPLATE = "exam_report.html"
FILES = ("report.html", "results.jsonl", "summary.json")
SKIPPED_ES = {"needs_image": "necesitan imagen; usa --with-images",
              "refused": "el asistente no las acepta pegadas, p. ej. más de 500 caracteres"}
SCOPE_ES = {"reglamento": "temas del Reglamento (sin scope_hint)",
            "other": "otros temas (con scope_hint)"}
DECLINE_ES = {"not_this_norm": "Esto no lo regula ninguna de las normas que recoge citavial.",
              "unsure": "No lo tengo claro; este es el pasaje que más se acerca:"}


class ReportError(OSError):
    """The report cannot be written where asked (the message names the folder)."""


def base_url(dist: Path) -> str:
    """Where the build says the site is published ('' if built without --base-url): the
    Sitemap line `citavial build --base-url` writes into robots.txt."""
    try:
        lines = (Path(dist) / "robots.txt").read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    for line in lines:
        if line.startswith("Sitemap: ") and line.endswith("sitemap.xml"):
            return line[len("Sitemap: "):-len("sitemap.xml")]
    return ""


def render(items: Sequence[ExamItem], rows: Sequence[dict], summary: dict, out: Path,
           dist: Path, bank: str) -> dict[str, bytes]:
    """The three files' bytes (same input → the same bytes)."""
    results = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
    return {"results.jsonl": results.encode(),
            "summary.json": (json.dumps(summary, ensure_ascii=False, indent=1, sort_keys=True)
                             + "\n").encode(),
            "report.html": _html(items, rows, summary, out, dist, bank).encode()}


def _linker(out: Path, dist: Path):
    base = base_url(dist)
    if base:
        return (lambda url: base + url), f"Los enlaces llevan al sitio publicado en {base}."
    site = os.path.relpath(Path(dist).resolve(), Path(out).resolve().parent / Path(out).name)
    prefix = Path(site).as_posix().rstrip("/") + "/"
    note = (f"Los enlaces son relativos a este informe y llevan al sitio construido en "
            f"{Path(dist).resolve()} (sin --base-url). Para que resalten las palabras citadas, "
            "sírvelo con «citavial serve» y abre el enlace en http://127.0.0.1:8000/, o "
            "construye con «citavial build --base-url …» para enlaces absolutos.")
    return (lambda url: prefix + url), note


def _html(items: Sequence[ExamItem], rows: Sequence[dict], summary: dict, out: Path,
          dist: Path, bank: str) -> str:
    env = Environment(loader=FileSystemLoader(Path(__file__).parent), autoescape=True,
                      undefined=StrictUndefined, keep_trailing_newline=True)
    link, note = _linker(out, dist)
    by_id = {r["id"]: r for r in rows}
    questions = [_question(item, by_id[item.id], link) for item in items if item.id in by_id]
    s = summary
    return env.get_template(TEMPLATE).render(
        bank=bank, n=s["all"]["n"], as_of=s.get("as_of", ""), paste=s.get("paste", ""),
        index=s.get("index", ""), skipped=s["skipped"], skipped_names=SKIPPED_ES,
        interval_es="de Wilson al 95 %", links_note=note, table=_table(s), fmt=fmt,
        latency=s["latency_ms"], invented=s["invented_refs"],
        non_literal=s["non_literal_quotes"],
        labelled=s.get("first_citation_is_labelled_article"), questions=questions)


def _table(s: dict) -> list[tuple[str, dict]]:
    out = [("todas", s["all"])]
    out += [(SCOPE_ES[k], s["by_scope"][k]) for k in SCOPE_ES if k in s["by_scope"]]
    out += [(f"scope_hint {k}", v) for k, v in s["by_scope_hint"].items() if k]
    out += [(f"tier {k or '(ninguno)'}", v) for k, v in s["by_tier"].items()]
    out += [(f"split {k or '(ninguno)'}", v) for k, v in s["by_split"].items()]
    return out


def fmt(r: dict) -> str:
    """``0,27 [0,24–0,31] (81/296)``: rate, interval, count over n; ``—`` when n = 0."""
    if not r or not r["n"]:
        return "—"
    lo, hi = r["ci95"]
    num = lambda x: f"{x:.2f}".replace(".", ",")
    return f"{num(r['rate'])} [{num(lo)}–{num(hi)}] ({r['count']}/{r['n']})"


def _question(item: ExamItem, row: dict, link) -> dict:
    outcome, first = row["outcome"], row["first_citation"]
    if outcome == "named":
        opt = dict(item.options)[row["letter"]]
        said = f"Respuesta: {row['letter']}) {opt}"
        if row["correct"] is not None:
            said += " — coincide con la clave." if row["correct"] else \
                f" — no coincide: la clave es {row['key']})."
        css = "right" if row["correct"] is not False else "wrong"
    elif outcome == "undecided":
        said, css = UNDECIDED, "none"
    else:
        said, css = DECLINE_ES[outcome], "none"
    norm = NORMS[row["norm"]].title if row["norm"] in NORMS else "la norma"
    intro = (f"Las palabras que lo deciden ({norm}):" if outcome == "undecided" else
             f"El pasaje citado ({norm}):" if outcome == "named" else
             "El pasaje que más se acerca (no decide la pregunta):")
    first_link = link(first["span_url"] or first["url"]) if first else ""
    return {"marked": _marked(row, first),"id": item.id, "line": item.line, "question": item.question,
            "options": item.options, "key": item.key,
            "scope": ", ".join(item.scope_hint), "said": said, "css": css,
            "words": row["words"], "words_label": row.get("words_label") or "",
            "words_link": link(row["words_url"]) if row["words_url"] else "",
            "first": first if outcome != "not_this_norm" else None,
            "first_intro": intro, "first_link": first_link}


def _marked(row: dict, first: dict | None) -> tuple[str, str, str] | None:
    """The cited passage split around the deciding words (before, words, after), so that the
    report shows them in their sentence; None when they stand in another passage."""
    words = row["words"]
    if not words or first is None or first["ref"] != row["words_ref"]:
        return None
    at = first["quote"].find(words)
    if at < 0:
        return None
    quote = first["quote"]
    return quote[:at], words, quote[at + len(words):]


def write_report(out: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` into the folder ``out`` all at once: a temporary folder beside it, then
    renames (the old report is moved aside first and removed after). ``out`` must be absent or
    an earlier report: another folder is never replaced."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or {p.name for p in out.iterdir()} - set(FILES)):
        raise ReportError(f"{out}: exists and is not an exam report (it holds other files); "
                          "give --out a new folder or an earlier report's")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as err:
        raise ReportError(f"{out}: cannot create the report folder ({err.strerror}); give "
                          "--out a folder you may write") from None
    try:
        for name in sorted(files):
            (tmp / name).write_bytes(files[name])
            (tmp / name).chmod(0o644)   # world-readable: a report is shared with colleagues
        tmp.chmod(0o755)
        if out.exists():
            old = tmp.with_name(tmp.name + ".old")
            os.rename(out, old)
            os.rename(tmp, out)
            shutil.rmtree(old)
        else:
            os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def human(summary: dict, out: Path) -> str:
    """The short summary printed to stdout."""
    a = summary["all"]
    pct = lambda r: "—" if r["rate"] is None else (
        f"{r['rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] ({r['count']}/{r['n']})")
    lines = [f"citavial exam: {a['n']} questions answered"
             + "".join(f", {k} skipped ({why})" for why, k in summary["skipped"].items())
             + f" · index {summary.get('index', '')} · {summary['interval']}"]
    for name in ("right", "wrong", "undecided", "declined", "precision"):
        lines.append(f"  {name:<10} {pct(a[name])}")
    scope = summary["by_scope"]
    if len(scope) > 1:   # a bank with scope hints: the two kinds of topic apart
        for part, title in (("reglamento", "topics the Reglamento governs (no scope_hint)"),
                            ("other", "other topics (a scope_hint)")):
            s = scope[part]
            lines.append(f"  {title}, n={s['n']}: " + "; ".join(
                f"{name} {pct(s[name])}" for name in ("right", "wrong", "declined")))
    lat = summary["latency_ms"]
    lines.append(f"  time to the answer p50 {lat['p50']} ms, p95 {lat['p95']} ms (n={lat['n']}); "
                 f"invented refs {summary['invented_refs']}; non-literal quotes "
                 f"{summary['non_literal_quotes']}")
    if "first_citation_is_labelled_article" in summary:
        lines.append(f"  first citation is the labelled article "
                     f"{pct(summary['first_citation_is_labelled_article'])}")
    lines.append(f"report: {out / 'report.html'}")
    return "\n".join(lines)
