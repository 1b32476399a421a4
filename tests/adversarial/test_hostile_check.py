"""Issue 26, `citavial check` side: a note from a stranger's pull request must not stall the CI
job (quadratic scan), exhaust its memory (no size cap), or write into its log (control
characters, GitHub workflow commands). Each case runs the real `citavial check` process, bounded
by a generous timeout (the hostile notes ran past 60 s before the fix; they take ~1 s now)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import AS_OF, CORPUS, SITE_SRC

from citavial.build.check.notes import MAX_NOTE_BYTES, check_notes

pytestmark = pytest.mark.adversarial

EXE = str(Path(sys.executable).with_name("citavial"))
GENEROUS = 120   # seconds; a quadratic scan of these notes takes many minutes


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A regulation cache filled once, so each subprocess measures only the check itself."""
    cache = tmp_path_factory.mktemp("check-cache")
    warm = cache / "warm.md"
    warm.write_text("nada\n", "utf-8")
    check_notes([warm], corpus=CORPUS, site_src=SITE_SRC, as_of=AS_OF, cache_dir=cache)
    return cache


def check(cache, *args) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, "check", *map(str, args), "--as-of", AS_OF.isoformat(),
                           "--corpus", str(CORPUS), "--site-src", str(SITE_SRC),
                           "--cache-dir", str(cache)], capture_output=True, text=True,
                          timeout=GENEROUS)


HOSTILE = [
    pytest.param("(cita:" * 700_000, 1, id="4MB-open-paren-one-line"),
    pytest.param("«x» <!-- cita:" * 150_000, 1, id="2MB-comment-starts-one-line"),
    pytest.param("(cita:\n" * 300_000, 300_000, id="2MB-open-paren-lines"),
]


@pytest.mark.parametrize("text, malformed", HOSTILE)
def test_hostile_note_checked_in_bounded_time(cache, tmp_path, text, malformed):
    note = tmp_path / "hostil.md"
    note.write_text(text, "utf-8")
    proc = check(cache, note, "--format", "json")
    assert proc.returncode == 1, proc.stderr[-500:]
    doc = json.loads(proc.stdout)
    assert doc["checked"] == doc["failed"] == malformed
    assert {r["code"] for r in doc["results"]} == {"malformed"}


