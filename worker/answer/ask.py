"""Answer one question: the single path behind POST /api/ask, `citavial ask` and the benchmarks.

    read the question (question.py) → retrieve → pick the words that answer (span.py; a rule
    stated for every case before a side rule, general.py)
    → decide: answer / unsure / not regulated by any norm covered (decide.py) → the words
    beside it (beside.py: antecedent, qualifier, list, the same rule's other cases, cases.py;
    the table for a question too vague for it, vague.py) → which option, if pasted (judge.py)
    → [a one-line lead by the model (generate.py), off by default] → cite (cite.py: allowlist
    entries, with span links proven by the gate's matcher)

Each stage is a function over plain values; ``answer`` only sequences them, times them and turns
their results into the events of the SSE contract (docs/answers.md), typed (events.py; turned
into the wire's JSON only at the HTTP and CLI edge):
``sources`` → ``answer`` → [``token``* with one ``keep`` or ``retract`` per closed sentence] → ``citations`` → ``done``, or
``sources`` → ``abstain`` → ``done``; a question about a sign itself ("¿Qué significa la señal
R-101?") adds ``sign`` after ``sources`` (signq.py). Links, quotes and spans come only from the
allowlist.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from citavial.build.models import AllowlistEntry, SearchHit, SearchResult
from citavial.build.text import stems
from citavial.worker.answer import signq as signs
from citavial.worker.answer.allowlist import Allowlist
from citavial.worker.answer.beside import nearest, settle
from citavial.worker.answer.calibration import Calibration
from citavial.worker.answer.cite import (
    Reader,
    abstain_event,
    answer_event,
    citations_event,
    decision_info,
    source,
)
from citavial.worker.answer.decide import ANSWER, UNSURE, Decision, decide, other_margin
from citavial.worker.answer.events import (
    AllowlistInfo,
    Answer,
    Done,
    Event,
    GuardCut,
    Latency,
    ModelInfo,
    PromptInfo,
    Sentences,
    Sources,
)
from citavial.worker.answer.general import general_rule
from citavial.worker.answer.judge import (
    Evidence,
    Undecided,
    Verdict,
    case_beside,
    judge,
    judge_cell,
    judge_figure,
    judge_row,
)
from citavial.worker.answer.question import NUMBER, Question, read_question
from citavial.worker.answer.span import Piece, Span, emphasis, select
from citavial.worker.answer.vague import reframe
from citavial.worker.lead.generate import Lead, lead
from citavial.worker.lead.model import Model, ModelStatus
from citavial.worker.lead.prompts import Prompt

Mode = Literal["extractive", "generated", "abstained"]
DEFAULT_K = 5     # passages retrieved per answer (4 → 5 chosen on dev with hooks-v4)
SOURCES = 3   # passages offered when the answer is "No lo tengo claro"
TABLE_DEPTH = 10   # a question asking for a figure also reads the tables ranked up to here


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
    reader: Reader | None = None   # built from allowlist + retriever when None (tests)
    model_lead: bool = False        # the measured default: the model is off in the answer path

    def __repr__(self) -> str:
        return f"Deps({self.allowlist!r}, {self.model_status!r}, lead={self.model_lead})"


@dataclass(frozen=True)
class Reading:
    """What the stages found out about one question (plain values, no I/O)."""

    question: Question
    result: SearchResult
    entries: tuple[AllowlistEntry, ...]
    span: Span | None
    decision: Decision
    choice: Verdict | None = None
    retrieved: int = 0   # how many of ``entries`` the search returned (the rest: expansion)


def read(text: str, deps: Deps, reader: Reader) -> Reading:
    """Retrieve, select, decide, choose — everything before any event is sent."""
    q = read_question(text)
    deep = q.kind == NUMBER and TABLE_DEPTH > deps.k
    result = deps.retriever.search(text, max(TABLE_DEPTH, deps.k))
    ranked = result.hits   # k only cuts the ranking: its first k are the k-search's
    margin = other_margin(ranked)
    result = replace(result, hits=ranked[:deps.k],
                     evidence=(*result.evidence, ("other_margin", margin)))
    hits = _distinct([(e, h.score) for h in result.hits
                      if (e := deps.allowlist.get(h.ref)) is not None])
    retrieved = [e for e, _ in hits]
    defined = reader.glossary.asked(q.stem)
    if defined is not None and (entry := deps.allowlist.get(defined)) is not None:
        return _definition(q, result, entry, retrieved, reader)
    candidates, priors = reader.expand(retrieved, [s for _, s in hits])
    kept = _distinct(list(zip(candidates, priors, strict=True)))
    candidates, priors = [e for e, _ in kept], [w for _, w in kept]
    if deep:
        candidates, priors = _deeper_tables(ranked, deps, reader, candidates, priors)
    entries = tuple(candidates)
    span = (select(q, entries, reader.idf, reader.table, reader.lead_in, priors, reader.hooks,
                   reader.similarity(q.stem, entries)) if entries else None)
    if span is not None:   # a rule for every case before a side rule for some (general.py)
        span = general_rule(q, entries, span, reader.lead_in)
    cal = deps.calibration
    decision = decide([e.norm for e in retrieved], dict(result.evidence),
                      None if span is None else span.score, cal.gate, cal.thresholds)
    choice = None
    if decision.outcome == ANSWER and span is not None:   # the words beside it (beside.py)
        entries, span = settle(q, entries, span, reader)
    elif span is not None and (vague := reframe(q, entries, span, reader)) is not None:
        # "¿Puedo ir a 100?": no span can settle it, so the gate's doubt is expected; what
        # settles it is asking back with the table (vague.py) — a rule, like a definition's
        # answer, not the gate's call (score None)
        entries, span = vague
        decision = Decision(ANSWER, None, entries[span.rank].norm, False)
    if decision.outcome == ANSWER and span is not None and q.options:
        choice = _judge(q, span, entries)
    return Reading(q, result, entries, span, decision, choice, len(retrieved))


def _distinct(pairs: Sequence[tuple[AllowlistEntry, float]]) -> list[tuple[AllowlistEntry, float]]:
    """Each passage once, and each wording once: the anexo II states "Luces de avería y de
    cruce encendidas." in four places, and an answer showing it four times reads as noise. The
    first (best ranked) of passages worded alike is kept."""
    seen: set[str] = set()
    out = []
    for e, w in pairs:
        if e.ref not in seen and e.text not in seen:
            seen.update((e.ref, e.text))
            out.append((e, w))
    return out


def _definition(q: Question, result: SearchResult, entry: AllowlistEntry,
                retrieved: Sequence[AllowlistEntry], reader: Reader) -> Reading:
    """A question that asks what a defined term is ("¿Qué es un remolque?"): the law's
    definition of it is the answer, first among the passages shown (define.py). The other
    norms' definitions of the same term follow it and are read as cited: they state the same
    rule in other words ("Vía pública…" / "Es toda vía pública…")."""
    alike = tuple(e for r in reader.glossary.alike(entry.ref)
                  if (e := reader.allowlist.get(r)) is not None)
    first = {entry.ref, *(e.ref for e in alike)}
    entries = (entry, *alike, *(e for e in retrieved if e.ref not in first))
    span = Span(Piece(entry.ref, entry.text, 0, len(entry.text)), 1.0, 0,
                emphasis=emphasis(entry.text))
    decision = Decision(ANSWER, None, entry.norm, False)
    shown = len(entries)
    entries, span = settle(q, entries, span, reader)
    choice = _judge(q, span, entries, alike) if q.options else None
    return Reading(q, result, entries, span, decision, choice, shown)


def _deeper_tables(ranked: Sequence[SearchHit], deps: Deps, reader: Reader,
                   candidates: list[AllowlistEntry],
                   priors: list[float]) -> tuple[list[AllowlistEntry], list[float]]:
    """A question asking for a figure also reads the tables ranked below the first k: a table
    is a bag of cells to the ranking, which places it below passages that merely share the
    question's words ("… circular por una autopista a velocidad anormalmente reducida")."""
    best = max((h.score for h in ranked), default=0.0) or 1.0
    seen = {e.ref for e in candidates}
    extra = [(e, max(0.0, h.score) / best) for h in ranked[deps.k:]
             if h.ref not in seen and (e := deps.allowlist.get(h.ref)) is not None
             and reader.table(h.ref)]
    return candidates + [e for e, _ in extra], priors + [w for _, w in extra]


