"""The HTTP worker: the static site (dist/) and the API, in one Flask app.

    POST /api/ask      {"question": "…"} → text/event-stream (docs/answers.md: SSE contract)
    GET  /api/search   ?q=…&k=5 → JSON hits
    GET  /health       what is loaded, or why the worker is extractive-only / unavailable
    GET  /metrics      Prometheus text
    GET  /…            files of dist/

Every API error is ``{"ok": false, "error": "…", "status": N}`` with that HTTP status.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generator

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from citavial.build.headers import security_headers
from citavial.worker.answer.ask import Deps, answer
from citavial.worker.answer.events import Error, Event, to_wire
from citavial.worker.http.crosssite import add_cors, host_allowed, without_home
from citavial.worker.http.freshness import DistWatch, Reloader
from citavial.worker.http.limits import InferenceSlot, QueueFull, RateLimiter
from citavial.worker.http.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from citavial.worker.http.metrics import Metrics
from citavial.worker.http.observe import observe
from citavial.worker.http.static import send_static
from citavial.worker.http.validate import InvalidInput, parse_ask_body, parse_search_args

MAX_BODY = 8 * 1024
SECURITY_HEADERS = security_headers()
log = logging.getLogger("citavial.worker")


@dataclass
class WorkerState:
    """What the app serves with; ``deps`` is None when the index or allowlist is missing."""

    dist_dir: Path
    deps: Deps | None
    unavailable: str = ""                 # why deps is None
    index_info: dict = field(default_factory=dict)
    ask_limiter: RateLimiter = field(default_factory=lambda: RateLimiter(20, 5))
    search_limiter: RateLimiter = field(default_factory=lambda: RateLimiter(120, 20))
    slot: InferenceSlot = field(default_factory=lambda: InferenceSlot(max_waiting=4))
    metrics: Metrics = field(default_factory=Metrics)
    log_questions: bool = False           # privacy: questions are never logged unless asked
    allowed_origins: tuple[str, ...] = () # CORS (serve --allow-origin); same-origin needs none
    allowed_hosts: tuple[str, ...] = ()   # Host names besides IP literals and localhost
    watch: DistWatch | None = None        # dist/allowlist.json on disk vs loaded
    reloader: Reloader | None = None      # loads a new dist/ when ``watch`` sees one


def error(message: str, status: int, headers: dict | None = None) -> Response:
    body = json.dumps({"ok": False, "error": message, "status": status}, ensure_ascii=False)
    return Response(body, status=status, headers=headers or {},
                    mimetype="application/json")


def sse(name: str, data: dict) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode("utf-8")


def sse_event(event: Event) -> bytes:
    """One typed event (worker/answer/events.py) as the stream's bytes: the only place the
    answer's events become JSON on their way to an HTTP client."""
    return sse(*to_wire(event))


