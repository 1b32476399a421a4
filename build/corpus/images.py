"""BOE images (the sign catalogue) kept offline: `citavial fetch <id> --images` and their use.

``fetch_images`` downloads every image the corpus text refers to (all wordings, so the signs
page's catalogue images too) into ``corpus/images/`` and records each file's sha256 in
``corpus/images/MANIFEST.json``. All or nothing: every image is downloaded and checked in memory
(HTTP 200, an image Content-Type, the announced length, the file signature of that type) before
any file is written, each atomically, the manifest last. The build shows an image inline only when
its file matches the manifest; otherwise the page keeps the labelled "ver en el BOE" placeholder.

MANIFEST.json schema ``citavial-image-manifest/1``::

    {"schema": "citavial-image-manifest/1", "norm": "<BOE id>",
     "images": {"<file name>": {"source_url": str, "bytes": int, "sha256": str, "type": str}}}
"""

from __future__ import annotations

import hashlib
import json
import urllib.parse
from pathlib import Path

from citavial.build import atomic
from citavial.build.errors import BuildError
from citavial.build.safexml import parse_file

SCHEMA = "citavial-image-manifest/1"
DIR = "images"
BOE_SITE = "https://www.boe.es"
# Content-Type → the first bytes every file of that type starts with.
SIGNATURES = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff",
              "image/gif": b"GIF8"}


def image_paths(texto: Path) -> list[str]:
    """Every BOE image path (``/datos/imagenes/…``) in the corpus text, sorted, once each."""
    srcs = {img.get("src", "") for img in parse_file(texto).iter("img")}
    return sorted(s for s in srcs if s.startswith("/datos/imagenes/"))


def file_name(src: str) -> str:
    """``/datos/imagenes/disp/2003/306/23514_50302.png`` → ``2003-306-23514_50302.png``."""
    return "-".join(src.removeprefix("/datos/imagenes/disp/").split("/"))


def _download(url: str, timeout: float) -> tuple[bytes, str]:
    # imported here: urllib.request (and http, ssl, email) is ~0.03 s of CPU that a build,
    # which reads local_images only, does not need
    import urllib.error
    import urllib.request

    from citavial.build.corpus.fetch import HttpOnlyRedirects, read_body
    req = urllib.request.Request(url, headers={"User-Agent": "citavial-fetch"})
    retry = "check the network and --image-base-url, then retry; corpus/images was not changed"
    try:
        with urllib.request.build_opener(HttpOnlyRedirects).open(req, timeout=timeout) as resp:
            ctype = resp.headers.get_content_type()
            if ctype not in SIGNATURES:
                raise BuildError(url, f"Content-Type is {ctype!r}, expected an image "
                                      f"({', '.join(SIGNATURES)})", retry)
            data = read_body(resp, url, float("inf"), timeout)
    except urllib.error.HTTPError as exc:
        raise BuildError(url, f"HTTP status {exc.code} {exc.reason}, expected 200", retry) from None
    except urllib.error.URLError as exc:
        raise BuildError(url, f"cannot connect ({exc.reason})", retry) from None
    except BuildError:
        raise
    except Exception as exc:  # IncompleteRead, timeouts, resets: one clear line each
        raise BuildError(url, f"download failed ({type(exc).__name__}: {exc})", retry) from None
    if not data.startswith(SIGNATURES[ctype]):
        raise BuildError(url, f"the body is not a {ctype} file (wrong signature)", retry)
    return data, ctype


def fetch_images(boe_id: str, corpus_dir: Path, texto: Path, base_url: str = BOE_SITE,
                 timeout: float = 30.0) -> str:
    """Download every image of ``texto`` into ``corpus_dir/images``; return a summary line."""
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BuildError("--image-base-url", f"{base_url!r} is not an http(s) URL",
                         f"use e.g. {BOE_SITE}")
    got: dict[str, tuple[str, bytes, str]] = {}
    for src in image_paths(texto):
        url = base_url.rstrip("/") + src
        data, ctype = _download(url, timeout)
        got[file_name(src)] = (BOE_SITE + src, data, ctype)
    folder = Path(corpus_dir) / DIR
    for name, (_, data, _) in sorted(got.items()):
        atomic.write_bytes(folder / name, data)
    manifest = {"schema": SCHEMA, "norm": boe_id, "images": {
        name: {"source_url": src, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
               "type": ctype} for name, (src, data, ctype) in sorted(got.items())}}
    atomic.write_bytes(folder / "MANIFEST.json", (json.dumps(
        manifest, ensure_ascii=False, sort_keys=True, indent=1) + "\n").encode("utf-8"))
    total = sum(len(d) for _, d, _ in got.values())
    return f"fetched {len(got)} images of {boe_id} ({total:,} bytes) into {folder}"


def local_images(corpus_dir: Path) -> dict[str, Path]:
    """{BOE image URL: verified local file} from corpus/images (empty when never fetched).

    A file that no longer matches its recorded sha256 stops the build: the page would otherwise
    show a picture nobody verified."""
    folder = Path(corpus_dir) / DIR
    path = folder / "MANIFEST.json"
    if not path.is_file():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        images = manifest["images"] if manifest.get("schema") == SCHEMA else None
    except (ValueError, KeyError, AttributeError):
        images = None
    if not isinstance(images, dict):
        raise BuildError(str(path), f"is not a {SCHEMA} manifest",
                         "run `citavial fetch BOE-A-2003-23514 --images` again")
    out = {}
    for name, rec in sorted(images.items()):
        file = folder / name
        data = file.read_bytes() if file.is_file() else b""
        if hashlib.sha256(data).hexdigest() != rec.get("sha256"):
            raise BuildError(str(file), "is missing or does not match its sha256 in MANIFEST.json",
                             "run `citavial fetch BOE-A-2003-23514 --images` again")
        out[rec["source_url"]] = file
    return out
