"""`citavial check` output: human lines, JSON, or GitHub workflow-command annotations.

human   ``file:line:col: ref «quote»: reason`` per failing citation (every citation with
        --verbose), then one summary line — the format compilers use, so editors link it.
json    one object, schema ``citavial-check/1`` (docs/check.md).
github  ``::error file=…,line=…,col=…,title=…::message`` per failure, which GitHub Actions turns
        into annotations on the pull request's diff, then the summary line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from citavial.build.check.claims import ClaimResult
from citavial.build.check.notes import Report, Result
from citavial.build.check.results import MALFORMED, FileResults
from citavial.build.refs import NORMS, Ref, RefError, short_ref

SCHEMA = "citavial-check/1"
FORMATS = ("human", "json", "github")
# Findings of one kind (reason code) listed per file in the human and GitHub reports; the rest
# are summed up in one line (a stranger's note of 200,000 malformed lines made a 38 MB log, and
# GitHub shows only the first few annotations anyway). JSON lists every one; counts and the
# exit status are always exact.
CAP = 20


@dataclass(frozen=True)
class Omitted:
    """The findings of one kind in one file left out by CAP: how many, and the first of them."""

    first: Result
    n: int

    @property
    def message(self) -> str:
        return (f"… and {self.n} more findings of this kind ({self.first.code}) in this file, "
                f"the first at line {self.first.found.citation.line} (--format json lists "
                "every one)")


def listed(files: FileResults, verbose: bool = False) -> Iterator[Result | Omitted]:
    """One file's results to print, in note order: the failures (and with ``verbose`` the
    passing citations), at most CAP of each reason code, then an Omitted line per code cut.
    Only the first CAP + 1 malformed citations are built: the others are only counted."""
    shown: dict[str, int] = {}
    cut: dict[str, list] = {}   # code -> [first omitted, how many]
    for r in files.iter(malformed_limit=CAP + 1):
        if r.ok:
            if verbose:
                yield r
        elif shown.get(r.code, 0) < CAP:
            shown[r.code] = shown.get(r.code, 0) + 1
            yield r
        elif r.code in cut:
            cut[r.code][1] += 1
        else:
            cut[r.code] = [r, 1]
    if MALFORMED in cut:   # judged citations are never malformed: the count is the rows left
        cut[MALFORMED][1] = files.n_malformed - CAP
    for first, n in cut.values():
        yield Omitted(first, n)


# C0/C1 controls (newline, CR, ESC, NEL…), line/paragraph separators and the bidi overrides: a
# note's text must not start a new output line (GitHub Actions acts on any "::warning::" line
# in a job's log), move the terminal cursor, or reorder what the reader sees.
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e"
                         "\u2066-\u2069]")


def printable(s: str) -> str:
    """``s`` on one line with every control character shown as a Python-style escape."""
    return UNPRINTABLE.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), s)


def _ref(result: Result) -> str:
    """The ref as notes write it: the Reglamento's bare (``art82.1``), another norm's whole
    (``RDL-6/2015#art76.a``)."""
    return short_ref(result.found.citation.ref) or "?"


def _norm_fields(report: Report, r: Result) -> dict[str, str]:
    """The cited norm, its BOE id and consolidation date (from the checked corpus); empty
    strings for a ref that names no known norm."""
    try:
        norm = Ref.parse(r.found.citation.ref).norm
    except RefError:
        norm = ""
    boe_id, consolidated = report.sources.get(norm, ("", ""))
    return {"norm": norm if boe_id else "", "boe_id": boe_id, "consolidated": consolidated}


def _message(r: Result) -> str:
    c = r.found.citation
    if r.code == "malformed":
        return r.reason
    return f"{_ref(r)} «{c.quote}»: {r.reason if not r.ok else 'ok → ' + r.url}"


def _source_note(report: Report, r: Result) -> str:
    """" (Ley sobre Tráfico…, BOE-A-2015-11722, consolidated 2026-07-31)" for a GitHub
    annotation: which norm and text the citation was judged against; "" for a ref of no norm."""
    f = _norm_fields(report, r)
    if not f["norm"]:
        return ""
    return f" ({NORMS[f['norm']].title}, {f['boe_id']}, consolidated {f['consolidated']})"


def summary(report: Report, fixed: dict | None = None) -> str:
    n, bad = len(report.results), report.failed_count
    text = (f"citavial check: {n} citation(s) in {len(report.files)} file(s), {n - bad} ok, "
            f"{bad} failed (regulation as of {report.as_of.isoformat()})")
    if fixed:
        text += f"; --fix-links rewrote {sum(fixed.values())} link(s) in {len(fixed)} file(s)"
    if report.claims:
        text += f"; --claims: {len(report.claims)} sentence(s) to read again"
    return text


def _claim(c: ClaimResult) -> str:
    return (f"{c.file}:{c.line}:{c.col}: {short_ref(c.ref)} {c.finding.code.value}: "
            f"{c.finding.reason} — «{c.sentence}»")


def human(report: Report, verbose: bool = False, fixed: dict | None = None) -> str:
    lines = [printable(f"{x.found.citation.file}:{x.found.citation.line}:{x.found.col}: "
                       f"{_message(x)}" if isinstance(x, Result) else
                       f"{x.first.found.citation.file}: {x.message}")
             for f in report.results.files for x in listed(f, verbose)]
    lines += [printable(_claim(c)) for c in report.claims]
    return "\n".join(lines + [printable(summary(report, fixed))]) + "\n"


def as_json(report: Report, fixed: dict | None = None) -> str:
    doc = {
        "schema": SCHEMA, "ok": not report.failed_count, "as_of": report.as_of.isoformat(),
        "files": [str(f) for f in report.files], "checked": len(report.results),
        "failed": report.failed_count,
        "fixed": {str(k): v for k, v in sorted((fixed or {}).items())},
        "results": [{
            "file": r.found.citation.file, "line": r.found.citation.line, "col": r.found.col,
            "ref": _ref(r), "quote": r.found.citation.quote, "form": r.found.form,
            "ok": r.ok, "code": r.code, "reason": r.reason, "url": r.url,
            **_norm_fields(report, r),
        } for r in report.results],
        "claims": [{"file": c.file, "line": c.line, "col": c.col, "ref": short_ref(c.ref),
                    "code": c.finding.code.value, "shown": c.finding.shown,
                    "reason": c.finding.reason, "sentence": c.sentence}
                   for c in report.claims],
    }
    return json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def error_json(message: str) -> str:
    return json.dumps({"schema": SCHEMA, "ok": False, "error": message},
                      ensure_ascii=False) + "\n"


def _escape_data(s: str) -> str:
    # GitHub's workflow-command escaping: data escapes % CR LF; properties also : and ,
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def github(report: Report, fixed: dict | None = None) -> str:
    lines = []
    for x in (x for f in report.results.files for x in listed(f)):
        r = x if isinstance(x, Result) else x.first
        c = r.found.citation
        props = (f"file={_escape_prop(printable(c.file))},line={c.line},col={r.found.col},"
                 f"title={_escape_prop('citavial check: ' + r.code)}")
        message = x.message if isinstance(x, Omitted) else _message(r) + _source_note(report, r)
        lines.append(f"::error {props}::{_escape_data(printable(message))}")
    for claim in report.claims:
        props = (f"file={_escape_prop(printable(claim.file))},line={claim.line},col={claim.col},"
                 f"title={_escape_prop('citavial check --claims: ' + claim.finding.code.value)}")
        lines.append(f"::warning {props}::{_escape_data(printable(_claim(claim)))}")
    return "\n".join(lines + [printable(summary(report, fixed))]) + "\n"


def github_error(message: str) -> str:
    return f"::error title=citavial check::{_escape_data(printable(message))}\n"