def create_app(state: WorkerState) -> Flask:
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    m = state.metrics
    m.set("citavial_model_loaded",
          1 if state.deps is not None and state.deps.model is not None else 0)

    @app.before_request
    def _host_check() -> Response | None:
        if host_allowed(request.host, state.allowed_hosts):
            return None
        return error(f"Host {request.host!r} is not this worker's name; open it as "
                     "http://127.0.0.1:PORT/ or start it with --allowed-host NAME", 421)

    @app.before_request
    def _fresh() -> None:
        if state.reloader is not None and request.path.startswith(("/api/", "/health")):
            state.reloader.check(state)

    @app.after_request
    def _count(resp: Response) -> Response:
        m.inc("citavial_requests_total", endpoint=_endpoint_label(), status=str(resp.status_code))
        add_cors(request, resp, state.allowed_origins)
        for name, value in SECURITY_HEADERS.items():
            resp.headers.setdefault(name, value)
        return resp

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        if request.path.startswith("/api/") or request.path in ("/health", "/metrics"):
            message = {413: f"request body too large (limit {MAX_BODY} bytes)",
                       405: f"method {request.method} not allowed on {request.path}",
                       404: f"no endpoint {request.path}"}.get(err.code or 0,
                                                                err.description or "")
            response = error(message, err.code or 500)
            if isinstance(err, MethodNotAllowed) and err.valid_methods:
                # RFC 9110: a 405 names the methods the resource allows.
                response.headers["Allow"] = ", ".join(sorted(err.valid_methods))
            return response
        return err

    app.add_url_rule("/api/ask", "ask", lambda: _ask(state), methods=["POST", "OPTIONS"])
    app.add_url_rule("/api/search", "search", lambda: _search(state), methods=["GET"])
    app.add_url_rule("/health", "health", lambda: _health(state), methods=["GET"])
    app.add_url_rule("/metrics", "metrics", lambda: _metrics(state), methods=["GET"])

    @app.get("/")
    @app.get("/<path:path>")
    def static_file(path: str = "index.html"):
        if path.startswith("api/"):
            # the catch-all must not answer for the API: a known endpoint with another method
            # is a 405 (with Allow), anything else under /api/ a 404, both in the error shape
            allowed = sorted({m for r in app.url_map.iter_rules() if r.rule == "/" + path
                              for m in r.methods or ()} - {"HEAD", "OPTIONS"})
            if allowed:
                return error(f"method GET not allowed on /{path}; use {', '.join(allowed)}",
                             405, {"Allow": ", ".join(allowed)})
            return error(f"no endpoint /{path}", 404)
        return send_static(state.dist_dir, path)

    return app


def _limited(limiter: RateLimiter, state: WorkerState, what: str) -> Response | None:
    wait = limiter.check(_client())
    if not wait:
        return None
    state.metrics.inc("citavial_rate_limited_total")
    return error(f"too many {what}; try again in {int(wait)} s", 429,
                 {"Retry-After": str(int(wait))})


