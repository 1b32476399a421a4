"""The index stage beside the others: its costly part in a child process (issue 27).

Most of the index stage's CPU (tokenising, folding and embedding ~17,800 texts, BM25, the
lexical data: make.prepare_index) reads only the passages, the hooks and the embeddings model,
all known once the corpus is read. Only writing the index needs what the gate and the pages
stage make: every passage's deep link (passages.json, the static shards, the index's version
hash) and the signs. ``IndexJob.start`` therefore begins the index in a child process right
after the read stage, and ``finish``, at the index stage, hands it the URLs and signs, waits for
it to write the index files into the staging folder and returns its report: on two cores the
analysis runs while the parent renders, gates and writes the pages. Same bytes either way.

The child is started with the "spawn" method, never fork: builds run inside threaded processes
(pytest-xdist workers, the worker server), where a forked child may inherit a lock another thread
held. Its failure is the build's: a BuildError comes back with its message and is raised again,
any other exception as an IndexProcessError carrying the child's traceback, and a child that
ends without a word (killed) is a BuildError naming its exit code. The child writes nothing
before ``finish``, dies with its parent (it watches its parent's sentinel), and ``close`` (on
leaving the ``with`` block: a failed stage, an index from the stage cache) ends it before the
staging folder is removed.

In-process instead (the whole stage at ``finish``, as before the child existed): with
$CITAVIAL_INDEX_CHILD=0 (e.g. to debug it under pytest ``-n 0``), or with one usable CPU, where
a child would add its interpreter's start and imports without running beside anything.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import sys
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NamedTuple

from citavial.build.errors import BuildError, BuildErrors
from citavial.build.index.collect import collect
from citavial.build.models import Passage, Regulation, SignEntry

ENV_VAR = "CITAVIAL_INDEX_CHILD"   # "0": the index in the build's own process


class IndexProcessError(RuntimeError):
    """The index process failed on something other than a BuildError (a bug): its traceback."""


def child_wanted() -> bool:
    """Whether to run the index in a child: not with $CITAVIAL_INDEX_CHILD=0 nor on one CPU."""
    if os.environ.get(ENV_VAR, "").strip() == "0":
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        cpus = os.cpu_count() or 1
    return cpus > 1


class Inputs(NamedTuple):
    """What the index reads before the URLs and signs."""

    passages: tuple[Passage, ...]
    corpus_dir: Path          # its hooks/ and embeddings/ (or $CITAVIAL_EMBEDDINGS)
    cache_dir: Path | None    # the embeddings cache (make/analysis.py), None for none


def plan(inputs: Inputs) -> tuple[Any, tuple[Any, ...]]:
    """(the shared Analysis, the product's and the dev-clean index prepared): the product's
    index (dist/index/, every promoted hook, + the static search) and the dev-clean one that
    dev-split measurements read (dist/index-dev/, build/index/hooks.py), sharing one analysis
    of their texts, over the passages of every norm (the other norms have no hooks and enter
    the ranking with a prior: lexical.OTHER_NORM_PRIOR). Imported here: numpy and the embedder
    (~0.3 s of CPU) are loaded only where the index is computed."""
    from citavial.build.index.embed import corpus_model, load_embedder
    from citavial.build.index.make import DEV_INDEX_DIR, Analysis, prepare_index, promoted_hooks

    analysis = Analysis(load_embedder(corpus_model(inputs.corpus_dir)), inputs.cache_dir)
    product = prepare_index(inputs.passages, promoted_hooks(inputs.corpus_dir),
                            analysis=analysis)
    dev = prepare_index(inputs.passages, promoted_hooks(inputs.corpus_dir, dev_clean=True),
                        index_dir=DEV_INDEX_DIR, static=False, analysis=analysis)
    return analysis, (product, dev)


def write(planned: tuple[Any, tuple[Any, ...]], urls: Mapping[str, str],
          signs: Sequence[SignEntry], stage: Path) -> str:
    """Write the planned indexes into ``stage`` and the embeddings cache; the stage's report."""
    from citavial.build.index.make import write_prepared

    analysis, indexes = planned
    product, dev = (write_prepared(prep, urls, stage, signs) for prep in indexes)
    analysis.save()
    cached = f", {analysis.embedded} texts embedded" if analysis.store is not None else ""
    return f"{product}; {dev}{cached}"


def _wire(exc: BuildError) -> list[tuple[str, str, str]]:
    """A BuildError as plain values (its __init__ takes three fields, which pickle would not
    pass back), a BuildErrors as the list of its errors'."""
    errors = exc.errors if isinstance(exc, BuildErrors) else [exc]
    return [(e.where, e.problem, e.fix) for e in errors]


def _unwire(fields: list[tuple[str, str, str]], many: bool) -> BuildError:
    errors = [BuildError(*f) for f in fields]
    return BuildErrors(errors) if many else errors[0]


def _die_with_parent() -> None:
    """End this child as soon as its parent process ends (killed included): the parent's
    sentinel, a pipe it holds open, reads end-of-file then."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()
        os._exit(3)

    threading.Thread(target=watch, daemon=True).start()


def _serve(conn: Connection, answer: Connection) -> None:
    """The child: read the inputs, plan, wait for (URLs, signs, stage) or None, write, answer
    ("ok", report), ("error", fields, many) or ("crash", traceback)."""
    gc.disable()   # as in the build's own process (pipeline.build_site): acyclic, short-lived
    _die_with_parent()
    try:
        planned = plan(conn.recv())
        order = conn.recv()
        if order is None:
            return
        reply: tuple = ("ok", write(planned, *order))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):   # the parent gave up
        return
    except BuildError as exc:
        reply = ("error", _wire(exc), isinstance(exc, BuildErrors))
    except BaseException:
        reply = ("crash", traceback.format_exc())
    try:
        answer.send(reply)
    except OSError:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)   # no teardown of the analysis's millions of objects: the parent goes on


def passages_of(regs: Sequence[Regulation]) -> tuple[Passage, ...]:
    """Every citable passage of the norms ``regs``, in order (what the index holds)."""
    return tuple(p for reg in regs for p in collect(reg))


class IndexJob:
    """The index of the passages ``passages()`` gives (passages_of the build's norms: only
    called when the index is computed), begun by ``start`` (in a child when ``child_wanted``),
    written by ``finish``; a context manager whose exit ends the child."""

    def __init__(self, passages: Callable[[], tuple[Passage, ...]], corpus_dir: Path,
                 cache_dir: Path | None) -> None:
        self.passages, self.corpus_dir, self.cache_dir = passages, Path(corpus_dir), cache_dir
        self._proc: Any = None
        self._conn: Connection | None = None      # to the child
        self._answers: Any = None                  # from the child
        self._sender: threading.Thread | None = None
        self._done = False   # the child answered: it is ending on its own

    def __enter__(self) -> IndexJob:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _inputs(self) -> Inputs:
        return Inputs(tuple(self.passages()), self.corpus_dir, self.cache_dir)

    @property
    def started(self) -> bool:
        """Whether a child is computing the index."""
        return self._proc is not None

    def start(self) -> None:
        """Begin the index now in a child process (unless ``child_wanted`` says no: then
        ``finish`` computes it all). The inputs (~2.5 MB pickled) go down the pipe from a
        thread: the build goes on while the child's interpreter starts."""
        if self._proc is not None or not child_wanted():
            return
        data = pickle.dumps(self._inputs(), protocol=pickle.HIGHEST_PROTOCOL)
        ctx = multiprocessing.get_context("spawn")
        # two one-way pipes (a socket pair reports a peer that ended with unread data as a
        # reset, before what it wrote): inputs and orders down, the answer up
        down, self._conn = ctx.Pipe(duplex=False)
        self._answers, up = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_serve, args=(down, up), name="citavial-index",
                                 daemon=True)
        self._proc.start()
        down.close()   # only the child holds these ends: its end is our end-of-file
        up.close()
        self._sender = threading.Thread(target=_send, args=(self._conn, data), daemon=True)
        self._sender.start()

    def finish(self, urls: Mapping[str, str], signs: Sequence[SignEntry], stage: Path) -> str:
        """Write the index into ``stage`` with the deep links ``urls`` (ref → URL) and the
        signs; the stage's report. Raises the child's failure."""
        if self._proc is None or self._conn is None or self._answers is None:
            return write(plan(self._inputs()), urls, signs, Path(stage))
        if self._sender is not None:
            self._sender.join()   # the inputs first, and one writer at a time
        try:
            if not self._answers.poll():   # no early word (a failure while planning)
                self._conn.send((dict(urls), tuple(signs), Path(stage)))
        except OSError:
            pass   # the child is gone: its last word, or end-of-file, is read below
        try:
            reply = self._answers.recv()
        except (EOFError, OSError):
            self._proc.join()
            raise BuildError("index", "the index process ended without a result (exit code "
                             f"{self._proc.exitcode})", f"build again; ${ENV_VAR}=0 builds the "
                             "index in the build's own process") from None
        self._done = True
        if reply[0] == "ok":
            return reply[1]
        if reply[0] == "error":
            raise _unwire(reply[1], reply[2])
        raise IndexProcessError(f"the index process failed:\n{reply[1]}")

    def close(self) -> None:
        """End the child (at once, unless it answered) and wait for it; idempotent."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if self._done:
            proc.join(5)   # it exits right after its answer
        if proc.is_alive():
            proc.terminate()
            proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        proc.close()
        if self._sender is not None:
            self._sender.join()   # the pipe is broken now, if it was still sending
        for conn in (self._conn, self._answers):
            if conn is not None:
                conn.close()


def _send(conn: Connection, data: bytes) -> None:
    try:
        conn.send_bytes(data)
    except OSError:   # the child ended first: finish reads why
        pass
