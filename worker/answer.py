"""Answer one question: the single code path behind POST /api/ask, `citavial ask` and the eval.

    retrieve top-k → abstention gate (typed reason) → numbered passages prompt → the model writes
    prose with [[REF:n]] slots → SlotGuard (cuts a bad slot at its token) → TextSanitizer (no
    link, markup, quote or ref of the model's survives) → Segmenter (sentences) → each slot is
    resolved by code to its allowlist entry → each sentence is checked against the passage it
    cites and retracted if unsupported → if nothing supported is left: an extractive answer.

``answer()`` yields events ``(name, data)`` in the order of the SSE contract (worker/README.md):
``sources`` → ``token``* → ``retract``* → ``citations`` → ``done``, or ``sources`` → ``abstain``
→ ``done``. Links and quotes come only from the allowlist.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterator, Protocol

from citavial.build.models import AllowlistEntry, SearchResult
from citavial.worker.allowlist import Allowlist
from citavial.worker.calibration import Calibration
from citavial.worker.gate import MESSAGES, decide
from citavial.worker.guard import CITE, SlotGuard
from citavial.worker.model import Model, ModelStatus
from citavial.worker.prompts import Prompt, render_request
from citavial.worker.sanitize import TextSanitizer
from citavial.worker.segment import Segmenter, Sentence
from citavial.worker.support import support

Event = tuple[str, dict]
DEFAULT_K = 4
EXTRACTIVE_LABEL = "Respuesta extractiva: el pasaje más pertinente, citado literalmente."


class Retriever(Protocol):
    def search(self, question: str, k: int) -> SearchResult: ...


@dataclass(frozen=True)
class Deps:
    """Everything an answer needs, loaded once at start-up."""

    retriever: Retriever
    allowlist: Allowlist
    prompt: Prompt
    model: Model | None
    model_status: ModelStatus
    calibration: Calibration
    k: int = DEFAULT_K

    def __repr__(self) -> str:
        return f"Deps({self.allowlist!r}, {self.model_status!r})"


def answer(question: str, deps: Deps, cancelled: Callable[[], bool] = lambda: False,
           clock: Callable[[], float] = time.perf_counter) -> Iterator[Event]:
    """Yield the events of one answer (see the module docstring)."""
    run = _Run(question, deps, cancelled, clock)
    try:
        yield from run.events()
    finally:
        trim = getattr(deps.model, "trim", None)
        if trim is not None:
            trim()   # after the last event: costs the client nothing


def citation(n: int | None, entry: AllowlistEntry, support_score: float | None = None) -> dict:
    """A citation as clients see it: every field copied from the allowlist entry."""
    out = {"n": n, "ref": entry.ref, "label": entry.label, "url": entry.url,
           "quote": entry.text, "source_url": entry.source_url,
           "source_license": entry.source_license, "as_of": entry.as_of}
    if support_score is not None:
        out["support"] = support_score   # same 0..1 scale in every answer
    return out


class _Run:
    def __init__(self, question: str, deps: Deps, cancelled: Callable[[], bool],
                 clock: Callable[[], float]) -> None:
        self.q, self.deps, self.cancelled, self.clock = question, deps, cancelled, clock
        self.t0 = clock()
        self.lat: dict[str, float | None] = {"sources": None, "first_token": None,
                                             "total": None}
        self.entries: list[AllowlistEntry] = []
        self.kept: dict[str, dict] = {}         # ref → citation, in order of first use
        self.retracted = 0
        self.kept_sentences = 0
        self.cut = None
        self.stopped: str | None = None
        limit = deps.prompt.max_sentences
        self.limit = limit if limit > 0 else None
        self.limited = False    # generation stopped because a further sentence began

    def _ms(self) -> float:
        return round((self.clock() - self.t0) * 1000, 1)

    def events(self) -> Iterator[Event]:
        deps = self.deps
        result = deps.retriever.search(self.q, deps.k)
        hits = [h for h in result.hits if h.ref in deps.allowlist][: deps.k]
        self.result = result
        self.decision = decide(result, len(hits), deps.calibration.gate)
        if not self.decision.abstain:
            self.entries = [deps.allowlist.get(h.ref) for h in hits[: deps.prompt.passages]]
        self.lat["sources"] = self._ms()
        yield "sources", {"sources": [_source(n, e) for n, e in enumerate(self.entries, 1)],
                          "index_version": result.index_version}
        if self.decision.abstain:
            reason = self.decision.reason
            yield "abstain", {"reason": reason, "message": MESSAGES[reason],
                              "gate": self.decision.as_dict()}
            yield "done", self._done("abstained", extractive_reason=None)
            return
        if deps.model is None:
            yield from self._extractive("model_unavailable")
            return
        yield from self._generate()
        if self.stopped:
            return   # the client is gone: nobody to send the rest to
        if not self.kept:
            yield from self._extractive("no_supported_sentence")
            return
        yield "citations", {"extractive": False, "citations": list(self.kept.values())}
        yield "done", self._done("generated", extractive_reason=None)

    def _generate(self) -> Iterator[Event]:
        deps = self.deps
        passages = [(n, e.label, e.text) for n, e in enumerate(self.entries, 1)]
        request = render_request(deps.prompt, passages, self.q)
        guard = SlotGuard(len(self.entries), primed=deps.prompt.prefill)
        clean, seg = TextSanitizer(), Segmenter(deps.prompt.slots)
        primed = guard.primed_items()   # sent with the first model token, not before it
        stream = deps.model.stream(request)
        try:
            for piece in stream:
                if self.cancelled():
                    self.stopped = "client_disconnected"
                    return
                out: list[Event] = []
                self._items(primed + guard.feed(piece), clean, seg, out)
                primed = []
                yield from self._send(out)
                if guard.cut is not None or self.limited:
                    break
        finally:
            stream.close()   # stops llama.cpp generating
        guard.finish()
        self.cut = guard.cut
        out = []
        self._text(seg, clean.flush(), out)
        yield from self._send(out)
        yield from self._judge(seg.finish()[1])

    def _items(self, items: list, clean: TextSanitizer, seg: Segmenter,
               out: list[Event]) -> None:
        for kind, value in items:
            if kind == CITE:
                self._text(seg, clean.flush(), out)
                s, closed = seg.cite(value)
                out.extend(self._judge(closed))
                if self._over(s):
                    return
                out.append(("token", {"s": s, "cite": value}))
            else:
                self._text(seg, clean.feed(value), out)

    def _text(self, seg: Segmenter, text: str, out: list[Event]) -> None:
        pieces, closed = seg.text(text)
        for s, piece in pieces:
            if self._over(s):
                break
            out.append(("token", {"s": s, "text": piece}))
        out.extend(self._judge(closed))

    def _over(self, s: int) -> bool:
        """Sentence ``s`` is beyond the prompt's limit: it is never sent, generation stops."""
        if self.limit is not None and s >= self.limit:
            self.limited = True
        return self.limited

    def _send(self, events: list[Event]) -> Iterator[Event]:
        for event in events:
            if event[0] == "token" and self.lat["first_token"] is None:
                self.lat["first_token"] = self._ms()
            yield event

    def _judge(self, sentences: list[Sentence]) -> list[Event]:
        """Check each closed sentence against the passages it cites; retract the unsupported."""
        out = []
        threshold = self.deps.calibration.support_threshold
        for sentence in sentences:
            if self.limit is not None and sentence.index >= self.limit:
                continue   # never sent
            verdicts = [(n, support(sentence.text, self.entries[n - 1].text, threshold))
                        for n in dict.fromkeys(sentence.cites)]
            good = [(n, v) for n, v in verdicts if v.supported]
            if good:
                self.kept_sentences += 1
                for n, v in good:
                    self._keep(n, v.score)
                continue
            self.retracted += 1
            best = max((v for _, v in verdicts), key=lambda v: v.score, default=None)
            out.append(("retract", {
                "s": sentence.index, "reason": best.reason if best else "uncited",
                "support": best.score if best else None, "cites": list(sentence.cites),
                "missing_numbers": list(best.missing_numbers) if best else []}))
        return out

    def _keep(self, n: int, score: float) -> None:
        entry = self.entries[n - 1]
        old = self.kept.get(entry.ref)
        if old is None or score > old["support"]:
            self.kept[entry.ref] = citation(n, entry, score)

    def _extractive(self, reason: str) -> Iterator[Event]:
        top = self.entries[0]
        yield "citations", {"extractive": True, "reason": reason, "label": EXTRACTIVE_LABEL,
                            "citations": [citation(1, top)]}
        yield "done", self._done("extractive", extractive_reason=reason)

    def _done(self, mode: str, extractive_reason: str | None) -> dict:
        deps, st = self.deps, self.deps.model_status
        self.lat["total"] = self._ms()
        return {
            "answered": mode != "abstained", "mode": mode,
            "abstain_reason": self.decision.reason if mode == "abstained" else None,
            "extractive_reason": extractive_reason,
            "sentences": {"kept": self.kept_sentences, "retracted": self.retracted},
            "guard": None if self.cut is None else {"cut": self.cut.reason,
                                                    "token": self.cut.token},
            "latency_ms": dict(self.lat),
            "model": {"file": st.file, "sha256": st.sha256, "mode": st.mode,
                      "loaded": st.loaded},
            "prompt": {"id": deps.prompt.id, "version": deps.prompt.version},
            "index_version": self.result.index_version, "backend": self.result.backend,
            "allowlist": {"sha256": deps.allowlist.sha256, "as_of": deps.allowlist.as_of},
            "support_threshold": deps.calibration.support_threshold,
            "gate": self.decision.as_dict(),
        }


def _source(n: int, entry: AllowlistEntry) -> dict:
    return {"n": n, "ref": entry.ref, "label": entry.label, "url": entry.url}
