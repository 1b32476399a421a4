"""dist/allowlist.json → the only links and quotes the worker may emit.

The build's citation gate writes the allowlist (schema ``citavial-allowlist/1``); the worker
reads it once at start-up and refuses a file that is not exactly what it expects, naming the
entry, field and value. Every URL must be relative to the site root and point at the entry's
own page and anchor, so no allowlist entry can send a reader off the site.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields
from pathlib import Path
from urllib.parse import unquote

from citavial.build.errors import BuildError
from citavial.build.models import ALLOWLIST_SCHEMA, AllowlistEntry
from citavial.build.refs import NORMS

SCHEMA = ALLOWLIST_SCHEMA
_FIELDS = tuple(f.name for f in fields(AllowlistEntry))
DIRECTIVES = frozenset({"exact", "range", "context", "anchor"})
# A page sits at the site root (the Reglamento) or in one norm's folder (ley-trafico/…).
FOLDERS = frozenset(n.folder for n in NORMS.values())


@dataclass(frozen=True)
class Allowlist:
    """The allowlist as a ref → entry mapping, plus its file's identity."""

    as_of: str
    entries: dict[str, AllowlistEntry]
    path: str
    sha256: str

    def get(self, ref: str) -> AllowlistEntry | None:
        return self.entries.get(ref)

    def __contains__(self, ref: object) -> bool:
        return ref in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"Allowlist({len(self.entries)} entries, as of {self.as_of})"


def load_allowlist(path: Path) -> Allowlist:
    """Read and check ``path``; raise BuildError naming what is wrong and how to fix it."""
    path = Path(path)
    fix = "rebuild the site with `citavial build`"
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise BuildError(str(path), f"cannot read the allowlist ({err.strerror})", fix) from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BuildError(str(path), f"not valid UTF-8 JSON ({err})", fix) from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        got = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise BuildError(f"{path}: schema", f"is {got!r}, expected {SCHEMA!r}", fix)
    items = doc.get("entries")
    if not isinstance(items, list) or not items:
        raise BuildError(f"{path}: entries", "must be a non-empty list", fix)
    entries: dict[str, AllowlistEntry] = {}
    for i, item in enumerate(items):
        entry = _entry(path, i, item, fix)
        if entry.ref in entries:
            raise BuildError(f"{path}: entries[{i}].ref", f"{entry.ref!r} appears twice", fix)
        entries[entry.ref] = entry
    return Allowlist(as_of=str(doc.get("as_of", "")), entries=entries, path=str(path),
                     sha256=hashlib.sha256(raw).hexdigest())


def _entry(path: Path, i: int, item: object, fix: str) -> AllowlistEntry:
    where = f"{path}: entries[{i}]"
    if not isinstance(item, dict):
        raise BuildError(where, f"is a {type(item).__name__}, expected an object", fix)
    for name in _FIELDS:
        if not isinstance(item.get(name), str) or not item[name]:
            raise BuildError(f"{where}.{name}", f"is {item.get(name)!r}, expected a non-empty "
                             "string", fix)
        try:
            item[name].encode("utf-8")  # JSON may carry lone surrogates: unsendable later
        except UnicodeEncodeError:
            raise BuildError(f"{where}.{name}", "holds a lone surrogate (not valid Unicode text)",
                             fix) from None
    entry = AllowlistEntry(**{name: item[name] for name in _FIELDS})
    _check_url(f"{where}.url", entry, fix)
    if entry.directive not in DIRECTIVES:
        raise BuildError(f"{where}.directive", f"is {entry.directive!r}, expected one of "
                         f"{sorted(DIRECTIVES)}", fix)
    if entry.norm not in NORMS or not entry.ref.startswith(entry.norm + "#") \
            or entry.boe_id != NORMS[entry.norm].boe_id:
        raise BuildError(f"{where}.norm", f"{entry.norm!r} / {entry.boe_id!r} does not match "
                         f"the ref {entry.ref!r} (norms: {', '.join(sorted(NORMS))})", fix)
    if not entry.source_url.startswith("https://www.boe.es/"):
        raise BuildError(f"{where}.source_url", f"{entry.source_url!r} is not a BOE address", fix)
    return entry


def _check_url(where: str, entry: AllowlistEntry, fix: str) -> None:
    """A deep link must be ``<page>#<anchor>`` optionally followed by a text directive."""
    url = entry.url
    head = f"{entry.page}#{entry.anchor}"
    # the id part is percent-encoded where the anchor is not ASCII ("art5-ñ" → "art5-%C3%B1")
    target, sep, directive = url.partition(":~:")
    folder, _, name = entry.page.rpartition("/")
    ok = target.startswith(entry.page + "#") and unquote(target) == head \
        and (not sep or directive.startswith("text=")) \
        and "/" not in name \
        and folder in FOLDERS and ":" not in entry.page and not any(c.isspace() for c in url)
    if not ok:
        raise BuildError(where, f"{url!r} is not '{head}' or '{head}:~:text=…' on the site",
                         fix)
