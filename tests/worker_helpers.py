"""Shared pieces of the worker tests: an allowlist, a retriever and a scripted model.

* ``allowlist_path()`` — allowlist.json of the one built site of the test process.
* ``LexicalRetriever`` — a small, deterministic stand-in for build/index/query/retriever.py (token overlap
  over the allowlist texts), with one evidence feature, used where the test is about the
  pipeline and not about search quality.
* ``ScriptedModel`` — yields given pieces as if they were model tokens.
* ``parse_sse`` / ``ask_sse`` — THE way tests read the worker's event stream (httpx + httpx-sse,
  never a hand-written parser): a whole SSE body as (event, JSON data) pairs, and a real
  ``POST /api/ask`` over loopback HTTP.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import httpx
from httpx_sse import EventSource, connect_sse

from citavial.build.models import SearchHit, SearchResult
from citavial.build.normalize import normalize
from citavial.worker.answer.allowlist import Allowlist, load_allowlist
from citavial.worker.answer.calibration import Calibration
from citavial.worker.answer.events import Event, to_wire
from citavial.worker.lead.model import ModelStatus

ROOT = Path(__file__).resolve().parent.parent


def allowlist_path() -> Path:
    """dist/allowlist.json of THE built site of the test process (support.built_site_dir)."""
    from support import built_site_dir
    return built_site_dir() / "allowlist.json"


@lru_cache(maxsize=1)
def allowlist() -> Allowlist:
    return load_allowlist(allowlist_path())


_TOKEN = re.compile(r"[a-z0-9]{3,}")


def _terms(text: str) -> set[str]:
    return {t[:6] for t in _TOKEN.findall(normalize(text))}


class LexicalRetriever:
    """Rank allowlist passages by shared 6-letter stems with the question (ties: ref asc)."""

    index_version = "test-lexical-1"

    def __init__(self, allow: Allowlist) -> None:
        self.allow = allow
        self.docs = [(ref, _terms(e.text)) for ref, e in sorted(allow.entries.items())]

    def search(self, question: str, k: int) -> SearchResult:
        q = _terms(question)
        scored = sorted(((len(q & terms), ref) for ref, terms in self.docs if q & terms),
                        key=lambda x: (-x[0], x[1]))[:k]
        hits = tuple(SearchHit(ref=ref, unit_ref=ref.split(".")[0], url=self.allow.get(ref).url,
                               score=float(s), rank=i + 1, label=self.allow.get(ref).label,
                               text=self.allow.get(ref).text)
                     for i, (s, ref) in enumerate(scored))
        top = float(scored[0][0]) if scored else 0.0
        return SearchResult(query=question, hits=hits, backend="test-lexical",
                            index_version=self.index_version,
                            evidence=(("overlap_top", top),))


class ScriptedModel:
    """A stand-in for worker.model.Model that yields fixed pieces; records its requests."""

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = list(pieces)
        self.requests: list[str] = []
        self.closed = False

    def stream(self, request: str):
        self.requests.append(request)
        try:
            yield from self.pieces
        finally:
            self.closed = True


FIXED_ENTRIES = [
    {"ref": "RD-1428/2003#art18.2", "page": "art18.html", "anchor": "art18-2",
     "url": "art18.html#art18-2:~:text=2.%20Queda%20prohibido,de%20conducci%C3%B3n.",
     "label": "art. 18.2",
     "text": "2. Queda prohibido conducir utilizando cualquier tipo de casco de audio, auriculares "
             "o instrumentos similares conectados a aparatos receptores o reproductores de "
             "sonido."},
    {"ref": "RD-1428/2003#art48.1.a", "page": "art48.html", "anchor": "art48-1-a",
     "url": "art48.html#art48-1-a", "label": "art. 48.1.a)",
     "text": "En autopistas y autovías: turismos y motocicletas, 120 km/h."},
    {"ref": "RD-1428/2003#art50.1", "page": "art50.html", "anchor": "art50-1",
     "url": "art50.html#art50-1:~:text=1.%20El%20l%C3%ADmite", "label": "art. 50.1",
     "text": "1. El límite genérico de velocidad en vías urbanas será de 50 km/h."},
]


def fixed_allowlist(tmp_dir: Path) -> Allowlist:
    """A three-entry allowlist with fixed content: contract snapshots do not move with builds."""
    entries = [dict(e, sha256=hashlib.sha256(e["text"].encode()).hexdigest(), as_of="2026-11-29",
                    source_url="https://www.boe.es/buscar/act.php?id=BOE-A-2003-23514#a"
                    + e["anchor"].split("-")[0][3:], source_license="Fuente: BOE.",
                    directive="exact" if ":~:" in e["url"] else "anchor",
                    norm="RD-1428/2003", boe_id="BOE-A-2003-23514", consolidated="2026-07-31")
               for e in FIXED_ENTRIES]
    path = Path(tmp_dir) / "allowlist.json"
    path.write_text(json.dumps({"schema": "citavial-allowlist/1", "as_of": "2026-11-29",
                                "source": {}, "entries": entries}, ensure_ascii=False,
                               sort_keys=True), encoding="utf-8")
    return load_allowlist(path)


class FixedRetriever:
    """Returns the given refs, in order, for every question (with one evidence feature)."""

    index_version = "fixed-1"

    def __init__(self, allow: Allowlist, refs: list[str], evidence: float = 1.0) -> None:
        self.allow, self.refs, self.evidence = allow, refs, evidence

    def search(self, question: str, k: int) -> SearchResult:
        hits = tuple(SearchHit(ref=r, unit_ref=r.split(".")[0], url=self.allow.get(r).url,
                               score=1.0 / (i + 1), rank=i + 1, label=self.allow.get(r).label,
                               text=self.allow.get(r).text)
                     for i, r in enumerate(self.refs[:k]))
        return SearchResult(query=question, hits=hits, backend="fixed",
                            index_version=self.index_version,
                            evidence=(("overlap_top", self.evidence),))


class StepClock:
    """A deterministic clock: every call advances one millisecond."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 0.001
        return self.t


SCRIPTED_STATUS = ModelStatus(True, "completion", "/scripted.gguf", "scripted.gguf",
                              "0" * 64, "loaded")
TEST_CALIBRATION = Calibration(gate=None, support_threshold=0.6, calibrated=False)


def wire(events: "Iterable[Event]") -> list[tuple[str, dict]]:
    """The (event, JSON data) pairs a client gets for ``answer``'s typed events."""
    return [to_wire(e) for e in events]


def parse_sse(body: str | bytes) -> list[tuple[str, dict]]:
    """(event, JSON data) pairs of a whole ``text/event-stream`` body, parsed by httpx-sse."""
    resp = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    return [(e.event, e.json()) for e in EventSource(resp).iter_sse()]


def ask_sse(port: int, question: object, timeout: float = 120,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], object]:
    """``POST /api/ask`` to the worker on 127.0.0.1:``port``: (status, lower-case headers, the
    (event, data) pairs of the whole stream when 200, else the error JSON). The stream is read
    to its end: a stream that never ends fails by ``timeout``."""
    url = f"http://127.0.0.1:{port}/api/ask"
    with httpx.Client(timeout=timeout, trust_env=False) as client:
        with connect_sse(client, "POST", url, json={"question": question},
                         headers=headers or {}) as source:
            resp = source.response
            head = {k.lower(): v for k, v in resp.headers.items()}
            if resp.status_code != 200:
                resp.read()
                return resp.status_code, head, resp.json()
            return 200, head, [(e.event, e.json()) for e in source.iter_sse()]
