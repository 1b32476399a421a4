"""Analysis: every text of a build's indexes tokenised and embedded once, vectors kept between builds.

The product index (dist/index/) and the dev-clean one (dist/index-dev/) hold the same passages
and hook questions that are mostly the same (hooks-v4 and v5 are in both, v3 is v2 less 341
questions), so each text is analysed (analyze.py, lexical.doc_terms) and embedded once per build
and both indexes read the results. Embeddings also persist between builds in the user's cache
(``VectorCache``), keyed by the sha256 of each text under a key of the model's files and the
encoding code: an unchanged hook is never embedded twice. Only values are reused, never
decisions: a cached vector is the float32 row ``Embedder.encode`` returns for that text alone
(its rows do not depend on the rest of the batch), so the index files are the same bytes with or
without the cache (tests/test_build_cache.py).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from citavial.build.atomic import write_bytes
from citavial.build.index import embed
from citavial.build.index.analyze import analyze
from citavial.build.index.embed import Embedder
from citavial.build.index.query import lexical

CACHE_PREFIX = "index-vectors-"


class VectorCache:
    """``<cache dir>/index-vectors-<key>.npz``: text sha256 digests and their float32 vectors.

    One file per model and encoder version; a build rewrites it with exactly the texts it used
    (so it never grows past one corpus's worth) and deletes the files of other keys. A missing,
    truncated or foreign file is ignored (the vectors are computed again), never an error."""

    def __init__(self, folder: Path, embedder: Embedder) -> None:
        h = hashlib.sha256(Path(embed.__file__).read_bytes())
        for f in sorted(p for p in embedder.path.iterdir() if p.is_file()):
            h.update(f.name.encode("utf-8") + b"\0" + f.read_bytes())
        self.path = Path(folder) / f"{CACHE_PREFIX}{h.hexdigest()[:20]}.npz"
        self.dim = embedder.dim
        self.found: dict[bytes, np.ndarray] = self._read()

    def _read(self) -> dict[bytes, np.ndarray]:
        try:
            with np.load(self.path, allow_pickle=False) as data:
                keys, vecs = data["keys"], data["vecs"]
        except Exception:   # absent or unreadable: start empty
            return {}
        if keys.ndim != 2 or keys.shape[1] != 32 or vecs.shape != (len(keys), self.dim) \
                or vecs.dtype != np.float32:
            return {}
        return {k.tobytes(): v for k, v in zip(keys, vecs)}

    def save(self, vectors: dict[bytes, np.ndarray]) -> None:
        """Keep exactly ``vectors`` (digest → row), atomically; drop other keys' files."""
        order = sorted(vectors)
        buf = io.BytesIO()
        np.savez(buf, keys=np.frombuffer(b"".join(order), dtype=np.uint8).reshape(-1, 32),
                 vecs=np.stack([vectors[k] for k in order]) if order
                 else np.zeros((0, self.dim), np.float32))
        write_bytes(self.path, buf.getvalue())
        for old in self.path.parent.glob(f"{CACHE_PREFIX}*.npz"):
            if old != self.path:
                old.unlink(missing_ok=True)


def digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class Analysis:
    """Memoised analysis of one build's texts (results are shared: callers must not mutate)."""

    def __init__(self, embedder: Embedder, cache_dir: Path | None = None) -> None:
        self.embedder = embedder
        self._terms: dict[str, list[str]] = {}
        self._doc_terms: dict[str, list[str]] = {}
        self._forms: dict[str, frozenset[str]] = {}
        self._vecs: dict[bytes, np.ndarray] = {}
        self.store = VectorCache(cache_dir, embedder) if cache_dir is not None else None
        self.embedded = 0   # texts embedded by this build (the rest came from the cache)

    def terms(self, text: str) -> list[str]:
        """analyze.analyze(text), once per text."""
        out = self._terms.get(text)
        if out is None:
            out = self._terms[text] = analyze(text)
        return out

    def doc_terms(self, text: str) -> list[str]:
        """lexical.doc_terms(text), once per text."""
        out = self._doc_terms.get(text)
        if out is None:
            out = self._doc_terms[text] = lexical.doc_terms(text)
        return out

    def form_tokens(self, text: str) -> frozenset[str]:
        """lexical.form_tokens(text): the distinct word tokens a document's forms come from."""
        out = self._forms.get(text)
        if out is None:
            out = self._forms[text] = lexical.form_tokens(text)
        return out

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embedder.encode(texts), each distinct text embedded at most once (or read from the
        cache)."""
        keys = [digest(t) for t in texts]
        todo = {k: t for k, t in zip(keys, texts) if k not in self._vecs}
        if self.store is not None:
            for k in [k for k in todo if k in self.store.found]:
                self._vecs[k] = self.store.found[k]
                del todo[k]
        if todo:
            rows = self.embedder.encode(list(todo.values()))
            self._vecs.update(zip(todo, rows))
            self.embedded += len(todo)
        if not keys:
            return np.zeros((0, self.embedder.dim), np.float32)
        return np.stack([self._vecs[k] for k in keys])

    def save(self) -> None:
        """Write the vectors this build used to the cache (when there is one)."""
        if self.store is not None:
            self.store.save(self._vecs)
