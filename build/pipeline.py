"""The build: corpus check → ingest → render → verify → publish, staged and swapped atomically.

Nothing is written to ``out_dir`` unless every stage succeeds: the site is built in a staging
directory next to it and replaces it in one rename (see atomic.staged_dir).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from datetime import date
from pathlib import Path

from citavial.build import paths, stagevalues
from citavial.build.atomic import staged_dir, write_staged, write_staged_bytes
from citavial.build.content.guides import guide_pages, prose_items, read_guides
from citavial.build.content.practice import bank_json, cited_ref, name_questions, read_bank
from citavial.build.content.practice import prose_items as practice_prose
from citavial.build.content.prosememo import ProseMemo
from citavial.build.corpus.images import DIR as IMAGES_DIR
from citavial.build.corpus.images import local_images
from citavial.build.corpus.integrity import verify_corpus
from citavial.build.errors import BuildErrors
from citavial.build.gate.deeplinks import row_counts
from citavial.build.gate.linkcache import Links, QuoteMemo
from citavial.build.gate.verify import (
    Pages,
    build_allowlist,
    check_quote,
    gate_counts,
    gc_paused,
    regulation_for,
    verify,
)
from citavial.build.index.job import IndexJob, passages_of
from citavial.build.ingest import from_bloques, parse_texto, source_of, with_renames
from citavial.build.ingest.markdown import ingest_norms
from citavial.build.ingest.read import Begun, CorpusJson, read_corpus
from citavial.build.ingest.wordings import Wordings
from citavial.build.models import ALLOWLIST_SCHEMA, NORM, Citation, Regulation
from citavial.build.refs import RefError
from citavial.build.renames import FILE_NAME as RENAMES_FILE
from citavial.build.render.changes import (
    Change,
    by_date,
    history_links,
    passage_changed,
    unit_changes,
)
from citavial.build.render.figures import collect_figures
from citavial.build.render.normcache import norms_key, render_norms
from citavial.build.render.pages import (
    ExtraPage,
    norm_of,
    render,
    render_norm,
    render_pages,
    spanish_date,
)
from citavial.build.render.signpage import catalogue, groups, sign_entries, signs_json
from citavial.build.stagecache import (
    Key,
    StageCache,
    files,
    listing,
    restore_site,
    site_entry,
    written,
)
from citavial.build.stageclock import StageClock
from citavial.build.web.gzcache import GzipMemo
from citavial.build.web.inline import begin_early
from citavial.build.web.publish import begin_icons, publish
from citavial.build.web.share import normalize_base_url

# The DGT theory exam for permiso B (RD 818/2009, anexo VI); simulacro-core.js holds the same
# figures for the page's logic, and tests/browser/test_simulacro.py checks they agree.
EXAM_RULES = {"questions": 30, "minutes": 30, "max_errors": 3}

REPORTS = paths.REPORTS
CHANGES = "pickled-changes"   # the corpus's word diffs, kept by the build's inputs digest


# A quoted passage whose words changed within this many days before the as-of date gets a
# warning on guides and practice questions (students may have learned the earlier wording).
RECENT_CHANGE_DAYS = 365



def write_json(path: Path, obj) -> None:
    """Deterministic JSON into the staging directory: sorted keys, UTF-8, a final newline."""
    write_staged(path, json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=1) + "\n")


def _source_json(reg: Regulation) -> dict:
    return {"norm_id": reg.source.norm_id, "title": reg.source.title,
            "consolidated": reg.source.consolidated, "eli": reg.source.eli,
            "html_url": reg.source.html_url, "license": reg.source.license}


def allowlist_json(reg: Regulation, entries, others: tuple[Regulation, ...] = ()) -> dict:
    """``source`` stays the Reglamento's (schema citavial-allowlist/1); ``sources`` names every
    norm's, by ref prefix, as each entry's ``norm``."""
    return {
        "schema": ALLOWLIST_SCHEMA,
        "as_of": reg.as_of.isoformat(),
        "source": _source_json(reg),
        "sources": {norm_of(r).prefix: _source_json(r) for r in (reg, *others)},
        "entries": [e.__dict__ for e in entries],
    }


def check_one_quote(ref: str, text: str, corpus_dir: Path, as_of: date,
                    site_src: Path) -> tuple[bool, str]:
    """`citavial verify-quote`: render the regulation into a scratch directory and judge one
    quote with the build's own gate."""
    try:
        canonical, err = cited_ref(ref), ""
    except RefError as exc:
        canonical, err = ref, str(exc)
    cit = Citation("<command line>", 1, canonical, text, err)
    norm = canonical.partition("#")[0]
    other = norm != NORM and not err
    info = verify_corpus(Path(corpus_dir), norms_required=other)   # once, as the build
    reg = with_renames(from_bloques(parse_texto(info.texto_path), source_of(info), as_of),
                       Path(corpus_dir))
    # another norm's ref (RDL-6/2015#anexoII.r10) is judged on that norm's pages alone: only
    # that norm is ingested
    others = tuple(ingest_norms([c for c in info.norms if c.norm == norm], as_of).values()
                   ) if other else ()
    with tempfile.TemporaryDirectory() as tmp:
        if others:
            render_norm(others[0], Path(site_src), Path(tmp))
        else:
            render(reg, Path(site_src), Path(tmp))
        check = check_quote(regulation_for(canonical, reg, others), Pages(Path(tmp)), cit)
    if check.reason:
        return False, f"{canonical} «{text}»: {check.reason}"
    return True, f"ok: {canonical} «{text}» → {check.url}"


