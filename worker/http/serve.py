"""Start the worker: load allowlist, index, prompt, calibration and model, then serve.

``load_state`` never raises for a missing part: without a model the worker answers
extractively; without an index or allowlist it still serves the static site, and the API and
/health say why it cannot answer. Nothing here touches the network but the loopback socket.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any

from citavial.build.errors import BuildError
from citavial.build.index.hooks import INDEX_DIR
from citavial.build.index.query.retriever import load_retriever
from citavial.worker.answer.allowlist import load_allowlist
from citavial.worker.answer.ask import DEFAULT_K, Deps
from citavial.worker.answer.calibration import PATH as CALIBRATION
from citavial.worker.answer.calibration import load_calibration
from citavial.worker.answer.cite import Reader
from citavial.worker.answer.spanlink import SpanLinker
from citavial.worker.http.app import WorkerState, create_app
from citavial.worker.http.connguard import PER_CLIENT, REQUEST_DEADLINE, guard
from citavial.worker.http.drain import Stopper, drain_on_sigterm
from citavial.worker.http.freshness import DistWatch, Reloader
from citavial.worker.http.limits import InferenceSlot, RateLimiter
from citavial.worker.lead.model import load_model, model_mode
from citavial.worker.lead.prompts import DEFAULT_PROMPTS, PROMPTS_DIR, load_prompt

log = logging.getLogger("citavial.worker")
WARMUP_QUESTION = "¿Cuál es la velocidad máxima en autopista?"


def load_deps(dist_dir: Path, *, prompt_path: Path | None = None, model_path: Path | None = None,
              load_llm: bool = True, k: int = DEFAULT_K,
              model_lead: bool = False, index: str = INDEX_DIR,
              calibration_path: Path | None = None) -> tuple[Deps | None, str, dict]:
    """(deps, why-unavailable, index info). The language model is loaded only for
    ``model_lead``: measured on the dev split, answers are extractive by default. ``index`` is
    the dist/ folder of the index (the dev-clean ``index-dev`` for measurements on dev).
    ``calibration_path`` is a calibration.json the user wrote (default: the packaged one)."""
    dist_dir = Path(dist_dir)
    try:
        allow = load_allowlist(dist_dir / "allowlist.json")
    except BuildError as err:
        return None, f"allowlist not loaded: {err}", {"loaded": False}
    try:
        t0 = time.perf_counter()
        retriever = load_retriever(dist_dir, index)
        probe = retriever.search(WARMUP_QUESTION, k)
        info = {"loaded": True, "version": probe.index_version, "backend": probe.backend,
                "load_seconds": round(time.perf_counter() - t0, 3)}
    except (BuildError, OSError, ValueError) as err:
        return None, f"index not loaded: {err}", {"loaded": False, "reason": str(err)}
    prompt = load_prompt(prompt_path or PROMPTS_DIR / DEFAULT_PROMPTS[model_mode()])
    calibration = load_calibration(calibration_path or CALIBRATION)
    if load_llm and model_lead:
        model, status = load_model(prompt, model_path)
    else:
        from citavial.worker.lead.model import ModelStatus
        why = ("the language model was switched off (--no-model)" if not load_llm else
               "extractive answers (the default): the model writes no part of the answer; "
               "start with --model-lead to let it phrase a one-line lead")
        model, status = None, ModelStatus(False, prompt.mode, None, None, None, why)
    reader = Reader(allow, retriever, SpanLinker(dist_dir))
    deps = Deps(retriever=retriever, allowlist=allow, prompt=prompt, model=model,
                model_status=status, calibration=calibration, k=k, reader=reader,
                model_lead=model_lead and model is not None)
    return deps, "", info


def load_state(dist_dir: Path, *, ask_per_minute: float = 20, max_waiting: int = 4,
               log_questions: bool = False, allowed_origins: tuple[str, ...] = (),
               allowed_hosts: tuple[str, ...] = (), **kwargs) -> WorkerState:
    watch = DistWatch(Path(dist_dir) / "allowlist.json", None)
    sig = watch._sig
    deps, why, index = load_deps(dist_dir, **kwargs)
    watch.accept(sig, deps.allowlist.sha256 if deps is not None else None)
    # a new dist/ is loaded without loading the model again (the reloader keeps this one)
    again = dict(kwargs, load_llm=False) if kwargs.get("model_lead") else kwargs
    reloader = Reloader(lambda: load_deps(dist_dir, **again), model_from=deps)
    if deps is None:
        log.warning("worker cannot answer: %s", why)
    elif deps.model is None:
        log.warning("extractive-only: %s", deps.model_status.reason)
    return WorkerState(dist_dir=Path(dist_dir), deps=deps, unavailable=why, index_info=index,
                       ask_limiter=RateLimiter(ask_per_minute, burst=max(1, int(
                           min(ask_per_minute, 5)))),
                       search_limiter=RateLimiter(ask_per_minute * 6, burst=20),
                       slot=InferenceSlot(max_waiting), log_questions=log_questions,
                       allowed_origins=tuple(allowed_origins),
                       allowed_hosts=tuple(allowed_hosts), watch=watch, reloader=reloader)


def make_server(state: WorkerState, host: str = "127.0.0.1", port: int = 8000,
                threads: int = 8, per_client: int = PER_CLIENT,
                deadline: float = REQUEST_DEADLINE, *, loop_map: dict[int, Any]):
    """A waitress server (not yet running) for ``state``; ``port=0`` picks a free port.
    ``per_client`` connections per address and ``deadline`` seconds per request (connguard).
    ``loop_map`` is the event loop's map, ours to read (drain.py)."""
    from waitress.server import create_server
    # channel_request_lookahead lets the app see a client disconnect while it generates
    # (environ["waitress.client_disconnected"]); waitress flushes each write (send_bytes=1).
    return guard(create_server(create_app(state), map=loop_map, host=host, port=port,
                               threads=threads, channel_request_lookahead=5, ident="citavial",
                               clear_untrusted_proxy_headers=True),
                 per_client=per_client, deadline=deadline)


