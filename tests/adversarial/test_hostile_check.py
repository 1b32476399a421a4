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
