"""`citavial check PATH…`: the build's citation gate for Markdown notes written by others.

Three forms are recognised (docs/check.md):

    [«exact words»](cita:art48.1.a)                     the guides' syntax
    [«exact words»](https://…/art48.html#… "cita:art48.1.a")   after --fix-links: a real link,
                                                        the ref kept in the link title
    «exact words» <!-- cita: art48.1.a -->              existing prose; the comment is invisible

REF is any form ``parse_ref`` accepts: the Reglamento's bare fragment (``art48.1.a``) or another
norm's canonical ref (``RDL-6/2015#art76.a``, ``RD-818/2009#art4.2``, ``RD-2822/1998#art10.1``);
in the comment form also a human ref with spaces ("art. 76 de la Ley sobre Tráfico"). Each
quote is judged by ``citavial.build.gate.verify.check_quote`` on the cited norm's pages rendered
by ``citavial.build.render.pages`` (cached by corpus hash, see check/cache.py) — the very gate
the build runs on our own guides. Citations inside code blocks and code spans are examples, not
claims, and are skipped. A citation of a renamed ref (corpus/refs-renamed.json) fails with
``ref-renamed``, naming the new ref; its quote is judged under the new ref, and ``--fix-links``
rewrites the ref (in all three forms) when the quote passes there.
"""

from __future__ import annotations

import gc
import html
import os
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from itertools import accumulate
from operator import attrgetter
from pathlib import Path
from urllib.parse import urlsplit

from citavial.build.check.cache import CheckSite, site_for_check
from citavial.build.check.claims import ClaimResult, claims_of
from citavial.build.check.results import (
    MALFORMED,
    MALFORMED_REASON,
    FileResults,
    Found,
    Result,
    Results,
    malformed_found,
)
from citavial.build.check.scan import (
    Hit,
    Work,
    blank_code_spans,
    blanked,
    comment_hits,
    link_hits,
    linked_hits,
    loose_count,
    loose_spans,
)
from citavial.build.content.prose import Passages
from citavial.build.errors import BuildError
from citavial.build.gate.verify import Pages, QuoteCheck, Reason, check_quote
from citavial.build.models import NORM, Citation, Regulation
from citavial.build.patterns import CITATION_COMMENT, MAYBE_CODE_BLOCK
from citavial.build.refs import Ref, RefError, parse_ref, short_ref

NOTE_SUFFIXES = (".md", ".markdown")
# One note's size limit: 20,000 citations take ~2 MB, so 16 MiB is far beyond any real note and
# still checked in seconds; a bigger file is refused (exit 2) before it is read into memory.
MAX_NOTE_BYTES = 16 * 2**20
STALE_LINK = "stale-link"
UNSAFE_LINK = "link-not-allowed"
RENAMED = Reason.REF_RENAMED.value   # a gate reason that --fix-links can repair
# Codes `check` adds to the gate's own (verify.Reason): a citation it cannot read, a
# --fix-links link that no longer lands on its quote, and a link that leaves the site.
CHECK_REASONS = ((MALFORMED, "malformed citation"), (STALE_LINK, "stale link"),
                 (UNSAFE_LINK, "link not allowed"))
# What MAYBE_CODE_BLOCK needs somewhere in a note (anywhere, not only at a line's start).
_CODE_BLOCK_MARKS = ("```", "~~~", "    ", "\t")


class CheckUsageError(Exception):
    """The check could not run (missing path, unreadable file, broken corpus): exit status 2."""


@dataclass(frozen=True)
class Report:
    files: tuple[Path, ...]
    results: Results   # every verdict in note order, malformed citations included
    as_of: date
    claims: tuple[ClaimResult, ...] = ()   # --claims: findings on the sentences, apart
    # {norm prefix: (BOE id, consolidation date)} of the norms checked against
    sources: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def failed(self) -> list[Result]:
        return [r for r in self.results if not r.ok]

    @property
    def failed_count(self) -> int:
        """``len(self.failed)`` without building the malformed citations' results."""
        return self.results.failed

    def __repr__(self) -> str:
        return f"Report({len(self.files)} files, {len(self.results)} citations)"


