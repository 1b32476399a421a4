"""`citavial fetch` against a real HTTP server on 127.0.0.1: good downloads land, bad ones change nothing."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest
from support import WAIT_S

from citavial.build.corpus.fetch import fetch
from citavial.build.corpus.integrity import MAIN_NORM, verify_corpus
from citavial.build.errors import BuildError

REAL_CORPUS = Path(__file__).resolve().parent.parent / "corpus"
OTHER = "BOE-A-2015-11722"
# The fetch's --timeout: generous for every download that must finish, or fail for another reason
# (on a loaded machine the fake BOE below answers slowly too), and SHORT only for the cases about
# the timeout itself (a server that hangs, or drips its body: they time out however fast the
# machine is, and their messages name SHORT).
TIMEOUT = WAIT_S
SHORT = 0.5
XML = "application/xml"


def texto_xml(boe_id: str = MAIN_NORM, code: str = "200", bloques: bool = True) -> bytes:
    bloque = f"""
      <bloque id="a1" tipo="precepto" titulo="Artículo 1">
        <version id_norma="{boe_id}" fecha_publicacion="20031223" fecha_vigencia="20040123">
          <p class="articulo">Artículo 1. Ámbito de aplicación.</p>
          <p class="parrafo">1. Los preceptos de este reglamento serán aplicables en todo el territorio nacional.</p>
        </version>
      </bloque>""" if bloques else ""
    return f"""<?xml version="1.0" encoding="utf-8"?>
<response>
  <status>
    <code>{code}</code>
    <text>{'ok' if code == '200' else 'error'}</text>
  </status>
  <data>
    <texto>{bloque}
    </texto>
  </data>
</response>
""".encode("utf-8")


def metadatos_xml(boe_id: str = MAIN_NORM, fecha: str = "20270115T101500Z", code: str = "200") -> bytes:
    return f"""<?xml version="1.0" encoding="utf-8"?>
<response>
  <status>
    <code>{code}</code>
    <text>ok</text>
  </status>
  <data>
    <metadatos>
      <fecha_actualizacion>{fecha}</fecha_actualizacion>
      <identificador>{boe_id}</identificador>
      <rango codigo="1340">Real Decreto</rango>
      <titulo>Real Decreto 1428/2003, de 21 de noviembre, por el que se aprueba el Reglamento General de Circulación.</titulo>
      <url_eli>https://www.boe.es/eli/es/rd/2003/11/21/1428</url_eli>
      <url_html_consolidada>https://www.boe.es/buscar/act.php?id={boe_id}</url_html_consolidada>
    </metadatos>
  </data>
