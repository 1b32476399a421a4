"""Offline proof: `citavial build`, `citavial search` and one `citavial ask` (with the real
model) inside a network namespace that has only a loopback interface (``unshare -rn``). The
namespace is first shown to have no route out, so a pass means nothing needed the network."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.adversarial, pytest.mark.model, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / ".venv" / "bin" / "citavial"
NO_NET_PROBE = ("import socket,sys\n"
                "s=socket.socket(); s.settimeout(3)\n"
                "try:\n    s.connect(('1.1.1.1', 53))\nexcept OSError as e:\n"
                "    print('unreachable', e.errno); sys.exit(0)\n"
                "print('CONNECTED'); sys.exit(1)\n")


def offline(*argv, timeout=300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    return subprocess.run(["unshare", "-rn", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)


@pytest.fixture(scope="module")
def namespace():
    if not shutil.which("unshare"):
        pytest.skip("unshare (util-linux) is not installed: cannot make a network namespace")
    probe = offline(sys.executable, "-c", NO_NET_PROBE, timeout=30)
    if probe.returncode != 0 and "CONNECTED" not in probe.stdout:
        pytest.skip(f"network namespaces unavailable here: {probe.stderr.strip()[:200]}")
    assert "unreachable" in probe.stdout, "the namespace reached the internet"
    links = offline("ip", "-o", "link", timeout=30)
    if links.returncode == 0:
        names = [line.split(":")[1].strip() for line in links.stdout.splitlines()]
        assert names == ["lo"], names


def test_build_search_and_ask_work_without_network(namespace, tmp_path):
    dist = tmp_path / "dist"
    build = offline(CLI, "build", "--out", dist)
    assert build.returncode == 0, build.stderr[-2000:]
    assert (dist / "allowlist.json").is_file() and (dist / "index" / "manifest.json").is_file()

    search = offline(CLI, "search", "velocidad máxima en autopista", "--json", "-k", "5",
                     "--dist", dist)
    assert search.returncode == 0, search.stderr[-2000:]
    hits = json.loads(search.stdout)["results"]
    assert len(hits) == 5 and all(h["ref"].startswith("RD-1428/2003#") for h in hits)

    ask = offline(CLI, "ask", "¿Puedo conducir con auriculares?", "--json", "--dist", dist,
                  "--model-lead")
    assert ask.returncode == 0, ask.stderr[-2000:]
    record = json.loads(ask.stdout)
    text = json.dumps(record, ensure_ascii=False)
    assert record["model"]["loaded"] is True, "the model did not load offline"
    assert "model_unavailable" not in text
    allow = {e["ref"]: e for e in json.loads((dist / "allowlist.json").read_text())["entries"]}
    cites = record.get("citations") or []
    assert cites, record
    for c in cites:
        assert allow[c["ref"]]["url"] == c["url"] and allow[c["ref"]]["text"] == c["quote"]
