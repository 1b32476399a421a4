"""The index stage in a child process (build/index/job.py, issue 27): the same files as in the
build's own process, its failures are the build's with their message, and it never outlives
the build or its parent."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from index_helpers import CORPUS, passages
from support import ROOT, tree_hash

from citavial.build.errors import BuildError
from citavial.build.index import job
from citavial.build.index.hooks import DEV_CLEAN, PROMOTED
from citavial.build.index.job import IndexJob, IndexProcessError

N = 300   # passages: enough for every part of the index, cheap to analyse


def _corpus(root: Path, bad_line: str = "") -> Path:
    """A corpus folder for the index alone: the real embeddings model, and small hooks files
    under the promoted and dev-clean names, made up here on the first passages' refs
    (``bad_line`` appended to one of them)."""
    corpus = root / "corpus"
    (corpus / "hooks").mkdir(parents=True)
    (corpus / "embeddings").symlink_to(CORPUS / "embeddings")
    refs = [p.ref for p in passages()[:N:7]]
    for i, name in enumerate(sorted(set(PROMOTED + DEV_CLEAN))):
        lines = [json.dumps({"ref": ref, "questions": [f"¿Pregunta {i} sobre {ref}?",
                                                       f"¿Qué dice {ref} del caso {i}?"]})
                 for ref in refs[i::3]]
        (corpus / "hooks" / name).write_text("\n".join(lines) + "\n" + bad_line,
                                             encoding="utf-8")
    return corpus


def _signs():
    from citavial.build.models import SignEntry
    return [SignEntry(code="R-101", name="Entrada prohibida", group="Prohibición",
                      url="senales.html#senal-R-101", name_in_force=False, definition="",
                      mentions=(passages()[3].ref,))]


def _job(corpus: Path, stage: Path, cache: Path | None = None) -> IndexJob:
    stage.mkdir(parents=True, exist_ok=True)
    return IndexJob(lambda: passages()[:N], corpus, cache, stage)


def _urls() -> dict[str, str]:
    return {p.ref: f"{p.page}#:~:text={i}" for i, p in enumerate(passages()[:N])}


def _report_without_times(report: str) -> str:
    return re.sub(r", [0-9.]+ s\b", "", report)


@pytest.fixture
def corpus(tmp_path):
    return _corpus(tmp_path)


@pytest.fixture
def stuck_cache(tmp_path, corpus):
    """An embeddings cache folder whose file is a FIFO nobody writes: a child given it blocks
    while it plans (opening the file), never reading its pipe, until it is ended."""
    from citavial.build.index.embed import corpus_model, load_embedder
    from citavial.build.index.make.analysis import CACHE_PREFIX, cache_key
    folder = tmp_path / "stuck-cache"
    folder.mkdir()
    key = cache_key(load_embedder(corpus_model(corpus)))
    os.mkfifo(folder / f"{CACHE_PREFIX}{key}.npz")
    return folder


def test_the_child_writes_the_very_files_of_the_build_s_own_process(tmp_path, corpus,
                                                                    monkeypatch):
    """Started in a child (and given the URLs and signs later), or spawned before its
    passages are known and given them with its order, or computed at finish in this
    process: the same index files, byte for byte, and the same report; the embeddings cache
    is written either way."""
    urls, signs = _urls(), _signs()
    with _job(corpus, tmp_path / "a", tmp_path / "cache-a") as beside:
        beside.start()
        assert beside.started
        beside.order(urls, signs)
        report_a = beside.finish()
    with _job(corpus, tmp_path / "c", tmp_path / "cache-c") as early:
        early.spawn()
        assert early.started
        early.order(urls, signs)   # no start: the order sends the passages first
        assert _report_without_times(early.finish()) == _report_without_times(report_a)
    assert tree_hash(tmp_path / "a") == tree_hash(tmp_path / "c")
    monkeypatch.setenv(job.ENV_VAR, "0")
    with _job(corpus, tmp_path / "b", tmp_path / "cache-b") as inside:
        inside.start()
        assert not inside.started
        inside.order(urls, signs)
        report_b = inside.finish()
    assert tree_hash(tmp_path / "a") == tree_hash(tmp_path / "b")
    assert (tmp_path / "a" / "index" / "manifest.json").is_file()
    assert (tmp_path / "a" / "index-dev" / "manifest.json").is_file()
    assert _report_without_times(report_a) == _report_without_times(report_b)
    assert [p.name for p in (tmp_path / "cache-a").iterdir()] == [
        p.name for p in (tmp_path / "cache-b").iterdir()]


def test_one_cpu_or_the_environment_keep_it_in_process(monkeypatch):
    monkeypatch.delenv(job.ENV_VAR, raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    assert job.child_wanted()
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0})
    assert not job.child_wanted()
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    monkeypatch.setenv(job.ENV_VAR, "0")
    assert not job.child_wanted()


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie nobody reaped has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_gone(pid: int, budget: float = 120.0) -> bool:
    """Poll until ``pid`` has ended, within a generous budget (not a timing assertion: a
    loaded machine only makes it take longer)."""
    end = time.monotonic() + budget
    while not _gone(pid):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def test_a_build_error_in_the_child_is_raised_with_its_message(tmp_path):
    """A malformed hooks line: the child's BuildError, its file and line, raised by finish as
    the build's own; nothing written; the child has ended."""
    corpus = _corpus(tmp_path, bad_line="{not json\n")
    with _job(corpus, tmp_path / "out") as beside, pytest.raises(BuildError) as err:
        beside.start()
        pid = beside._proc.pid
        beside.order(_urls(), _signs())
        beside.finish()
    hooks = corpus / "hooks" / PROMOTED[0]
    assert f"{hooks}:" in str(err.value) and "not valid JSON" in str(err.value)
    assert list((tmp_path / "out").iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus", "out"]   # no side folder
    assert _wait_gone(pid)


def test_any_other_failure_in_the_child_carries_its_traceback(tmp_path, corpus):
    """The embeddings cache's folder is a file: saving it fails in the child with an OSError,
    which comes back as an IndexProcessError holding the child's traceback."""
    (tmp_path / "not-a-folder").write_text("x")
    with _job(corpus, tmp_path / "out", tmp_path / "not-a-folder") as beside, \
            pytest.raises(IndexProcessError) as err:
        beside.start()
        beside.order(_urls(), _signs())
        beside.finish()
    assert "the index process failed" in str(err.value)
    assert "Traceback" in str(err.value) and "Error" in str(err.value).splitlines()[-1]


def test_a_killed_child_is_an_error_not_a_hang(tmp_path, corpus):
    with _job(corpus, tmp_path / "out") as beside:
        beside.start()
        os.kill(beside._proc.pid, signal.SIGKILL)
        beside.order(_urls(), _signs())
        with pytest.raises(BuildError, match=r"ended without a result \(exit code -9\)"):
            beside.finish()


def test_leaving_the_block_ends_a_child_that_was_not_finished(tmp_path, corpus, stuck_cache):
    """A failed stage (the read, before the child had its passages, included), or an index
    from the stage cache: the child is ended at once (given its passages and order or not;
    blocked in a system call or not), its folder removed, nothing written into the stage."""
    for ordered, cache in ((None, tmp_path / "cache"), (False, tmp_path / "cache"),
                           (True, tmp_path / "cache"), (True, stuck_cache)):
        stage = tmp_path / f"out-{ordered}-{cache.name}"
        with _job(corpus, stage, cache) as beside:
            beside.spawn() if ordered is None else beside.start()
            pid = beside._proc.pid
            if ordered:
                beside.order(_urls(), _signs())
        assert _wait_gone(pid) and not beside.started
        assert list(stage.iterdir()) == []
    assert not (tmp_path / "cache").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "corpus", "out-False-cache", "out-None-cache", "out-True-cache", "out-True-stuck-cache",
        "stuck-cache"]