def test_note_over_the_size_cap_is_a_usage_error(cache, tmp_path):
    """A 10 GB sparse file: refused with exit 2 and one clear line, before it is read."""
    note = tmp_path / "enorme.md"
    with open(note, "wb") as fh:
        fh.truncate(10 * 2**30)
    proc = check(cache, note)
    assert proc.returncode == 2, proc.stderr[-500:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(note) in lines[0] and "Traceback" not in proc.stderr
    assert str(MAX_NOTE_BYTES // 2**20) in lines[0]


INJECTED = ("[«Los conductores deberán\n::warning file=x.py,line=1::pwned\n"
            "respetar \x1b7\x08las señales\u202e»](cita:art3.1)\n")


@pytest.mark.parametrize("fmt", ["human", "github"])
def test_note_text_cannot_write_lines_or_controls_into_the_log(cache, tmp_path, fmt):
    note = tmp_path / "inyeccion.md"
    note.write_text("# Apuntes\n\n" + INJECTED, "utf-8")
    proc = check(cache, note, "--format", fmt, "-v")
    assert proc.returncode == 1, proc.stderr[-500:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 2, lines          # one failing citation, one summary line
    if fmt == "github":
        assert lines[0].startswith("::error ") and "::warning" not in lines[0].split("::", 2)[1]
    assert not any(ln.startswith("::warning") for ln in lines)
    assert not any(ch in proc.stdout for ch in ("\x1b", "\r", "\u202e"))
    assert "\\n::warning" in lines[0] and "\\x1b" in lines[0]


# -- 5. a linked citation may only point into the site ----------------------------------------

QUOTE = "el adelantamiento deberá efectuarse por la izquierda del vehículo que se pretende adelantar"
PROVEN = ("art82.html#art82-1:~:text=el%20adelantamiento%20deber%C3%A1%20efectuarse%20por%20la"
          "%20izquierda%20del%20veh%C3%ADculo%20que%20se%20pretende%20adelantar")
BASE = "https://autoescuela.example/rgc/"
LINKS = [
    pytest.param(PROVEN, "", id="site-relative"),
    pytest.param("../rgc/" + PROVEN, "", id="relative-folder"),
    pytest.param(BASE + PROVEN, "", id="on-base-url"),
    pytest.param("HTTPS://AUTOESCUELA.EXAMPLE/rgc/" + PROVEN, "", id="on-base-url-uppercase"),
    pytest.param("javascript:fetch%28%29//" + PROVEN, "link-not-allowed", id="javascript"),
    pytest.param("JavaScript:x//" + PROVEN, "link-not-allowed", id="javascript-mixed-case"),
    pytest.param("data:text/html,x/" + PROVEN, "link-not-allowed", id="data"),
    pytest.param("https://evil.example/" + PROVEN, "link-not-allowed", id="other-host"),
    pytest.param("https://autoescuela.example.evil.example/rgc/" + PROVEN, "link-not-allowed",
                 id="base-host-as-prefix"),
    pytest.param("https://autoescuela.example@evil.example/rgc/" + PROVEN, "link-not-allowed",
                 id="userinfo-trick"),
    pytest.param("//evil.example/" + PROVEN, "link-not-allowed", id="scheme-relative"),
    pytest.param("/\\evil.example/" + PROVEN, "link-not-allowed", id="backslash-host"),
    pytest.param("http://autoescuela.example/otro/" + PROVEN, "link-not-allowed",
                 id="base-host-other-folder"),
    pytest.param("ftp://autoescuela.example/rgc/" + PROVEN, "link-not-allowed", id="ftp"),
    # character references, which a Markdown renderer decodes in the href (passed before)
    pytest.param("https&#58;//evil.example/" + PROVEN, "link-not-allowed", id="colon-as-ref"),
    pytest.param("&#47;/evil.example/" + PROVEN, "link-not-allowed", id="slash-as-ref"),
    pytest.param("javascript&colon;x//" + PROVEN, "link-not-allowed", id="javascript-named-ref"),
    pytest.param("java&#9;script:x//" + PROVEN, "link-not-allowed", id="tab-in-scheme-as-ref"),
    pytest.param("/&#92;evil.example/" + PROVEN, "link-not-allowed", id="backslash-as-ref"),
    pytest.param("https&#58;//autoescuela.example/rgc/" + PROVEN, "", id="base-url-with-ref"),
]


@pytest.mark.parametrize("link, code", LINKS)
def test_linked_citation_passes_only_into_the_site(cache, tmp_path, link, code):
    note = tmp_path / "enlace.md"
    note.write_text(f'[«{QUOTE}»]({link} "cita:art82.1")\n', "utf-8")
    proc = check(cache, note, "--format", "json", "--base-url", BASE)
    doc = json.loads(proc.stdout)
    assert [r["code"] for r in doc["results"]] == [code], doc["results"]
    assert proc.returncode == (1 if code else 0)


def test_absolute_link_needs_the_base_url(cache, tmp_path):
    note = tmp_path / "enlace.md"
    note.write_text(f'[«{QUOTE}»]({BASE}{PROVEN} "cita:art82.1")\n', "utf-8")
    doc = json.loads(check(cache, note, "--format", "json").stdout)
    assert [r["code"] for r in doc["results"]] == ["link-not-allowed"]


# -- 6. --fix-links and symlinks; what killed runs leave behind -------------------------------

UNFIXED = f"[«{QUOTE}»](cita:art82.1)\n"


def test_fix_links_writes_a_symlinked_notes_target(cache, tmp_path):
    real = tmp_path / "compartidas" / "nota.md"
    real.parent.mkdir()
    real.write_text(UNFIXED, "utf-8")
    link = tmp_path / "apuntes.md"
    link.symlink_to(real)
    proc = check(cache, link, "--fix-links")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert link.is_symlink() and link.resolve() == real          # the link stays a link
    assert f"]({PROVEN} \"cita:art82.1\")" in real.read_text("utf-8")   # its target is fixed


def _notes_beside_a_secret(tmp_path):
    secret = tmp_path / "fuera" / "secreto.md"
    secret.parent.mkdir()
    secret.write_text(UNFIXED, "utf-8")
    notes = tmp_path / "apuntes"
    notes.mkdir()
    (notes / "buena.md").write_text(UNFIXED, "utf-8")
    return secret, notes


def test_a_folder_note_linking_outside_the_folder_is_refused(cache, tmp_path):
    """A pull request adds notes/x.md -> ../fuera/secreto.md: the CI job must neither read it
    nor, with --fix-links, write it; nothing else is half-done."""
    secret, notes = _notes_beside_a_secret(tmp_path)
    (notes / "enlace.md").symlink_to(secret)
    proc = check(cache, notes, "--fix-links")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "outside" in proc.stderr and str(secret) in proc.stderr
    assert secret.read_text("utf-8") == UNFIXED
    assert (notes / "buena.md").read_text("utf-8") == UNFIXED


def test_a_linked_folder_inside_the_notes_is_not_walked(cache, tmp_path):
    secret, notes = _notes_beside_a_secret(tmp_path)
    (notes / "carpeta").symlink_to(secret.parent, target_is_directory=True)
    proc = check(cache, notes, "--fix-links")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 citation(s) in 1 file(s)" in proc.stdout            # buena.md only
    assert secret.read_text("utf-8") == UNFIXED


def test_fix_links_removes_temp_files_of_a_killed_run_but_not_a_live_ones(cache, tmp_path):
    import fcntl
    import os
    note = tmp_path / "nota.md"
    note.write_text(UNFIXED, "utf-8")
    stale = tmp_path / ".nota.md.k1ll3d.tmp"                      # what write_bytes leaves
    stale.write_text(UNFIXED[:10], "utf-8")
    live = tmp_path / ".nota.md.l1v3.tmp"
    live.write_text("", "utf-8")
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)                               # another run writing now
    try:
        assert check(cache, note, "--fix-links").returncode == 0
    finally:
        os.close(fd)
    assert not stale.exists() and live.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".nota.md.l1v3.tmp", "nota.md"]


KILLED_BUILD = """
import os, signal, sys
from pathlib import Path
from citavial.build.atomic import staged_dir
with staged_dir(Path(sys.argv[1])) as stage:
    (stage / "index.html").write_text("a half-built site")
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_next_build_removes_what_a_killed_build_left(tmp_path):
    import fcntl
    import os

    from citavial.build.atomic import staged_dir
    target = tmp_path / "dist"
    target.mkdir()
    (target / "index.html").write_text("the site")
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", KILLED_BUILD, str(target)], timeout=60)
        assert proc.returncode == -9
    (tmp_path / ".dist.old-k1ll3d").mkdir()                       # killed between renames
    (tmp_path / ".dist.old-k1ll3d" / "index.html").write_text("an old site")
    left = sorted(p.name for p in tmp_path.glob(".dist.*-*"))
    assert len(left) == 2, left   # the second killed build already removed the first's stage
    live = tmp_path / ".dist.stage-l1v3"                          # a concurrent build
    live.mkdir()
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with staged_dir(target) as stage:
            (stage / "index.html").write_text("the new site")
    finally:
        os.close(fd)
    assert (target / "index.html").read_text() == "the new site"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".dist.lock", ".dist.stage-l1v3",
                                                           "dist"]


def test_a_terminated_build_removes_its_stage_and_keeps_the_site(tmp_path):
    """SIGTERM (a cancelled CI job) to a real `citavial build`: exit 143, its staging folder
    gone, the previous site whole. The test holds the swap lock, so the build cannot finish
    first: the signal lands while it renders or while it waits for the lock, either way."""
    import fcntl
    import os
    import signal
    import time
    target = tmp_path / "dist"
    target.mkdir()
    (target / "index.html").write_text("the site")
    lock = open(tmp_path / ".dist.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    env = {**os.environ, "CITAVIAL_CACHE": str(tmp_path / "cache")}
    proc = subprocess.Popen([EXE, "build", "--regulation-only", "--no-cache", "--out",
                             str(target), "--corpus", str(CORPUS), "--site-src", str(SITE_SRC),
                             "--as-of", AS_OF.isoformat()], env=env, stderr=subprocess.PIPE)
    try:
        for _ in range(1200):                                    # up to 120 s: a loaded host
            if list(tmp_path.glob(".dist.stage-*")) or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert proc.poll() is None and list(tmp_path.glob(".dist.stage-*"))
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=GENEROUS)
    finally:
        proc.kill()
        lock.close()
    assert proc.returncode == 143, err[-500:]
    assert not list(tmp_path.glob(".dist.*-*"))
    assert (target / "index.html").read_text() == "the site"
    assert b"Traceback" not in err
