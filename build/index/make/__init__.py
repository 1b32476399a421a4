"""Index: passages → the prebuilt hybrid search index in dist/index/ (+ the static-site index).

``build_index`` is the stage's one public function; ``collect`` turns a Regulation into the
Passage values it takes. The query side is ``build.index.query.search.Searcher`` (used by
build/index/query/retriever.py: the worker, and the `citavial search` / `eval` commands).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from citavial.build.errors import BuildError
from citavial.build.index.bm25 import build_bm25, build_bm25_parts
from citavial.build.index.collect import collect, contexts, groups
from citavial.build.index.embed import load_embedder
from citavial.build.index.hooks import (
    DEFAULT_HOOKS,
    DEV_INDEX_DIR,
    INDEX_DIR,
    Hook,
    hooks_version,
    load_hooks,
    promoted_hooks,
)
from citavial.build.index.make.analysis import Analysis
from citavial.build.index.query.lexical import build_lexical, norms_of
from citavial.build.index.query.rankers import Settings
from citavial.build.index.signmatch import sign_json, sign_table
from citavial.build.index.store import dump_json, write_index
from citavial.build.models import Passage, SignEntry

__all__ = ["build_index", "prepare_index", "write_prepared", "Prepared", "collect",
           "promoted_hooks", "Analysis", "DEFAULT_HOOKS", "DEV_INDEX_DIR"]

BUNDLE_LIMIT = 32 * 2**20   # a model up to this size is copied into dist/index/model/
DEFAULT_SETTINGS = Settings()


def passage_url(p: Passage, urls: Mapping[str, str]) -> str:
    return urls.get(p.ref) or f"{p.page}#{p.anchor}"


def _group_rows(keys: Sequence[str]) -> list[int]:
    row = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    return [row[k] for k in keys]


def _bm25_arrays(prefix: str, m) -> dict[str, np.ndarray]:
    return {f"{prefix}_indptr": m.indptr, f"{prefix}_docs": m.docs,
            f"{prefix}_weights": m.weights, f"{prefix}_ndocs": np.array([m.n_docs], np.int32)}


def _model_info(folder: Path, name: str) -> tuple[dict, Path | None]:
    size = sum(f.stat().st_size for f in folder.iterdir() if f.is_file())
    if size <= BUNDLE_LIMIT:
        return {"name": name, "bundled": True}, folder
    return {"name": name, "bundled": False, "path": str(folder.resolve())}, None


def _backend(settings: Settings, model: str, hooks: str) -> str:
    """E.g. "bm25-expanded(hooks-v1+hooks-v2)" for the lexical ranker, or the fused channels
    ("bm25+model2vec(citavial-static-v1)+hooks-v1") for the earlier fusion."""
    if settings.ranker == "lexical":
        return f"bm25-expanded({hooks})"
    w = dict(settings.weights)
    parts = []
    if w.get("bm25"):
        parts.append("bm25")
    elif settings.exact_bonus:
        parts.append("bm25-exact")
    if w.get("vector"):
        parts.append(f"model2vec({model})")
    if w.get("hooks"):
        parts.append(hooks)
    return "+".join(parts)


class _PassageSide(NamedTuple):
    """What an index computes from its passages alone, not its hooks: the same for the
    build's two indexes, so computed once for both (Analysis.shared)."""

    ctx: dict[str, str]                 # collect.contexts
    groups: list[str]                   # collect.groups
    row: dict[str, int]                 # ref → row
    bm: Any                             # bm25.Bm25Matrix of the passages' own terms
    units: list[str]                    # unit refs in order
    arrays: dict[str, np.ndarray]       # the passages' BM25 postings and vectors


def _passage_side(passages: Sequence[Passage], analysis: Analysis) -> _PassageSide:
    ctx, keys = contexts(passages), groups(passages)
    units = list(dict.fromkeys(p.unit_ref for p in passages))
    terms = analysis.terms
    bm = build_bm25_parts([terms(f"{p.label}. {p.title}") + terms(ctx[p.ref]) + terms(p.text)
                           for p in passages], norms_of(passages))
    pvec = analysis.encode([f"{p.title} {ctx[p.ref]} {p.text}" for p in passages])
    return _PassageSide(ctx, keys, {p.ref: i for i, p in enumerate(passages)}, bm, units,
                        {**_bm25_arrays("bm25", bm), "passage_vecs": pvec.astype(np.float16)})


def _passages_json(passages: Sequence[Passage], urls: Mapping[str, str],
                   ps: _PassageSide) -> bytes:
    """passages.json (store.dump_json: dumped once for both indexes)."""
    unit_row = {u: i for i, u in enumerate(ps.units)}
    return dump_json({"refs": [p.ref for p in passages], "urls": [passage_url(p, urls)
                      for p in passages], "labels": [p.label for p in passages],
                      "texts": [p.text for p in passages], "units": ps.units,
                      "unit_of": [unit_row[p.unit_ref] for p in passages],
                      "group_of": _group_rows(ps.groups),
                      "tables": {p.ref: [[[c.text, c.header] for c in row]
                                         for row in p.table.rows]
                                 for p in passages if p.table is not None}})


class Prepared(NamedTuple):
    """An index computed from its passages, hooks and model alone (``prepare_index``): all of
    it but what the URLs and signs enter (passages.json, the signs' table, the version hash,
    the static shards), which ``write_prepared`` adds. The costly part of the index stage, so
    the build computes it beside its other stages (build/index/make/child.py)."""

    passages: Sequence[Passage]
    side: _PassageSide
    hooks: tuple[Hook, ...]
    skipped: int
    hbm: Any                            # bm25.Bm25Matrix of the hook questions
    hvec: np.ndarray
    lexical: dict[str, Any]             # lexical.build_lexical, without the signs
    settings: Settings
    model: dict[str, Any]               # the manifest's "model"
    bundle: Path | None                 # the model folder copied into the index, if any
    hooks_version: str
    backend: str
    index_dir: str
    static: bool
    analysis: Analysis
    seconds: float                      # how long preparing took (wall)