def note_files(paths: list[Path]) -> list[Path]:
    """Files named on the command line as given; folders searched for *.md / *.markdown
    (hidden folders such as .git skipped). A missing path is a usage error."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.suffix.lower() in NOTE_SUFFIXES
                           and f.is_file() and not _hidden(f.relative_to(p)))
            out += [_inside(f, p) for f in found]
        elif p.is_file():
            out.append(p)
        else:
            raise CheckUsageError(f"{p}: no such file or folder (give Markdown files or "
                                  "folders of them)")
    if not out:
        raise CheckUsageError(f"no Markdown notes (*.md, *.markdown) in {', '.join(map(str, paths))}")
    return list(dict.fromkeys(out))


def _inside(note: Path, folder: Path) -> Path:
    """A note found in ``folder`` whose real file lies outside it (a symlink to ../../secret.md,
    to ~/.ssh/…) is refused: a pull request could otherwise make a CI job read, print from and,
    with --fix-links, write to any file the job can reach. A file named on the command line is
    the caller's choice and is read as named."""
    if not note.resolve().is_relative_to(folder.resolve()):
        raise CheckUsageError(f"{note}: a symbolic link to {note.resolve()}, outside "
                              f"{folder} (fix: check that file by naming it, or remove the link)")
    return note


def _hidden(rel: Path) -> bool:
    return any(part.startswith(".") for part in rel.parts[:-1])


def blank_code(text: str, work: Work | None = None) -> str:
    """``text`` with fenced/indented code blocks and code spans replaced by spaces (newlines
    kept), so offsets still point into the original."""
    work = work or Work()
    # the substrings first (C's fast search): a note without any skips the pattern, which
    # tries every position of the note (a tenth of the scan of 20,000 valid citations)
    if any(mark in text for mark in _CODE_BLOCK_MARKS) and MAYBE_CODE_BLOCK.search(text):
        from markdown_it import MarkdownIt  # imported only when needed: it costs ~70 ms per run
        lines = text.split("\n")
        # block rules only: the blocks are all we read, and inline parsing of a hostile note
        # ([ or * runs) ran at 0.03 MB/s (issue 26)
        for tok in MarkdownIt("commonmark").disable("inline").parse(text):
            if tok.type in ("fence", "code_block") and tok.map:
                for i in range(tok.map[0], min(tok.map[1], len(lines))):
                    lines[i] = " " * len(lines[i])
        text = "\n".join(lines)
    return blank_code_spans(text, work)


def scan(text: str, file: str, work: Work | None = None) -> list[Found]:
    """Every citation in a note's text, in order, malformed ones included (``scan_note`` with
    each malformed citation made a finding)."""
    found, rest, _ = scan_note(text, file, work)
    starts = line_starts(text)
    found += [malformed_found(file, starts, a, b) for a, b in loose_spans(rest)]
    return sorted(found, key=attrgetter("start"))


def line_starts(text: str) -> list[int]:
    """The offset where each line starts: 0, then one past each newline."""
    return list(accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0))[:-1]


def scan_note(text: str, file: str, work: Work | None = None) -> tuple[list[Found], str, int]:
    """A note's well-formed citations in order; the text where its malformed ones are found
    (code and well-formed citations blanked: ``loose_spans``, one per line, not per « or
    (cita: left over), and how many there are. Linear in the text (check/scan.py; ``work``
    counts its steps): each form is scanned once over it, and lines come from one index of
    line starts, built only when a citation is found (issue 26: counting newlines from the
    start for every match made a hostile note quadratic)."""
    work = work or Work()
    rest = blank_code(text, work)
    hits: list[tuple[str, Hit]] = []
    for form, hits_of in (("linked", linked_hits), ("link", link_hits),
                          ("comment", comment_hits)):
        new = hits_of(rest, work)
        hits += [(form, h) for h in new]
        if new:
            rest = blanked(rest, [(h.start, h.end) for h in new])   # offsets kept
    starts = line_starts(text) if hits else []
    found = [_found(starts, file, h.start, h.end, form, h.ref, h.quote, h.url)
             for form, h in hits]
    found.sort(key=attrgetter("start"))
    return found, rest, loose_count(rest, work)


