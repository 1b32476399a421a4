"""The events of one answer, typed, and the one serialiser that turns them into the wire's.

Every SSE event of docs/answers.md ("SSE contract") is a frozen dataclass here (the lead's
``token`` / ``keep`` / ``retract`` in worker/lead/events.py, below the answer path). The answer
path builds them (ask.py, cite.py, signq.py, worker/lead/generate.py); everything between reads
their attributes (worker/http/observe.py's metrics, record.py's ``collect``); only the edge turns
them into ``(name, JSON object)`` with ``to_wire``: the SSE writer (worker/http/app.py) and the
CLI's record (record.py, printed by `citavial ask`). The MCP server sends no answer events.

The wire is the dataclasses as declared: one key per field, in field order; a nested dataclass
is an object, a tuple an array, an enum its value. A field holding ``ABSENT`` is left out — the
keys that only some events carry (a citation's ``span`` / ``span_url`` / ``rows``, ``done``'s ``sign``, the
``norm: null`` of a sign's ``abstain``). tests/test_worker_events.py pins every kind's keys.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from typing import Any, ClassVar, Literal

from citavial.worker.answer.judge import Basis, Undecided
from citavial.worker.answer.span import Cell
from citavial.worker.lead.events import LEAD_KINDS, CiteToken, Keep, LeadEvent, Retract, Token


class Absent(Enum):
    """A key the wire leaves out (None is sent as ``null``)."""

    ABSENT = "absent"


ABSENT = Absent.ABSENT


@dataclass(frozen=True, kw_only=True)
class Source:
    """A retrieved passage as ``sources`` lists it: copied from its allowlist entry."""

    n: int
    ref: str
    label: str
    url: str
    norm: str
    boe_id: str
    consolidated: str


@dataclass(frozen=True, kw_only=True)
class QuoteCell:
    """One cell of a cited table, as the index holds it (``header``: a th of the page)."""

    text: str
    header: bool


@dataclass(frozen=True, kw_only=True)
class Citation:
    """A citation: every field copied from one allowlist entry; ``span`` / ``span_url`` only
    on the citations of the words an answer shows; ``rows`` only on a citation of a table (its
    cells in reading order, which read exactly as ``quote``: the widget shows it as a table
    without fetching the page, so from file:// too)."""

    n: int
    ref: str
    label: str
    url: str
    quote: str
    source_url: str
    source_license: str
    as_of: str
    norm: str
    boe_id: str
    consolidated: str
    span: str | Absent = ABSENT
    span_url: str | Absent = ABSENT
    rows: tuple[tuple[QuoteCell, ...], ...] | Absent = ABSENT


@dataclass(frozen=True, kw_only=True)
class Shown:
    """Words an answer shows beside its own (lead-in, exception, before, after)."""

    text: str
    cite: int


@dataclass(frozen=True, kw_only=True)
class Beside:
    """Words shown before or after the answer's own: ``heading`` is the label of the article
    part they open ("art. 104") when it is not the one just shown, so a case of the same rule
    read from elsewhere reads under its own label as the sources do; ``item``: a list item
    (shown as one, after its lead-in)."""

    text: str
    cite: int
    heading: str | None = None
    item: bool = False


@dataclass(frozen=True, kw_only=True)
class Item:
    """An item of the list an answer introduces or belongs to (``answer``: it is the answer)."""

    text: str
    cite: int
    answer: bool


@dataclass(frozen=True, kw_only=True)
class Table:
    cells: tuple[Cell, ...]   # {row, column, value, unit}


@dataclass(frozen=True, kw_only=True)
class Option:
    """The pasted option named (``letter``), or "cannot decide" (``letter`` None, ``reason``)."""

    letter: str | None
    text: str
    basis: Basis | None
    reason: Undecided | None
    words: str | None
    ref: str | None
    url: str | None


@dataclass(frozen=True, kw_only=True)
class DecisionInfo:
    """The gate's decision as clients see it (decide.Decision, its score rounded)."""

    outcome: str
    score: float | None
    calibrated: bool


@dataclass(frozen=True, kw_only=True)
class SignBrief:
    code: str
    name: str
    url: str
    name_source: Literal["in_force", "previous_catalogue"]


@dataclass(frozen=True, kw_only=True)
class Sources:
    NAME: ClassVar[str] = "sources"
    sources: tuple[Source, ...]
    index_version: str


@dataclass(frozen=True, kw_only=True)
class Sign:
    """A question about a sign itself (signq.py): the sign, not a citation."""

    NAME: ClassVar[str] = "sign"
    code: str
    name: str
    url: str
    name_source: Literal["in_force", "previous_catalogue"]
    group: str
    label: str
    defined: bool
    definition: str | None
    mentions: tuple[str, ...]
    others: tuple[SignBrief, ...]


@dataclass(frozen=True, kw_only=True)
class Answer:
    NAME: ClassVar[str] = "answer"
    outcome: Literal["answer"] = "answer"
    label: str
    cite: int
    kind: Literal["clause", "table", "option"]
    text: str
    emphasis: tuple[tuple[int, int], ...]
    lead_in: Shown | None = None
    exception: Shown | None = None
    table: Table | None = None
    option: Option | None = None
    before: tuple[Beside, ...] = ()
    items: tuple[Item, ...] = ()
    after: tuple[Beside, ...] = ()
    clarify: str | None = None


@dataclass(frozen=True, kw_only=True)
class Citations:
    NAME: ClassVar[str] = "citations"
    extractive: bool = True
    label: str
    citations: tuple[Citation, ...]


@dataclass(frozen=True, kw_only=True)
class Abstain:
    NAME: ClassVar[str] = "abstain"
    outcome: str                      # "unsure", "not_regulated" or "sign"
    message: str
    norm: None | Absent = ABSENT      # null in a sign's abstention only
    passages: tuple[Citation, ...]
    decision: DecisionInfo


@dataclass(frozen=True, kw_only=True)
class Sentences:
    kept: int
    retracted: int


@dataclass(frozen=True, kw_only=True)
class GuardCut:
    cut: str
    token: int


@dataclass(frozen=True, kw_only=True)
class Latency:
    """Milliseconds from the question: sources sent, the answer's words sent, last event."""

    sources: float | None
    first_token: float | None
    total: float | None

    def stages(self) -> tuple[tuple[str, float | None], ...]:
        return tuple((f.name, getattr(self, f.name)) for f in fields(self))


@dataclass(frozen=True, kw_only=True)
class ModelInfo:
    file: str | None
    sha256: str | None
    mode: str
    loaded: bool
    in_answer_path: bool


@dataclass(frozen=True, kw_only=True)
class PromptInfo:
    id: str
    version: int


@dataclass(frozen=True, kw_only=True)
class AllowlistInfo:
    sha256: str
    as_of: str


@dataclass(frozen=True, kw_only=True)
class Done:
    NAME: ClassVar[str] = "done"
    answered: bool
    mode: Literal["extractive", "generated", "abstained"]
    outcome: str
    kind: Literal["clause", "table", "option"] | None
    sentences: Sentences
    guard: GuardCut | None
    latency_ms: Latency
    model: ModelInfo
    prompt: PromptInfo
    index_version: str
    backend: str
    allowlist: AllowlistInfo
    decision: DecisionInfo
    sign: str | Absent = ABSENT       # the sign's code, after a ``sign`` event only


@dataclass(frozen=True, kw_only=True)
class Error:
    """An internal failure mid-stream (worker/http/app.py); the stream ends."""

    NAME: ClassVar[str] = "error"
    ok: Literal[False] = False
    error: str
    status: int = 500


Event = Sources | Sign | Answer | LeadEvent | Citations | Abstain | Done | Error
KINDS: tuple[type, ...] = (Sources, Sign, Answer, *LEAD_KINDS, Citations, Abstain, Done, Error)
__all__ = ["ABSENT", "KINDS", "Abstain", "Absent", "AllowlistInfo", "Answer", "Citation",
           "Citations", "CiteToken", "DecisionInfo", "Done", "Error", "Event", "GuardCut", "Item",
           "Keep", "Latency", "ModelInfo", "Option", "PromptInfo", "QuoteCell", "Retract", "Sentences",
           "Shown",
           "Beside",
           "Sign", "SignBrief", "Source", "Sources", "Table", "Token", "payload", "to_wire"]


def payload(value: Any) -> Any:
    """The JSON value of a typed value: a dataclass → an object of its fields in order (those
    holding ``ABSENT`` left out), a tuple or list → an array, an enum → its value."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: payload(v) for f in fields(value)
                if (v := getattr(value, f.name)) is not ABSENT}
    if isinstance(value, (tuple, list)):
        return [payload(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    return value


def to_wire(event: Event) -> tuple[str, dict]:
    """``(event name, JSON object)``: what the SSE writer and the CLI's record send."""
    return event.NAME, payload(event)