_ORPHAN = """
import os, sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from citavial.build.index.job import IndexJob
from index_helpers import passages
beside = IndexJob(lambda: passages()[:50], Path({corpus!r}), Path({cache!r}), Path({stage!r}))
beside.start()
print(beside._proc.pid, flush=True)
sys.stdin.readline()
os._exit(0)   # the parent ends without a word to its child
"""


def test_the_child_ends_with_its_parent(tmp_path, corpus, stuck_cache):
    """A parent that dies (here: os._exit, no cleanup at all) takes its child with it, even
    while the child is busy planning (here blocked opening a FIFO: only its watch of the
    parent can end it). The parent is a script without a ``__main__`` guard: the child must
    not run it again (multiprocessing's spawn would)."""
    (tmp_path / "out").mkdir()
    script = tmp_path / "unguarded.py"
    script.write_text(_ORPHAN.format(tests=str(ROOT / "tests"), corpus=str(corpus),
                                     cache=str(stuck_cache), stage=str(tmp_path / "out")),
                      encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None and parent.stdin is not None
    child = int(parent.stdout.readline())
    assert not _gone(child)
    parent.stdin.write("\n")
    parent.stdin.flush()
    parent.wait()
    assert _wait_gone(child)


def test_the_hooks_are_analysed_before_the_passages_are_known(tmp_path, corpus):
    """``prepare`` (the child's, while the build reads the corpus) analyses and embeds every
    hook question: the plan then finds them in the Analysis's memos, and what it computes is
    what an Analysis without them computes (hooks' BM25, vectors, lexical data)."""
    from citavial.build.index.embed import corpus_model, load_embedder
    from citavial.build.index.hooks import hook_questions, promoted_hooks
    from citavial.build.index.make import Analysis
    warm = job.prepare(corpus, None)
    questions = hook_questions(promoted_hooks(corpus) + promoted_hooks(corpus, dev_clean=True))
    assert questions and set(questions) <= set(warm._terms) and set(questions) <= set(warm._vecs)
    inputs = job.Inputs(passages()[:N], corpus, None)
    _, ours = job.plan(inputs, warm)
    _, cold = job.plan(inputs, Analysis(load_embedder(corpus_model(corpus)), None))
    for a, b in zip(ours, cold, strict=True):
        assert a.hooks == b.hooks and a.hbm.vocab == b.hbm.vocab
        assert (a.hbm.weights == b.hbm.weights).all() and (a.hvec == b.hvec).all()
        assert a.lexical == b.lexical


@pytest.mark.parametrize("content, expected", [
    pytest.param('{"ref": "RD-1428/2003#art1", "questions": [" ¿Uno? ", "¿Dos?"]}\n\n',
                 ["¿Uno?", "¿Dos?"], id="stripped-in-order"),
    pytest.param('{"ref": "RD-1428/2003#art1", "questions": ["¿Uno?"]}\nnot json\n', [],
                 id="malformed-file-gives-none"),
])
def test_hook_questions(tmp_path, content, expected):
    from citavial.build.index.hooks import hook_questions
    (tmp_path / "h.jsonl").write_text(content, encoding="utf-8")
    assert hook_questions([tmp_path / "missing.jsonl", tmp_path / "h.jsonl"]) == expected
