"""Corpus integrity: the frozen BOE files are exactly the bytes recorded in corpus/MANIFEST.json.

Every build starts with :func:`verify_corpus`; a modified, truncated or missing file stops it with a
one-line BuildError saying which file, what is wrong and how to restore it.

MANIFEST.json schema ``citavial-corpus-manifest/1``::

    {
      "schema": "citavial-corpus-manifest/1",
      "$comment": "...",                        # optional, ignored
      "norms": {
        "<BOE id>": {                           # e.g. "BOE-A-2003-23514"
          "title": str,                         # <titulo> of the metadatos
          "consolidated": "YYYY-MM-DDTHH:MM:SSZ",  # <fecha_actualizacion> of the metadatos, UTC
          "eli": str,                           # <url_eli>
          "html_url": str,                      # <url_html_consolidada>
          "frozen": bool,                       # true: copied from the frozen data set (PROVENANCE.md)
          "fetched_at": "YYYY-MM-DDTHH:MM:SSZ" | null,  # when `citavial fetch` wrote it; null if frozen
          "files": {
            "texto":     {"path": str, "bytes": int, "sha256": str, "source_url": str},
            "metadatos": {"path": str, "bytes": int, "sha256": str, "source_url": str}
          }
        }
      }
    }

``path`` is a plain file name inside the corpus directory. The manifest is written only by
``citavial fetch`` (build/corpus/fetch.py); bump the schema version on any incompatible change.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from lxml import etree

from citavial.build import atomic
from citavial.build.corpus.norms import NormCopy, verify_norms
from citavial.build.errors import BuildError
from citavial.build.patterns import BOE_ID, ISO_UTC, SHA256_HEX
from citavial.build.safexml import parse_bytes

SCHEMA = "citavial-corpus-manifest/1"
MANIFEST_NAME = "MANIFEST.json"
MAIN_NORM = "BOE-A-2003-23514"  # Reglamento General de Circulación
FILE_KINDS = ("texto", "metadatos")
# Use these with fullmatch ("$" would accept a trailing newline); ASCII so \d means 0-9 only.
_COMMENT = ("Integrity manifest of the BOE corpus; schema documented in build/corpus.py. "  # kept: MANIFEST.json bytes
            "Written by `citavial fetch`; do not edit by hand.")


@dataclass(frozen=True)
class CorpusInfo:
    """The verified main norm: where its files are and what the BOE says about them; ``norms``
    are the verified copies of corpus/norms/ (empty when the corpus has none)."""

    boe_id: str
    texto_path: Path
    metadatos_path: Path
    consolidated: str  # ISO 8601 UTC, e.g. "2026-07-31T08:26:21Z"
    eli: str
    html_url: str
    sha256: str  # of the texto XML
    title: str = ""
    norms: tuple[NormCopy, ...] = ()

    def __repr__(self) -> str:
        return (f"CorpusInfo({self.boe_id}, {self.texto_path.name}, consolidated {self.consolidated}, "
                f"sha256 {self.sha256[:12]}…)")


@dataclass(frozen=True)
class NormMetadata:
    """The fields of a BOE metadatos XML the project uses."""

    boe_id: str
    title: str
    consolidated: str  # ISO 8601 UTC, converted from <fecha_actualizacion> 20260731T082621Z
    eli: str
    html_url: str


def show(path: Path) -> str:
    """Path as the user would type it: relative when inside the working directory, else absolute."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _restore_fix(path: Path, boe_id: str) -> str:
    return f"restore it with `git checkout -- {show(path)}` or refresh it with `citavial fetch {boe_id}`"


# --- metadatos XML -----------------------------------------------------------------------------

def check_envelope(root: etree._Element, kind: str, where: str) -> etree._Element:
    """Check the BOE API envelope <response><status><code>200</code>…<data><{kind}>; return <kind>."""
    if root.tag != "response":
        raise BuildError(where, f"root element is <{root.tag}>, expected <response> of the BOE API",
                         "use the XML exactly as served by the BOE open-data API")
    code = (root.findtext("status/code") or "").strip()
    if code != "200":
        text = (root.findtext("status/text") or "").strip()
        raise BuildError(where, f"BOE API status code is {code or '(missing)'!r} ({text or 'no text'}), "
                                "expected 200", "check the BOE id and retry later")
    node = root.find(f"data/{kind}")
    if node is None:
        raise BuildError(where, f"has no <data><{kind}> element", f"use the BOE API's /{kind} response")
    return node


def _consolidated_iso(value: str, where: str) -> str:
    try:
        return datetime.strptime(value, "%Y%m%dT%H%M%SZ").strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        raise BuildError(where, f"fecha_actualizacion is {value!r}, expected YYYYMMDDTHHMMSSZ "
                                "(e.g. 20260731T082621Z)", "use the metadatos as served by the BOE") from None


