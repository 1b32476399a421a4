"""Assets of the staged site: bundle, content-hash, rewrite the pages' URLs, precompress.

Works on whatever pages the stages wrote: every local ``src``/``href`` of every ``*.html`` that
names a script, a stylesheet or an icon is renamed to ``name.<hash10>.ext`` and the pages are
rewritten to match, so a page added later is covered without being listed anywhere. The map
logical name → hashed name is written as ``assets.json`` (for tools and tests).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import posixpath
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path, PurePosixPath

from citavial.build import patterns
from citavial.build.atomic import write_staged, write_staged_bytes
from citavial.build.errors import BuildError
from citavial.build.stagecache import StageCache, files
from citavial.build.web.gzcache import GzipMemo
from citavial.build.web.pagememo import PageMemo

# Concatenated at build time so that a page costs one stylesheet and one script request; the
# parts are authored (and tested) separately. Bundle → parts, in order.
BUNDLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("static/app.css", ("static/site.css", "static/chat.css", "static/pwa.css")),
    ("static/app.js", ("static/pwa.js", "static/tables.js", "static/chat-view.js",
                       "static/chat.js")),
)
HASHED_SUFFIXES = frozenset({".css", ".js"})   # icons keep stable names (og:image, manifest)
# Text files worth a precompressed twin; smaller files gain nothing from gzip.
COMPRESSIBLE = frozenset({".html", ".css", ".js", ".json", ".xml", ".txt", ".webmanifest",
                          ".svg"})
MIN_COMPRESS = 256
NOT_SERVED = ("index/", "index-dev/")   # the worker's own data, read from disk, never sent to
#                                       a browser
ASSET_MAP = "assets.json"


def bundle(stage: Path) -> None:
    """Write each bundle from its parts and remove the parts from the published tree."""
    for target, parts in BUNDLES:
        chunks = []
        for part in parts:
            path = stage / part
            if not path.is_file():
                raise BuildError(str(path), f"bundle part missing for {target}",
                                 "add the file, or change BUNDLES in build/web/assets.py")
            chunks.append(f"/* {PurePosixPath(part).name} */\n" + path.read_text("utf-8"))
            path.unlink()
        write_staged(stage / target, "\n".join(chunks))


def hashed_name(rel: str, data: bytes) -> str:
    p = PurePosixPath(rel)
    digest = hashlib.sha256(data).hexdigest()[:10]
    return str(p.with_name(f"{p.stem}.{digest}{p.suffix}"))


def pages(stage: Path) -> list[Path]:
    return sorted(stage.rglob("*.html"))


def local_target(page: Path, stage: Path, url: str) -> str | None:
    """The site-relative path a page's relative URL names (query and fragment dropped)."""
    if patterns.NOT_RELATIVE_URL.match(url):
        return None
    path = url.split("#", 1)[0].split("?", 1)[0]
    folder = _folder(page, stage)   # path arithmetic: the build writes no symlinks, and
    #                                 resolve() cost a stat per part of each of ~36,000 URLs
    if folder is None:   # a page named by another spelling of the stage's path
        resolved = (page.parent / path).resolve()
        try:
            return resolved.relative_to(stage.resolve()).as_posix()
        except ValueError:
            return None
    target = posixpath.normpath(posixpath.join(folder, path))
    return None if target == ".." or target.startswith(("../", "/")) else target


def suffix(rel: str) -> str:
    """``PurePosixPath(rel).suffix``, without building a path for each of ~36,000 URLs."""
    name = rel.rstrip("/").rpartition("/")[2]
    i = name.rfind(".")
    return name[i:] if 0 < i < len(name) - 1 else ""


@lru_cache(maxsize=256)
def _folder(page: Path, stage: Path) -> str | None:
    """The page's folder relative to the stage, "." at its root; None if not below it."""
    try:
        return page.parent.relative_to(stage).as_posix()
    except ValueError:
        return None