def serve(dist_dir: Path, host: str = "127.0.0.1", port: int = 8000, **kwargs) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    state = load_state(dist_dir, **kwargs)
    loop_map: dict[int, Any] = {}
    try:
        server = make_server(state, host, port, loop_map=loop_map)
    except OSError as err:   # port taken, address not on this machine: one line, exit 2
        print(f"citavial serve: error: cannot listen on {host}:{port}: {err.strerror} "
              "(is another worker running there? choose another --port)", file=sys.stderr)
        raise SystemExit(2) from None
    drain_on_sigterm(loop_map)
    mode = ("generative" if state.deps and state.deps.model else
            "extractive-only" if state.deps else "static site only")
    print(f"citavial worker on http://{server.effective_host}:{server.effective_port}/ "
          f"({mode})", flush=True)
    server.run()


class ServerThread:
    """The worker on a background thread, for tests and benchmarks: ``with ServerThread(state)
    as s: urlopen(s.url + "/health")``. Port 0 picks a free port on 127.0.0.1.

    It runs waitress's ``run()``; waitress's ``close()`` from another thread would close
    sockets under its select(), so ``stop()`` ends ``run()`` through a drain.Stopper in the
    loop's map (run() then shuts its request threads down) and closes the sockets after."""

    def __init__(self, state: WorkerState, port: int = 0, threads: int = 8, **guard) -> None:
        import threading
        self.loop_map: dict[int, Any] = {}
        self.server = make_server(state, "127.0.0.1", port, threads, loop_map=self.loop_map,
                                  **guard)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self._stopper = Stopper(self.loop_map)
        self._thread = threading.Thread(target=self.server.run, name="citavial-worker",
                                        daemon=True)

    def __enter__(self) -> "ServerThread":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        self._stopper.stop()
        self._thread.join(timeout=10)
        from waitress import wasyncore
        wasyncore.close_all(self.loop_map)
