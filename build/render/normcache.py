"""The norms' pages kept by the hash of what they are made of (issue 27).

The Reglamento's and the other norms' pages (``pages.render`` and ``pages.render_norm``, with
the corpus images beside them) read the parsed corpus, the templates, the static files and the
options — never the guides or the practice bank. So they are a stage-cache entry keyed by the
build's inputs digest (corpus bytes, code, as-of date: stagecache.inputs_digest), every file of
site_src except ``content/`` and ``practice/``, and the base URL: a build whose guides or
practice questions alone changed links these ~600 pages back instead of rendering them. A
template, a static file, the corpus or the code changed is another key: rendered again.
"""

from __future__ import annotations

import json
from pathlib import Path

from citavial.build.atomic import write_staged_bytes
from citavial.build.corpus.images import DIR as IMAGES_DIR
from citavial.build.models import Regulation
from citavial.build.render.pages import render, render_norm
from citavial.build.stagecache import Key, StageCache, listing, safe_rel, unpack, written

STAGE = "norms"
AUTHORED = ("content", "practice")   # site_src folders the norms' pages never read


def norms_key(inputs: str, site_src: Path, base_url: str) -> str:
    """The key of the norms' pages; "" (cache nothing) when ``inputs`` is."""
    if not inputs:
        return ""
    key = Key(STAGE).text("inputs", inputs).text("base_url", base_url)
    for child in sorted(Path(site_src).iterdir()):
        if child.name in AUTHORED:
            continue
        if child.is_dir():
            key.tree(f"dir {child.name}", child)
        elif child.is_file():
            key.data(f"file {child.name}", child.read_bytes())
    return key.hexdigest()


def _pages_from_note(note: str, stage: Path) -> list[Path] | None:
    try:
        rels = json.loads(note)
    except ValueError:
        return None
    if not isinstance(rels, list) or not all(safe_rel(r) for r in rels):
        return None
    return [stage / r for r in rels]


def render_norms(cache: StageCache, key: str, stage: Path, site_src: Path,
                 regs: tuple[Regulation, ...], fetched: dict[str, Path], base_url: str,
                 change_links: dict[str, dict[str, str]]) -> list[Path]:
    """Write every norm's pages and the corpus images into ``stage`` (empty so far), from the
    cache when ``key`` has an entry; the pages written (the Reglamento's first)."""
    found = cache.lookup(STAGE, key)
    if found is not None:
        pages = _pages_from_note(found[0].note, stage)
        if pages is not None and unpack(found, stage) is not None:
            return pages
    before = listing(stage) if key else {}
    images = {src: f"{IMAGES_DIR}/{path.name}" for src, path in fetched.items()}
    for path in fetched.values():
        write_staged_bytes(stage / IMAGES_DIR / path.name, path.read_bytes())
    reg, others = regs[0], list(regs[1:])
    pages = render(reg, site_src, stage, change_links=change_links, base_url=base_url,
                   images=images, others=others)
    for other in others:
        pages += render_norm(other, site_src, stage, base_url=base_url, images=images)
    if key:
        note = json.dumps([p.relative_to(stage).as_posix() for p in pages])
        cache.store(STAGE, key, stage, written(before, listing(stage)), note)
    return pages
