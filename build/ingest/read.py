"""The corpus as one build reads it: every file verified once and parsed once.

``read_corpus`` is the build's only way in: it verifies the manifests (corpus/integrity.py),
parses the BOE XML once into the Reglamento and the wordings its history pages need, and ingests
the Markdown norms; the later stages receive these typed values, never a path to re-read.

With the build cache on, the parsed corpus is kept as plain JSON (build/typedjson.py: read back
field by field, a wrong shape is a miss) under the build's inputs digest (stagecache.py: the
corpus's bytes, the as-of date, poppler and the build's code): a build whose guides alone changed
reads it back (~0.12 s of CPU) instead of verifying and parsing the corpus again (~0.5 s). The
same bytes were verified by the build that stored it, so the verdict stands. The same value is
also kept as a pickle (stagevalues.py), read back in ~0.05 s from an entry this cache wrote
itself; the typed JSON remains for a cache restored from elsewhere. Writing it costs ~0.2 s, so
a build may defer it (``CorpusJson``): made from the pickle in a child process at the lowest
priority once the corpus is read, and stored at the build's end.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import NamedTuple

from citavial.build import stagevalues, typedjson
from citavial.build.beside import Beside, cpus
from citavial.build.corpus.integrity import CorpusInfo, verify_corpus
from citavial.build.errors import BuildError
from citavial.build.ingest import from_bloques, parse_texto, source_of, with_renames
from citavial.build.ingest.markdown import Tables, ingest_norms, start_tables
from citavial.build.ingest.wordings import Wording, Wordings, read_wordings
from citavial.build.models import Regulation
from citavial.build.stagecache import Key, StageCache

STAGE = "corpus"
FILE = "corpus.json"
PICKLED = "pickled-corpus"   # the same value as a pickle, read from our own entry only


@dataclass(frozen=True)
class Corpus:
    """The verified, parsed corpus of one build."""

    regulation: Regulation          # the Reglamento in force on the as-of date, with its renames
    wordings: Wordings              # its blocks' wordings (changes page, previous sign catalogue)
    others: tuple[Regulation, ...]  # the Markdown norms, in NORMS order

    def __repr__(self) -> str:
        return f"Corpus({self.regulation!r}, {len(self.others)} other norms)"


@dataclass(frozen=True)
class _Stored:
    """A Corpus as the build cache keeps it (the wordings as (block id, wordings) pairs)."""

    regulation: Regulation
    wordings: tuple[tuple[str, tuple[Wording, ...]], ...]
    others: tuple[Regulation, ...]


class Begun(NamedTuple):
    """The corpus verified and its PDF tables being read (``begin_tables``)."""

    info: CorpusInfo
    tables: Tables


def begin_tables(corpus_dir: Path, cache_dir: Path | None = None,
                 cached: tuple[StageCache, str] = (StageCache(None), "")) -> Begun | None:
    """The corpus verified and its PDF tables (RD 818/2009's: the committed file, or, when it is
    stale, ~1 s of CPU in poppler's processes) begun now, for a ``read_corpus`` with the same
    arguments that will parse the corpus: `citavial build` calls this before it loads the
    pipeline, so they have the core its start-up leaves idle (the corpus is still verified once). None
    when this cache's own pickle of the corpus will serve, or when the corpus does not verify
    (the read reports that)."""
    cache, inputs = cached
    key = _key(inputs)
    if key and cache.ours(PICKLED, key):
        return None
    try:
        info = verify_corpus(Path(corpus_dir), norms_required=True)
    except BuildError:
        return None
    pool = ThreadPoolExecutor(max_workers=1)
    tables = start_tables(info.norms, pool, cache_dir)
    pool.shutdown(wait=False)   # what was submitted still runs; the pool takes nothing more
    return Begun(info, tables)


def _key(inputs: str) -> str:
    return "" if not inputs else Key(STAGE).text("inputs", inputs).hexdigest()


def read_corpus(corpus_dir: Path, as_of: date, cache_dir: Path | None = None,
                cached: tuple[StageCache, str] = (StageCache(None), ""),
                later: list[CorpusJson] | None = None, begun: Begun | None = None) -> Corpus:
    """Verify and parse the corpus for ``as_of``; ``cache_dir`` keeps the tables read from the
    PDFs between builds (ingest/markdown/pdftables.py). ``cached``: the stage cache and the
    build's inputs digest (stagecache.inputs_digest; "" caches nothing). ``later``: where the
    typed JSON entry goes, to be made and stored by the caller (``CorpusJson``); else now.
    ``begun``: what ``begin_tables`` began, if the caller did."""
    cache, inputs = cached
    key = _key(inputs)
    stored = stagevalues.load(cache, PICKLED, key, _Stored, _Stored)   # our own pickle
    if stored is None:
        stored = _from_json(cache, key)
        if stored is not None:   # another's entry, checked: pickled for the next build
            stagevalues.save(cache, PICKLED, key, stored)
    if stored is not None:
        return Corpus(stored.regulation, dict(stored.wordings), stored.others)
    corpus = _parse(Path(corpus_dir), as_of, cache_dir, begun)
    if key:
        stored = _Stored(corpus.regulation, tuple(corpus.wordings.items()), corpus.others)
        pickled = stagevalues.save(cache, PICKLED, key, stored)
        if later is not None and pickled is not None:
            later.append(CorpusJson(cache, key, pickled))
        else:
            cache.commit(cache.stash_data({FILE: typedjson.dumps(stored)}), STAGE, key)
    return corpus


class CorpusJson:
    """The corpus entry's typed JSON, deferred: ``begin`` makes it from the pickle in a child
    process (build/beside.py: computed here instead if that fails), ``store`` keeps it."""

    def __init__(self, cache: StageCache, key: str, pickled: bytes) -> None:
        self.cache, self.key, self.pickled = cache, key, pickled
        self._child: Beside | None = None

    def begin(self) -> None:
        """Start the child, at the lowest priority: begun when the corpus is read, it takes
        the second core only when the index's child leaves it idle."""
        if cpus() > 1:
            self._child = Beside(f"{__name__}:json_form", self.pickled, nice=19)

    def store(self) -> None:
        ok, data = (False, None) if self._child is None else self._child.result()
        if not ok or not isinstance(data, bytes):
            data = json_form(self.pickled)
        self.cache.commit(self.cache.stash_data({FILE: data}), STAGE, self.key)


def json_form(pickled: bytes) -> bytes:
    """The typed JSON of the corpus pickled by ``read_corpus`` (stagevalues.save)."""
    return typedjson.dumps(stagevalues.unpickle(pickled, _Stored))


def _from_json(cache: StageCache, key: str) -> _Stored | None:
    """The corpus entry's typed JSON, read field by field; None on a miss or a wrong shape."""
    found = cache.lookup(STAGE, key)
    if found is None or len(found[1]) != 1:
        return None
    try:
        return typedjson.loads(_Stored, Path(found[1][0]).read_bytes())
    except OSError:
        return None


def _parse(corpus_dir: Path, as_of: date, cache_dir: Path | None,
           begun: Begun | None = None) -> Corpus:
    info = verify_corpus(corpus_dir, norms_required=True) if begun is None else begun.info
    with ThreadPoolExecutor(max_workers=1) as pool:   # the PDF tables (poppler, when the
        #                                               committed ones are stale) while the rest is read
        tables = start_tables(info.norms, pool, cache_dir) if begun is None else begun.tables
        bloques = parse_texto(info.texto_path)
        reg = with_renames(from_bloques(bloques, source_of(info), as_of), corpus_dir)
        wordings = read_wordings(bloques, as_of)
        others = tuple(ingest_norms(info.norms, as_of, cache_dir, tables).values())
    return Corpus(reg, wordings, others)
