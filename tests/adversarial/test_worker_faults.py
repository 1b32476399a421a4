"""Faults around the worker: a missing or corrupt model (the worker starts extractive-only and
/health says why), a missing or corrupt index (a clear error, the API answers 503 in the error
shape, the static site is still served), and a client that leaves mid-stream (generation stops,
/metrics counts it)."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import time
from dataclasses import replace
from pathlib import Path

import pytest
from support import WAIT_S, built_site_dir

from citavial.worker.http.serve import ServerThread, load_state

pytestmark = pytest.mark.adversarial


def get(port, path, method="GET", body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def serve(state):
    srv = ServerThread(state).__enter__()
    return srv, srv.server.effective_port


def small_dist(tmp_path: Path) -> Path:
    """What the worker reads of dist/: allowlist.json, index/ and one page."""
    out = tmp_path / "dist"
    out.mkdir()
    shutil.copy2(built_site_dir() / "allowlist.json", out / "allowlist.json")
    shutil.copy2(built_site_dir() / "index.html", out / "index.html")
    shutil.copytree(built_site_dir() / "index", out / "index")
    return out


def model_file() -> Path:
    from citavial.worker.lead.model import default_model_path
    path = default_model_path()
    if not path.is_file():
        pytest.fail(f"{path} missing: run `.venv/bin/citavial model-setup`")
    return path


def truncated(tmp_path, name):
    out = tmp_path / name
    with open(model_file(), "rb") as src:
        out.write_bytes(src.read(4_000_000))
    return out


@pytest.mark.model   # the real GGUF, truncated or missing, in llama.cpp
@pytest.mark.parametrize("make, words", [
    pytest.param(lambda t: t / "absent.gguf", "model file not found", id="missing"),
    pytest.param(lambda t: truncated(t, "gemma-3-270m-q4_k_m.gguf"), "corrupt: sha256",
                 id="truncated-default-name-sha-mismatch"),
    pytest.param(lambda t: truncated(t, "custom.gguf"), "llama.cpp could not load",
                 id="truncated-custom-gguf"),
    pytest.param(lambda t: (t / "garbage.gguf").write_bytes(b"GGUF" + b"\x00" * 64) and
                 t / "garbage.gguf", "llama.cpp could not load", id="garbage-gguf"),
])
def test_bad_model_gives_extractive_only_worker(tmp_path, chk, entries, make, words):
    path = make(tmp_path)
    state = load_state(built_site_dir(), ask_per_minute=0, model_path=path, model_lead=True)
    assert state.deps is not None and state.deps.model is None
    srv, port = serve(state)
    try:
        status, raw = get(port, "/health")
        health = json.loads(raw)
        assert status == 200 and health["mode"] == "extractive-only"
        assert words in health["reason"] and health["model"]["loaded"] is False
        status, _, events = chk.ask(port, "¿Puedo conducir con auriculares?")
        assert status == 200
        done = chk.assert_contract(events, entries)
        assert done["mode"] == "extractive" and done["model"]["in_answer_path"] is False
        metrics = get(port, "/metrics")[1].decode()
        assert "citavial_model_loaded 0" in metrics
    finally:
        srv.stop()


def _remove(d, name):
    (d / "index" / name).unlink()


def _garble(d, name):
    p = d / "index" / name
    data = bytearray(p.read_bytes())
    data[len(data) // 2: len(data) // 2 + 64] = b"\xff" * 64
    p.write_bytes(bytes(data))


INDEX_FAULTS = [
    pytest.param(lambda d: _remove(d, "terms.json"), "terms.json", id="missing-terms"),
    pytest.param(lambda d: _remove(d, "arrays.safetensors"), "arrays.safetensors",
                 id="missing-arrays"),
    pytest.param(lambda d: _remove(d, "manifest.json"), "manifest.json", id="missing-manifest"),
    pytest.param(lambda d: shutil.rmtree(d / "index"), "index", id="missing-index-dir"),
    pytest.param(lambda d: _garble(d, "arrays.safetensors"), "arrays.safetensors",
                 id="garbled-arrays"),
    pytest.param(lambda d: _garble(d, "passages.json"), "passages.json", id="garbled-passages"),
    pytest.param(lambda d: (d / "index" / "manifest.json").write_text("{not json", "utf-8"),
                 "manifest.json", id="manifest-not-json"),
    pytest.param(lambda d: (d / "index" / "manifest.json").write_text("{}", "utf-8"),
                 "manifest.json", id="manifest-empty-object"),
    pytest.param(lambda d: (d / "allowlist.json").write_text("[]", "utf-8"), "allowlist",
                 id="allowlist-not-object"),
    pytest.param(lambda d: (d / "allowlist.json").unlink(), "allowlist", id="allowlist-missing"),
]


@pytest.mark.parametrize("fault, words", INDEX_FAULTS)
def test_missing_or_corrupt_index_is_a_clear_503(tmp_path, fault, words):
    dist = small_dist(tmp_path)
    fault(dist)
    state = load_state(dist, ask_per_minute=0, load_llm=False)
    assert state.deps is None and words in state.unavailable, state.unavailable
    srv, port = serve(state)
    try:
        status, raw = get(port, "/health")
        health = json.loads(raw)
        assert status == 503 and health["ok"] is False and health["mode"] == "unavailable"
        assert words in health["reason"]
        for path, method, body in [("/api/ask", "POST", b'{"question": "hola que tal"}'),
                                   ("/api/search?q=velocidad", "GET", None)]:
            status, raw = get(port, path, method, body)
            doc = json.loads(raw)
            assert status == 503 and doc == {"ok": False, "status": 503,
                                             "error": doc["error"]} and words in doc["error"]
        assert get(port, "/index.html")[0] == 200   # the static site is still served
    finally:
        srv.stop()


class SlowModel:
    """The real model, slowed down per token so a disconnect lands mid-generation."""

    def __init__(self, model):
        self.model, self.yielded, self.closed = model, 0, False
        self.prompt = model.prompt

    def stream(self, request):
        inner = self.model.stream(request)
        try:
            for piece in inner:
                self.yielded += 1
                time.sleep(0.25)
                yield piece
        finally:
            inner.close()
            self.closed = True


@pytest.mark.slow
def test_client_disconnect_mid_stream_stops_real_generation(real_state):
    slow = SlowModel(real_state.deps.model)
    state = replace_deps(real_state, slow)
    srv, port = serve(state)
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        body = json.dumps({"question": "¿Cuál es la velocidad máxima en autopista?"}).encode()
        sock.sendall(b"POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        seen = b""
        while b"event: token" not in seen:
            chunk = sock.recv(4096)
            assert chunk, seen
            seen += chunk
        sock.close()
        at_close = slow.yielded
        deadline = time.monotonic() + WAIT_S   # a bound for a worker that never stops it
        while time.monotonic() < deadline and not slow.closed:
            time.sleep(0.05)
        assert slow.closed, "generation was not stopped"
        assert slow.yielded <= at_close + 3, (at_close, slow.yielded)
        metrics = get(port, "/metrics")[1].decode()
        assert "citavial_disconnects_total 1" in metrics
        assert "citavial_inference_active 0" in metrics
        assert 'citavial_answers_total{mode="' not in metrics   # no answer was finished
    finally:
        srv.stop()
    assert state.slot.active == 0 and state.slot.waiting == 0


def replace_deps(state, model):
    from citavial.worker.http.app import WorkerState
    from citavial.worker.http.limits import InferenceSlot, RateLimiter
    return WorkerState(dist_dir=state.dist_dir, deps=replace(state.deps, model=model),
                       index_info=state.index_info, ask_limiter=RateLimiter(0, 1),
                       slot=InferenceSlot(4))