def _found(starts: list[int], file: str, start: int, end: int, form: str, raw_ref: str,
           quote: str, link: str) -> Found:
    line = bisect_right(starts, start)           # 1-based: starts[line - 1] <= start
    col = start - starts[line - 1] + 1
    if form == MALFORMED:
        return Found(Citation(file, line, "", "", ""), col, start, end, form, link)
    ref, err = _parsed_ref(raw_ref)
    return Found(Citation(file, line, ref, quote, err), col, start, end, form, link)


@lru_cache(maxsize=1 << 12)
def _parsed_ref(raw_ref: str) -> tuple[str, str]:
    """(canonical ref, "") or (the ref as written, why it is not one). A note repeats a few
    refs many times: parsing each occurrence was a fifth of the scan of 20,000 citations."""
    try:
        return parse_ref(raw_ref), ""
    except RefError as exc:
        return raw_ref, str(exc)


def markdown_url(url: str) -> str:
    """A deep link safe inside a Markdown link: parentheses percent-encoded (a text directive
    decodes %28/%29 back to the same characters)."""
    return url.replace("(", "%28").replace(")", "%29")


def _norm_of(site: CheckSite, cit: Citation) -> tuple[Regulation, Pages]:
    """(Regulation, pages) of the norm ``cit`` cites; the Reglamento's for a ref that does not
    parse (the gate then fails it as unknown) or names a norm the corpus lacks (the gate finds
    no such unit there: ``ref-unknown``)."""
    try:
        norm = Ref.parse(cit.ref).norm if not cit.ref_error else NORM
    except RefError:
        norm = NORM
    found = site.norm(norm) or site.norm(NORM)
    assert found is not None   # the Reglamento is always loaded
    return found


def _quote(site: CheckSite, cit: Citation) -> QuoteCheck:
    return check_quote(*_norm_of(site, cit), cit)


def judge(found: Found, site: CheckSite, memo: dict | None = None,
          base_url: str = "") -> Result:
    """The gate's verdict on one citation, plus check's own rules (malformed, stale link, a
    link that leaves the site). With ``memo``, once per distinct (form, link, ref, quote): the
    verdict reads nothing else (not the file or line), and a note repeating one citation
    20,000 times must not cost 20,000 gate runs (issue 26)."""
    if found.form == MALFORMED:
        return Result(found, MALFORMED, MALFORMED_REASON)
    if memo is None:
        return _judge(found, site, base_url)
    c = found.citation
    key = (found.form, found.link, c.ref, c.ref_error, c.quote)
    if (v := memo.get(key)) is None:
        v = memo[key] = _judge(found, site, base_url)
        return v
    return Result(found, v.code, v.reason, v.url, v.renamed_to)


def _judge(found: Found, site: CheckSite, base_url: str) -> Result:
    if found.form == "linked" and not site_link(found.link, base_url):
        return Result(found, UNSAFE_LINK, f"link not allowed: {found.link} is neither a relative "
                      "link nor an http(s) link under --base-url "
                      f"{base_url or '(none given)'}; a linked citation may only point into the "
                      "site (fix: write [«…»](cita:REF) and run `citavial check --fix-links`)")
    verdict = _quote(site, found.citation)
    if verdict.code is Reason.REF_RENAMED:
        return _renamed(found, verdict.reason, site)
    if verdict.reason:
        return Result(found, verdict.code_str, verdict.reason)
    if found.form == "linked" and not _lands(found.link, verdict.url):
        return Result(found, STALE_LINK, f"stale link: {found.link} does not end with the "
                      f"proven deep link {markdown_url(verdict.url)}; run `citavial check "
                      "--fix-links`", verdict.url)
    return Result(found, "", "", verdict.url)