def _judge(q: Question, span: Span, entries: Sequence[AllowlistEntry],
           alike: Sequence[AllowlistEntry] = ()) -> Verdict:
    """The pasted option the cited words state (worker/judge.py): they are read in the
    answer's passage, its lead-in and its exception; no other option may stand in those or in
    the passages shown beside them."""
    main = entries[span.rank]
    if len(span.cells) == 1:
        cell = span.cells[0]
        table = " ".join([main.text, span.lead_in.text if span.lead_in is not None else ""])
        read = [Evidence(e.ref, e.text) for e in entries if e.ref != main.ref]
        if case_beside(stems(q.stem), table, read) is not None:
            return Verdict(None, "", None, Undecided.CASE_STATED)
        return judge_cell(q.options, main.ref, cell.value, cell.unit)
    if q.kind == NUMBER and (row := judge_row(q.options, main.ref, main.text)) is not None:
        return row
    cited = [Evidence(main.ref, main.text)]
    cited += [Evidence(p.ref, p.text) for p in (span.lead_in, span.exception) if p is not None]
    cited += [Evidence(e.ref, e.text) for e in alike]
    shown = [Evidence(e.ref, e.text) for e in entries[:SOURCES]]
    shown += [Evidence(p.ref, p.text) for p in (*span.before, *span.items, *span.after)]
    verdict = judge(q.options, cited, cited + shown)
    if verdict.letter is None and (figure := judge_figure(q.options, cited, cited + shown, q.terms)):
        return figure
    return verdict