</response>
""".encode("utf-8")


NOT_FOUND = b"""<?xml version="1.0" encoding="utf-8"?>
<response><status><code>404</code><text>No se ha encontrado</text></status></response>
"""


@dataclass
class Reply:
    """What the fake BOE answers on one path."""

    body: bytes
    status: int = 200
    content_type: str = XML
    content_length: int | None = None  # lie about the length to simulate a dropped connection
    hang: bool = False  # wait (until the test ends) before answering
    location: str | None = None  # Location header of a redirect
    drip: float = 0.0  # seconds between four pieces of the body: every read is quick, the whole is slow


@dataclass
class FakeBoe:
    base_url: str
    routes: dict[str, Reply] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (path, Accept header)
    release: threading.Event = field(default_factory=threading.Event)

    def serve(self, boe_id: str, texto: Reply, metadatos: Reply) -> None:
        self.routes[f"/id/{boe_id}/texto"] = texto
        self.routes[f"/id/{boe_id}/metadatos"] = metadatos


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        boe = self.server.boe
        boe.requests.append((self.path, self.headers.get("Accept", "")))
        reply = boe.routes.get(self.path, Reply(NOT_FOUND, status=404))
        if reply.hang:
            boe.release.wait(10)
            return
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        if reply.location:
            self.send_header("Location", reply.location)
        self.send_header("Content-Length", str(reply.content_length or len(reply.body)))
        self.end_headers()
        if not reply.drip:
            self.wfile.write(reply.body)
            return
        step = len(reply.body) // 4 + 1
        for start in range(0, len(reply.body), step):
            self.wfile.write(reply.body[start:start + step])
            self.wfile.flush()
            if boe.release.wait(reply.drip):
                return

    def log_message(self, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # do not wait for a deliberately hanging handler at shutdown
    boe: FakeBoe

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the client hanging up on a timeout is expected


@pytest.fixture
def boe() -> Iterator[FakeBoe]:
    server = _Server(("127.0.0.1", 0), _Handler)
    host, port = server.server_address[:2]
    server.boe = FakeBoe(base_url=f"http://{host}:{port}/api/legislacion-consolidada/")
    # The base URL has a path prefix (like the real API); strip it in the route lookup.
    server.boe.routes = _PrefixRoutes("/api/legislacion-consolidada")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.boe
    finally:
        server.boe.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


class _PrefixRoutes(dict):
    """Routes registered without the API prefix, looked up with it."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def get(self, path: str, default: Reply | None = None) -> Reply | None:  # type: ignore[override]
        if not path.startswith(self.prefix):
            return default
        return super().get(path[len(self.prefix):], default)


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the real corpus; no proxy may divert requests away from 127.0.0.1."""
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    dest = tmp_path / "corpus"
    shutil.copytree(REAL_CORPUS, dest)
    return dest


def snapshot(directory: Path) -> dict[str, str]:
    """sha256 of every file (hidden leftovers included) under ``directory``."""
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file()}


# --- success ------------------------------------------------------------------------------------

def test_fetch_refreshes_the_corpus(boe: FakeBoe, corpus: Path) -> None:
    texto, metadatos = texto_xml(), metadatos_xml()
    boe.serve(MAIN_NORM, Reply(texto), Reply(metadatos, content_type="text/xml; charset=utf-8"))
    summary = fetch(MAIN_NORM, corpus, boe.base_url, TIMEOUT)

    assert "\n" not in summary
    assert summary.startswith(f"fetched {MAIN_NORM}: consolidated 2027-01-15T10:15:00Z, was 2026-07-31T08:26:21Z")
    assert (corpus / f"{MAIN_NORM}.xml").read_bytes() == texto
    assert (corpus / f"{MAIN_NORM}.metadatos.xml").read_bytes() == metadatos
    assert [accept for _, accept in boe.requests] == ["application/xml", "application/xml"]

    entry = json.loads((corpus / "MANIFEST.json").read_text(encoding="utf-8"))["norms"][MAIN_NORM]
    base = boe.base_url.rstrip("/")
    assert entry["files"]["texto"] == {"path": f"{MAIN_NORM}.xml", "sha256": hashlib.sha256(texto).hexdigest(),
                                       "bytes": len(texto), "source_url": f"{base}/id/{MAIN_NORM}/texto"}
    assert entry["files"]["metadatos"]["sha256"] == hashlib.sha256(metadatos).hexdigest()
    assert entry["consolidated"] == "2027-01-15T10:15:00Z"
    assert entry["frozen"] is False
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", entry["fetched_at"])

    info = verify_corpus(corpus)
    assert info.sha256 == hashlib.sha256(texto).hexdigest()
    assert info.consolidated == "2027-01-15T10:15:00Z"
    assert not [p for p in corpus.iterdir() if p.name.startswith(".")], "no temporary files left behind"


def test_fetch_into_a_new_corpus_and_alongside(boe: FakeBoe, tmp_path: Path, corpus: Path) -> None:
    boe.serve(OTHER, Reply(texto_xml(OTHER)), Reply(metadatos_xml(OTHER)))
    new = tmp_path / "new-corpus"
    assert "new in the corpus" in fetch(OTHER, new, boe.base_url, TIMEOUT)
    assert verify_corpus(new, OTHER).boe_id == OTHER

    # Adding a second norm keeps the first one's entry and files as they were.
    before = snapshot(corpus)
    fetch(OTHER, corpus, boe.base_url, TIMEOUT)
    after = snapshot(corpus)
    assert {k: v for k, v in after.items() if k != "MANIFEST.json" and not k.startswith(OTHER)} == {
        k: v for k, v in before.items() if k != "MANIFEST.json"}
    assert verify_corpus(corpus).sha256 == before[f"{MAIN_NORM}.xml"]
    assert verify_corpus(corpus, OTHER).boe_id == OTHER


def test_refetching_identical_bytes_changes_nothing(boe: FakeBoe, corpus: Path) -> None:
    boe.serve(MAIN_NORM, Reply(texto_xml()), Reply(metadatos_xml()))
    fetch(MAIN_NORM, corpus, boe.base_url, TIMEOUT)
    before = snapshot(corpus)
    summary = fetch(MAIN_NORM, corpus, boe.base_url, TIMEOUT)
    assert summary.startswith(f"{MAIN_NORM} is up to date (consolidated 2027-01-15T10:15:00Z")
    assert snapshot(corpus) == before


def test_refetch_repairs_a_damaged_file_even_if_the_manifest_matches(boe: FakeBoe, corpus: Path) -> None:
    boe.serve(MAIN_NORM, Reply(texto_xml()), Reply(metadatos_xml()))
    fetch(MAIN_NORM, corpus, boe.base_url, TIMEOUT)
    (corpus / f"{MAIN_NORM}.xml").write_bytes(b"damaged")
    assert fetch(MAIN_NORM, corpus, boe.base_url, TIMEOUT).startswith("fetched ")
    verify_corpus(corpus)


# --- failures: the previous corpus must be byte-for-byte untouched -------------------------------

GOOD_TEXTO = Reply(texto_xml())
GOOD_META = Reply(metadatos_xml())
TRUNCATED = texto_xml()[: len(texto_xml()) // 2]

FAILURES = [
    pytest.param(Reply(NOT_FOUND, status=404), GOOD_META, ["/texto: BOE has no norm BOE-A-2003-23514 (HTTP 404)"],
                 id="texto-404"),
    pytest.param(GOOD_TEXTO, Reply(NOT_FOUND, status=404), ["/metadatos: BOE has no norm BOE-A-2003-23514"],
                 id="metadatos-404-after-good-texto"),
    pytest.param(Reply(b"busy", status=503, content_type="text/plain"), GOOD_META,
                 ["/texto: HTTP status 503 Service Unavailable, expected 200", "retry"], id="http-503"),
    pytest.param(Reply(TRUNCATED), GOOD_META, ["/texto: is not well-formed XML", "the corpus was not changed"],
                 id="truncated-xml"),
    pytest.param(Reply(TRUNCATED, content_length=len(texto_xml())), GOOD_META,
                 ["/texto: connection closed after", "more were announced"], id="connection-dropped-mid-body"),
    pytest.param(Reply(b"", content_type=XML), GOOD_META, ["/texto: is not well-formed XML"], id="empty-body"),
    pytest.param(Reply(b"<html><body>Mantenimiento</body></html>", content_type="text/html; charset=utf-8"),
                 GOOD_META, ["/texto: Content-Type is 'text/html; charset=utf-8', expected application/xml"],
                 id="content-type-html"),
    pytest.param(GOOD_TEXTO, Reply(metadatos_xml(), content_type="application/json"),
                 ["/metadatos: Content-Type is 'application/json'"], id="metadatos-content-type-json"),
    pytest.param(Reply(b"", hang=True), GOOD_META, ["/texto: timed out after 0.5 s", "--timeout"], id="timeout"),
    pytest.param(GOOD_TEXTO, Reply(b"", hang=True), ["/metadatos: timed out after 0.5 s"], id="metadatos-timeout"),
    pytest.param(Reply(texto_xml(), drip=0.2), GOOD_META, ["/texto: timed out after 0.5 s"], id="slow-drip-body"),
    pytest.param(Reply(texto_xml(code="404")), GOOD_META,
                 ["/texto: BOE API status code is '404' (error), expected 200"], id="xml-status-not-200"),
    pytest.param(GOOD_TEXTO, Reply(metadatos_xml(code="500")), ["/metadatos: BOE API status code is '500'"],
                 id="metadatos-xml-status-not-200"),
    pytest.param(Reply(metadatos_xml()), GOOD_META, ["/texto: has no <data><texto> element"],
                 id="texto-url-serves-metadatos"),
    pytest.param(Reply(texto_xml(bloques=False)), GOOD_META, ["/texto: <data><texto> has no <bloque>"],
                 id="texto-without-bloques"),
    pytest.param(GOOD_TEXTO, Reply(metadatos_xml(boe_id="BOE-A-2003-99999")),
                 ["/metadatos: identificador is 'BOE-A-2003-99999', expected 'BOE-A-2003-23514'"],
                 id="identificador-mismatch"),
    pytest.param(GOOD_TEXTO, Reply(metadatos_xml(fecha="31/07/2026")),
                 ["/metadatos: fecha_actualizacion is '31/07/2026', expected YYYYMMDDTHHMMSSZ"],
                 id="metadatos-bad-date"),
    pytest.param(Reply(b"", status=302, location="ftp://127.0.0.1/BOE-A-2003-23514.xml"), GOOD_META,
                 ["/texto: HTTP status 302", "redirect to 'ftp://127.0.0.1/BOE-A-2003-23514.xml' refused"],
                 id="redirect-to-ftp-refused"),
    pytest.param(Reply(b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY lol "lol">]><response/>'), GOOD_META,
                 ["/texto: declares a DOCTYPE; DTDs and entities are refused"], id="doctype-refused"),
]


@pytest.mark.parametrize(("texto", "metadatos", "expected"), FAILURES)
def test_failed_fetch_leaves_corpus_untouched(boe: FakeBoe, corpus: Path, texto: Reply, metadatos: Reply,
                                              expected: list[str]) -> None:
    boe.serve(MAIN_NORM, texto, metadatos)
    before = snapshot(corpus)
    timeout = SHORT if any("timed out" in f for f in expected) else TIMEOUT
    with pytest.raises(BuildError) as caught:
        fetch(MAIN_NORM, corpus, boe.base_url, timeout)
    message = str(caught.value)
    assert "\n" not in message, "a BuildError is one line"
    assert message.startswith(boe.base_url.rstrip("/") + "/id/"), "the message names the URL"
    for fragment in expected:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert snapshot(corpus) == before
    verify_corpus(corpus)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


ARGUMENT_FAILURES = [
    pytest.param("BOE-A-2003", None, ["BOE id: 'BOE-A-2003' does not match", "BOE-A-2003-23514"], id="id-too-short"),
    pytest.param("boe-a-2003-23514", None, ["BOE id: 'boe-a-2003-23514' does not match"], id="id-lowercase"),
    pytest.param("../BOE-A-2003-23514", None, ["BOE id: '../BOE-A-2003-23514' does not match"],
                 id="id-path-traversal"),
    pytest.param("BOE-A-2003-23514\n", None, ["does not match"], id="id-trailing-newline"),
    pytest.param("BOE-A-２００３-23514", None, ["does not match"], id="id-non-ascii-digits"),
    pytest.param(MAIN_NORM, "file:///etc", ["--base-url: 'file:///etc' is not an http(s) URL"], id="file-url"),
    pytest.param(MAIN_NORM, "http://127.0.0.1/api\n", ["--base-url: 'http://127.0.0.1/api\\n' is not"],
                 id="base-url-with-newline"),
    pytest.param(MAIN_NORM, "closed-port", ["cannot connect (", "check the network and --base-url"],
                 id="connection-refused"),
]


@pytest.mark.parametrize(("boe_id", "base_url", "expected"), ARGUMENT_FAILURES)
def test_bad_arguments_leave_corpus_untouched(boe: FakeBoe, corpus: Path, boe_id: str, base_url: str | None,
                                              expected: list[str]) -> None:
    if base_url == "closed-port":
        base_url = f"http://127.0.0.1:{_closed_port()}/api"
    before = snapshot(corpus)
    with pytest.raises(BuildError) as caught:
        fetch(boe_id, corpus, base_url or boe.base_url, TIMEOUT)
    for fragment in expected:
        assert fragment in str(caught.value), f"{fragment!r} not in {str(caught.value)!r}"
    assert "\n" not in str(caught.value)
    assert snapshot(corpus) == before
    assert boe.requests == [], "nothing is downloaded for invalid arguments"


def test_corrupt_manifest_stops_fetch_before_downloading(boe: FakeBoe, corpus: Path) -> None:
    boe.serve(MAIN_NORM, GOOD_TEXTO, GOOD_META)
    (corpus / "MANIFEST.json").write_text("{", encoding="utf-8")
    before = snapshot(corpus)
    with pytest.raises(BuildError, match=r"MANIFEST\.json: is not valid JSON .*delete it and run `citavial fetch"):
        fetch(MAIN_NORM, corpus, boe.base_url, TIMEOUT)
    assert snapshot(corpus) == before
    assert boe.requests == []


def test_write_failure_puts_every_previous_byte_back(boe: FakeBoe, corpus: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import citavial.build.corpus.fetch

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    boe.serve(MAIN_NORM, GOOD_TEXTO, GOOD_META)
    monkeypatch.setattr(citavial.build.corpus.fetch, "write_manifest", disk_full)  # fails after both XML files were written
    before = snapshot(corpus)
    with pytest.raises(BuildError, match=r"cannot write the corpus \(\[Errno 28\] No space left on device\)"):
        fetch(MAIN_NORM, corpus, boe.base_url, TIMEOUT)
    assert snapshot(corpus) == before
    verify_corpus(corpus)


def test_cli_reports_fetch_errors_on_one_line(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from citavial.worker.cli import main
    assert main(["fetch", "BOE-X-1", "--corpus", str(corpus), "--base-url", "http://127.0.0.1:9/api"]) == 1
    err = capsys.readouterr().err
    assert err == "citavial: error: BOE id: 'BOE-X-1' does not match BOE-<letter>-<year>-<number> " \
                  "(fix: pass an id like BOE-A-2003-23514)\n"
