"""Generate (optional): a one-line lead in the model's words, judged sentence by sentence.

Off by default: measured on the golden dev split, the default 270M model's lead did not raise the
answer metric without adding unsupported sentences (docs/answers.md). When it is on
(`--model-lead`), the model sees the answer's passage only, with its citation slot prefilled,
and its text flows through the streaming filters:

    model pieces → SlotGuard (cuts a malformed or out-of-range slot) → TextSanitizer (no link,
    markup, quote or precept name) → Segmenter (sentences) → judge (support check: numbers,
    words and word order against the cited passage; unsupported sentences are retracted)

``lead`` is a generator of typed SSE events (worker/lead/events.py: ``token``; then, once each
sentence closes, its verdict: ``keep`` or ``retract``) that returns a ``Lead`` summary. Every sent sentence that closes gets
exactly one verdict, so a client can hold a sentence until it is judged and show only kept ones.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass

from citavial.build.models import AllowlistEntry
from citavial.worker.lead.events import CiteToken, Keep, LeadEvent, Retract, Token
from citavial.worker.lead.guard import CITE, Cut, SlotGuard
from citavial.worker.lead.model import Model
from citavial.worker.lead.prompts import Prompt, render_request
from citavial.worker.lead.sanitize import TextSanitizer
from citavial.worker.lead.segment import Segmenter, Sentence
from citavial.worker.lead.support import support


@dataclass(frozen=True)
class Lead:
    kept: int
    retracted: int
    cut: Cut | None
    stopped: bool          # the client went away mid-generation


def judge(sentences: list[Sentence], entries: list[AllowlistEntry], threshold: float,
          limit: int | None) -> tuple[list[LeadEvent], int]:
    """One verdict event per closed sentence — ``keep`` when a passage it cites supports it,
    ``retract`` when none does — and how many were kept."""
    out: list[LeadEvent] = []
    kept = 0
    for sentence in sentences:
        if limit is not None and sentence.index >= limit:
            continue   # never sent
        verdicts = [support(sentence.text, entries[n - 1].text, threshold)
                    for n in dict.fromkeys(sentence.cites)]
        best = max(verdicts, key=lambda v: (v.supported, v.score), default=None)
        if best is not None and best.supported:
            kept += 1
            out.append(Keep(s=sentence.index, support=best.score, cites=tuple(sentence.cites)))
            continue
        out.append(Retract(
            s=sentence.index, reason=best.reason if best else "uncited",
            support=best.score if best else None, cites=tuple(sentence.cites),
            missing_numbers=tuple(best.missing_numbers) if best else ()))
    return out, kept


class _Flow:
    """The streaming filters of one generation, fed model pieces, emitting events."""

    def __init__(self, prompt: Prompt, entries: list[AllowlistEntry], threshold: float) -> None:
        self.entries, self.threshold = entries, threshold
        self.guard = SlotGuard(len(entries), primed=prompt.prefill)
        self.clean, self.seg = TextSanitizer(), Segmenter(prompt.slots)
        self.limit = prompt.max_sentences if prompt.max_sentences > 0 else None
        self.limited = False
        self.kept = self.retracted = 0

    def _over(self, s: int) -> bool:
        if self.limit is not None and s >= self.limit:
            self.limited = True
        return self.limited

    def _judged(self, closed: list[Sentence]) -> list[LeadEvent]:
        events, kept = judge(closed, self.entries, self.threshold, self.limit)
        self.kept += kept
        self.retracted += len(events) - kept
        return events

    def text(self, text: str) -> list[LeadEvent]:
        pieces, closed = self.seg.text(text)
        out: list[LeadEvent] = []
        for s, piece in pieces:
            if self._over(s):
                break
            out.append(Token(s=s, text=piece))
        return out + self._judged(closed)

    def feed(self, items: list) -> list[LeadEvent]:
        out: list[LeadEvent] = []
        for kind, value in items:
            if kind == CITE:
                out += self.text(self.clean.flush())
                s, closed = self.seg.cite(value)
                out += self._judged(closed)
                if self._over(s):
                    return out
                out.append(CiteToken(s=s, cite=value))
            else:
                out += self.text(self.clean.feed(value))
        return out

    def finish(self) -> list[LeadEvent]:
        self.guard.finish()
        return self.text(self.clean.flush()) + self._judged(self.seg.finish()[1])


def lead(question: str, entries: list[AllowlistEntry], model: Model, prompt: Prompt,
         threshold: float, cancelled: Callable[[], bool]) -> Generator[LeadEvent, None, Lead]:
    """Stream the model's lead about ``entries`` (numbered from 1) as events; return a Lead."""
    flow = _Flow(prompt, entries, threshold)
    passages = [(n, e.label, e.text) for n, e in enumerate(entries, 1)]
    primed = flow.guard.primed_items()   # sent with the first model token, not before it
    stream = model.stream(render_request(prompt, passages, question))
    try:
        for piece in stream:
            if cancelled():
                return Lead(flow.kept, flow.retracted, flow.guard.cut, True)
            yield from flow.feed(primed + flow.guard.feed(piece))
            primed = []
            if flow.guard.cut is not None or flow.limited:
                break
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()   # stops llama.cpp generating
    yield from flow.finish()
    return Lead(flow.kept, flow.retracted, flow.guard.cut, False)