# The whole build runs without the cyclic garbage collector: its ~10^7 objects are acyclic or
# live to the end (the corpus model, the pages' text models), so collections found almost
# nothing yet cost ~0.7 s of CPU in a --no-cache build, for +2 % peak memory (n=3 each).
@gc_paused
def build_site(corpus_dir: Path, out_dir: Path, as_of: date, site_src: Path,
               reports_dir: Path = REPORTS, regulation_only: bool = False,
               base_url: str = "", cache_dir: Path | None = None,
               entry: tuple[StageCache, str, str] | None = None,
               begun: Begun | None = None) -> str:
    """Build the whole site into ``out_dir``; return a one-paragraph report.

    ``regulation_only`` skips the authored guides and practice bank (their quotes are bound to
    the current wording) — the allowlist's deep links are still proven. ``base_url`` is where
    the site will be published (canonical links, sitemap, OpenGraph); "" keeps it relative.
    ``cache_dir`` holds build caches between runs (the whole site, the deep links, the index
    stage and gzip results by the hash of their inputs: build/stagecache.py; the embeddings:
    build/index/make/analysis.py); None caches nothing. The output is the same bytes either way.
    ``entry``: what ``site_entry`` returned for these very arguments (`citavial build` has it
    already), so the corpus and site_src are not hashed again; ``begun``: the corpus it
    verified and the PDF tables it began reading for them (ingest/read.py: begin_tables)."""
    clock = StageClock()
    t0, c0 = clock.start
    cache, inputs, site_key = entry or site_entry(
        cache_dir, Path(corpus_dir), Path(site_src), Path(reports_dir), as_of,
        normalize_base_url(base_url), regulation_only)
    restored = restore_site(cache, site_key, as_of, Path(out_dir), (t0, c0))
    if restored is not None:
        return restored
    site_src = Path(site_src)
    base_url = normalize_base_url(base_url)
    cache.hold()   # one collection of unnamed blobs, after the last entry (cache.release)
    # the index job ends (its child, if any) before the staging folder is removed; its
    # passages are those of ``reg`` and ``others``, read below before ``index.start``
    with staged_dir(Path(out_dir)) as stage, IndexJob(
            lambda: passages_of((reg, *others)), Path(corpus_dir), cache_dir, stage) as index:
        norms = norms_key(inputs, site_src, base_url)
        proven = Links(cache, norms, stage)   # the deep links, unless the pages are unchanged
        if proven.allowlist is None:   # new deep links, so most likely a new index: its
            index.spawn()              # child starts (imports) beside the read
        drawn = begin_icons(site_src / "pwa" / "icon.txt", cache)   # in idle moments
        later: list[CorpusJson] = []   # its typed JSON entry: made in a child, stored at the end
        corpus = read_corpus(Path(corpus_dir), as_of, cache_dir,   # the build's one read of it
                             (cache, inputs), later, begun)
        reg, others = corpus.regulation, corpus.others
        if proven.allowlist is None:
            index.start()   # its analysis runs beside the rest of the read, render, gate, pages
        for entry_json in later:   # at the lowest priority: in the second core's idle moments
            entry_json.begin()
        guides = [] if regulation_only else read_guides(site_src / "content")
        bank = [] if regulation_only else read_bank(site_src / "practice")
        citations = [c for g in guides for c in g.citations] + [
            c for q in bank for c in q.citations]
        items = [i for g in guides for i in prose_items(g)] + practice_prose(bank)
        findings = ProseMemo(cache, inputs).check(reg, items, others)   # reported with the
        #                                                   gate's failures, then alone
        changes, recent, change_links = _changes(corpus.wordings, reg, (cache, inputs))
        fetched = local_images(Path(corpus_dir))
        images = {src: f"{IMAGES_DIR}/{path.name}" for src, path in fetched.items()}
        clock.lap("read")
        pages = render_norms(cache, norms, stage, site_src, (reg, *others), fetched, base_url,
                             change_links)
        # their inline-code check, at the lowest priority: in the second core's idle moments
        early = begin_early(stage, cache, nice=19)
        clock.lap("render")
        site_pages = Pages(stage)   # each page read once, for the gate and the row links
        passed = QuoteMemo(cache, norms)      # the quotes that passed on these pages before
        try:
            checks, allowlist = verify(reg, stage, citations, allow_empty=regulation_only,
                                       others=others, pages=site_pages,
                                       with_allowlist=proven.allowlist is None, passed=passed)
        except BuildErrors as exc:
            raise BuildErrors(name_questions(exc.errors + findings, bank)) from None
        passed.save(checks)
        if findings:
            raise BuildErrors(name_questions(findings, bank))
        if proven.allowlist is None:
            for other in others:
                allowlist += build_allowlist(other, site_pages, other.source.html_url)
        else:
            allowlist = proven.allowlist
        # the signs catalogue is the Reglamento's; the index holds every norm (_indexes)
        signs_page = _signs_page(corpus.wordings, [e for e in allowlist if e.norm == NORM])
        signs = sign_entries(signs_page.context["groups"])
        index.order({e.ref: e.url for e in allowlist}, signs)   # the index written meanwhile
        clock.lap("gate")
        links = {(c.citation.file, c.citation.line, c.citation.quote): c.url for c in checks}
        gate = gate_counts(checks, allowlist)
        gate["prose"] = {"items": len(items), "findings": len(findings)}
        bank_data = bank_json(bank, links, _digest([q.citation.quote for q in bank]), recent)
        extra = guide_pages(guides, links, recent) + [
            ExtraPage("cambios.html", "cambios.html", {"days": by_date(reg, changes)}),
            ExtraPage("practica.html", "practice.html", {
                "n_questions": len(bank)}),
            ExtraPage("simulacro.html", "simulacro.html", {"rules": EXAM_RULES}),
            ExtraPage("porque.html", "porque.html",
                      {"figures": collect_figures(gate, Path(reports_dir))}),
            ExtraPage("buscar.html", "search.html", {}),
            ExtraPage("404.html", "404.html", {}),
            ExtraPage("offline.html", "offline.html", {}),
        ]
        pages += render_pages(reg, site_src, stage, extra, base_url=base_url, images=images)
        renames = Path(corpus_dir) / RENAMES_FILE
        if renames.is_file():   # `citavial mcp` reads only dist/
            write_staged_bytes(stage / RENAMES_FILE, renames.read_bytes())
        proven.write((reg, *others), allowlist, site_pages, lambda: write_json(
            stage / "allowlist.json", allowlist_json(reg, allowlist, others)))
        gate["rows"] = row_counts(stage)   # table rows: own link, or their table's (no fragment)
        pages += render_pages(reg, site_src, stage, [signs_page], base_url=base_url,
                              images=images)
        write_json(stage / "senales.json", signs_json(signs_page.context["groups"]))
        write_json(stage / "practice-bank.json", bank_data)
        write_staged(stage / "practice-bank.js", "window.CITAVIAL_BANK = " + json.dumps(
            bank_data, ensure_ascii=False, sort_keys=True) + ";\n")
        write_json(stage / "gate-report.json", gate)
        clock.lap("pages")
        index_report = _indexes(index, stage, signs, (cache, inputs))
        clock.lap("index")
        packed = GzipMemo(cache)
        final: dict[str, bytes] = {}   # files publish read or wrote last: stashed unread
        web_report, web = publish(stage, reg, site_src, base_url, spanish_date(as_of), packed,
                                  cache, final, early, drawn)
        packed.save()
        for entry_json in later:
            entry_json.store()
        write_json(stage / "web-report.json", web)
        stashed = cache.stash(stage, files(stage) if site_key else [], final)
    clock.lap("publish")
    per_norm = ", ".join(f"{norm_of(r).prefix} {len(r.units)} units"
                         for r in (reg, *others))
    counts = (f"{len(pages)} pages, {len(reg.units) + sum(len(r.units) for r in others)} "
              f"units ({per_norm}), {len(allowlist)} citable passages")
    cache.commit(stashed, "site", site_key, counts)   # the whole site, once it is swapped in
    cache.release()
    return (f"built {counts} "
            f"as of {as_of.isoformat()} into {out_dir}; gate: {len(checks)} quotes verified "
            f"({len(guides)} guides, {len(bank)} practice questions); prose check: {len(items)} "
            f"items, {len(findings)} findings; deep links "
            f"{gate['directives']}; row links {gate['rows']['linked']} of {gate['rows']['rows']} "
            f"rows ({gate['rows']['table']} no text fragment singles out: their table's link) "
            f"({clock.summary()}); "
            f"{index_report}; {web_report}")


