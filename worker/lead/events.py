"""The lead's events, typed: one frozen dataclass per SSE event the model's lead sends.

A ``token`` carries either a piece of a sentence's text (``Token``) or a citation slot
(``CiteToken``); every sentence that closes gets one verdict, ``Keep`` or ``Retract``. Field
order is the wire's key order: worker/answer/events.py serialises them (``to_wire``) at the HTTP
and CLI edge, and defines the other events of an answer. They live here, below the answer path,
because the lead (worker/lead/generate.py) builds them and may not import worker.answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True, kw_only=True)
class Token:
    """``{s, text}``: text of lead sentence ``s``."""

    NAME: ClassVar[str] = "token"
    s: int
    text: str


@dataclass(frozen=True, kw_only=True)
class CiteToken:
    """``{s, cite}``: lead sentence ``s`` cites passage ``cite`` (numbered from 1)."""

    NAME: ClassVar[str] = "token"
    s: int
    cite: int


@dataclass(frozen=True, kw_only=True)
class Keep:
    """Sentence ``s`` closed supported: ``support`` is the best score among its cited passages."""

    NAME: ClassVar[str] = "keep"
    s: int
    support: float
    cites: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class Retract:
    """Sentence ``s`` closed unsupported (or uncited: ``support`` None)."""

    NAME: ClassVar[str] = "retract"
    s: int
    reason: str
    support: float | None
    cites: tuple[int, ...]
    missing_numbers: tuple[str, ...]


LeadEvent = Token | CiteToken | Keep | Retract
LEAD_KINDS: tuple[type, ...] = (Token, CiteToken, Keep, Retract)
