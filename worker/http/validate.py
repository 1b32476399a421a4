"""Checks on what a client sends; each failure says what was wrong and what is accepted."""

from __future__ import annotations

import json

from citavial.worker.patterns import QUESTION_FORBIDDEN

MIN_CHARS, MAX_CHARS = 3, 500
MAX_K = 20


class InvalidInput(ValueError):
    """A request the worker refuses with 400; the message is shown to the client."""


def check_question(value: object, field: str = "question") -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"'{field}' must be a string, got {type(value).__name__}; send "
                           '{"question": "¿…?"}')
    bad = QUESTION_FORBIDDEN.search(value)
    if bad:
        raise InvalidInput(f"'{field}' contains the control character U+{ord(bad.group()):04X} "
                           f"at position {bad.start()}; send plain text (line breaks are fine)")
    text = value.strip()
    if not MIN_CHARS <= len(text) <= MAX_CHARS:
        raise InvalidInput(f"'{field}' has {len(text)} characters; it must have between "
                           f"{MIN_CHARS} and {MAX_CHARS}")
    return text


def parse_ask_body(body: bytes, mimetype: str) -> str:
    """The question of a POST /api/ask body (JSON object, UTF-8)."""
    if mimetype != "application/json":
        raise InvalidInput(f"Content-Type is {mimetype!r}; send application/json")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidInput(f"the body is not valid UTF-8 (byte {err.start}); send UTF-8 "
                           "JSON") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidInput(f"the body is not valid JSON ({err.msg} at line {err.lineno} "
                           f"column {err.colno}); send {{\"question\": \"¿…?\"}}") from None
    except (RecursionError, ValueError):   # nested past the stack; an integer > 4,300 digits
        raise InvalidInput("the body is JSON no question needs (nested too deep or a number "
                           'too long); send {"question": "¿…?"}') from None
    if not isinstance(doc, dict) or "question" not in doc:
        raise InvalidInput('the body must be a JSON object with a "question" field, e.g. '
                           '{"question": "¿A qué velocidad se circula por autopista?"}')
    extra = sorted(set(doc) - {"question"})
    if extra:
        raise InvalidInput(f"unknown field(s) {extra}; only \"question\" is accepted")
    return check_question(doc["question"])


def parse_search_args(args) -> tuple[str, int]:
    """``q`` and ``k`` of GET /api/search."""
    q = check_question(args.get("q", ""), field="q")
    raw_k = args.get("k", "5")
    # the length first: int() of 5,000 digits raises (and costs) before any range check
    if not (raw_k.isascii() and raw_k.isdigit() and len(raw_k) <= 3) \
            or not 1 <= int(raw_k) <= MAX_K:
        shown = raw_k if len(raw_k) <= 20 else raw_k[:20] + f"… ({len(raw_k)} characters)"
        raise InvalidInput(f"'k' is {shown!r}; it must be a whole number from 1 to {MAX_K}")
    return q, int(raw_k)
