"""What another web page may do to the local worker (docs/security.md, issue 26 item 7).

A page on any site can make the student's browser send requests to 127.0.0.1; the worker lets
it read nothing and start nothing:

* CORS headers only for the origins the operator configured (``serve --allow-origin``; none by
  default). The site served by the worker itself is same-origin and needs none; a page opened
  from ``file://`` sends ``Origin: null``, which any site can also send from a sandboxed iframe,
  so ``null`` is allowed only when configured (``--allow-origin null``).
* The Host header must name this machine: an IP literal, ``localhost``, or a configured name
  (``serve --allowed-host``). A DNS-rebinding page reaches 127.0.0.1 under its own name.
* POST /api/ask needs ``Content-Type: application/json`` (checked in app.py), which a page can
  only send cross-origin after a preflight that the CORS rule refuses.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

from flask import Request, Response

CORS_PATHS = ("/api/", "/health")


def _hostname(host: str) -> str:
    """``Host`` without its port (``[::1]:8000`` → ``::1``), lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def host_allowed(host: str, allowed_hosts: tuple[str, ...] = ()) -> bool:
    name = _hostname(host)
    if not name:
        return False
    try:
        ipaddress.ip_address(name)
        return True        # an address cannot be rebound: the page's origin is this worker
    except ValueError:
        pass
    return name == "localhost" or name in {h.lower() for h in allowed_hosts}


def normal_origin(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


def add_cors(req: Request, resp: Response, allowed_origins: tuple[str, ...]) -> None:
    """CORS response headers, for a configured origin only."""
    origin = req.headers.get("Origin")
    if not origin or not req.path.startswith(CORS_PATHS):
        return
    resp.headers.add("Vary", "Origin")
    if normal_origin(origin) in {normal_origin(o) for o in allowed_origins}:
        resp.headers["Access-Control-Allow-Origin"] = origin
        resp.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
        resp.headers["Access-Control-Allow-Headers"] = "Content-Type"


def without_home(value):
    """``value`` (a /health report) with the user's home folder written ``~``: a page allowed
    to read /health learns nothing about the account the worker runs under."""
    home = str(Path.home())
    if isinstance(value, str):
        return value.replace(home, "~") if home not in ("/", "") else value
    if isinstance(value, dict):
        return {k: without_home(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [without_home(v) for v in value]
    return value
