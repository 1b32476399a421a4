"""`citavial check`'s findings after the hostile-note speed-ups (issue 26): malformed citations
counted in C and placed only when read, verdicts memoised per (form, link, ref, quote), and the
human/GitHub reports capped per kind. Table-driven: the findings (file, line, column, form,
code, ref) on mixed notes equal the ones the direct path gives (``scan`` then ``judge`` of each
citation with no memo), and a hand-written table for one note; the cap lists CAP findings of a
kind per file and one line for the rest, while the JSON and the exit status stay exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import AS_OF, CORPUS, SITE_SRC

from citavial.build.check import report as out
from citavial.build.check.cache import site_for_check
from citavial.build.check.notes import check_notes, judge, scan
from citavial.worker.cli import main

REPO = Path(__file__).parent / "fixtures" / "check-repo"
GOOD = "[«el adelantamiento deberá efectuarse por la izquierda»](cita:art82.1)"
MIXED = "\n".join([
    "# Apuntes",
    GOOD,                                                   # 2: passes (cited twice)
    "[«a « b»](cita:art82.1) y (cita:art1)",                # 3: malformed, once per line
    GOOD + " otra vez " + GOOD,                             # 4: passes twice (memoised)
    "`[«código»](cita:art1)` y «sin cita» <!-- cita: art9999 -->",   # 5: ref-unknown
    "```", "[«dentro de un bloque»](cita:art1)", "```",     # 6-8: an example, skipped
    '[«x»](javascript:alert%281%29 "cita:art82.1")',            # 9: link-not-allowed
    "[«» (cita:", "texto", "  [« otra", "[«corto»](cita:art82.1)",  # 10, 12 malformed; 13 short
]) + "\n"
TABLE = [(2, 1, "link", "", "art82.1"), (3, 1, "malformed", "malformed", ""),
         (4, 1, "link", "", "art82.1"), (4, len(GOOD) + 11, "link", "", "art82.1"),
         (5, 27, "comment", "ref-unknown", "art9999"),
         (9, 1, "linked", "link-not-allowed", "art82.1"), (10, 1, "malformed", "malformed", ""),
         (12, 3, "malformed", "malformed", ""), (13, 1, "link", "too-short", "art82.1")]


def rows(results) -> list[tuple]:
    return [(Path(r.found.citation.file).name, r.found.citation.line, r.found.col, r.found.form,
             r.code, r.found.citation.ref.rpartition("#")[2] if r.found.citation.ref else "")
            for r in results]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("check-cache")


def notes(tmp_path: Path) -> list[Path]:
    mixed = tmp_path / "mixta.md"
    mixed.write_text(MIXED, "utf-8")
    return [*sorted((REPO / "notas").rglob("*.md")), mixed]


def test_findings_on_mixed_notes_equal_the_direct_path(cache, tmp_path):
    paths = notes(tmp_path)
    report, texts = check_notes(paths, corpus=CORPUS, site_src=SITE_SRC, as_of=AS_OF,
                                cache_dir=cache)
    site = site_for_check(CORPUS, SITE_SRC, AS_OF, cache)
    direct = [judge(f, site) for p in paths for f in scan(texts[p], str(p))]
    assert rows(report.results) == rows(direct)
    assert [(r.reason, r.url) for r in report.results] == [(r.reason, r.url) for r in direct]
    assert len(report.results) == len(direct)
    assert report.failed_count == len(report.failed) == sum(not r.ok for r in direct)
    assert [row[1:] for row in rows(report.results) if row[0] == "mixta.md"] == TABLE


def test_the_cap_lists_a_few_findings_of_a_kind_and_counts_the_rest(capsys, cache, tmp_path):
    n = out.CAP + 7
    note = tmp_path / "muchas.md"
    note.write_text(GOOD + "\n" + "[«\n" * n + "[«corto»](cita:art82.1)\n", "utf-8")
    args = ["check", str(note), "--as-of", AS_OF.isoformat(), "--corpus", str(CORPUS),
            "--site-src", str(SITE_SRC), "--cache-dir", str(cache)]
    assert main(args) == 1
    human = capsys.readouterr().out.splitlines()
    listed = [ln for ln in human if ln.endswith("(no « » [ ] inside the quote)")]
    assert [ln.split(":")[1] for ln in listed] == [str(i) for i in range(2, out.CAP + 2)]
    more = f"{note}: … and 7 more findings of this kind (malformed) in this file, the first at " \
           f"line {out.CAP + 2} (--format json lists every one)"
    assert human[-3:] == [f"{note}:{n + 2}:1: art82.1 «corto»: " + human[-3].split("«corto»: ")[1],
                          more, human[-1]]
    assert f"{n + 2} citation(s) in 1 file(s), 1 ok, {n + 1} failed" in human[-1]
    assert main(args + ["--format", "github"]) == 1
    gh = capsys.readouterr().out.splitlines()
    assert sum(ln.startswith("::error ") for ln in gh) == out.CAP + 2
    assert f"line={out.CAP + 2},col=1,title=citavial check%3A malformed::… and 7 more" in gh[-2]
    assert main(args + ["--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["checked"] == n + 2 and doc["failed"] == n + 1 and len(doc["results"]) == n + 2
    assert [r["line"] for r in doc["results"] if r["code"] == "malformed"] == \
        list(range(2, n + 2))


def _variants(passages: list) -> list:
    """Citations of passages that pass: as they are, of a neighbour passage, starting inside a
    word, and running on past the passage."""
    from citavial.build.models import Citation
    out = []
    for i, b in enumerate(passages):
        other = passages[(i + 1) % len(passages)].ref
        out += [Citation("n.md", i, b.ref, b.text), Citation("n.md", i, other, b.text),
                Citation("n.md", i, b.ref, b.text[1:]),
                Citation("n.md", i, b.ref, b.text + " y más")]
    return out


def test_the_gates_caches_change_no_verdict(cache):
    """The gate keeps per unit and ref the anchors a quote may land in, and per page its text
    as one run (issue 26: rebuilt for every quote, they were most of the time of a note of
    many distinct quotes of a large annex). Judged with those caches warm, and each afresh
    (caches emptied, the page read again): the same verdicts, of every kind."""
    from citavial.build.gate import verify as V
    from citavial.build.models import NORM
    site = site_for_check(CORPUS, SITE_SRC, AS_OF, cache)
    reg, pages = site.norm(NORM)
    from citavial.build.models import Citation
    unit = next(u for u in reg.units if u.page == "anexoI-5.html")   # 260 passages
    passing = [b for b in unit.passages
               if not V.check_quote(reg, pages, Citation("n.md", 1, b.ref, b.text)).code]
    cits = _variants(passing[:: len(passing) // 25][:25])
    warm = [V.check_quote(reg, pages, c) for c in cits]
    cold = []
    for c in cits:
        V._ANCHORS.clear()
        V._SUBTREES.clear()
        cold.append(V.check_quote(reg, V.Pages(pages.site_dir), c))
    assert [(w.code, w.reason, w.url) for w in warm] == [(c.code, c.reason, c.url) for c in cold]
    assert {w.code_str for w in warm} >= {"", "outside-passage", "not-word-bounded", "not-found"}
