"""The one loader of the search index that `citavial build` wrote into dist/ (CLI, worker, MCP).

The worker never indexes: it loads dist/index/ (checked against its manifest's hashes) once at
start-up and asks it questions. Every hit carries its allowlisted deep link (``url``), and every
result the evidence features the abstention gate reads (see build/index/query/evidence.py; `citavial
eval` reports how well each separates answerable questions from the others, with a threshold).
"""

from __future__ import annotations

from pathlib import Path

from citavial.build.errors import BuildError
from citavial.build.index.hooks import INDEX_DIR
from citavial.build.index.query.search import Searcher
from citavial.build.models import SearchResult

MAX_K = 100


class Retriever:
    """A loaded, read-only index; safe to share between request threads."""

    def __init__(self, searcher: Searcher) -> None:
        self._searcher = searcher

    def __repr__(self) -> str:
        return f"Retriever({self.backend}, index {self.index_version})"

    @property
    def backend(self) -> str:
        return self._searcher.backend

    @property
    def index_version(self) -> str:
        return self._searcher.version

    def hooks(self, ref: str) -> list[str]:
        """The hook questions written for a passage (students' words for what it answers)."""
        d = self._searcher.docs
        if not hasattr(self, "_hooks"):
            by_row: dict[int, list[str]] = {}
            for q, row in zip(d.hook_questions, d.hook_passage.tolist(), strict=False):
                by_row.setdefault(row, []).append(q)
            self._hooks = {d.refs[r]: qs for r, qs in by_row.items()}
        return self._hooks.get(ref, [])

    def similarity(self, question: str, refs: list[str]) -> list[float]:
        """Each passage's meaning-similarity to ``question`` with the bundled static embeddings:
        the cosine with the passage plus the best cosine with its hook questions (0 for a ref
        not in the index). Words alone confuse passages that share them ("circular",
        "vehículo"); this tells which one is about the question."""
        rows = [self._searcher.docs.ref_row.get(ref) for ref in refs]
        known = iter(self._searcher.channels.meaning(question, [r for r in rows if r is not None]))
        return [0.0 if row is None else next(known) for row in rows]

    def table(self, ref: str) -> list[list[tuple[str, bool]]]:
        """A table passage's rows as [(cell text, is header), …] ([] for other passages)."""
        return [[(c[0], bool(c[1])) for c in row] for row in self._searcher.docs.tables.get(ref, [])]

    def search(self, question: str, k: int = 10) -> SearchResult:
        """The ``k`` best passages for ``question`` (an empty question gets no hits)."""
        if not isinstance(question, str):
            raise TypeError(f"question must be a str, got {type(question).__name__}")
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k={k!r} is out of range; use 1 to {MAX_K}")
        if not question.strip():
            return SearchResult(query=question, hits=(), backend=self.backend,
                                index_version=self.index_version)
        return self._searcher.search(question, k=k)


def load_retriever(dist_dir: Path, index: str = INDEX_DIR) -> Retriever:
    """Load ``dist_dir``/index/ (or the dev-clean ``index-dev``, for measurements on the dev
    split). A missing, corrupt or outdated index raises BuildError naming the file and the fix
    (run `citavial build`)."""
    index_dir = Path(dist_dir) / index
    if not Path(dist_dir).is_dir():
        raise BuildError(str(dist_dir), "site directory not found",
                         "run `citavial build` to create dist/")
    return Retriever(Searcher.load(index_dir))
