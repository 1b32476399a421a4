"""The static search page ranks exactly like `citavial search`: site_src/static/search-core.js, run
under node on every golden question and on sign queries, returns the same top 10 passages and the
same signs (build/index/signmatch.py) as the Python searcher. Both read an everyday word the norms
do not use as theirs (build/text.py QUERY_ALIASES), and so does the worker."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter

import pytest
from support import ROOT

from citavial.build.golden import load_golden
from citavial.build.index.query.lexical import ref_key
from citavial.build.index.query.retriever import load_retriever
from citavial.build.patterns import SEARCH_WORD
from citavial.build.text import QUERY_ALIASES, fold
from citavial.build.web.assets import asset

RUNNER = ROOT / "tests" / "js" / "search_rank.js"
EXTRA = ["artículo 48", "art. 104 luces", "señal R-101", "¿Puedo ir a 100?", "ÁMBAR  intermitente",
         "inadecuada velocidad", "120", "3.500 kg", "qué dice la imagen", "", "ñandú",
         # words that are their own stem and too short for the prefix fallback (export's forms)
         "camion de 3.500 kg", "kg", "gas",
         # everyday words read as the law's (QUERY_ALIASES), and JS object members
         "alcoholemia", "¿Cuál es la tasa de alcoholemia permitida?", "Carné de MOTO",
         "¿Quién pasa primero en una rotonda?", "paso de cebra", "patinetes", "constructor"]
# Sign codes as students type them and as the XML writes them, and sign names.
SIGN_QUERIES = ["R-101", "r101", "R 101", "r‑101", "m-6.3", "M-4.3a", "P-13a", "P-13", "S-28",
                "¿Qué significa la señal R-1?", "señal S-28 y R-2", "M-6", "s 1", "x-101",
                "señal de ceda el paso", "entrada prohibida", "calle residencial",
                "¿Qué significa la señal de calle residencial?", "señal de stop", "marca de stop",
                "señales de entrada prohibida a motocicletas", "marca longitudinal continua",
                "Peatones", "señal peatones", "velocidad máxima", "velocidad máxima en autopista",
                "¿Qué hay que hacer ante una señal de ceda el paso?", "a 3 m 2 veces"]


@pytest.fixture(scope="module")
def node():
    exe = shutil.which("node")
    if exe is None:
        pytest.fail("node is missing: the parity test runs the page's JavaScript under node")
    return exe


def _run(node, built_site, questions):
    proc = subprocess.run([node, RUNNER, asset(built_site, "search-index.js"), "10"],
                          input="\n".join(json.dumps(q) for q in questions) + "\n",
                          capture_output=True, text=True, timeout=300, check=True)
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_static_page_ranks_like_the_cli_on_every_golden_question(built_site, node):
    questions = [q.question for q in load_golden(ROOT / "golden" / "golden-v2.jsonl")]
    questions += [q for q in EXTRA + SIGN_QUERIES if q.strip()]
    js = _run(node, built_site, questions)
    retriever = load_retriever(built_site)
    differ = []
    for q, got in zip(questions, js, strict=True):
        result = retriever.search(q, k=10)
        want = {"refs": [ref_key(h.ref) for h in result.hits],
                "signs": [[g.sign.code, g.how] for g in result.signs]}
        if got != want:
            differ.append((q, want["refs"][:3], got["refs"][:3], want["signs"], got["signs"]))
    assert not differ, f"{len(differ)} of {len(questions)} differ, e.g. {differ[:3]}"
    assert sum(1 for r in js if r["refs"]) > 0.95 * len(questions)


def test_sign_queries_find_signs_in_the_page_and_the_cli(built_site, node):
    """The sign queries are not vacuous: the page finds the sign each one names."""
    js = dict(zip(SIGN_QUERIES, _run(node, built_site, SIGN_QUERIES), strict=True))
    firsts = {q: (r["signs"][0][0] if r["signs"] else None) for q, r in js.items()}
    assert firsts["r101"] == firsts["R 101"] == firsts["r‑101"] == "R-101"
    assert firsts["señal de ceda el paso"] == "R-1" and firsts["calle residencial"] == "S-28"
    assert firsts["x-101"] is None and firsts["a 3 m 2 veces"] is None
    assert js["S-28"]["refs"] == []          # no passage ranks art. 28 for "S-28"


def test_every_alias_reads_words_the_norms_write(built_site):
    """A key is one folded word the norms use in a handful of passages at most (alcoholemia: 4
    of 5,900); every word it is read as stands in the norms' own text."""
    entries = json.loads((built_site / "allowlist.json").read_text(encoding="utf-8"))["entries"]
    used = Counter(w for e in entries for w in set(SEARCH_WORD.findall(fold(e["text"]))))
    for word, targets in QUERY_ALIASES.items():
        assert SEARCH_WORD.fullmatch(word) and fold(word) == word, word
        assert used[word] <= 4, f"{word!r} is the norms' own word ({used[word]} passages)"
        assert targets and all(used[t] for t in targets), (word, targets)


# Issue 25.7: "alcoholemia" is the students' word; the rates of art. 20 say "tasa de alcohol".
ALCOHOL = ["alcoholemia", "¿Cuál es la tasa de alcoholemia permitida?"]


def test_alcoholemia_finds_the_alcohol_rates_in_the_page_the_cli_and_the_chat(built_site,
                                                                               node):
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    from citavial.worker.http.serve import load_deps
    retriever = load_retriever(built_site)
    page = [r["refs"][0] for r in _run(node, built_site, ALCOHOL)]
    cli = [ref_key(retriever.search(q, k=1).hits[0].ref) for q in ALCOHOL]
    assert page == cli == ["art20", "art20"]
    deps, why, _ = load_deps(built_site, load_llm=False)
    assert deps is not None, why
    said = collect(answer(ALCOHOL[1], deps))
    assert said["outcome"] == "answer", said["text"]
    assert said["citations"][0]["ref"] == "RD-1428/2003#art20" and "0,5 gramos" in said["text"]
