"""The last stage of the build: make the staged tree ready for the web (see __init__)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

from citavial.build.beside import Beside, cpus
from citavial.build.models import Regulation
from citavial.build.stagecache import Key, StageCache, code_version
from citavial.build.web import assets, icons, inline, pwa, share
from citavial.build.web.pagememo import PageMemo

ICONS = "icons"   # the stage-cache entry of the icons drawn from site_src/pwa/icon.txt


def publish(stage: Path, reg: Regulation, site_src: Path, base_url: str,
            as_of_text: str, packed: dict[bytes, bytes] | None = None,
            cache: StageCache | None = None,
            read: dict[str, bytes] | None = None,
            early: inline.EarlyCheck | None = None,
            drawn: Beside | None = None) -> tuple[str, dict]:
    """Check, bundle, hash, describe and precompress the staged site; (report, figures).
    ``packed``: gzip results already known (gzcache.GzipMemo), filled with this build's;
    ``cache``: the build cache (the pages an earlier build found free of inline code);
    ``read``: filled with {relative path: bytes} of the files it read or wrote last, as they
    are when it returns (the build cache keeps them without reading them again); ``early``:
    the inline-code check begun on the norms' pages once rendered (those unchanged since are
    not parsed again); ``drawn``: the icons begun early (``begin_icons``)."""
    stage, site_src = Path(stage), Path(site_src)
    # the pages as rendered, checked in a child while this process hashes and compresses
    checked = inline.begin_check(stage, cache, earlier=early)
    _icons(site_src / "pwa" / "icon.txt", stage, cache, drawn)
    assets.bundle(stage)
    renamed = assets.hash_assets(stage, memo=PageMemo(cache or StageCache(None)))
    if base_url:
        # 404.html answers for any missing path, at any depth: its URLs are root-relative
        root = urlsplit(base_url).path
        assets.rewrite_urls(stage / "404.html", stage, lambda target, url: root + target
                            + url[len(url.split("#", 1)[0].split("?", 1)[0]):])
        lastmod: dict[str, date] = {u.page: u.version.in_force for u in reg.units if u.version}
        share.write_sitemap(stage, base_url, lastmod)
    share.write_robots(stage, base_url)
    pwa.write_manifest(stage, as_of_text)
    packed = {} if packed is None else packed   # each file gzipped once: precache and .gz
    read = {} if read is None else read   # each file read once: precache and .gz
    pre = pwa.write_service_worker(stage, site_src, reg, as_of_text, packed, read)
    n_gz, saved = assets.precompress(stage, packed, read)
    n_pages = checked.result()   # raises on inline code: the build stops before its swap
    figures = {"pages_checked": n_pages, "hashed_assets": len(renamed),
               "precompressed": n_gz, "precache_files": len(pre.files),
               "precache_bytes": pre.raw_bytes, "precache_gzip_bytes": pre.gzip_bytes,
               "precache_version": pre.version}
    report = (f"web: {n_pages} pages without inline code, {len(renamed)} hashed assets, "
              f"{n_gz} .gz files; {pre.summary()}")
    return report, figures


def _icons_key(source: Path, cache: StageCache) -> str:
    return "" if cache.root is None or not source.is_file() else (
        Key(ICONS).text("code", code_version()).data("source", source.read_bytes()).hexdigest())


def begin_icons(source: Path, cache: StageCache | None = None) -> Beside | None:
    """The icons drawn from ``source`` in a child at niceness 19 (the second core's idle
    moments), unless the build cache holds them; ``publish`` takes them (``drawn``)."""
    cache = StageCache(None) if cache is None else cache
    key = _icons_key(source, cache)
    if (key and cache.lookup(ICONS, key) is not None) or cpus() < 2:
        return None
    return Beside("citavial.build.web.icons:draw_or_none", str(source), nice=19)


def _icons(source: Path, stage: Path, cache: StageCache | None,
           drawn: Beside | None = None) -> None:
    """The icons drawn from ``source`` (~0.15 s of CPU; ``drawn``: by ``begin_icons``), or the
    same files from the build cache when an earlier build drew them from the same bytes with
    the same code."""
    cache = StageCache(None) if cache is None else cache
    key = _icons_key(source, cache)
    if cache.restore(ICONS, key, stage) is not None:
        return
    ok, made = (False, None) if drawn is None else drawn.result()
    written = icons.write_icons(source, stage, made if ok and isinstance(made, list) else None)
    if key:
        cache.store(ICONS, key, stage, sorted(rel for rel, _size in written))