def parse_metadata(data: bytes, where: str) -> NormMetadata:
    """Read title, ELI, consolidation date and HTML url from metadatos XML bytes."""
    meta = check_envelope(parse_bytes(data, where), "metadatos", where)

    def field(name: str) -> str:
        value = (meta.findtext(name) or "").strip()
        if not value:
            raise BuildError(where, f"<metadatos> has no <{name}>", "use the metadatos as served by the BOE")
        return value

    return NormMetadata(boe_id=field("identificador"), title=field("titulo"),
                        consolidated=_consolidated_iso(field("fecha_actualizacion"), where),
                        eli=field("url_eli"), html_url=field("url_html_consolidada"))


def read_metadata(path: Path) -> NormMetadata:
    """:func:`parse_metadata` of a file on disk."""
    return parse_metadata(Path(path).read_bytes(), show(path))


# --- manifest ----------------------------------------------------------------------------------

def manifest_path(corpus_dir: Path) -> Path:
    return Path(corpus_dir) / MANIFEST_NAME


def load_manifest(corpus_dir: Path) -> dict[str, Any]:
    """Read and validate MANIFEST.json; every defect is its own one-line BuildError."""
    path = manifest_path(corpus_dir)
    where = show(path)
    if not path.is_file():
        raise BuildError(where, "is missing; the build cannot check the corpus without it",
                         f"restore it with `git checkout -- {where}` or recreate it with "
                         f"`citavial fetch {MAIN_NORM}`")
    fix = (f"restore it with `git checkout -- {where}`, or delete it and run `citavial fetch {MAIN_NORM}` "
           "to recreate it")
    try:
        manifest = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BuildError(where, f"is not UTF-8 ({exc.reason} at byte {exc.start})", fix) from None
    except json.JSONDecodeError as exc:
        raise BuildError(where, f"is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
                         fix) from None
    if not isinstance(manifest, dict):
        raise BuildError(where, f"top level is a JSON {type(manifest).__name__}, expected an object", fix)
    if manifest.get("schema") != SCHEMA:
        raise BuildError(where, f"schema is {manifest.get('schema')!r}, this build reads {SCHEMA!r}",
                         f"{fix}, or update build/corpus/integrity.py to the new schema")
    norms = manifest.get("norms")
    if not isinstance(norms, dict) or not norms:
        raise BuildError(where, "field norms must be a non-empty object of BOE id → entry", fix)
    for boe_id, entry in norms.items():
        _check_entry(where, boe_id, entry, fix)
    return manifest


