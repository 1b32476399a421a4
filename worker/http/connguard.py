"""Slow and crowding clients cannot lock the others out of the worker (issue 26, item 4).

waitress accepts ``connection_limit`` (100) connections and closes one only after
``channel_timeout`` seconds *without a byte*, so ~100 sockets that trickle a header byte now and
then kept every other client out. waitress has no read deadline and no per-client cap; this
channel adds both (a dozen lines on top of its documented ``channel_class`` hook, rather than
a second server in front):

* a client address holds at most ``per_client`` connections; one more is closed at once;
* a request must arrive whole — headers and body — within ``deadline`` seconds of its first
  byte (or of the connection opening), else the connection is closed. A request being
  answered (an SSE stream may take minutes) is not affected.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser, ParsingError
from waitress.task import ErrorTask

from citavial.build.headers import security_headers

# A browser opens <= 6 per host and the widget needs 2, but every local user of a shared
# computer is 127.0.0.1 (and tests/bench/load_worker.py runs 20 clients from one address).
PER_CLIENT = 32
REQUEST_DEADLINE = 15.0  # seconds for a whole request (headers + <= 8 KB body)


class SecuredErrorTask(ErrorTask):
    """waitress' own error answers (400 bad request line, 431 headers too large…) carry the
    site's security headers like every response of the app."""

    def execute(self) -> None:
        self.response_headers.extend(security_headers().items())
        super().execute()


class BadUriParser(HTTPRequestParser):
    """A request line whose URI ``urlsplit`` refuses (``GET http://[::1 HTTP/1.1``: "Invalid
    IPv6 URL") is a 400 like any other bad request: waitress catches only UnicodeError there,
    so the channel died with a logged exception and the client got no answer at all."""

    def parse_header(self, header_plus: bytes) -> None:
        try:
            super().parse_header(header_plus)
        except ParsingError:
            raise
        except ValueError as err:
            raise ParsingError(f"Bad URI ({err})") from None


class GuardedChannel(HTTPChannel):
    per_client = PER_CLIENT
    deadline = REQUEST_DEADLINE
    error_task_class = SecuredErrorTask
    parser_class = BadUriParser

    # waitress ships no types: its server, adjustments and asyncore map are Any here
    def __init__(self, server: Any, sock: socket.socket, addr: tuple[str, int] | str, adj: Any,
                 map: dict[int, Any] | None = None) -> None:
        self._client = addr[0] if isinstance(addr, tuple) else str(addr)
        self._counted = False
        self._started: float | None = time.monotonic()   # the first request starts now
        super().__init__(server, sock, addr, adj, map=map)
        counts, lock = _counts(server)
        with lock:
            counts[self._client] = counts.get(self._client, 0) + 1
            self._counted = True
            crowded = counts[self._client] > self.per_client
        if crowded:
            self.will_close = True

    def received(self, data: bytes) -> bool:
        if data and self.request is None and self._started is None:
            self._started = time.monotonic()
        done = super().received(data)
        if self.request is None:           # nothing half-received is left
            self._started = None
        return done

    def readable(self) -> bool:
        if (self._started is not None and not self.requests
                and time.monotonic() - self._started > self.deadline):
            self.will_close = True         # writable() now holds, handle_write closes it
        return super().readable()

    def del_channel(self, map: dict[int, Any] | None = None) -> None:
        super().del_channel(map)
        if self._counted:
            counts, lock = _counts(self.server)
            with lock:
                counts[self._client] -= 1
                if not counts[self._client]:
                    del counts[self._client]
            self._counted = False


def _counts(server: Any) -> tuple[dict[str, int], threading.Lock]:
    if not hasattr(server, "_citavial_clients"):
        server._citavial_clients = ({}, threading.Lock())
    return server._citavial_clients


def guard(server: Any, per_client: int = PER_CLIENT, deadline: float = REQUEST_DEADLINE) -> Any:
    """Make ``server`` (from waitress.create_server) accept through a GuardedChannel."""
    from waitress.server import BaseWSGIServer
    channel = type("Guarded", (GuardedChannel,), {"per_client": per_client,
                                                  "deadline": deadline})
    # a name that resolves to several addresses gets a MultiSocketServer: one server each
    listeners = [server] if isinstance(server, BaseWSGIServer) else [
        s for s in server.map.values() if isinstance(s, BaseWSGIServer)]
    for listener in listeners:
        listener.channel_class = channel
        _counts(listener)
    return server