def hash_assets(stage: Path, extra: tuple[str, ...] = (), memo: PageMemo | None = None
                ) -> dict[str, str]:
    """Rename every asset the pages reference (plus ``extra``) to its hashed name; rewrite the
    pages; return {logical: hashed}. A referenced asset that does not exist stops the build.
    ``memo``: the pages an earlier build published (pagememo.py), reused where unchanged."""
    memo = PageMemo(StageCache(None)) if memo is None else memo
    wanted: set[str] = set(extra)
    given: dict[Path, tuple[str, bytes | None]] = {}
    target_of = _Targets(stage)
    for page in pages(stage):
        rel, data = page.relative_to(stage).as_posix(), None
        targets = memo.targets(rel, page)
        if targets is None or not all(t in wanted or target_of.is_file(t) for t in targets):
            data = page.read_bytes()
            targets = _targets(page, target_of, _text(data))   # a missing asset: its own error
        given[page] = (rel, data)
        memo.saw(rel, targets)
        wanted.update(targets)
    renamed = {}
    for rel in sorted(wanted):
        data = (stage / rel).read_bytes()
        new = hashed_name(rel, data)
        (stage / rel).rename(stage / new)
        renamed[rel] = new
    names = frozenset(PurePosixPath(rel).name for rel in renamed)
    table = json.dumps(renamed, sort_keys=True, indent=1) + "\n"
    map_digest = hashlib.sha256(table.encode("utf-8")).hexdigest()
    for page, (rel, known) in given.items():
        if memo.rewritten(rel, map_digest, page):
            continue
        data = page.read_bytes() if known is None else known
        text = _text(data)
        new_text = _with_hashed_urls(page, target_of, text, renamed, names)
        if new_text != text:
            write_staged_bytes(page, new_text.encode("utf-8"))
    memo.save(stage, map_digest)
    write_staged(stage / ASSET_MAP, table)
    return renamed


