"""The static search page ranks exactly like `citavial search`: site_src/static/search.js, run
under node on every golden question, returns the same top 10 as the Python searcher."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from support import ROOT

from citavial.build.golden import load_golden
from citavial.build.index.retriever import load_retriever
from citavial.build.web.assets import asset

RUNNER = ROOT / "tests" / "js" / "search_rank.js"
EXTRA = ["artículo 48", "art. 104 luces", "señal R-101", "¿Puedo ir a 100?", "ÁMBAR  intermitente",
         "inadecuada velocidad", "120", "3.500 kg", "qué dice la imagen", "", "ñandú"]


@pytest.fixture(scope="module")
def node():
    exe = shutil.which("node")
    if exe is None:
        pytest.fail("node is missing: the parity test runs the page's JavaScript under node")
    return exe


def test_static_page_ranks_like_the_cli_on_every_golden_question(built_site, node):
    questions = [q.question for q in load_golden(ROOT / "golden" / "golden-v2.jsonl")]
    questions += [q for q in EXTRA if q.strip()]
    proc = subprocess.run([node, RUNNER, asset(built_site, "search-index.js"), "10"],
                          input="\n".join(json.dumps(q) for q in questions) + "\n",
                          capture_output=True, text=True, timeout=300, check=True)
    js = [json.loads(line) for line in proc.stdout.splitlines()]
    retriever = load_retriever(built_site)
    differ = []
    for q, got in zip(questions, js, strict=True):
        want = [h.ref.split("#", 1)[1] for h in retriever.search(q, k=10).hits]
        if got != want:
            differ.append((q, want[:3], got[:3]))
    assert not differ, f"{len(differ)} of {len(questions)} differ, e.g. {differ[:3]}"
    assert sum(1 for refs in js if refs) > 0.95 * len(questions)
