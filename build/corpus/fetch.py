"""`citavial fetch`: refresh one norm from the BOE open-data API into the corpus, all or nothing.

Both documents (``/id/<BOE id>/texto`` and ``/id/<BOE id>/metadatos``) are downloaded and validated
in memory first; only then are the two XML files and MANIFEST.json written, each atomically. Any
failure leaves the previous corpus byte-for-byte as it was.
"""

from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import suppress
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from citavial.build import atomic
from citavial.build.corpus.integrity import (
    FILE_KINDS,
    NormMetadata,
    check_envelope,
    file_record,
    load_manifest,
    manifest_entry,
    manifest_path,
    parse_metadata,
    show,
    write_manifest,
)
from citavial.build.errors import BuildError
from citavial.build.patterns import BOE_ID
from citavial.build.safexml import parse_bytes

MAX_BYTES = 64 * 2**20  # the RGC is ~1.2 MB; refuse anything absurdly larger
_CHUNK = 64 * 1024
_XML_TYPES = ("application/xml", "text/xml")
_RETRY_UNCHANGED = "retry `citavial fetch {}`; the corpus was not changed"
_DEFAULT_BASE = "https://www.boe.es/datosabiertos/api/legislacion-consolidada"


class HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects to http(s) only; urllib's default would also follow ftp://."""

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int,
                         msg: str, headers: http.client.HTTPMessage,
                         newurl: str) -> urllib.request.Request | None:
        if urllib.parse.urlsplit(newurl).scheme not in ("http", "https"):
            raise urllib.error.HTTPError(newurl, code, f"{msg}, redirect to {newurl!r} refused", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _check_args(boe_id: str, base_url: str, timeout: float) -> str:
    """Validate the arguments; return the base URL without a trailing slash."""
    if not isinstance(boe_id, str) or not BOE_ID.fullmatch(boe_id):
        raise BuildError("BOE id", f"{boe_id!r} does not match BOE-<letter>-<year>-<number>",
                         "pass an id like BOE-A-2003-23514")
    parts = urllib.parse.urlsplit(base_url)
    # urllib would also open file:// and ftp:// URLs; only the HTTP API is a valid source.
    if parts.scheme not in ("http", "https") or not parts.netloc or not base_url.isprintable():
        raise BuildError("--base-url", f"{base_url!r} is not an http(s) URL", f"use e.g. {_DEFAULT_BASE}")
    if not timeout > 0:
        raise BuildError("--timeout", f"{timeout!r} is not a positive number of seconds", "use e.g. 30")
    return base_url.rstrip("/")


def read_body(resp: http.client.HTTPResponse, url: str, deadline: float, timeout: float) -> bytes:
    """The whole body, at most MAX_BYTES, by ``deadline`` (also for corpus/images.py)."""
    # The socket timeout bounds each read; the deadline bounds the whole download (slow drip).
    chunks: list[bytes] = []
    total = 0
    while chunk := resp.read(_CHUNK):
        chunks.append(chunk)
        total += len(chunk)
        if total > MAX_BYTES:
            raise BuildError(url, f"response exceeds {MAX_BYTES:,} bytes", "check --base-url")
        if time.monotonic() > deadline:
            raise TimeoutError(f"download took longer than {timeout} s")
    if resp.length:  # http.client ends a short Content-Length body silently; a cut body is an error
        raise http.client.IncompleteRead(b"".join(chunks), resp.length)
    return b"".join(chunks)


def _download(url: str, boe_id: str, timeout: float) -> bytes:
    """GET ``url`` as XML; every network or HTTP problem becomes a one-line BuildError."""
    req = urllib.request.Request(url, headers={"Accept": "application/xml", "User-Agent": "citavial-fetch"})
    deadline = time.monotonic() + timeout
    retry = f"check the network and --base-url, then retry `citavial fetch {boe_id}`"
    try:
        # A fresh opener per call so proxy settings come from the current environment.
        with urllib.request.build_opener(HttpOnlyRedirects).open(req, timeout=timeout) as resp:
            if resp.status != 200:
                raise BuildError(url, f"HTTP status {resp.status} {resp.reason}, expected 200", retry)
            ctype = resp.headers.get("Content-Type", "(none)")
            if resp.headers.get_content_type() not in _XML_TYPES:
                raise BuildError(url, f"Content-Type is {ctype!r}, expected application/xml or text/xml",
                                 "check --base-url points at the BOE consolidated-legislation API")
            return read_body(resp, url, deadline, timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise BuildError(url, f"BOE has no norm {boe_id} (HTTP 404)",
                             "check the id at https://www.boe.es/buscar/legislacion.php") from None
        raise BuildError(url, f"HTTP status {exc.code} {exc.reason}, expected 200", retry) from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise BuildError(url, f"timed out after {timeout} s", "retry, or raise --timeout") from None
        raise BuildError(url, f"cannot connect ({exc.reason})", retry) from None
    except TimeoutError as exc:
        raise BuildError(url, f"timed out after {timeout} s ({exc})", "retry, or raise --timeout") from None
    except http.client.IncompleteRead as exc:
        raise BuildError(url, f"connection closed after {len(exc.partial):,} bytes, "
                              f"{exc.expected:,} more were announced", retry) from None
    except (http.client.HTTPException, OSError) as exc:
        raise BuildError(url, f"download failed ({type(exc).__name__}: {exc})", retry) from None


def _validate_texto(data: bytes, url: str, boe_id: str) -> None:
    try:
        texto = check_envelope(parse_bytes(data, url), "texto", url)
    except BuildError as exc:
        # Same diagnosis, but the fix for a download is to download again, not to restore a file.
        raise BuildError(url, exc.problem, _RETRY_UNCHANGED.format(boe_id)) from None
    if texto.find("bloque") is None:
        raise BuildError(url, "<data><texto> has no <bloque>; the consolidated text is empty",
                         f"check the id and retry `citavial fetch {boe_id}`")


def _validate_metadatos(data: bytes, url: str, boe_id: str) -> NormMetadata:
    try:
        meta = parse_metadata(data, url)
    except BuildError as exc:
        raise BuildError(url, exc.problem, _RETRY_UNCHANGED.format(boe_id)) from None
    if meta.boe_id != boe_id:
        raise BuildError(url, f"identificador is {meta.boe_id!r}, expected {boe_id!r}",
                         "check --base-url points at the BOE consolidated-legislation API")
    return meta


def _current_norms(corpus_dir: Path) -> dict[str, Any]:
    """Norms of the existing manifest (validated), or none for a new corpus."""
    if not manifest_path(corpus_dir).exists():
        return {}
    return dict(load_manifest(corpus_dir)["norms"])


def _commit(corpus_dir: Path, files: dict[Path, bytes], norms: dict[str, Any]) -> None:
    """Write the XML files, then the manifest; on failure put back every previous byte."""
    targets = [*files, manifest_path(corpus_dir)]
    before = {p: p.read_bytes() if p.exists() else None for p in targets}
    try:
        for path, data in files.items():
            atomic.write_bytes(path, data)
        write_manifest(corpus_dir, norms)
    except BaseException as exc:
        for path, old in before.items():
            with suppress(OSError):  # best effort; the original error is what the user must see
                if old is None:
                    path.unlink(missing_ok=True)
                else:
                    atomic.write_bytes(path, old)
        if isinstance(exc, OSError):
            raise BuildError(show(corpus_dir), f"cannot write the corpus ({exc})",
                             "check permissions and free space; the previous files were put back") from None
        raise


def _up_to_date(old: dict[str, Any] | None, records: dict[str, dict[str, Any]],
                files: dict[Path, bytes]) -> bool:
    """True when both the manifest and the files on disk already hold exactly these bytes."""
    if old is None:
        return False
    for kind in FILE_KINDS:
        # source_url may differ (mirror, test server) without the content differing.
        if {**old["files"][kind], "source_url": ""} != {**records[kind], "source_url": ""}:
            return False
    return all(p.is_file() and p.read_bytes() == data for p, data in files.items())


def _utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fetch(boe_id: str, corpus_dir: Path, base_url: str, timeout: float) -> str:
    """Download, validate and store ``boe_id``; return a one-line summary of what changed."""
    base = _check_args(boe_id, base_url, timeout)
    corpus_dir = Path(corpus_dir)
    norms = _current_norms(corpus_dir)  # a corrupt manifest stops us before any download
    urls = {kind: f"{base}/id/{boe_id}/{kind}" for kind in FILE_KINDS}
    texto = _download(urls["texto"], boe_id, timeout)
    _validate_texto(texto, urls["texto"], boe_id)
    metadatos = _download(urls["metadatos"], boe_id, timeout)
    meta = _validate_metadatos(metadatos, urls["metadatos"], boe_id)

    paths = {"texto": corpus_dir / f"{boe_id}.xml", "metadatos": corpus_dir / f"{boe_id}.metadatos.xml"}
    records = {kind: file_record(paths[kind].name, data, urls[kind])
               for kind, data in (("texto", texto), ("metadatos", metadatos))}
    files = {paths["texto"]: texto, paths["metadatos"]: metadatos}
    old = norms.get(boe_id)
    sha = records["texto"]["sha256"]
    if _up_to_date(old, records, files):
        # Same bytes: keep the manifest (and its provenance) as is, so git sees no change.
        return (f"{boe_id} is up to date (consolidated {meta.consolidated}, texto sha256 {sha[:12]}…); "
                f"{show(corpus_dir)} unchanged")
    norms[boe_id] = manifest_entry(meta, records["texto"], records["metadatos"], fetched_at=_utc_now())
    _commit(corpus_dir, files, norms)
    was = f", was {old['consolidated']}" if old is not None else ", new in the corpus"
    return (f"fetched {boe_id}: consolidated {meta.consolidated}{was}; texto {len(texto):,} bytes "
            f"sha256 {sha[:12]}…, metadatos {len(metadatos):,} bytes; "
            f"updated {show(manifest_path(corpus_dir))}")
