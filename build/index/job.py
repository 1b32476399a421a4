"""The index stage beside the others: its costly part in a child process (issue 27).

Most of the index stage's CPU (tokenising, folding and embedding ~17,800 texts, BM25, the
lexical data: make.prepare_index) reads only the passages, the hooks and the embeddings model,
all known once the corpus is read. Only writing the index needs what the gate and the pages
stage make: every passage's deep link (passages.json, the static shards, the index's version
hash) and the signs. ``IndexJob.spawn`` therefore starts a child process before the read
stage (its interpreter, numpy and the embedder load while the build reads the corpus),
``start`` gives it the passages as soon as the corpus is parsed, and ``finish``, at the index
stage, hands it the URLs and signs, waits for it to write the index files into the staging
folder and returns its report: on two cores the analysis runs while the parent renders, gates
and writes the pages. Same bytes either way.

The child is a fresh interpreter (as multiprocessing's "spawn", never a fork: builds run inside
threaded processes, pytest-xdist workers and the worker server, where a forked child may inherit
a lock another thread held), started by subprocess rather than multiprocessing so that the
caller's ``__main__`` is not imported again in it (a script that calls build_site without an
``if __name__ == "__main__"`` guard would start another build there). It reads pickled values
from a pipe and answers on another. Its failure is the build's: a BuildError comes back with
its message and is raised again, any other exception as an IndexProcessError carrying the
child's traceback, and a child that ends without a word (killed) is a BuildError naming its
exit code. The child writes nothing into the stage, dies with its parent (it watches a pipe
whose other end only the parent holds), and ``close`` (on leaving the ``with`` block: a failed
stage, an index from the stage cache) ends it and removes its folder before the staging folder
is removed.

In-process instead (the whole stage at ``finish``, as before the child existed): with
$CITAVIAL_INDEX_CHILD=0 (e.g. to debug it under pytest ``-n 0``), or with one usable CPU, where
a child would add its interpreter's start and imports without running beside anything.
"""

from __future__ import annotations

import gc
import os
import pickle
import queue
import shutil
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NamedTuple

from citavial.build.atomic import side_dir
from citavial.build.beside import cpus, python_argv
from citavial.build.errors import BuildError, BuildErrors
from citavial.build.index.collect import collect
from citavial.build.models import Passage, Regulation, SignEntry

ENV_VAR = "CITAVIAL_INDEX_CHILD"   # "0": the index in the build's own process


class IndexProcessError(RuntimeError):
    """The index process failed on something other than a BuildError (a bug): its traceback."""


def child_wanted() -> bool:
    """Whether to run the index in a child: not with $CITAVIAL_INDEX_CHILD=0 nor on one CPU."""
    return os.environ.get(ENV_VAR, "").strip() != "0" and cpus() > 1


class Inputs(NamedTuple):
    """What the index reads before the URLs and signs."""

    passages: tuple[Passage, ...]
    corpus_dir: Path          # its hooks/ and embeddings/ (or $CITAVIAL_EMBEDDINGS)
    cache_dir: Path | None    # the embeddings cache (make/analysis.py), None for none


def prepare(corpus_dir: Path, cache_dir: Path | None) -> Any:
    """The Analysis the indexes share, before any passage is known: numpy and the embedder
    (~0.3 s of CPU, imported here so that only where the index is computed loads them), the
    model and the embeddings cache, and every hook question analysed and embedded (the hooks
    are the corpus's, known before the passages: their values wait in the Analysis's memos,
    the same the plan would compute). A child does this while the build reads the corpus."""
    from citavial.build.index.embed import corpus_model, load_embedder
    from citavial.build.index.hooks import hook_questions, promoted_hooks
    from citavial.build.index.make import Analysis

    analysis = Analysis(load_embedder(corpus_model(corpus_dir)), cache_dir)
    questions = list(dict.fromkeys(hook_questions(
        promoted_hooks(corpus_dir) + promoted_hooks(corpus_dir, dev_clean=True))))
    for question in questions:
        analysis.terms(question)
    analysis.encode(questions)
    return analysis