def answer(question: str, deps: Deps, cancelled: Callable[[], bool] = lambda: False,
           clock: Callable[[], float] = time.perf_counter) -> Iterator[Event]:
    """Yield the events of one answer (see the module docstring)."""
    t0 = clock()
    lat: dict[str, float | None] = {"sources": None, "first_token": None, "total": None}

    def ms() -> float:
        return round((clock() - t0) * 1000, 1)

    reader = deps.reader or Reader(deps.allowlist, deps.retriever)
    try:
        r = read(question, deps, reader)
        sign = signs.plan(question, r.result, deps.allowlist)
        if sign is not None:   # a question about a sign itself (worker/answer/signq.py)
            yield from _sign_reply(sign, r, deps, reader, lat, ms)
            return
        retrieved = list(r.entries[:r.retrieved])
        shown: Sequence[AllowlistEntry] = {
            ANSWER: retrieved, UNSURE: nearest(r.question, retrieved[:SOURCES], reader)}.get(
            r.decision.outcome, [])
        lat["sources"] = ms()
        yield Sources(sources=tuple(source(n, e) for n, e in enumerate(shown, 1)),
                      index_version=r.result.index_version)
        if r.decision.outcome != ANSWER or r.span is None:
            yield abstain_event(r.decision, shown, reader)
            lat["total"] = ms()
            yield _done(r, deps, "abstained", None, lat)
            return
        event = answer_event(r.question, r.span, r.choice, r.entries, reader)
        lat["first_token"] = ms()   # the answer's words are out
        yield event
        summary = None
        if deps.model_lead and deps.model is not None:
            summary = yield from lead(r.question.stem, [r.entries[r.span.rank]], deps.model,
                                      deps.prompt, deps.calibration.support_threshold, cancelled)
            if summary.stopped:
                return   # the client is gone: nobody to send the rest to
        yield citations_event(r.span, r.entries, reader)
        lat["total"] = ms()
        yield _done(r, deps, "generated" if summary is not None and summary.kept else
                    "extractive", summary, lat)
    finally:
        trim = getattr(deps.model, "trim", None)
        if trim is not None:
            trim()   # after the last event: costs the client nothing


def _sign_reply(plan: signs.SignPlan, r: Reading, deps: Deps, reader: Reader,
                lat: dict[str, float | None], ms: Callable[[], float]) -> Iterator[Event]:
    """``sources`` → ``sign`` → ``answer`` → ``citations`` → ``done`` for a road marking the
    text in force defines; ``sources`` → ``sign`` → ``abstain`` → ``done`` otherwise."""
    for event in signs.events(plan, reader, r.result.index_version):
        if isinstance(event, Sources):
            lat["sources"] = ms()
        elif isinstance(event, Answer):
            lat["first_token"] = ms()
        yield event
    lat["total"] = ms()
    defined = plan.definition is not None
    decision = Decision(ANSWER if defined else signs.SIGN, None, None, False)
    done = _done(replace(r, span=None, decision=decision), deps,
                 "extractive" if defined else "abstained", None, lat)
    yield replace(done, kind="clause" if defined else None, sign=plan.sign.code)


def _done(r: Reading, deps: Deps, mode: Mode, summary: Lead | None,
          lat: dict[str, float | None]) -> Done:
    st = deps.model_status
    return Done(
        answered=mode != "abstained", mode=mode, outcome=r.decision.outcome,
        kind=None if r.span is None or mode == "abstained" else
        ("table" if r.span.cells else "option" if r.choice else "clause"),
        sentences=Sentences(kept=summary.kept if summary else 0,
                            retracted=summary.retracted if summary else 0),
        guard=None if summary is None or summary.cut is None else
        GuardCut(cut=summary.cut.reason, token=summary.cut.token),
        latency_ms=Latency(sources=lat["sources"], first_token=lat["first_token"],
                           total=lat["total"]),
        model=ModelInfo(file=st.file, sha256=st.sha256, mode=st.mode, loaded=st.loaded,
                        in_answer_path=deps.model_lead and deps.model is not None),
        prompt=PromptInfo(id=deps.prompt.id, version=deps.prompt.version),
        index_version=r.result.index_version, backend=r.result.backend,
        allowlist=AllowlistInfo(sha256=deps.allowlist.sha256, as_of=deps.allowlist.as_of),
        decision=decision_info(r.decision))
