"""Search: one question → ranked passages with the evidence of each channel.

A loaded index is its documents (documents.py), its channels (channels.py: "bm25", "vector" and
"hooks", each scoring every passage) and a ranker (rankers.py: the default lexical ranking, or
the channels fused by Reciprocal Rank Fusion and rolled up by article). The evidence returned
with each result is what the worker's abstention gate reads (evidence.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from citavial.build.errors import BuildError
from citavial.build.index import signmatch
from citavial.build.index.embed import Embedder
from citavial.build.index.query.channels import Channels, rankings
from citavial.build.index.query.documents import Documents
from citavial.build.index.query.evidence import features
from citavial.build.index.query.rankers import FusionRanker, LexicalRanker, Ranker, Settings
from citavial.build.models import SearchHit, SearchResult, SignEntry, SignHit

CHANNELS = ("bm25", "vector", "hooks")


@dataclass(frozen=True, eq=False)
class Searcher:
    """A loaded index. Build with ``Searcher.load(index_dir)``; thread-safe (read-only)."""

    manifest: dict[str, Any]
    settings: Settings
    docs: Documents
    channels: Channels
    signs: tuple[SignEntry, ...]
    sign_stop: frozenset[str]         # the lexical ranking's stop words, for sign names
    lexical_ranker: LexicalRanker     # built once: the default ranker of every search

    @property
    def version(self) -> str:
        return self.manifest["version"]

    @property
    def backend(self) -> str:
        return self.manifest["backend"]

    def __repr__(self) -> str:
        return f"Searcher({self.backend}, {len(self.docs)} passages, v{self.version})"

    @classmethod
    def from_index(cls, manifest: dict[str, Any], docs: dict[str, Any],
                   arrays: dict[str, np.ndarray], embedder: Embedder) -> Searcher:
        documents = Documents.from_index(docs, arrays)
        channels = Channels.from_index(docs, arrays, embedder, documents.hook_passage)
        return cls(manifest=manifest, settings=Settings.from_json(manifest["settings"]),
                   docs=documents, channels=channels,
                   signs=tuple(signmatch.sign_entry(o) for o in docs.get("signs", [])),
                   sign_stop=frozenset(docs["lexical"]["stop"]),
                   lexical_ranker=LexicalRanker.of(documents, channels))

    @classmethod
    def load(cls, index_dir: Path) -> Searcher:
        from citavial.build.index.embed import load_embedder
        from citavial.build.index.store import FIX, read_index
        manifest, docs, arrays = read_index(index_dir)
        try:
            model = manifest["model"]
            folder = Path(index_dir) / "model" if model.get("bundled") else model["path"]
            embedder = load_embedder(folder)
            return cls.from_index(manifest, docs, arrays, embedder)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise BuildError(str(Path(index_dir) / "manifest.json"),
                             f"search index is incomplete or from another citavial version "
                             f"({type(err).__name__}: {err})", FIX) from None

    def ranker(self, settings: Settings) -> Ranker:
        """The ranker ``settings.ranker`` names: "lexical", else the fusion."""
        if settings.ranker == "lexical":
            return self.lexical_ranker
        return FusionRanker(self.docs, self.channels, settings)

    def search(self, question: str, k: int = 10, settings: Settings | None = None) -> SearchResult:
        """The ``k`` best passages, rolled up (one per group at the head), ties by ref; a
        question that is a bare reference gets that passage first. ``settings`` overrides the
        index's (the evaluation scores each channel alone this way)."""
        s = settings or self.settings
        ranker = self.ranker(s)
        scores = self.channels.scores(question, vectors=ranker.vectors)
        ranks = rankings(scores, self.docs.tiebreak, s.depth)
        ranked = ranker.rank(question, scores, ranks)
        d, n = self.docs, len(self.docs)
        positions = {c: _positions(r, n) for c, r in ranks.items()}
        hits = tuple(
            SearchHit(ref=d.refs[i], unit_ref=d.units[d.unit_of[i]], url=d.urls[i],
                      score=round(float(ranked.scores[i]), 6), rank=pos + 1, label=d.labels[i],
                      text=d.texts[i],
                      channels=tuple((c, int(positions[c][i])) for c in CHANNELS))
            for pos, i in enumerate(ranked.order[:k].tolist()))
        return SearchResult(query=question, hits=hits, backend=self.backend,
                            index_version=self.version,
                            evidence=features(self.channels, scores, ranked.scores),
                            signs=self.sign_hits(question))

    def sign_hits(self, question: str) -> tuple[SignHit, ...]:
        """The signs ``question`` names by code or name (signmatch.py), best first."""
        if not self.signs:
            return ()
        found = signmatch.match(signmatch.prepare(self.channels.lexical), question,
                                self.sign_stop)
        return tuple(SignHit(self.signs[row], how) for row, how in found)


def _positions(ranked: np.ndarray, n: int) -> np.ndarray:
    pos = np.zeros(n, dtype=np.int64)
    pos[ranked] = np.arange(1, len(ranked) + 1)
    return pos