def plan(inputs: Inputs, analysis: Any = None) -> tuple[Any, tuple[Any, ...]]:
    """(the shared Analysis, the product's and the dev-clean index prepared): the product's
    index (dist/index/, every promoted hook, + the static search) and the dev-clean one that
    dev-split measurements read (dist/index-dev/, build/index/hooks.py), sharing one analysis
    of their texts (``analysis``: ``prepare``'s, or None to prepare it now), over the passages
    of every norm (the other norms have no hooks and enter the ranking with a prior:
    lexical.OTHER_NORM_PRIOR)."""
    from citavial.build.index.make import DEV_INDEX_DIR, prepare_index, promoted_hooks

    if analysis is None:
        analysis = prepare(inputs.corpus_dir, inputs.cache_dir)
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


def _die_with_parent(life: int) -> None:
    """End this child as soon as its parent process ends (killed included): ``life`` is a pipe
    whose write end only the parent holds, so it reads end-of-file then."""
    def watch() -> None:
        while os.read(life, 1):
            pass
        os._exit(3)

    threading.Thread(target=watch, daemon=True).start()


_CHILD = ("import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
          "from citavial.build.index.job import _child_main; _child_main()")


def _child_main() -> None:
    """The child's entry (``_CHILD``): argv holds the parent's sys.path, then its pipes."""
    down, up, life = (int(a) for a in sys.argv[2:5])
    _die_with_parent(life)
    _serve(Connection(down, writable=False), Connection(up, readable=False))


def _serve(conn: Connection, answer: Connection) -> None:
    """The child: read the folders and prepare, read the passages and plan, wait for (URLs,
    signs, folder) or None, write, answer ("ok", report), ("error", fields, many) or
    ("crash", traceback)."""
    gc.disable()   # as in the build's own process (pipeline.build_site): acyclic, short-lived
    signal.signal(signal.SIGTERM, _ended)   # ended (IndexJob.close): unwind, no temp file left
    try:
        corpus_dir, cache_dir = conn.recv()
        analysis = prepare(corpus_dir, cache_dir)
        planned = plan(Inputs(conn.recv(), corpus_dir, cache_dir), analysis)
        order = conn.recv()
        if order is None:
            return
        reply: tuple = ("ok", write(planned, *order))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):   # the parent gave up
        return
    except SystemExit:   # ended (IndexJob.close), unwound: no teardown
        os._exit(1)
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


def _ended(_signum: int, _frame: object) -> None:
    raise SystemExit(1)


def passages_of(regs: Sequence[Regulation]) -> tuple[Passage, ...]:
    """Every citable passage of the norms ``regs``, in order (what the index holds)."""
    return tuple(p for reg in regs for p in collect(reg))


