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


def _job(corpus: Path, cache: Path | None = None) -> IndexJob:
    return IndexJob(lambda: passages()[:N], corpus, cache)


def _urls() -> dict[str, str]:
    return {p.ref: f"{p.page}#:~:text={i}" for i, p in enumerate(passages()[:N])}


def _report_without_times(report: str) -> str:
    return re.sub(r", [0-9.]+ s\b", "", report)


@pytest.fixture
def corpus(tmp_path):
    return _corpus(tmp_path)


def test_the_child_writes_the_very_files_of_the_build_s_own_process(tmp_path, corpus,
                                                                    monkeypatch):
    """Started in a child (and given the URLs and signs later) or computed at finish in this
    process: the same index files, byte for byte, and the same report; the embeddings cache
    is written either way."""
    urls, signs = _urls(), _signs()
    with _job(corpus, tmp_path / "cache-a") as beside:
        beside.start()
        assert beside.started
        report_a = beside.finish(urls, signs, tmp_path / "a")
    monkeypatch.setenv(job.ENV_VAR, "0")
    with _job(corpus, tmp_path / "cache-b") as inside:
        inside.start()
        assert not inside.started
        report_b = inside.finish(urls, signs, tmp_path / "b")
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
    with _job(corpus) as beside, pytest.raises(BuildError) as err:
        beside.start()
        pid = beside._proc.pid
        beside.finish(_urls(), _signs(), tmp_path / "out")
    hooks = corpus / "hooks" / PROMOTED[0]
    assert f"{hooks}:" in str(err.value) and "not valid JSON" in str(err.value)
    assert not (tmp_path / "out").exists()
    assert _wait_gone(pid)


def test_any_other_failure_in_the_child_carries_its_traceback(tmp_path, corpus):
    """The embeddings cache's folder is a file: saving it fails in the child with an OSError,
    which comes back as an IndexProcessError holding the child's traceback."""
    (tmp_path / "not-a-folder").write_text("x")
    with _job(corpus, tmp_path / "not-a-folder") as beside, \
            pytest.raises(IndexProcessError) as err:
        beside.start()
        beside.finish(_urls(), _signs(), tmp_path / "out")
    assert "the index process failed" in str(err.value)
    assert "Traceback" in str(err.value) and "Error" in str(err.value).splitlines()[-1]


def test_a_killed_child_is_an_error_not_a_hang(tmp_path, corpus):
    with _job(corpus) as beside:
        beside.start()
        os.kill(beside._proc.pid, signal.SIGKILL)
        with pytest.raises(BuildError, match=r"ended without a result \(exit code -9\)"):
            beside.finish(_urls(), _signs(), tmp_path / "out")


def test_leaving_the_block_ends_a_child_that_was_not_finished(tmp_path, corpus):
    """A failed stage, or an index from the stage cache: the child is ended at once, having
    written nothing."""
    with _job(corpus, tmp_path / "cache") as beside:
        beside.start()
        pid = beside._proc.pid
    assert _wait_gone(pid) and not beside.started
    assert not (tmp_path / "cache").exists()


_ORPHAN = """
import os, sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from citavial.build.index.job import IndexJob
from index_helpers import passages
beside = IndexJob(lambda: passages()[:50], Path({corpus!r}), None)
beside.start()
print(beside._proc.pid, flush=True)
sys.stdin.readline()
os._exit(0)   # the parent ends without a word to its child
"""


def test_the_child_ends_with_its_parent(tmp_path, corpus):
    """A parent that dies (here: os._exit, no cleanup at all) takes its child with it, even
    while the child is still analysing."""
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN.format(
        tests=str(ROOT / "tests"), corpus=str(corpus))], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None and parent.stdin is not None
    child = int(parent.stdout.readline())
    assert not _gone(child)
    parent.stdin.write("\n")
    parent.stdin.flush()
    parent.wait()
    assert _wait_gone(child)
