"""Evaluation: metric functions on hand-computed cases, a deterministic report on a small golden
file, and the `search` / `eval` commands."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest
from index_helpers import built_dist, searcher

from citavial.build.errors import BuildError
from citavial.build.index.eval import metrics as M
from citavial.build.index.eval.retrieval import evaluate, load_golden, table
from citavial.build.search_cli import add_parsers

N = "RD-1428/2003#"


@pytest.mark.parametrize("ref, unit, key", [
    pytest.param("art48.1.a.1o", "art48", "art48.1", id="ordinal-to-apartado"),
    pytest.param("art36.3.p2", "art36", "art36.3", id="continuation"),
    pytest.param("art48", "art48", "art48", id="lead"),
    pytest.param("anexoI.5.p37", "anexoI.5", "anexoI.5.p37", id="annex-paragraph"),
    pytest.param("anexoII.art14bis.2.b", "anexoII.art14bis", "anexoII.art14bis.2",
                 id="annex-article"),
    pytest.param("rd.df1.2", "rd.df1", "rd.df1.2", id="rd-final"),
])
def test_apartado_key(ref, unit, key):
    assert M.apartado_key(N + ref, N + unit) == N + key


def test_first_hit_and_ndcg():
    assert M.first_hit(["a", "b", "c"], {"c"}) == 3
    assert M.first_hit(["a"], {"z"}) == 0
    assert M.ndcg(["x", "a"], {"a"}, 10) == pytest.approx(1 / np.log2(3))
    assert M.ndcg(["a", "a", "b"], {"a", "b"}, 10) == pytest.approx(
        (1 + 1 / np.log2(4)) / (1 + 1 / np.log2(3)))


def test_summarize():
    out = M.summarize(np.array([1, 3, 0, 7]), np.array([1.0, 0.5, 0.0, 0.2]), (1, 5))
    assert out == {"recall@1": 0.25, "recall@5": 0.5, "mrr": pytest.approx((1 + 1 / 3 + 1 / 7) / 4),
                   "ndcg@10": pytest.approx(0.425)}


def test_bootstrap_is_reproducible_and_brackets_the_estimate():
    first = np.array([1, 0, 2, 6, 1, 1, 0, 3] * 5)
    nd = np.linspace(0, 1, len(first))
    a = M.bootstrap(first, nd, (5,))
    assert a == M.bootstrap(first, nd, (5,))
    lo, hi = a["recall@5"]
    assert lo <= M.summarize(first, nd, (5,))["recall@5"] <= hi


@pytest.mark.parametrize("pos, neg, auc", [
    pytest.param([3, 4], [1, 2], 1.0, id="separated"),
    pytest.param([1, 2], [3, 4], 0.0, id="reversed"),
    pytest.param([1, 1], [1, 1], 0.5, id="ties"),
    pytest.param([1, 3], [2], 0.5, id="half"),
])
def test_auc(pos, neg, auc):
    assert M.auc(pos, neg) == pytest.approx(auc)


def test_best_threshold():
    t = M.best_threshold([0.9, 0.8, 0.4], [0.5, 0.1])
    assert t == {"threshold": 0.8, "tpr": pytest.approx(2 / 3), "fpr": 0.0,
                 "j": pytest.approx(2 / 3)}


GOLDEN = [
    {"id": "g0001", "question": "¿A qué velocidad puede ir un turismo por autopista?",
     "expected": [N + "art48.1.a"], "topic": "velocidad", "kind": "positive"},
    {"id": "g0002", "question": "¿Se puede estacionar en doble fila?",
     "expected": [N + "art94.2.g"], "topic": "parada-estacionamiento", "kind": "positive"},
    {"id": "g0003", "question": "¿Cuándo se usan las luces de cruce?",
     "expected": [N + "art101.1"], "topic": "luces", "kind": "positive"},
    {"id": "g0004", "question": "¿Cuál es la receta de la paella?", "expected": [],
     "topic": "fuera-de-dominio", "kind": "negative", "negative": "out_of_domain"},
    {"id": "g0005", "question": "¿Cuánto cuesta renovar el carné?", "expected": [],
     "topic": "otra-norma", "kind": "negative", "negative": "other_law", "note": "tasas"},
]


@pytest.fixture
def golden(tmp_path):
    path = tmp_path / "golden-v1.jsonl"
    path.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in GOLDEN))
    return path


def test_report_is_deterministic_and_complete(golden):
    a = evaluate(searcher(), golden, split=None)
    b = evaluate(searcher(), golden, split=None)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert set(a["channels"]) == {"bm25", "vector", "hooks", "fusion", "default"}
    fused = a["channels"]["default"]["article"]
    assert fused["recall@5"] == 1.0 and fused["ci95"]["recall@5"] == [1.0, 1.0]
    assert a["golden"] == {"file": "golden-v1.jsonl", "split": "all", "questions": 5,
                           "positives": 3, "negatives": 2}
    assert a["styles"]["plain"]["n"] == 3
    assert a["abstention"]["positives"] == 3 and "auc" in a["abstention"]["features"]["bm25_top"]
    assert "velocidad" in a["topics"] and "R@5" in table(a)


def test_golden_errors_name_the_line(tmp_path):
    bad = tmp_path / "golden-v1.jsonl"
    bad.write_text(json.dumps(GOLDEN[0]) + "\n{\"id\": \"g0002\"}\n")
    with pytest.raises(BuildError, match="golden-v1.jsonl:2"):
        load_golden(bad)


def _run(argv):
    p = argparse.ArgumentParser(prog="citavial")
    add_parsers(p.add_subparsers(dest="command", required=True))
    args = p.parse_args(argv)
    return args.func(args)


def test_search_json(capsys):
    assert _run(["search", "luces largas", "-k", "3", "--json", "--dist", str(built_dist())]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["query"] == "luces largas" and out["backend"] and out["index_version"]
    assert [r["rank"] for r in out["results"]] == [1, 2, 3]
    assert {"ref", "url", "score", "text", "channels"} <= out["results"][0].keys()


def test_search_human(capsys):
    assert _run(["search", "adelantar en curva", "--dist", str(built_dist())]) == 0
    out = capsys.readouterr().out
    assert out.startswith("10 resultados") and " 1. " in out


def test_search_batch(tmp_path, capsys):
    batch = tmp_path / "q.txt"
    batch.write_text("luces largas\n\n¿puedo adelantar en curva?\n", encoding="utf-8")
    assert _run(["search", "--batch", str(batch), "-k", "2", "--dist", str(built_dist())]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["query"] for x in lines] == ["luces largas", "¿puedo adelantar en curva?"]
    assert all(len(x["results"]) == 2 and x["results"][0]["url"] for x in lines)


@pytest.mark.parametrize("argv, message", [
    pytest.param(["search"], "either a question or --batch", id="nothing"),
    pytest.param(["search", "--batch", "/nonexistent.txt"], "batch file not found",
                 id="missing-batch"),
])
def test_search_usage_errors(argv, message):
    with pytest.raises(BuildError, match=message):
        _run(argv + ["--dist", str(built_dist())])


def test_search_k_out_of_range(capsys):
    with pytest.raises(SystemExit):
        _run(["search", "x", "-k", "0"])
    assert "out of range" in capsys.readouterr().err


def test_eval_command_writes_json(golden, tmp_path, capsys):
    out = tmp_path / "report.json"
    assert _run(["eval", "--golden", str(golden), "--json", str(out), "--split", "all",
                 "--dist", str(built_dist())]) == 0
    assert json.loads(out.read_text())["golden"]["questions"] == 5
    assert "abstention evidence" in capsys.readouterr().out


def test_eval_reports_the_sealed_test_split_by_default(golden, tmp_path):
    """ids up to g0381 are dev (seen before the split existed); later ids go by their hash."""
    out = tmp_path / "report.json"
    assert _run(["eval", "--golden", str(golden), "--json", str(out),
                 "--dist", str(built_dist())]) == 0
    report = json.loads(out.read_text())
    assert report["golden"]["split"] == "test" and report["golden"]["questions"] == 0


def test_eval_without_index(tmp_path, golden):
    with pytest.raises(BuildError, match="citavial build"):
        _run(["eval", "--golden", str(golden), "--dist", str(tmp_path)])