class IndexJob:
    """The index of the passages ``passages()`` gives (passages_of the build's norms: only
    called when the index is computed), for the staging folder ``stage``: its child started
    early by ``spawn`` (when ``child_wanted``), begun by ``start`` (which spawns the child if
    ``spawn`` did not), given its URLs and signs by ``order``, put into the
    stage by ``finish``; a context manager whose exit ends the child and removes its folder.

    The child writes the index into a folder of its own beside the stage (atomic.side_dir),
    not into the stage: meanwhile the build lists the stage to cache its other stages'
    files (stagecache.written). ``finish`` moves the index's files into the stage."""

    def __init__(self, passages: Callable[[], tuple[Passage, ...]], corpus_dir: Path,
                 cache_dir: Path | None, stage: Path) -> None:
        self.passages, self.corpus_dir, self.cache_dir = passages, Path(corpus_dir), cache_dir
        self.stage = Path(stage)
        self._order: tuple[dict[str, str], tuple[SignEntry, ...]] | None = None
        self._proc: subprocess.Popen | None = None
        self._answers: Connection | None = None   # the child's answer comes up this pipe
        self._life: int | None = None             # the pipe the child watches (write end)
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._sender: threading.Thread | None = None
        self._exits = ExitStack()                 # the child's folder
        self._folder: Path | None = None
        self._done = False   # the child answered: it is ending on its own
        self._given = False  # the child was sent the passages (start)

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

    def spawn(self) -> None:
        """Start the child now, before the passages are known (unless ``child_wanted`` says
        no): its interpreter, imports and embedder load (~0.3 s) run while the build reads the
        corpus, instead of after it. ``start`` gives it the passages."""
        if self._proc is not None or not child_wanted():
            return
        self._folder = self._exits.enter_context(side_dir(self.stage))
        # one-way pipes (a socket pair reports a peer that ended with unread data as a reset,
        # before what it wrote): inputs and orders down, the answer up, and the child's life
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        life_r, self._life = os.pipe()
        conn = Connection(down_w, readable=False)
        self._answers = Connection(up_r, writable=False)
        try:
            self._proc = subprocess.Popen(
                python_argv(_CHILD, str(down_r), str(up_w), str(life_r)),
                pass_fds=(down_r, up_w, life_r), stdin=subprocess.DEVNULL)
        except BaseException:
            conn.close()
            raise
        finally:
            for fd in (down_r, up_w, life_r):   # the child's ends: its end is our end-of-file
                os.close(fd)
        self._outbox.put(pickle.dumps((self.corpus_dir, self.cache_dir)))
        self._sender = threading.Thread(target=_send, args=(conn, self._outbox), daemon=True)
        self._sender.start()

    def start(self) -> None:
        """Begin the index now in a child process (``spawn``ed now if it was not; unless
        ``child_wanted`` says no: then ``finish`` computes it all). What goes down to the child
        (~2.5 MB of passages, then the URLs) is written by a thread: the build goes on while
        the child plans."""
        self.spawn()
        self._give()

    def _give(self) -> None:
        """Send a spawned child its passages, once."""
        if self._proc is None or self._given:
            return
        self._given = True
        self._outbox.put(pickle.dumps(tuple(self.passages()), protocol=pickle.HIGHEST_PROTOCOL))

    def order(self, urls: Mapping[str, str], signs: Sequence[SignEntry]) -> None:
        """The deep links ``urls`` (ref → URL) and the signs, once known: a child writes the
        index into its folder now, while the build goes on."""
        self._order = (dict(urls), tuple(signs))
        if self._proc is not None:
            self._give()   # a child spawned but not started is given its passages first
            self._outbox.put(pickle.dumps((*self._order, self._folder),
                                          protocol=pickle.HIGHEST_PROTOCOL))

    def finish(self) -> str:
        """Put the index into the stage; the stage's report. Raises the child's failure."""
        if self._order is None:
            raise ValueError("IndexJob.finish before order")
        if self._proc is None or self._answers is None or self._folder is None:
            return write(plan(self._inputs()), *self._order, self.stage)
        try:
            reply = self._answers.recv()
        except (EOFError, OSError):
            raise BuildError("index", "the index process ended without a result (exit code "
                             f"{self._proc.wait()})", f"build again; ${ENV_VAR}=0 builds the "
                             "index in the build's own process") from None
        self._done = True
        if reply[0] == "error":
            raise _unwire(reply[1], reply[2])
        if reply[0] != "ok":
            raise IndexProcessError(f"the index process failed:\n{reply[1]}")
        for made in sorted(self._folder.iterdir()):   # index/, index-dev/, search/, …
            target = self.stage / made.name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            os.replace(made, target)
        return reply[1]

    def close(self) -> None:
        """End the child (at once, unless it answered), wait for it, remove its folder;
        idempotent."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if not self._done or _waited(proc, 5) is None:   # it exits right after answering
                proc.terminate()
                if _waited(proc, 5) is None:
                    proc.kill()
                    proc.wait()
        if self._life is not None:
            os.close(self._life)
            self._life = None
        self._outbox.put(None)
        if self._sender is not None:
            self._sender.join()   # done, or its pipe broken now
        if self._answers is not None:
            self._answers.close()
        self._exits.close()


def _waited(proc: subprocess.Popen, seconds: float) -> int | None:
    """``proc``'s exit code once it ended, within ``seconds``; None if it has not."""
    try:
        return proc.wait(seconds)
    except subprocess.TimeoutExpired:
        return None


def _send(conn: Connection, outbox: queue.SimpleQueue) -> None:
    """Write what ``outbox`` holds to the child, in order, until None; then close."""
    try:
        while (data := outbox.get()) is not None:
            conn.send_bytes(data)
    except OSError:   # the child ended first: finish reads why
        pass
    finally:
        conn.close()
