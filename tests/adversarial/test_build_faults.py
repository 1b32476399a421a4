"""Faults in the build's input and environment: a clear one-line error and dist/ untouched."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest
from support import AS_OF, CORPUS, ROOT, SITE_SRC, WAIT_S, tree_hash

from citavial.build.corpus.integrity import load_manifest, sha256_hex, write_manifest
from citavial.build.errors import BuildError
from citavial.build.pipeline import build_site

pytestmark = pytest.mark.adversarial
XML = "BOE-A-2003-23514.xml"



def _corpus_with(tmp_path, data: bytes, rehash: bool = True):
    """A corpus copy whose texto is ``data``; with ``rehash`` the manifest is updated to match,
    so the parser itself (not the hash check) meets the bad XML."""
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    (corpus / XML).write_bytes(data)
    if rehash:
        manifest = load_manifest(corpus)
        rec = manifest["norms"]["BOE-A-2003-23514"]["files"]["texto"]
        rec["sha256"], rec["bytes"] = sha256_hex(data), len(data)
        write_manifest(corpus, manifest["norms"])
    return corpus


ORIGINAL = (CORPUS / XML).read_bytes()
BOMB = (b'<?xml version="1.0"?>\n<!DOCTYPE response [<!ENTITY a "aaaaaaaaaa">'
        + b"".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">'.encode()
                   for i in range(8))
        + b']>\n<response><status><code>200</code></status><data><texto>&i;</texto></data></response>')
XXE = (b'<?xml version="1.0"?>\n<!DOCTYPE response [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
       b"<response><status><code>200</code></status><data><texto>&x;</texto></data></response>")


@pytest.mark.parametrize("data, rehash, message", [
    pytest.param(ORIGINAL[: len(ORIGINAL) // 2], True, "not well-formed", id="truncated-xml-rehashed"),
    pytest.param(ORIGINAL[:-5000], False, "truncated", id="truncated-xml-hash-mismatch"),
    pytest.param(ORIGINAL.replace(b"120", b"130", 1), False, "sha256", id="tampered-same-size"),
    pytest.param(BOMB, True, "DOCTYPE", id="billion-laughs"),
    pytest.param(XXE, True, "DOCTYPE", id="external-entity"),
    pytest.param(b"\x00\xff\xfe garbage", True, "not well-formed", id="binary"),
    pytest.param(ORIGINAL.replace(b"<code>200</code>", b"<code>404</code>", 1), True,
                 "status code", id="boe-error-envelope"),
])
def test_bad_corpus_is_refused_and_dist_untouched(tmp_path, data, rehash, message):
    corpus = _corpus_with(tmp_path, data, rehash)
    out = tmp_path / "dist"
    out.mkdir()
    (out / "index.html").write_text("previous build")
    before = tree_hash(out)
    t0 = time.perf_counter()
    with pytest.raises(BuildError) as err:
        build_site(corpus_dir=corpus, out_dir=out, as_of=AS_OF, site_src=SITE_SRC)
    assert time.perf_counter() - t0 < 30  # a bomb is refused, not expanded
    text = str(err.value)
    assert message in text and XML in text
    assert len(text.splitlines()) == 1
    assert tree_hash(out) == before


def test_two_builds_at_once_leave_a_whole_dist(tmp_path, warm_build_cache):
    """Two `citavial build` processes into one dist/ at once (their shared build cache a copy of
    a filled one, so each swaps a whole site in within a second, not two cold builds that cost
    30 CPU seconds): dist/ is one whole site, and no staging folder is left."""
    out = tmp_path / "dist"
    cmd = [sys.executable, "-m", "citavial.worker.cli", "build", "--out", str(out), "--as-of", "2026-11-29"]
    procs = [subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    allow = json.loads((out / "allowlist.json").read_text())
    assert len(allow["entries"]) > 1400
    assert (out / "index.html").exists() and (out / "index" ).is_dir()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".dist.") and
                 not p.name.endswith(".lock")]
    assert leftovers == []



def _in_its_window(monkeypatch, maker: str, first, during) -> list[BaseException]:
    """Run ``first`` in a thread whose first ``tempfile.<maker>`` call waits 0.3 s once it has
    made its file or folder (the window before ``build/atomic.py`` locks it), and ``during`` in
    that window; return what ``first`` raised."""
    import tempfile
    import threading

    from citavial.build import atomic
    made, real = threading.Event(), getattr(tempfile, maker)

    def slow_first(*args, **kwargs):
        out = real(*args, **kwargs)
        if not made.is_set():
            made.set()
            time.sleep(0.3)
        return out

    monkeypatch.setattr(atomic.tempfile, maker, slow_first)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            first()
        except Exception as err:  # noqa: BLE001 - returned to the test, which asserts on it
            errors.append(err)

    thread = threading.Thread(target=run)
    thread.start()
    assert made.wait(WAIT_S)
    during()
    thread.join(WAIT_S)
    return errors


def _build(target, text: str) -> None:
    from citavial.build import atomic
    with atomic.staged_dir(target) as stage:
        (stage / "index.html").write_text(text)


def test_a_build_never_removes_the_stage_another_has_just_made(tmp_path, monkeypatch):
    """Two builds start together: the second's clean-up of stale stages runs while the first
    has made its stage folder and not yet locked it (that window widened here to 0.3 s). Both
    finish, the last swap wins, no stage is left. Before a stage was made under another name and
    renamed once locked, the clean-up removed the first's stage (FileNotFoundError, in CI)."""
    target = tmp_path / "dist"
    errors = _in_its_window(monkeypatch, "mkdtemp", lambda: _build(target, "first"),
                            lambda: _build(target, "second"))
    assert errors == []
    assert (target / "index.html").read_text() in ("first", "second")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".dist.lock", "dist"]


def test_a_clean_up_never_removes_the_temporary_file_another_writer_has_just_made(tmp_path,
                                                                                 monkeypatch):
    """``write_bytes`` beside a ``remove_stale_temps`` (two `citavial check --fix-links` runs on
    one note): the clean-up runs while the writer has made its temporary file and not yet
    locked it (that window widened here to 0.3 s). The write lands whole, nothing is left."""
    from citavial.build import atomic
    note = tmp_path / "nota.md"
    errors = _in_its_window(monkeypatch, "mkstemp", lambda: atomic.write_bytes(note, b"la nota"),
                            lambda: atomic.remove_stale_temps(note))
    assert errors == []
    assert note.read_bytes() == b"la nota"
    assert [p.name for p in tmp_path.iterdir()] == ["nota.md"]