def _indexes(index: IndexJob, stage: Path, signs,
             cached: tuple[StageCache, str] = (StageCache(None), "")) -> str:
    """The index stage (``index``: build/index/job.py), or its files from the stage cache:
    ``cached`` is the cache and the digest of the build's inputs (stagecache.inputs_digest).
    With the allowlist (every passage's URL) and the signs, they are all the index reads: a
    build whose guides alone changed copies the index files instead of computing them."""
    cache, inputs = cached
    key = "" if not inputs else (
        Key("index").text("inputs", inputs)   # allowlist.json unread when linked from a blob
        .text("allowlist", cache.digest(stage / "allowlist.json")[0])
        .text("signs", repr(signs)).hexdigest())
    hit = cache.restore("index", key, stage)
    if hit is not None:
        index.close()   # a child begun in vain, if any
        return f"{hit.note} (from the build cache)"
    before = listing(stage) if key else {}
    report = index.finish()
    if key:
        cache.store("index", key, stage, written(before, listing(stage)), report)
    return report


def _changes(wordings: Wordings, reg: Regulation,
             cached: tuple[StageCache, str] = (StageCache(None), "")):
    """(changes per unit, {passage ref: recent change date}, history links per unit). The
    changes (word diffs of every wording, ~0.04 s of CPU) are a function of the corpus alone:
    kept under the build's inputs digest as our own pickle (stagevalues.py)."""
    cache, inputs = cached
    key = "" if not inputs else Key(CHANGES).text("inputs", inputs).hexdigest()
    changes = stagevalues.load(cache, CHANGES, key, dict[str, tuple[Change, ...]], dict)
    if changes is None:
        changes = unit_changes(wordings, reg)
        stagevalues.save(cache, CHANGES, key, changes)
    recent = {ref: d for ref, d in passage_changed(changes, reg.as_of).items()
              if (reg.as_of - d).days <= RECENT_CHANGE_DAYS}
    return changes, recent, history_links(changes)


def _signs_page(wordings: Wordings, allowlist) -> ExtraPage:
    previous, signs = catalogue(wordings, allowlist)
    return ExtraPage("senales.html", "senales.html",
                     {"groups": groups(signs), "n_signs": len(signs), "previous": previous})


def _digest(parts: list[str]) -> str:
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:12]
