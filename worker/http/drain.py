"""Stop gracefully on SIGTERM: stop accepting, finish the open connections, then exit.

Behind a reverse proxy (docs/deploy.md "Scale-out"), a worker that is stopped or restarted must not cut
the answers it is streaming: on SIGTERM it stops accepting at once (the proxy's next connection
is refused and goes to another worker), lets every open connection finish, and exits 0 — or
after ``grace`` seconds, whatever is left. SIGKILL cannot be handled; see docs/deploy.md.

waitress has no graceful stop, and its public ``close()`` does not fit: it also closes the
trigger that request threads wake the event loop with, under a response still streaming. So
this keeps to what we own: the event loop's map, which serve.make_server hands to waitress's
``create_server(map=…)``. On SIGTERM the listening sockets leave the map and are shut down
(their descriptors stay valid for a select() in progress); the open connections are the
``HTTPChannel``s left in it — one leaves once its response is flushed and it is closed; a
``Stopper`` of our own in the map then ends waitress's ``run()``, which shuts its request
threads down itself. Pinned by tests/test_worker_drain.py and, behind nginx mid-burst,
tests/adversarial/test_scale_out.py.
"""

from __future__ import annotations

import logging
import signal
import socket
import time
from typing import Any

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer

log = logging.getLogger("citavial.worker")


def open_connections(loop_map: dict[int, Any]) -> int:
    """The client connections in the event loop's map (read in the loop's thread)."""
    return sum(isinstance(obj, HTTPChannel) for obj in loop_map.values())


class Stopper(wasyncore.dispatcher):
    """A socket pair in the event loop's map that ends waitress's ``run()``: ``stop()`` (from
    any thread) wakes the loop, whose read raises SystemExit in the loop's thread — which
    ``run()`` catches to shut its request threads down. While draining it also stops the loop
    itself once no connection is left or the deadline has passed (checked every loop pass)."""

    def __init__(self, loop_map: dict[int, Any]) -> None:
        self._ring, wake = socket.socketpair()
        super().__init__(wake, map=loop_map)
        self._loop_map = loop_map
        self._stopping = False
        self.drain_until: float | None = None

    def wake(self) -> None:
        """Make the loop pass now (it may be waiting in select() for up to a second)."""
        try:
            self._ring.send(b"x")
        except OSError:   # already stopped and closed
            pass

    def stop(self) -> None:
        self._stopping = True
        self.wake()

    def readable(self) -> bool:
        if self.drain_until is not None and (not open_connections(self._loop_map)
                                             or time.monotonic() >= self.drain_until):
            self.drain_until = None
            log.info("SIGTERM: drained; exiting")
            self.stop()
        return True

    def writable(self) -> bool:
        return False

    def handle_read(self) -> None:
        self.recv(64)
        if self._stopping:
            raise SystemExit(0)

    def close(self) -> None:
        super().close()
        self._ring.close()


def stop_accepting(loop_map: dict[int, Any]) -> None:
    """Take the listening sockets off the loop and refuse new connections (the loop's thread)."""
    for fd, obj in list(loop_map.items()):
        if isinstance(obj, BaseWSGIServer):
            del loop_map[fd]
            try:   # asyncore's ``socket`` attribute; shut down, not closed: see the docstring
                obj.socket.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def drain_on_sigterm(loop_map: dict[int, Any], grace: float = 30.0) -> Stopper:
    """Install the SIGTERM handler for the server of ``loop_map``, run by ``run()`` in the main
    thread (signal handlers run there, between the loop's passes)."""
    stopper = Stopper(loop_map)

    def on_term(signum: int, frame: Any) -> None:
        if stopper.drain_until is not None:
            return   # already draining
        log.info("SIGTERM: no new connections; finishing %d open one(s)",
                 open_connections(loop_map))
        stop_accepting(loop_map)
        stopper.drain_until = time.monotonic() + grace
        stopper.wake()   # its next pass checks what is left
    signal.signal(signal.SIGTERM, on_term)
    return stopper
