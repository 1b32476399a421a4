"""Integrity of the other norms' copies: corpus/norms/ is exactly the bytes of its MANIFEST.json.

The Ley sobre Tráfico, the Reglamento General de Vehículos and the Reglamento General de
Conductores have no BOE XML here: corpus/norms/ holds byte copies of Markdown generated from the
BOE open-data XML and two BOE consolidated PDFs (corpus/norms/PROVENANCE.md). ``verify_corpus``
(build/corpus/integrity.py) calls :func:`verify_norms` so a modified copy stops every build.

MANIFEST.json schema ``citavial-norms-manifest/1``::

    {
      "schema": "citavial-norms-manifest/1",
      "$comment": "...",                    # optional, ignored
      "norms": {
        "<BOE id>": {                       # e.g. "BOE-A-2015-11722"
          "norm": str,                      # ref prefix, e.g. "RDL-6/2015"
          "title": str,                     # the BOE title
          "consolidated": "YYYY-MM-DD",     # the BOE update date of the copy
          "eli": str, "html_url": str,      # the BOE's ELI and consolidated HTML page
          "files": {                        # "markdown" required; "pdf" optional
            "<kind>": {"path": str, "bytes": int, "sha256": str, "source": str}
          }
        }
      }
    }
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citavial.build.errors import BuildError
from citavial.build.patterns import BOE_ID, SHA256_HEX

SCHEMA = "citavial-norms-manifest/1"
NORMS_DIR = "norms"
MANIFEST_NAME = "MANIFEST.json"
FILE_KINDS = ("markdown", "pdf")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_NORM = re.compile(r"(RDL?)-\d{1,4}/\d{4}", re.ASCII)


@dataclass(frozen=True)
class NormCopy:
    """One verified norm of corpus/norms/: what the manifest says, and its files on disk."""

    boe_id: str
    norm: str            # ref prefix, "RDL-6/2015"
    title: str
    consolidated: str    # "2026-07-31"
    eli: str
    html_url: str
    markdown: Path
    pdf: Path | None

    def __repr__(self) -> str:
        return f"NormCopy({self.norm}, {self.boe_id}, consolidated {self.consolidated})"


def show(path: Path) -> str:
    """Path as the user would type it (as integrity.show; not imported: integrity imports us)."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def norms_dir(corpus_dir: Path) -> Path:
    return Path(corpus_dir) / NORMS_DIR


def _fix(where: str) -> str:
    return f"restore it with `git checkout -- {where}` (the copies are described in corpus/norms/PROVENANCE.md)"


def load_norms_manifest(corpus_dir: Path) -> dict[str, Any]:
    """Read and validate corpus/norms/MANIFEST.json; each defect is a one-line BuildError."""
    path = norms_dir(corpus_dir) / MANIFEST_NAME
    where = show(path)
    fix = _fix(where)
    if not path.is_file():
        raise BuildError(where, "is missing; the build cannot check the other norms without it", fix)
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BuildError(where, f"is not valid UTF-8 JSON ({exc})", fix) from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        got = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise BuildError(where, f"schema is {got!r}, this build reads {SCHEMA!r}", fix)
    norms = doc.get("norms")
    if not isinstance(norms, dict) or not norms:
        raise BuildError(where, "field norms must be a non-empty object of BOE id → entry", fix)
    for boe_id, entry in norms.items():
        _check_entry(where, boe_id, entry, fix)
    return doc


def _check_entry(where: str, boe_id: str, entry: Any, fix: str) -> None:
    if not BOE_ID.fullmatch(boe_id) or not isinstance(entry, dict):
        raise BuildError(where, f"norms key {boe_id!r} must be a BOE id mapped to an object", fix)
    for key in ("norm", "title", "consolidated", "eli", "html_url"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise BuildError(where, f"norms.{boe_id}.{key} is {entry.get(key)!r}, expected a "
                                    "non-empty string", fix)
    if not _NORM.fullmatch(entry["norm"]):
        raise BuildError(where, f"norms.{boe_id}.norm is {entry['norm']!r}, expected a ref prefix "
                                "like 'RDL-6/2015'", fix)
    if not _ISO_DATE.fullmatch(entry["consolidated"]):
        raise BuildError(where, f"norms.{boe_id}.consolidated is {entry['consolidated']!r}, "
                                "expected YYYY-MM-DD", fix)
    files = entry.get("files")
    if not isinstance(files, dict) or "markdown" not in files:
        raise BuildError(where, f"norms.{boe_id}.files must be an object with a markdown record", fix)
    for kind, rec in files.items():
        field = f"norms.{boe_id}.files.{kind}"
        if kind not in FILE_KINDS:
            raise BuildError(where, f"{field}: unknown file kind, expected one of {FILE_KINDS}", fix)
        _check_record(where, field, rec, fix)


def _check_record(where: str, field: str, rec: Any, fix: str) -> None:
    if not isinstance(rec, dict):
        raise BuildError(where, f"{field} is not an object", fix)
    name = rec.get("path")
    # A plain file name only: a tampered manifest must not point the build outside corpus/norms/.
    if not isinstance(name, str) or not name or name != Path(name).name or name in (".", ".."):
        raise BuildError(where, f"{field}.path is {name!r}, expected a plain file name", fix)
    size = rec.get("bytes")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise BuildError(where, f"{field}.bytes is {size!r}, expected a non-negative integer", fix)
    if not isinstance(rec.get("sha256"), str) or not SHA256_HEX.fullmatch(rec["sha256"]):
        raise BuildError(where, f"{field}.sha256 is {rec.get('sha256')!r}, expected 64 lowercase "
                                "hex digits", fix)
    if not isinstance(rec.get("source"), str) or not rec["source"]:
        raise BuildError(where, f"{field}.source is {rec.get('source')!r}, expected where the "
                                "copy came from", fix)


def _verify_file(directory: Path, rec: dict[str, Any]) -> Path:
    path = directory / rec["path"]
    where = show(path)
    if not path.is_file():
        raise BuildError(where, f"is missing; corpus/norms/{MANIFEST_NAME} lists it", _fix(where))
    data = path.read_bytes()
    if len(data) != rec["bytes"]:
        raise BuildError(where, f"is {len(data):,} bytes, manifest says {rec['bytes']:,} — the file "
                                "was truncated or modified", _fix(where))
    digest = hashlib.sha256(data).hexdigest()
    if digest != rec["sha256"]:
        raise BuildError(where, f"sha256 is {digest[:12]}…, manifest says {rec['sha256'][:12]}… — "
                                "the file was modified", _fix(where))
    return path


def verify_norms(corpus_dir: Path) -> dict[str, NormCopy]:
    """Check every file of corpus/norms/ (existence, size, sha256); return the copies by ref prefix."""
    directory = norms_dir(corpus_dir)
    out: dict[str, NormCopy] = {}
    for boe_id, entry in sorted(load_norms_manifest(corpus_dir)["norms"].items()):
        files = {kind: _verify_file(directory, rec) for kind, rec in sorted(entry["files"].items())}
        out[entry["norm"]] = NormCopy(boe_id=boe_id, norm=entry["norm"], title=entry["title"],
                                      consolidated=entry["consolidated"], eli=entry["eli"],
                                      html_url=entry["html_url"], markdown=files["markdown"],
                                      pdf=files.get("pdf"))
    return out
