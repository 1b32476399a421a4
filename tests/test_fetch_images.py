"""`citavial fetch <id> --images` against a real HTTP server on 127.0.0.1: good images land with
their sha256 in corpus/images/MANIFEST.json; a 404, a truncated body, a wrong Content-Type or a
body that is not the announced image changes nothing; the build shows fetched images inline and
keeps the labelled placeholder otherwise."""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from support import AS_OF, CORPUS, SITE_SRC, WAIT_S, tree_hash

from citavial.build.corpus.images import fetch_images, file_name, image_paths, local_images
from citavial.build.errors import BuildError

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
TEXTO = """<?xml version="1.0" encoding="utf-8"?>
<response><status><code>200</code></status><data><texto>
<bloque id="A5" tipo="encabezado" titulo="5"><version id_norma="X" fecha_publicacion="20250617" fecha_vigencia="20250701">
<p class="imagen"><img src="/datos/imagenes/disp/2025/145/12199_1.png"/></p>
<table><tr><td><p><img src="/datos/imagenes/disp/2003/306/23514_50302.png"/><br/> R-101<br/> Entrada prohibida</p></td></tr></table>
<p class="imagen"><img src="https://elsewhere.example/x.png"/></p>
</version></bloque></texto></data></response>"""


class _Images(BaseHTTPRequestHandler):
    fault: dict[str, str] = {}    # path → "404" | "truncated" | "html" | "not-png"

    def do_GET(self):  # noqa: N802 - stdlib name
        fault = self.fault.get(self.path, "")
        if fault == "404":
            self.send_error(404)
            return
        body = b"<html>not an image</html>" if fault in ("html", "not-png") else PNG
        self.send_response(200)
        self.send_header("Content-Type", "text/html" if fault == "html" else "image/png")
        self.send_header("Content-Length", str(len(body) + (100 if fault == "truncated" else 0)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Images)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Images.fault = {}
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture()
def texto(tmp_path) -> Path:
    path = tmp_path / "texto.xml"
    path.write_text(TEXTO, encoding="utf-8")
    return path


def test_paths_and_names(texto):
    assert image_paths(texto) == ["/datos/imagenes/disp/2003/306/23514_50302.png",
                                  "/datos/imagenes/disp/2025/145/12199_1.png"]
    assert file_name("/datos/imagenes/disp/2003/306/23514_50302.png") == "2003-306-23514_50302.png"


def test_good_fetch_records_sha256(server, texto, tmp_path):
    corpus = tmp_path / "corpus"
    report = fetch_images("BOE-A-2003-23514", corpus, texto, base_url=server, timeout=WAIT_S)
    assert report.startswith("fetched 2 images of BOE-A-2003-23514")
    manifest = json.loads((corpus / "images" / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["schema"] == "citavial-image-manifest/1"
    rec = manifest["images"]["2003-306-23514_50302.png"]
    assert rec == {"source_url": "https://www.boe.es/datos/imagenes/disp/2003/306/23514_50302.png",
                   "bytes": len(PNG), "sha256": hashlib.sha256(PNG).hexdigest(), "type": "image/png"}
    assert (corpus / "images" / "2003-306-23514_50302.png").read_bytes() == PNG
    assert set(local_images(corpus)) == {rec["source_url"],
                                         "https://www.boe.es/datos/imagenes/disp/2025/145/12199_1.png"}
    (corpus / "images" / "2025-145-12199_1.png").write_bytes(PNG + b"x")
    with pytest.raises(BuildError, match="does not match its sha256"):
        local_images(corpus)


@pytest.mark.parametrize("fault, message", [
    ("404", "HTTP status 404"),
    ("truncated", "IncompleteRead"),
    ("html", "Content-Type is 'text/html'"),
    ("not-png", "not a image/png file"),
], ids=["404", "truncated", "wrong-type", "wrong-signature"])
def test_bad_download_changes_nothing(server, texto, tmp_path, fault, message):
    corpus = tmp_path / "corpus"
    fetch_images("BOE-A-2003-23514", corpus, texto, base_url=server, timeout=WAIT_S)
    before = tree_hash(corpus)
    _Images.fault = {"/datos/imagenes/disp/2025/145/12199_1.png": fault}
    with pytest.raises(BuildError, match=message) as err:
        fetch_images("BOE-A-2003-23514", corpus, texto, base_url=server, timeout=WAIT_S)
    assert "12199_1.png" in str(err.value) and "not changed" in str(err.value)
    assert tree_hash(corpus) == before


def test_build_shows_fetched_images_inline(server, tmp_path):
    from citavial.build.pipeline import build_site

    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus, ignore=shutil.ignore_patterns("images"))
    fetch_images("BOE-A-2003-23514", corpus, corpus / "BOE-A-2003-23514.xml", base_url=server,
                 timeout=WAIT_S)
    out = tmp_path / "dist"
    build_site(corpus_dir=corpus, out_dir=out, as_of=AS_OF, site_src=SITE_SRC)
    annex = (out / "anexoI-5.html").read_text(encoding="utf-8")
    assert 'class="boe-image has-img"' in annex and "Ver imagen en el BOE" not in annex
    signs = (out / "senales.html").read_text(encoding="utf-8")
    assert '<img src="images/2003-306-23514_50302.png" alt="Señal R-101: Entrada prohibida"' in signs
    assert (out / "images" / "2003-306-23514_50302.png").read_bytes() == PNG


def test_build_without_images_keeps_labelled_placeholders(built_site):
    signs = (built_site / "senales.html").read_text(encoding="utf-8")
    assert 'aria-label="Ver en el BOE la imagen de la señal R-101 (Entrada prohibida)">ver en el BOE</a>' in signs
    assert "Ver imagen en el BOE" in (built_site / "anexoI-5.html").read_text(encoding="utf-8")
    assert not (built_site / "images").exists()
