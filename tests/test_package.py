"""The package as users get it: a built wheel installed outside the repo, the import contract,
and a published dist/ that a web server can read."""

from __future__ import annotations

import ast
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from support import ROOT


def _run(cmd, **kw):
    kw.setdefault("env", {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_OFFLINE": "1"})
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert proc.returncode == 0, f"{cmd}: {proc.stdout[-1500:]}\n{proc.stderr[-1500:]}"
    return proc


def _uv() -> list[str]:
    for cand in (["uv"], ["python3", "-m", "uv"]):
        if shutil.which(cand[0]) and subprocess.run(cand + ["--version"], capture_output=True
                                                    ).returncode == 0:
            return cand
    pytest.fail("uv is not installed: tests/run_all.sh installs it (pip install uv)")


@pytest.mark.slow
def test_wheel_installs_and_runs_outside_the_repo(tmp_path):
    """Build the wheel, install it (no deps: those come from the locked .venv through a .pth
    path entry, never the editable install's import hook) into a fresh venv, and run
    `citavial build` + `citavial search` from a folder outside the repo."""
    uv = _uv()
    _run(uv + ["build", "--wheel", "--out-dir", str(tmp_path / "whl")], cwd=ROOT)
    assert not (ROOT / "build" / "lib").exists(), "setuptools wrote its scratch tree into build/"
    wheel = next((tmp_path / "whl").glob("citavial-*.whl"))
    venv = tmp_path / "venv"
    _run(uv + ["venv", "-q", str(venv), "--python", sys.executable])
    py = venv / "bin" / "python"
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run(uv + ["pip", "install", "-q", "--no-deps", "--python", str(py), str(wheel)])
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = _run([py, "-c", "import citavial.build, citavial.worker; "
                  "print(citavial.build.__path__[0], citavial.worker.__path__[0])"], cwd=work)
    assert str(ROOT) not in where.stdout and str(venv) in where.stdout
    cli = venv / "bin" / "citavial"
    _run([cli, "build", "--corpus", ROOT / "corpus", "--site-src", ROOT / "site_src",
          "--out", work / "dist", "--as-of", "2026-11-29"], cwd=work)
    found = _run([cli, "search", "velocidad máxima de un turismo en autopista", "-k", "5",
                  "--dist", work / "dist"], cwd=work)
    assert "art48" in found.stdout


def _tree(tmp_path: Path, extra: dict[str, str]) -> Path:
    """A copy of citavial/{build,worker} with ``extra`` files added (path → source)."""
    root = tmp_path / "tree"
    for name in ("build", "worker"):
        shutil.copytree(ROOT / name, root / "citavial" / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.jsonl", "*.json"))
    for rel, text in extra.items():
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "lint-imports"
    return subprocess.run([exe, "--config", ROOT / "pyproject.toml"], cwd=root,
                          env={**os.environ, "PYTHONPATH": str(root)},
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("extra,kept", [
    ({}, True),
    ({"citavial/build/backedge.py": "import citavial.worker.answer.ask\n"}, False),
    ({"citavial/build/backedge.py": "from citavial.worker import cli\n"}, False),
], ids=["as-is", "build-imports-worker-module", "build-imports-worker-name"])
def test_import_contract_catches_a_back_edge(tmp_path, extra, kept):
    proc = _lint_imports(_tree(tmp_path, extra))
    assert (proc.returncode == 0) is kept, proc.stdout[-2000:]
    assert ("BROKEN" in proc.stdout) is not kept


def private_imports(source: str) -> list[str]:
    """``module.name`` of every underscored name imported from a citavial module: another
    module's private name is its own business (make it public, or keep the use inside)."""
    return [f"{node.module}.{alias.name}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("citavial.")
            for alias in node.names if alias.name.startswith("_")]


@pytest.mark.parametrize("source, found", [
    ("from citavial.build.corpus.fetch import _read_body\n", ["citavial.build.corpus.fetch._read_body"]),
    ("from citavial.build.golden import load_golden as _load_golden\n", []),
    ("def f():\n    from citavial.build.text import _fold, stems\n", ["citavial.build.text._fold"]),
    ("from collections import _chain_maps\n", []),
    ("from __future__ import annotations\n", []),
], ids=["private-name", "public-name-private-alias", "inside-a-function", "not-ours", "future"])
def test_private_imports_finds_underscored_names(source, found):
    assert private_imports(source) == found


def test_no_module_imports_another_modules_private_names():
    found = {str(path.relative_to(ROOT)): names for folder in ("build", "worker")
             for path in sorted((ROOT / folder).rglob("*.py"))
             if (names := private_imports(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_published_dist_is_world_readable(built_site):
    """dist/ after the atomic swap: dirs 0755, files 0644 (mkdtemp/mkstemp give 0700/0600)."""
    modes = {p: stat.S_IMODE(p.stat().st_mode) for p in [built_site, *built_site.rglob("*")]}
    closed = [f"{p.relative_to(built_site.parent)} {oct(m)}" for p, m in modes.items()
              if m != (0o755 if p.is_dir() else 0o644)]
    assert not closed, closed[:10]
    assert (built_site / "index").is_dir() and (built_site / "allowlist.json").is_file()