def _renamed(found: Found, reason: str, site: CheckSite) -> Result:
    """A renamed ref: fails with ``ref-renamed``, its quote judged under the new ref (a quote
    that fails there fails with that reason, the rename named beside it)."""
    reg, _ = _norm_of(site, found.citation)
    new = reg.renames.current(found.citation.ref)
    again = _quote(site, replace(found.citation, ref=new))
    if again.reason:
        return Result(found, again.code_str, f"{again.reason} ({reason})")
    return Result(found, RENAMED, f"{reason}; `citavial check --fix-links` rewrites it",
                  again.url, new)


def site_link(link: str, base_url: str) -> bool:
    """A link a reader may follow from a checked citation: relative (no scheme, no host, no
    backslash that a browser would read as a slash), or http(s) under ``base_url`` — never
    ``javascript:``, ``data:`` or another host that merely ends with the proven fragment,
    however its characters are written (``&#58;``, ``&#47;``: decoded as a renderer does)."""
    # what a Markdown renderer puts in the href: character references decoded (CommonMark
    # reads them in link destinations), so "https&#58;//evil.example/…" leaves the site
    href = html.unescape(link)
    if "\\" in href:
        return False
    parts = urlsplit(href)
    if not parts.scheme and not parts.netloc:
        return True
    if not base_url or parts.scheme.lower() not in ("http", "https"):
        return False
    base = urlsplit(base_url if base_url.endswith("/") else base_url + "/")
    return (parts.scheme.lower(), parts.netloc.lower()) == (base.scheme.lower(),
                                                            base.netloc.lower()) \
        and parts.path.startswith(base.path)


def _lands(link: str, proven: str) -> bool:
    want = markdown_url(proven)
    return link == want or link.endswith("/" + want)


def _read_note(path: Path) -> str:
    # guides.read_utf8 says the same, but importing guides costs markdown-it's ~70 ms
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_NOTE_BYTES + 1)   # never more: a 10 GB (sparse) file is refused
    except OSError as err:
        raise CheckUsageError(f"{path}: cannot read ({err.strerror})") from None
    if len(data) > MAX_NOTE_BYTES:
        raise CheckUsageError(f"{path}: larger than the {MAX_NOTE_BYTES // 2**20} MiB limit for "
                              "one note (fix: split it into smaller notes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CheckUsageError(f"{path}:{line}: byte {data[exc.start]:#04x} at offset {exc.start} "
                              "is not UTF-8 (fix: save the file as UTF-8)") from None


def check_notes(paths: list[Path], *, corpus: Path, site_src: Path, as_of: date,
                cache_dir: Path | None = None, base_url: str = "",
                claims: bool = False) -> tuple[Report, dict[Path, str]]:
    """Check every citation in ``paths``; also return each file's text (for --fix-links).
    ``base_url`` is where the site is published: the only absolute links a citation may hold."""
    files = note_files(paths)
    texts: dict[Path, str] = {}
    for f in files:
        texts[f] = _read_note(f)
    with _collector_paused():
        return _check_texts(files, texts, corpus=corpus, site_src=site_src, as_of=as_of,
                            cache_dir=cache_dir, base_url=base_url, claims=claims), texts


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a run builds its objects (norms loaded, pages
    read, a verdict per citation), restored after: they hold no cycle the run must free, and
    the collector's passes over the growing heap were a fifth of a run of 20,000 citations."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _check_texts(files: list[Path], texts: dict[Path, str], *, corpus: Path, site_src: Path,
                 as_of: date, cache_dir: Path | None, base_url: str, claims: bool) -> Report:
    scanned = [(str(f), *scan_note(texts[f], str(f))) for f in files]
    try:
        site = site_for_check(corpus, site_src, as_of, cache_dir)
        memo: dict = {}
        results = Results([FileResults(name, tuple(judge(c, site, memo, base_url) for c in found),
                                       rest, n_malformed)
                           for name, found, rest, n_malformed in scanned])
    except BuildError as err:   # the corpus, or another norm's copy when first cited
        raise CheckUsageError(f"cannot load the regulation: {err}") from None
    found_claims: tuple[ClaimResult, ...] = ()
    if claims:
        by_name = {str(f): t for f, t in texts.items()}
        cited = [(r.found.citation.file, r.found.citation.line, r.found.col, r.found.start,
                  r.found.end, r.found.citation.ref) for r in results.judged() if r.ok]
        found_claims = claims_of(by_name, cited, lambda ref: _passage_text(site, ref))
    return Report(tuple(files), results, as_of, found_claims, site.sources())


