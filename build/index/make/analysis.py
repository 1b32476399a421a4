"""Analysis: every text of a build's indexes tokenised and embedded once, vectors kept between builds.

The product index (dist/index/) and the dev-clean one (dist/index-dev/) hold the same passages
and hook questions that are mostly the same (hooks-v4 and v5 are in both, v3 is v2 less 341
questions), so each text is analysed (analyze.py, lexical.doc_terms) and embedded once per build
and both indexes read the results. Embeddings also persist between builds in the user's cache
(``BuildCache``), keyed by the sha256 of each text under a key of the model's files, the build
package's code and the versions of the libraries that compute them: an unchanged hook is never
analysed or embedded twice. Only values are reused, never
decisions: a cached vector is the float32 row ``Embedder.encode`` returns for that text alone
(its rows do not depend on the rest of the batch), so the index files are the same bytes with or
without the cache (tests/test_build_cache.py).
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from citavial.build.atomic import write_bytes
from citavial.build.index.analyze import analyze
from citavial.build.index.embed import Embedder
from citavial.build.index.query import lexical

CACHE_PREFIX = "index-"
_BUILD_CODE = Path(__file__).resolve().parents[2]   # the whole build package
_LIBRARIES = ("numpy", "pystemmer", "tokenizers", "safetensors", "model2vec")


def cache_key(embedder: Embedder) -> str:
    """What a cached value depends on: the model's files, the build package's code (analysis,
    text folding, patterns, encoding) and the libraries' versions."""
    h = hashlib.sha256()
    for root in (embedder.path, _BUILD_CODE):
        for f in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".pyc"
                        and (root == embedder.path or p.suffix == ".py")):
            h.update(str(f.relative_to(root)).encode("utf-8") + b"\0" + f.read_bytes() + b"\0")
    for lib in _LIBRARIES:
        try:
            h.update(f"{lib}={metadata.version(lib)}\0".encode("utf-8"))
        except metadata.PackageNotFoundError:
            h.update(f"{lib}=-\0".encode("utf-8"))
    return h.hexdigest()[:20]


class BuildCache:
    """``<cache dir>/index-<key>.npz``: text sha256 digests with their float32 vectors, and
    their analysed terms as JSON (``terms``: analyze; ``docs``: doc_terms and form tokens).

    One file per key; a build rewrites it with exactly the texts it used (so it never grows past
    one corpus's worth) and deletes the files of other keys. A missing, truncated or foreign
    file is ignored (everything is computed again), never an error."""

    def __init__(self, folder: Path, embedder: Embedder) -> None:
        self.path = Path(folder) / f"{CACHE_PREFIX}{cache_key(embedder)}.npz"
        self.dim = embedder.dim
        self.vectors: dict[bytes, np.ndarray] = {}
        self.terms: dict[str, list[str]] = {}
        self.docs: dict[str, list] = {}
        try:
            self._read()
        except Exception:   # absent or unreadable: start empty
            self.vectors, self.terms, self.docs = {}, {}, {}

    def _read(self) -> None:
        with np.load(self.path, allow_pickle=False) as data:
            keys, vecs, text = data["keys"], data["vecs"], data["text"]
        if keys.ndim != 2 or keys.shape[1] != 32 or vecs.shape != (len(keys), self.dim) \
                or vecs.dtype != np.float32:
            return
        parsed = json.loads(text.tobytes().decode("utf-8"))
        self.vectors = {k.tobytes(): v for k, v in zip(keys, vecs, strict=False)}
        self.terms, self.docs = parsed["terms"], parsed["docs"]

    def save(self, vectors: dict[bytes, np.ndarray], terms: dict[str, list[str]],
             docs: dict[str, list]) -> None:
        """Keep exactly these values (by text digest), atomically; drop other keys' files."""
        order = sorted(vectors)
        text = json.dumps({"terms": terms, "docs": docs}, ensure_ascii=False, sort_keys=True,
                          separators=(",", ":")).encode("utf-8")
        buf = io.BytesIO()
        np.savez(buf, keys=np.frombuffer(b"".join(order), dtype=np.uint8).reshape(-1, 32),
                 vecs=np.stack([vectors[k] for k in order]) if order
                 else np.zeros((0, self.dim), np.float32),
                 text=np.frombuffer(text, dtype=np.uint8))
        write_bytes(self.path, buf.getvalue())
        for old in self.path.parent.glob(f"{CACHE_PREFIX}*.npz"):
            if old != self.path:
                old.unlink(missing_ok=True)


def digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class Analysis:
    """Memoised analysis of one build's texts (results are shared: callers must not mutate).

    The memos are keyed by the text itself (a str hashes once, cheaply); a text's sha256 is
    computed only to look it up in, and to save it to, the build cache (``store``)."""

    def __init__(self, embedder: Embedder, cache_dir: Path | None = None) -> None:
        self.embedder = embedder
        self.store = BuildCache(cache_dir, embedder) if cache_dir is not None else None
        self._terms: dict[str, list[str]] = {}        # text → analyze(text)
        self._docs: dict[str, tuple[list[str], frozenset[str]]] = {}   # text → (terms, forms)
        self._vecs: dict[str, np.ndarray] = {}        # text → its embedding
        self.embedded = 0   # texts embedded by this build (the rest came from the cache)
        self._shared: list[tuple[tuple, Any]] = []   # (key, value) per key length: shared()

    def terms(self, text: str) -> list[str]:
        """analyze.analyze(text), once per text."""
        out = self._terms.get(text)
        if out is None:
            out = self.store.terms.get(digest(text).hex()) if self.store is not None else None
            self._terms[text] = out = analyze(text) if out is None else out
        return out

    def _doc(self, text: str) -> tuple[list[str], frozenset[str]]:
        out = self._docs.get(text)
        if out is None:
            kept = self.store.docs.get(digest(text).hex()) if self.store is not None else None
            out = lexical.doc_analysis(text) if kept is None else (kept[0], frozenset(kept[1]))
            self._docs[text] = out
        return out

    def doc_terms(self, text: str) -> list[str]:
        """lexical.doc_terms(text), once per text."""
        return self._doc(text)[0]

    def form_tokens(self, text: str) -> frozenset[str]:
        """lexical.form_tokens(text), once per text."""
        return self._doc(text)[1]

    def shared(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """``compute()`` once for the objects of ``key`` (compared by identity: the indexes of
        one build are given the very same passages and URLs), e.g. what an index computes
        from its passages alone. Each kind of value has its own length of key."""
        for known, value in self._shared:
            if len(known) == len(key) and all(a is b for a, b in zip(known, key, strict=True)):
                return value
        self._shared = [e for e in self._shared if len(e[0]) != len(key)] + [(key, compute())]
        return self._shared[-1][1]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embedder.encode(texts), each distinct text embedded at most once (or read from the
        cache)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._vecs]
        if self.store is not None and self.store.vectors:
            known = self.store.vectors
            for t in todo:
                row = known.get(digest(t))
                if row is not None:
                    self._vecs[t] = row
            todo = [t for t in todo if t not in self._vecs]
        if todo:
            rows = self.embedder.encode(todo)
            self._vecs.update(zip(todo, rows, strict=False))
            self.embedded += len(todo)
        if not texts:
            return np.zeros((0, self.embedder.dim), np.float32)
        return np.stack([self._vecs[t] for t in texts])

    def save(self) -> None:
        """Write the values this build used to the cache (when there is one)."""
        if self.store is not None:
            self.store.save({digest(t): v for t, v in self._vecs.items()},
                            {digest(t).hex(): v for t, v in self._terms.items()},
                            {digest(t).hex(): [terms, sorted(forms)]
                             for t, (terms, forms) in self._docs.items()})
