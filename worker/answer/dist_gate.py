"""The citation gate over a built site alone: dist/allowlist.json + dist/'s rendered pages.

`citavial mcp` reads only dist/ (it may run where the corpus is not), yet must judge a quote
exactly as the build does. The allowlist lists every citable passage with its unit page, so the
units the gate needs (ref, page, passages in force) are rebuilt from it, and
``citavial.build.gate.verify.check_quote`` runs unchanged on the very pages the site serves.
Difference: a repealed ref is not in the allowlist, so it is reported as unknown. A renamed ref
is told as the build tells it ("ref renamed: … is now …"): the build copies the rename table
into dist/refs-renamed.json.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from citavial.build.errors import BuildError
from citavial.build.gate.verify import Pages, check_quote
from citavial.build.models import (
    IN_FORCE,
    AllowlistEntry,
    Block,
    Citation,
    Regulation,
    Source,
    Unit,
)
from citavial.build.refs import Ref, RefError, human_label, parse_ref
from citavial.build.renames import load_renames
from citavial.worker.answer.allowlist import Allowlist, load_allowlist


@dataclass(frozen=True)
class Verdict:
    """A judged quote: ``code``/``reason`` empty when it passed; ``url`` its proven deep link."""

    ref: str
    quote: str
    code: str
    reason: str
    url: str


def _unit_ref(entries: list[AllowlistEntry]) -> str:
    """The unit of a page's passages: ``anexoI.5.p37`` → ``RD-1428/2003#anexoI.5``; a page of
    another norm (``ley-trafico/art76.html``) the same way (``RDL-6/2015#art76``)."""
    return str(Ref.parse(entries[0].ref).unit)


def regulation_from_allowlist(allow: Allowlist) -> Regulation:
    """The skeleton of the regulation the gate needs: one unit per page, its passages."""
    by_page: dict[str, list[AllowlistEntry]] = {}
    for e in allow.entries.values():
        by_page.setdefault(e.page, []).append(e)
    first = next(iter(allow.entries.values()))
    units = tuple(
        Unit(ref=_unit_ref(entries), kind="", space="", label=human_label(_unit_ref(entries)),
             title="", block_id=entries[0].source_url.partition("#")[2], status=IN_FORCE,
             page=page,
             version=None, versions=(), notes=(), history=(), path=(),
             blocks=tuple(Block(kind="paragraph", text=e.text, source_class="", ref=e.ref)
                          for e in entries))
        for page, entries in sorted(by_page.items()))
    source = Source(norm_id="BOE-A-2003-23514", title="", consolidated="", eli="",
                    html_url=first.source_url.partition("#")[0], api_url="",
                    license=first.source_license)
    return Regulation(as_of=date.fromisoformat(allow.as_of), source=source, units=units, toc=())


class DistGate:
    """Judge quotes against a built site; every read is inside ``dist``."""

    def __init__(self, dist: Path) -> None:
        self.dist = Path(dist)
        self.allowlist = load_allowlist(self.dist / "allowlist.json")
        self.renames = load_renames(self.dist)
        self.reg = replace(regulation_from_allowlist(self.allowlist), renames=self.renames)
        self.pages = Pages(self.dist)

    def resolve(self, ref: str) -> str:
        """Canonical ref for any accepted spelling; BuildError saying what is accepted."""
        try:
            return parse_ref(ref)
        except RefError as err:
            raise BuildError("ref", str(err), "e.g. 'art48.1.a' or 'artículo 82.2'") from None

    def verify(self, ref: str, quote: str) -> Verdict:
        try:
            canon, err = parse_ref(ref), ""
        except RefError as exc:
            canon, err = ref, str(exc)
        check = check_quote(self.reg, self.pages, Citation("<mcp>", 1, canon, quote, err))
        return Verdict(canon, quote, check.code_str, check.reason, check.url)