def _ask(state: WorkerState) -> Response:
    if request.method == "OPTIONS":
        return Response(status=204)
    deps = state.deps   # one state per request: a reload swaps state.deps, never this one
    if deps is None:
        return error(f"the worker cannot answer: {state.unavailable}", 503)
    if request.mimetype != "application/json":   # before the rate budget: a no-cors page
        return error(f"Content-Type is {request.mimetype!r}; send application/json", 400)
    refused = _limited(state.ask_limiter, state, "questions")
    if refused:
        return refused
    try:
        question = parse_ask_body(request.get_data(cache=False), request.mimetype)
    except InvalidInput as bad:
        return error(str(bad), 400)
    if state.log_questions:   # opt-in (serve --log-questions), for debugging only
        log.info("question: %r", question)
    try:
        ticket = state.slot.reserve()
    except QueueFull:
        state.metrics.inc("citavial_queue_full_total")
        return error("the worker is busy (queue full); try again shortly", 503,
                     {"Retry-After": "2"})
    cancelled = request.environ.get("waitress.client_disconnected", lambda: False)
    return Response(_Stream(state, deps, question, ticket, cancelled),
                    mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _search(state: WorkerState) -> Response:
    deps = state.deps
    if deps is None:
        return error(f"the worker cannot search: {state.unavailable}", 503)
    refused = _limited(state.search_limiter, state, "searches")
    if refused:
        return refused
    try:
        q, k = parse_search_args(request.args)
    except InvalidInput as bad:
        return error(str(bad), 400)
    result = deps.retriever.search(q, k)
    hits = []
    for h in result.hits:
        entry = deps.allowlist.get(h.ref)
        if entry is not None:   # only citable passages, with their allowlisted link
            hits.append({"rank": h.rank, "ref": h.ref, "label": entry.label, "url": entry.url,
                         "text": entry.text, "norm": entry.norm, "boe_id": entry.boe_id,
                         "consolidated": entry.consolidated})
    signs = [{"code": g.sign.code, "name": g.sign.name, "url": g.sign.url,
              "name_in_force": g.sign.name_in_force, "match": g.how}
             for g in getattr(result, "signs", ())]
    return Response(json.dumps({"ok": True, "query": q, "hits": hits, "signs": signs,
                                "index_version": result.index_version,
                                "backend": result.backend}, ensure_ascii=False),
                    mimetype="application/json",
                    headers={"Cache-Control": "no-store"})   # its URL holds the question


def _health(state: WorkerState) -> Response:
    report = without_home(health_report(state))
    return Response(json.dumps(report, ensure_ascii=False), mimetype="application/json",
                    status=200 if report["ok"] else 503)


def _metrics(state: WorkerState) -> Response:
    state.metrics.set("citavial_queue_depth", state.slot.waiting)
    state.metrics.set("citavial_inference_active", state.slot.active)
    return Response(state.metrics.render(), content_type=METRICS_CONTENT_TYPE)


class _Stream:
    """The SSE body: waits for the model, then relays the answer's events as they come.

    A class, not a bare generator, so that ``close()`` — called by the server when the client
    has gone, even before the first byte — always gives the queue place back."""

    def __init__(self, state: WorkerState, deps: Deps, question: str, ticket, cancelled) -> None:
        self.state, self.deps, self.question = state, deps, question
        self.ticket, self.cancelled = ticket, cancelled
        self._gen: Generator[bytes, None, None] | None = None

    def __iter__(self) -> Generator[bytes, None, None]:
        self._gen = self._run()
        return self._gen

    def _run(self) -> Generator[bytes, None, None]:
        state = self.state
        try:
            with self.ticket.hold():
                events = observe(answer(self.question, self.deps, cancelled=self.cancelled),
                                 state.metrics)
                try:
                    for event in events:
                        yield sse_event(event)
                finally:
                    events.close()   # a client that left stops the generation here
        except GeneratorExit:
            raise
        except Exception as err:  # one answer failing must not take the worker down
            yield sse_event(Error(error="internal error while answering: "
                                  f"{type(err).__name__}"))
        finally:
            self.ticket.cancel()

    def close(self) -> None:
        if self._gen is not None:
            self._gen.close()
        self.ticket.cancel()


def health_report(state: WorkerState) -> dict:
    deps = state.deps
    if deps is None:
        return {"ok": False, "mode": "unavailable", "reason": state.unavailable,
                "index": state.index_info}
    st = deps.model_status
    cal = deps.calibration
    return {
        "ok": True,
        "mode": "generative" if deps.model is not None else "extractive-only",
        "reason": "" if deps.model is not None else st.reason,
        "model": st.as_dict(),
        "prompt": {"id": deps.prompt.id, "version": deps.prompt.version,
                   "mode": deps.prompt.mode},
        "index": state.index_info,
        "allowlist": {"entries": len(deps.allowlist), "as_of": deps.allowlist.as_of,
                      "sha256": deps.allowlist.sha256},
        "calibration": {"calibrated": cal.calibrated, "support_threshold":
                        cal.support_threshold, "gate": repr(cal.gate),
                        "index_version": cal.index_version,
                        "stale": bool(cal.index_version and cal.index_version !=
                                      state.index_info.get("version"))},
        "queue": {"waiting": state.slot.waiting, "active": state.slot.active,
                  "max_waiting": state.slot.max_waiting},
    }


STATIC_RULES = ("/", "/<path:path>")


def _endpoint_label() -> str:
    """The matched route rule (a bounded set), never the path a client made up: "static" for
    the site's files, "unmatched" for anything no API rule matched (issue 26, item 1)."""
    rule = request.url_rule.rule if request.url_rule is not None else None
    if rule is None or (rule in STATIC_RULES and request.path.startswith("/api/")):
        return "unmatched"
    return "static" if rule in STATIC_RULES else rule


def _client() -> str:
    return request.remote_addr or "unknown"