def _passage_text(site: CheckSite, ref: str) -> str:
    """The cited passage's text with its lead-ins, from its own norm (for --claims)."""
    return Passages(_norm_of(site, Citation("", 0, ref, ""))[0]).text(ref)


def fixed_text(text: str, results: list[Result], base_url: str) -> tuple[str, int]:
    """``text`` with every passing or stale link citation pointing at its proven deep link
    (``base_url`` + the site-relative link), the ref kept in the link title; and how many
    citations changed."""
    out, pos, n = [], 0, 0
    for r in sorted(results, key=lambda r: r.found.start):
        f = r.found
        if f.form == "comment" and r.code == RENAMED:
            new = _comment_with_ref(text[f.start:f.end], _short(r.renamed_to))
        elif f.form in ("link", "linked") and r.code in ("", STALE_LINK, RENAMED):
            url = base_url + markdown_url(r.url)
            ref = _short(r.renamed_to or f.citation.ref)
            new = f'[«{f.citation.quote}»]({url} "cita:{ref}")'
        else:
            continue
        n += new != text[f.start:f.end]
        out += [text[pos:f.start], new]
        pos = f.end
    return "".join(out) + text[pos:], n


def _comment_with_ref(written: str, ref: str) -> str:
    """A comment-form citation as written, with its ref replaced (nothing else touched)."""
    m = CITATION_COMMENT.fullmatch(written)
    assert m is not None, written
    return written[:m.start("ref")] + ref + written[m.end("ref"):]


def _short(ref: str) -> str:
    return short_ref(ref)


def fix_links(report: Report, texts: dict[Path, str], base_url: str) -> dict[Path, int]:
    """Rewrite the files whose links change (atomically, keeping their permissions; a symlink's
    target, the link kept); return the number of citations rewritten per file."""
    from citavial.build.atomic import remove_stale_temps, write_text
    changed: dict[Path, int] = {}
    written: set[Path] = set()
    for path in report.files:
        # a symlinked note: its target is the note (replacing the link by a regular file
        # would leave the target unfixed); .<note>.*.tmp from a killed run are removed
        real = Path(path).resolve()
        remove_stale_temps(real)
        mine = [r for r in report.results.judged() if r.found.citation.file == str(path)]
        new, n = fixed_text(texts[path], mine, base_url)
        if n and real not in written:
            mode = os.stat(real).st_mode & 0o7777
            write_text(real, new)
            os.chmod(real, mode)
            changed[path] = n
            written.add(real)
    return changed


def settle_fixed(report: Report, fixed: dict[Path, int]) -> Report:
    """The report after --fix-links: a stale link or a renamed ref in a file just rewritten is
    now right."""
    done = {str(p) for p in fixed}
    return replace(report, results=report.results.map_judged(
        lambda r: replace(r, code="", reason="") if r.code in (STALE_LINK, RENAMED)
        and r.found.citation.file in done else r))