def _check_entry(where: str, boe_id: str, entry: Any, fix: str) -> None:
    if not BOE_ID.fullmatch(boe_id):
        raise BuildError(where, f"norms key {boe_id!r} is not a BOE id like BOE-A-2003-23514", fix)
    if not isinstance(entry, dict):
        raise BuildError(where, f"norms.{boe_id} must be an object", fix)
    for key in ("title", "eli", "html_url"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise BuildError(where, f"norms.{boe_id}.{key} is {entry.get(key)!r}, "
                                    "expected a non-empty string", fix)
    consolidated = entry.get("consolidated")
    if not (isinstance(consolidated, str) and ISO_UTC.fullmatch(consolidated)):
        raise BuildError(where, f"norms.{boe_id}.consolidated is {consolidated!r}, "
                                "expected YYYY-MM-DDTHH:MM:SSZ", fix)
    if not isinstance(entry.get("frozen"), bool):
        raise BuildError(where, f"norms.{boe_id}.frozen is {entry.get('frozen')!r}, "
                                "expected true or false", fix)
    fetched = entry.get("fetched_at")
    if fetched is not None and not (isinstance(fetched, str) and ISO_UTC.fullmatch(fetched)):
        raise BuildError(where, f"norms.{boe_id}.fetched_at is {fetched!r}, expected null or "
                                "YYYY-MM-DDTHH:MM:SSZ", fix)
    files = entry.get("files")
    if not isinstance(files, dict):
        raise BuildError(where, f"norms.{boe_id}.files must be an object with texto and metadatos", fix)
    for kind in FILE_KINDS:
        _check_file_record(where, f"norms.{boe_id}.files.{kind}", files.get(kind), fix)


def _check_file_record(where: str, field: str, rec: Any, fix: str) -> None:
    if not isinstance(rec, dict):
        raise BuildError(where, f"{field} is missing or not an object", fix)
    name = rec.get("path")
    # A plain file name only: a tampered manifest must not point the build outside corpus/.
    if not isinstance(name, str) or not name or name != Path(name).name or name in (".", ".."):
        raise BuildError(where, f"{field}.path is {name!r}, expected a plain file name inside the corpus "
                                "directory", fix)
    size = rec.get("bytes")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise BuildError(where, f"{field}.bytes is {size!r}, expected a non-negative integer", fix)
    digest = rec.get("sha256")
    if not isinstance(digest, str) or not SHA256_HEX.fullmatch(digest):
        raise BuildError(where, f"{field}.sha256 is {digest!r}, expected 64 lowercase hex digits", fix)
    if not isinstance(rec.get("source_url"), str) or not rec["source_url"]:
        raise BuildError(where, f"{field}.source_url is {rec.get('source_url')!r}, expected a URL", fix)


def file_record(name: str, data: bytes, source_url: str) -> dict[str, Any]:
    return {"path": name, "sha256": sha256_hex(data), "bytes": len(data), "source_url": source_url}


def manifest_entry(meta: NormMetadata, texto: dict[str, Any], metadatos: dict[str, Any],
                   fetched_at: str | None) -> dict[str, Any]:
    """One norms.<id> entry; ``fetched_at`` None marks a frozen copy (see PROVENANCE.md)."""
    return {"title": meta.title, "consolidated": meta.consolidated, "eli": meta.eli,
            "html_url": meta.html_url, "frozen": fetched_at is None, "fetched_at": fetched_at,
            "files": {"texto": texto, "metadatos": metadatos}}


def manifest_text(norms: dict[str, Any]) -> str:
    """Serialise a manifest deterministically (sorted norms, stable key order, trailing newline)."""
    doc = {"schema": SCHEMA, "$comment": _COMMENT, "norms": dict(sorted(norms.items()))}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write_manifest(corpus_dir: Path, norms: dict[str, Any]) -> None:
    atomic.write_text(manifest_path(corpus_dir), manifest_text(norms))


# --- verification ------------------------------------------------------------------------------

def _verify_file(corpus_dir: Path, boe_id: str, rec: dict[str, Any]) -> Path:
    path = Path(corpus_dir) / rec["path"]
    where, fix = show(path), _restore_fix(path, boe_id)
    if not path.is_file():
        raise BuildError(where, f"is missing; {MANIFEST_NAME} lists it for {boe_id}", fix)
    data = path.read_bytes()
    if len(data) != rec["bytes"]:
        raise BuildError(where, f"is {len(data):,} bytes, manifest says {rec['bytes']:,} — the file was "
                                "truncated or modified", fix)
    digest = sha256_hex(data)
    if digest != rec["sha256"]:
        raise BuildError(where, f"sha256 is {digest[:12]}…, manifest says {rec['sha256'][:12]}… — "
                                "the file was modified", fix)
    return path


def _check_metadata_agrees(path: Path, boe_id: str, entry: dict[str, Any]) -> NormMetadata:
    # The hashes pin the bytes; this catches a manifest hand-edited to disagree with them.
    meta = read_metadata(path)
    pairs = [("identificador", meta.boe_id, boe_id),
             ("consolidated", meta.consolidated, entry["consolidated"]),
             ("eli", meta.eli, entry["eli"]), ("html_url", meta.html_url, entry["html_url"])]
    for name, in_xml, in_manifest in pairs:
        if in_xml != in_manifest:
            raise BuildError(show(path), f"{name} is {in_xml!r} but {MANIFEST_NAME} says {in_manifest!r}",
                             f"refresh both with `citavial fetch {boe_id}`")
    return meta


def verify_corpus(corpus_dir: Path, boe_id: str = MAIN_NORM,
                  norms_required: bool = False) -> CorpusInfo:
    """Check every file in the manifest (existence, size, sha256) and those of corpus/norms/;
    return the ``boe_id`` norm's info. ``norms_required``: a corpus without norms/ is an error
    (the build's), not a Reglamento-only corpus."""
    corpus_dir = Path(corpus_dir)
    norms = load_manifest(corpus_dir)["norms"]
    if boe_id not in norms:
        where = show(manifest_path(corpus_dir))
        raise BuildError(where, f"has no entry for {boe_id} (it lists {', '.join(sorted(norms))})",
                         f"run `citavial fetch {boe_id}` or restore it with `git checkout -- {where}`")
    infos: dict[str, CorpusInfo] = {}
    for norm_id, entry in sorted(norms.items()):
        texto = _verify_file(corpus_dir, norm_id, entry["files"]["texto"])
        metadatos = _verify_file(corpus_dir, norm_id, entry["files"]["metadatos"])
        meta = _check_metadata_agrees(metadatos, norm_id, entry)
        infos[norm_id] = CorpusInfo(boe_id=norm_id, texto_path=texto, metadatos_path=metadatos,
                                    consolidated=meta.consolidated, eli=meta.eli, html_url=meta.html_url,
                                    sha256=entry["files"]["texto"]["sha256"], title=meta.title)
    if not norms_required and not (corpus_dir / "norms").exists():
        # A corpus without norms/ (one written by `citavial fetch` alone) holds the Reglamento only.
        return infos[boe_id]
    return replace(infos[boe_id], norms=tuple(verify_norms(corpus_dir).values()))

