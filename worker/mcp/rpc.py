"""JSON-RPC 2.0 answers for stdin lines that are not MCP messages (issue 26, item 9).

The SDK's stdio transport drops a line it cannot validate (a debug log line, no reply), and
reads a request whose ``id`` is not a string or an integer as a notification: either way the
client that sent it waits forever. So each line is judged here first, as the JSON-RPC 2.0
spec says, and answered when it is not a message:

* not JSON (or not UTF-8 JSON text, or ``NaN``…) → -32700 Parse error, ``id`` null;
* JSON that is not a request, notification or response object (an array — MCP has no
  batches —, a scalar, a wrong ``jsonrpc``, a non-string ``method``, ``params`` that is not
  an object, an ``id`` that is not a string or an integer) → -32600 Invalid Request, with
  the line's ``id`` when it is a valid one (so the client can stop waiting), else null.

The SDK keeps doing the rest (-32601 unknown method, tool errors). A blank line is skipped:
nothing was sent, nobody waits.
"""

from __future__ import annotations

import json
from typing import Any, AsyncIterable, AsyncIterator

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError
from pydantic_core import from_json

FIX = "fix: send one JSON-RPC 2.0 message per line, as UTF-8 JSON, with no newline inside it"
MEMBERS = {"a request": "JSONRPCRequest", "a notification": "JSONRPCNotification",
           "a response": "JSONRPCResponse", "an error response": "JSONRPCError"}


def problem(line: str, number: int) -> JSONRPCError | None:
    """The error answer for stdin line ``number`` (from 1), or None when it is a message."""
    try:
        doc = from_json(line, allow_inf_nan=False)
    except ValueError as err:
        return _error(None, PARSE_ERROR, "Parse error", f"line {number} is not JSON: {err}")
    why = _not_a_message(line, doc)
    if why is None:
        return None
    return _error(_echoed_id(doc), INVALID_REQUEST, "Invalid Request",
                  f"line {number} is not a JSON-RPC 2.0 message: {why}")


def _not_a_message(line: str, doc: Any) -> str | None:
    if isinstance(doc, list):
        return "a JSON array (a batch); MCP takes one message per line"
    if not isinstance(doc, dict):
        return f"a JSON {_kind(doc)}, not an object"
    if "method" in doc and "id" in doc and not _valid_id(doc["id"]):
        # the SDK would read this as a notification and never answer it
        return f'"id" is {_shown(doc["id"])}; it must be a string or an integer'
    if not {"method", "result", "error"} & doc.keys():
        return 'no "method" (a request or notification) nor "result"/"error" (a response)'
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)   # what the SDK runs next
    except ValidationError as err:
        return _reason(doc, err)
    return None


def _reason(doc: dict, err: ValidationError) -> str:
    """The errors of the message kind ``doc`` looks like (pydantic lists every kind's)."""
    kind = ("a request" if "id" in doc else "a notification") if "method" in doc else (
        "an error response" if "error" in doc else "a response")   # one of the three keys
    member = MEMBERS[kind]
    found = [f'"{".".join(map(str, e["loc"][1:]))}": {e["msg"].lower()}'
             for e in err.errors() if e["loc"][:1] == (member,)]
    return f"as {kind}, " + "; ".join(found or [err.errors()[0]["msg"].lower()])


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _echoed_id(doc: Any) -> str | int | None:
    """The line's id when it is a request's valid id; null otherwise (JSON-RPC 2.0, 5.)."""
    if isinstance(doc, dict) and "result" not in doc and "error" not in doc and _valid_id(
            doc.get("id")):
        return doc["id"]
    return None


def _kind(value: Any) -> str:
    names = {bool: "boolean", int: "number", float: "number", str: "string", dict: "object",
             list: "array", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _shown(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def _error(rid: str | int | None, code: int, message: str, detail: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=rid,
                        error=ErrorData(code=code, message=message, data=f"{detail} ({FIX})"))


class CheckedLines:
    """stdin's lines for the SDK's stdio transport (which only iterates them), without the
    lines that are not messages: each of those is answered on the transport's write stream,
    given by ``answer_on`` once the transport is open."""

    def __init__(self, lines: AsyncIterable[str]) -> None:
        self._lines = lines
        self._replies: Any = None
        self._open = anyio.Event()

    def answer_on(self, replies: Any) -> None:
        self._replies = replies
        self._open.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._checked()

    async def _checked(self) -> AsyncIterator[str]:
        number = 0
        async for line in self._lines:
            number += 1
            if not line.strip():
                continue
            error = problem(line, number)
            if error is None:
                yield line
                continue
            await self._open.wait()
            try:
                await self._replies.send(SessionMessage(error))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return   # the server is shutting down: nobody left to answer
