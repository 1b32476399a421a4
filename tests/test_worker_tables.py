"""A question asking for a figure reads the tables ranked below the first k passages (worker/
answer/ask.py, TABLE_DEPTH), on the real built site: the ranking sees a table as a bag of cells and
places it below passages that merely share the question's words."""

from __future__ import annotations

from dataclasses import replace

import pytest
from worker_helpers import SCRIPTED_STATUS, TEST_CALIBRATION

from citavial.build.index.query.retriever import load_retriever
from citavial.worker.answer import ask as A
from citavial.worker.answer.allowlist import load_allowlist
from citavial.worker.answer.cite import Reader
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt

TABLE = "RD-1428/2003#art48.1.a"


@pytest.fixture(scope="module")
def deps(built_site):
    # k = 2: the speed table is surely not among the first k for a question that names only
    # the road, so what reaches it is the deeper read alone
    return A.Deps(load_retriever(built_site), load_allowlist(built_site / "allowlist.json"),
                  load_prompt(PROMPTS_DIR / "answer-chat.md"), None, SCRIPTED_STATUS,
                  TEST_CALIBRATION, k=2)


@pytest.mark.parametrize("question,table", [
    ("¿A qué velocidad se puede circular por autopista?", True),
    ("¿Pueden circular bicicletas por autopista?", False),   # asks no figure: no deeper read
], ids=["speed-autopista", "not-a-figure"])
def test_a_figure_question_reads_the_deeper_tables(deps, question, table):
    hits = [h.ref for h in deps.retriever.search(question, deps.k).hits]
    assert TABLE not in hits
    r = A.read(question, deps, Reader(deps.allowlist, deps.retriever))
    assert r.span is not None
    assert (r.span.main.ref == TABLE and bool(r.span.cells)) is table, r.span


def test_without_the_deeper_read_the_table_is_not_reached(deps, monkeypatch):
    monkeypatch.setattr(A, "TABLE_DEPTH", 0)
    r = A.read("¿A qué velocidad se puede circular por autopista?", replace(deps),
               Reader(deps.allowlist, deps.retriever))
    assert r.span is not None and r.span.main.ref != TABLE
