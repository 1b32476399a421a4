"""Stop gracefully on SIGTERM: stop accepting, finish the requests in flight, then exit.

Behind a reverse proxy (docs/deploy.md "Scale-out"), a worker that is stopped or restarted must not cut
the answers it is streaming: on SIGTERM it closes its listening socket at once (the proxy's next
connection is refused and goes to another worker), lets every open connection finish, and
exits 0 — or after ``grace`` seconds, whatever is left. SIGKILL cannot be handled; see docs/deploy.md.
waitress has no graceful stop of its own, hence this small piece. It cannot keep to waitress's
public API (serve(), create_server(), run(), close()): none stops accepting while letting open
connections finish — close() drops them — so it reads the server's undocumented ``accepting``,
``active_channels``, ``task_dispatcher`` and ``del_channel()`` (waitress 3.x; pinned by
tests/adversarial/test_scale_out.py, which SIGTERMs a real worker mid-burst).
"""

from __future__ import annotations

import _thread
import logging
import signal
import socket
import threading
import time

log = logging.getLogger("citavial.worker")


def drain_on_sigterm(server, grace: float = 30.0) -> None:
    """Install the SIGTERM handler for a waitress ``server`` run in the main thread."""
    def on_term(signum, frame) -> None:
        if getattr(server, "_citavial_drained", False):
            raise SystemExit(0)   # re-raised by _finish: waitress's run() stops on it
        if getattr(server, "_citavial_draining", False):
            return
        server._citavial_draining = True
        log.info("SIGTERM: no new connections; finishing %d open one(s)",
                 len(server.active_channels))
        server.accepting = False
        server.del_channel()      # off the event loop's map (this runs in the loop's thread)
        try:   # refuse new connections now; the fd stays valid for a select() in progress
            server.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        threading.Thread(target=_finish, args=(server, grace), daemon=True,
                         name="citavial-drain").start()
    signal.signal(signal.SIGTERM, on_term)


def _finish(server, grace: float) -> None:
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and (server.active_channels or server.task_dispatcher.queue):
        time.sleep(0.02)
    log.info("SIGTERM: drained; exiting")
    # waitress's run() ends on SystemExit in the main thread (it then stops its threads), so
    # SIGTERM is delivered again to the main thread, whose handler now raises it. (Closing the
    # sockets from here would break the select() it is blocked in; SIGINT may be ignored in a
    # process started in the background.)
    server._citavial_drained = True
    _thread.interrupt_main(signal.SIGTERM)
