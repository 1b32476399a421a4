"""Serving the built site (dist/) the way a careful static host would.

* A content-hashed asset (``app.<hash10>.js``) is ``Cache-Control: public, max-age=31536000,
  immutable``; everything else (HTML, sw.js, the manifest, JSON) is ``no-cache``: revalidated
  with its ETag, so a new build is seen at once and an unchanged file costs a 304.
* The precompressed twin ``f.gz`` written by the build is sent when the client accepts gzip
  (``Content-Encoding: gzip``, ``Vary: Accept-Encoding``).
* A missing file is the site's Spanish 404.html, with status 404.

Hand-written rather than a static-files middleware: it is a dozen lines over Flask's own
``send_file`` (ETag, Range, conditional requests), and the cache rule is the build's.
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path

from flask import Response, request, send_file
from werkzeug.exceptions import NotFound
from werkzeug.security import safe_join

from citavial.build.headers import REVALIDATE, cache_control
from citavial.build.web.assets import COMPRESSIBLE

mimetypes.add_type("application/manifest+json", ".webmanifest")
mimetypes.add_type("image/x-icon", ".ico")


def send_static(dist: Path, path: str) -> Response:
    full = safe_join(str(dist), path) if path else None
    # a .gz twin is sent only as the encoding of its page (below), never as a page of its own:
    # served directly it would be gzip bytes labelled text/html
    if full is None or path.endswith(".gz") or not os.path.isfile(full):
        return not_found(dist)
    mimetype = mimetypes.guess_type(path)[0] or "application/octet-stream"
    compressible = os.path.splitext(path)[1] in COMPRESSIBLE
    if compressible and request.accept_encodings["gzip"] and os.path.isfile(full + ".gz"):
        resp = send_file(full + ".gz", mimetype=mimetype, conditional=True, etag=True)
        resp.headers["Content-Encoding"] = "gzip"
    else:
        resp = send_file(full, mimetype=mimetype, conditional=True, etag=True)
    if compressible:
        resp.headers["Vary"] = "Accept-Encoding"
    resp.headers["Cache-Control"] = cache_control(path)
    return resp


def not_found(dist: Path) -> Response:
    page = Path(dist) / "404.html"
    if not page.is_file():
        raise NotFound()
    resp = send_file(page, mimetype="text/html", conditional=False, etag=False)
    resp.status_code = 404
    resp.headers["Cache-Control"] = REVALIDATE
    return resp
