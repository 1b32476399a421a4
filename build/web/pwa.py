"""The site as a progressive web app: manifest.webmanifest and sw.js (the service worker that
precaches the whole study site, versioned by the build).

The precache is every page and every file those pages load (stylesheet, scripts, the static
search index, the practice bank, icons); not the worker's data (index/, allowlist.json) nor
machine-readable extras (sitemap, JSON reports). Its version is a digest of exactly the bytes
it holds, so any change of content or as-of date is a new cache and two builds never mix.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from citavial.build.atomic import write_staged
from citavial.build.errors import BuildError
from citavial.build.models import Regulation
from citavial.build.stagecache import files
from citavial.build.web.assets import NOT_SERVED, gzip_all, suffix
from citavial.build.web.gzcache import GzipMemo

THEME = "#0b5cad"
MANIFEST = "manifest.webmanifest"
SW_MARKER = '"__CITAVIAL_BUILD__"'
NOT_PRECACHED = frozenset({"404.html", "sw.js"})
PRECACHED_SUFFIXES = frozenset({".html", ".css", ".js", ".png", ".ico", ".svg", ".webmanifest"})


@dataclass(frozen=True)
class Precache:
    version: str
    files: tuple[str, ...]
    raw_bytes: int
    gzip_bytes: int   # what a first visit transfers to fill it (gzip -9 of each file)

    def summary(self) -> str:
        return (f"precache {len(self.files)} files, {self.raw_bytes / 1e6:.2f} MB "
                f"({self.gzip_bytes / 1e6:.2f} MB compressed), version {self.version}")


def write_manifest(stage: Path, as_of_text: str) -> None:
    """start_url/scope stay relative: they resolve against the manifest's own URL, so they
    follow any sub-path and the --base-url host (an absolute URL would break a copy served
    elsewhere, e.g. a school's test server)."""
    root = "./"
    manifest = {
        "name": "citavial · normas de tráfico",
        "short_name": "citavial",
        "description": f"El Reglamento General de Circulación, la Ley sobre Tráfico y los "
                       f"Reglamentos de Vehículos y de Conductores en vigor a {as_of_text}, con "
                       "citas verificadas, búsqueda y práctica para el examen teórico, sin "
                       "conexión.",
        "lang": "es", "dir": "ltr",
        "id": root, "start_url": root + "index.html", "scope": root,
        "display": "standalone", "orientation": "any",
        "background_color": "#ffffff", "theme_color": THEME,
        "categories": ["education", "reference"],
        "icons": [{"src": "static/icon-192.png", "sizes": "192x192", "type": "image/png",
                   "purpose": "any"},
                  {"src": "static/icon-512.png", "sizes": "512x512", "type": "image/png",
                   "purpose": "any"}],
    }
    write_staged(stage / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1,
                                              sort_keys=True) + "\n")


def precache_files(stage: Path) -> list[str]:
    """The precached files' relative paths, in the order of their paths' parts."""
    return sorted((rel for rel in files(stage)
                   if suffix(rel) in PRECACHED_SUFFIXES and rel not in NOT_PRECACHED
                   and not rel.startswith(NOT_SERVED)), key=lambda rel: rel.split("/"))


def write_service_worker(stage: Path, site_src: Path, reg: Regulation, as_of_text: str,
                         memo: dict[bytes, bytes] | None = None,
                         read: dict[str, bytes] | None = None) -> Precache:
    """Write sw.js with the precache list; ``memo``: see assets.gzip_all (a GzipMemo also gives
    the sha256, size and gzip size of the files linked from the build cache, unread);
    ``read``: filled with {relative path: bytes} of the files it read (assets.precompress
    reads them there)."""
    files = precache_files(stage)
    sized = memo.sized if isinstance(memo, GzipMemo) else lambda _path: None
    known = {rel: found for rel in files
             if (found := sized(os.path.join(stage, rel))) is not None}
    datas = {rel: (stage / rel).read_bytes() for rel in files if rel not in known}
    if read is not None:
        read.update(datas)
    for (rel, data), gz in zip(datas.items(), gzip_all(list(datas.values()), memo),
                               strict=True):
        known[rel] = (hashlib.sha256(data).hexdigest(), len(data), len(gz))
    digest = hashlib.sha256()
    raw = packed = 0
    for rel in files:
        sha, size, gz_size = known[rel]
        digest.update(rel.encode("utf-8") + b"\0" + bytes.fromhex(sha))
        raw += size
        packed += min(size, gz_size)
    pre = Precache(digest.hexdigest()[:12], tuple(files), raw, packed)
    source = Path(site_src) / "pwa" / "sw.js"
    code = source.read_text("utf-8")
    if code.count(SW_MARKER) != 1:
        raise BuildError(str(source), f"contains {SW_MARKER} {code.count(SW_MARKER)} times",
                         "keep it exactly once: the build replaces it with the version and "
                         "the file list")
    build = {"version": pre.version, "as_of": reg.as_of.isoformat(), "as_of_text": as_of_text,
             "files": files}
    write_staged(stage / "sw.js", code.replace(SW_MARKER, json.dumps(
        build, ensure_ascii=False, sort_keys=True, separators=(",", ":"))))
    return pre