def _text(data: bytes) -> str:
    """A page's bytes as ``Path.read_text`` reads them (UTF-8, universal newlines)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


class _Targets:
    """local_target, remembered per (page folder, URL): the ~600 pages of a site repeat the
    same few hundred URLs (stylesheet, scripts, the norms' pages) ~36,000 times."""

    def __init__(self, stage: Path) -> None:
        self.stage = stage
        self.memo: dict[tuple[str, str], str | None] = {}
        self.files: set[str] = set()   # targets found to be files (each page names the same)

    def is_file(self, target: str) -> bool:
        """Whether ``target`` is a file of the stage (asked once per target while the pages
        are read: nothing is renamed or removed meanwhile)."""
        if target in self.files:
            return True
        if (self.stage / target).is_file():
            self.files.add(target)
            return True
        return False

    def __call__(self, page: Path, url: str) -> str | None:
        folder = _folder(page, self.stage)
        if folder is None:
            return local_target(page, self.stage, url)
        key = (folder, url)
        try:
            return self.memo[key]
        except KeyError:
            found = self.memo[key] = local_target(page, self.stage, url)
            return found


def _targets(page: Path, target_of: _Targets, html: str) -> tuple[str, ...]:
    """The scripts and stylesheets the page's URLs name, in order (each once). A URL whose
    target ends in ".css" or ".js" has that text in it (the target's last part is one of the
    URL's), so the ~87 % of URLs without it are passed over unresolved."""
    found: dict[str, None] = {}
    for m in patterns.URL_ATTRIBUTE.finditer(html):
        url = m.group("url")
        if not any(s in url for s in HASHED_SUFFIXES):
            continue
        target = target_of(page, url)
        if target and suffix(target) in HASHED_SUFFIXES and target not in found:
            if not target_of.is_file(target):
                raise BuildError(page.name, f"{m.group('attr')}=\"{m.group('url')}\" "
                                 f"names {target}, which the build did not write",
                                 "fix the template or add the file to site_src/static/")
            found[target] = None
    return tuple(found)


def _with_hashed_urls(page: Path, target_of: _Targets, html: str, renamed: dict[str, str],
                      names: frozenset[str]) -> str:
    """``_rewritten`` with ``_hashed_url``: only the URLs with a part of their path named as a
    renamed file (``names``) are resolved and replaced, the page copied around them. A target
    is the page's folder joined with the URL's path: its last part is one of the path's, or
    else it is a folder above the page, never a renamed file."""
    out: list[str] = []
    last = 0
    for m in patterns.URL_ATTRIBUTE.finditer(html):
        url = m.group("url")
        if names.isdisjoint(url.split("#", 1)[0].split("?", 1)[0].split("/")):
            continue
        target = target_of(page, url)
        new = _hashed_url(renamed, target, url) if target else url
        if new != url:
            out += [html[last:m.start("url")], new]
            last = m.end("url")
    return html if not out else "".join(out) + html[last:]


def _hashed_url(renamed: dict[str, str], target: str, url: str) -> str:
    """Swap the file name in ``url`` for its hashed name, keeping the path, query, fragment."""
    if target not in renamed:
        return url
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    path, rest = url[:cut], url[cut:]
    return path[: path.rfind("/") + 1] + PurePosixPath(renamed[target]).name + rest


def rewrite_urls(page: Path, stage: Path, fn) -> None:
    """Apply ``fn(target, url) → url`` to every relative src/href of ``page``."""
    html = page.read_text("utf-8")
    out = _rewritten(page, _Targets(stage), html, fn)
    if out != html:
        write_staged(page, out)


def _rewritten(page: Path, target_of: _Targets, html: str, fn) -> str:
    def sub(m):
        target = target_of(page, m.group("url"))
        new = fn(target, m.group("url")) if target else m.group("url")
        return f'{m.group("ws")}{m.group("attr")}="{new}"'

    return patterns.URL_ATTRIBUTE.sub(sub, html)


def _gzip9(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)   # mtime 0: byte-identical builds


def gzip_all(datas: list[bytes], memo: dict[bytes, bytes] | None = None) -> list[bytes]:
    """gzip -9 of each content, in order. zlib releases the GIL, so a few threads compress
    side by side (the ~15 MB a build compresses cost ~1.5 s on one core). ``memo`` keeps each
    content's result: the service worker's precache sizes and the .gz files share them."""
    memo = {} if memo is None else memo
    todo = [d for d in dict.fromkeys(datas) if d not in memo]
    if len(todo) > 1:
        batches = _batches(todo)
        with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
            for batch, packed in zip(batches, pool.map(_gzip_batch, batches), strict=True):
                memo.update(zip(batch, packed, strict=True))
    else:
        memo.update((d, _gzip9(d)) for d in todo)
    return [memo[d] for d in datas]


BATCH_BYTES = 1 << 18


def _batches(todo: list[bytes]) -> list[list[bytes]]:
    """The contents in batches of about BATCH_BYTES, the largest first: a big file compressed
    last would end the work on one core while the others wait (allowlist.json alone, 6.6 MB,
    is ~0.35 s of gzip -9); batches of the small ones keep the threads' turns few."""
    out: list[list[bytes]] = []
    size = BATCH_BYTES
    for data in sorted(todo, key=len, reverse=True):   # stable: equal sizes keep their order
        if size >= BATCH_BYTES:
            out.append([])
            size = 0
        out[-1].append(data)
        size += len(data)
    return out


def _gzip_batch(batch: list[bytes]) -> list[bytes]:
    return [_gzip9(d) for d in batch]


def precompress(stage: Path, memo: dict[bytes, bytes] | None = None,
                read: dict[str, bytes] | None = None) -> tuple[int, int]:
    """Write ``f.gz`` beside every text file worth it (gzip -9, mtime 0: byte-identical
    builds); servers send it to clients that accept gzip. Returns (files, bytes saved).
    ``memo``: see gzip_all; ``read``: {relative path: bytes} of files already read (the service
    worker's), taken instead of reading them again, and given the bytes of each twin put in
    place here."""
    read = {} if read is None else read
    rels = [rel for rel in files(stage) if suffix(rel) in COMPRESSIBLE
            and not rel.startswith(NOT_SERVED)]
    n = saved = 0
    if isinstance(memo, GzipMemo):   # the files linked from the build cache, unread
        n, saved, rels = memo.link_twins(stage, rels, MIN_COMPRESS)
    datas = [read[rel] if rel in read else (stage / rel).read_bytes() for rel in rels]
    todo = [(rel, data) for rel, data in zip(rels, datas, strict=True)
            if len(data) >= MIN_COMPRESS]
    for (rel, data), packed in zip(todo, gzip_all([d for _r, d in todo], memo), strict=True):
        if len(packed) < len(data):
            twin = stage / (rel + ".gz")
            if isinstance(memo, GzipMemo):
                memo.twin(data, packed, twin)
            else:
                write_staged_bytes(twin, packed)
            read[rel + ".gz"] = packed
            n, saved = n + 1, saved + len(data) - len(packed)
    return n, saved


def asset(dist: Path, logical: str) -> Path:
    """The published file of a logical asset name ("search-index.js" → its hashed file)."""
    table = json.loads((Path(dist) / ASSET_MAP).read_text("utf-8"))
    return Path(dist) / table.get(logical, logical)