def prepare_index(passages: Sequence[Passage], hooks_path: Path | Sequence[Path], *,
                  embeddings: str | None = None, settings: Settings | None = None,
                  index_dir: str = INDEX_DIR, static: bool = True,
                  analysis: Analysis | None = None) -> Prepared:
    """The URL- and sign-free part of ``build_index`` (its arguments, same meaning)."""
    t0 = time.perf_counter()
    settings = settings or DEFAULT_SETTINGS
    if not passages:
        raise BuildError("build_index", "no passages to index", "check the ingest stage")
    if analysis is None:
        analysis = Analysis(load_embedder(embeddings))
    embedder = analysis.embedder
    ps = analysis.shared((passages,), lambda: _passage_side(passages, analysis))
    hooks, skipped = load_hooks(hooks_path, set(ps.row))
    hbm = build_bm25([analysis.terms(h.question) for h in hooks])
    hvec = analysis.encode([h.question for h in hooks])
    model, bundle = _model_info(embedder.path, embedder.name)
    hv = hooks_version(hooks_path)
    lexical = build_lexical(passages, ps.ctx, hooks, terms_of=analysis.doc_terms,
                            forms_of=analysis.form_tokens, group_keys=ps.groups)
    return Prepared(passages, ps, hooks, skipped, hbm, hvec, lexical, settings, model, bundle,
                    hv, _backend(settings, embedder.name, hv), index_dir, static, analysis,
                    time.perf_counter() - t0)


def write_prepared(prep: Prepared, urls: Mapping[str, str], out_dir: Path,
                   signs: Sequence[SignEntry] = ()) -> str:
    """Write the index ``prep`` with its URLs and signs (see ``build_index``); its report."""
    t0 = time.perf_counter()
    passages, ps, hooks, hbm, hv = prep.passages, prep.side, prep.hooks, prep.hbm, \
        prep.hooks_version
    units, bm = ps.units, ps.bm
    docs: dict[str, Any] = {
        "passages": prep.analysis.shared((passages, urls),
                                         lambda: _passages_json(passages, urls, ps)),
        "terms": {"passages": list(bm.vocab), "hooks": list(hbm.vocab)},
        "hooks": {"questions": [h.question for h in hooks], "version": hv},
        "lexical": {**prep.lexical, **sign_table(signs)},
        "signs": [sign_json(s) for s in signs],
    }
    arrays = {**ps.arrays, **_bm25_arrays("hooks_bm25", hbm),
              "hook_vecs": prep.hvec.astype(np.float16),
              "hook_passage": np.array([ps.row[h.ref] for h in hooks], dtype=np.int32)}
    manifest: dict[str, Any] = {
        "backend": prep.backend, "settings": prep.settings.as_json(),
        "model": prep.model, "hooks": hv,
        "counts": {"passages": len(passages), "units": len(units), "hooks": len(hooks),
                   "hooks_skipped": prep.skipped, "terms": len(bm.vocab)}}
    out_dir, index_dir = Path(out_dir), prep.index_dir
    manifest = write_index(out_dir / index_dir, docs, arrays, manifest, prep.bundle)
    static_report = ""
    if prep.static:
        from citavial.build.index.make.export import export_static
        static_report = " + " + export_static(passages, urls, docs["lexical"], out_dir,
                                              manifest["version"])
    size = sum(f.stat().st_size for f in (out_dir / index_dir).rglob("*") if f.is_file())
    return (f"{index_dir} {manifest['version']}: {len(passages)} passages in {len(units)} "
            f"units, {len(hooks)} hook questions ({hv}, {prep.skipped} skipped: ref not in "
            f"force), backend {manifest['backend']}, {size / 1024:.0f} KB{static_report}, "
            f"{prep.seconds + time.perf_counter() - t0:.2f} s")


def build_index(passages: Sequence[Passage], urls: Mapping[str, str],
                hooks_path: Path | Sequence[Path],
                out_dir: Path, *, embeddings: str | None = None,
                settings: Settings | None = None, signs: Sequence[SignEntry] = (),
                index_dir: str = INDEX_DIR, static: bool = True,
                analysis: Analysis | None = None) -> str:
    """Write the search index of ``passages`` into ``out_dir``/``index_dir``/ and (``static``)
    the static-site index into ``out_dir``/search-index.js and ``out_dir``/search/ (its shards);
    return a one-line report.

    ``urls`` maps refs to deep links (dist/allowlist.json); a ref without one links to
    ``page#anchor``. ``embeddings`` names a model2vec model (default: $CITAVIAL_EMBEDDINGS,
    then the bundled corpus/embeddings/citavial-static-v1). ``signs`` (build/render/signpage.py) are the
    codes and names a question can name (build/index/signmatch.py). ``analysis`` (analysis.py)
    is shared by the indexes of one build, so each text is analysed and embedded once; without
    it the texts are analysed afresh (same bytes either way). ``prepare_index`` then
    ``write_prepared``: the build runs the first before it knows the URLs and signs.
    """
    return write_prepared(prepare_index(passages, hooks_path, embeddings=embeddings,
                                        settings=settings, index_dir=index_dir, static=static,
                                        analysis=analysis), urls, out_dir, signs)
