"""`citavial mcp`: the verified passages as an MCP server on stdio (the official `mcp` SDK).

Tools
    search(query, k)          ranked citable passages for a question
    get_passage(ref)          one passage by ref ("art48.1.a", "artículo 82.2",
                              "RDL-6/2015#anexoII.r10", "art. 76 de la Ley sobre Tráfico", …)
    verify_quote(ref, text)   the build's gate on one quote: ok, or the reason and its code
    deep_link(ref, text?)     the passage's link, or the proven link to ``text`` inside it
Resources
    citavial://<unit>         every passage of a unit (citavial://art48, citavial://anexoI.5)

Every passage result carries ref, label, literal text, allowlisted URL (absolute when
``--base-url`` is given), as-of date, source and licence, and its norm, BOE id and
consolidation date. Refs of all four norms are accepted (build/refs.py ``parse_ref``); the
Reglamento's are written bare (``art48.1.a``), another norm's whole (``RDL-6/2015#art76.a``).
Everything is read from dist/ (the allowlist, the search index, the rendered pages); nothing
touches the network. A bad argument is an MCP tool error naming the argument, the value and the
fix; a line that is not a JSON-RPC message gets -32700 or -32600 (worker/mcp/rpc.py); the server
keeps serving.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.server.stdio import stdio_server
from mcp_types import ToolAnnotations

from citavial.build.errors import BuildError
from citavial.build.models import AllowlistEntry
from citavial.build.refs import Ref, RefError, human_label, short_ref
from citavial.worker.answer.dist_gate import DistGate
from citavial.worker.mcp.rpc import CheckedLines

MAX_K = 20
MAX_QUERY = 500
MAX_QUOTE = 2000
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
INSTRUCTIONS = (
    "Literal, verified passages of Spanish traffic law: the Reglamento General de Circulación "
    "(RD 1428/2003; refs like 'art48.1.a'), the Ley sobre Tráfico (RDL 6/2015; "
    "'RDL-6/2015#art76.a', points table rows 'RDL-6/2015#anexoII.r10'), the Reglamento General "
    "de Conductores (RD 818/2009; 'RD-818/2009#art4.2') and the Reglamento General de Vehículos "
    "(RD 2822/1998; 'RD-2822/1998#art10.1'). Cite only text returned by these tools, with its "
    "url; check any quote with verify_quote.")


class Passages:
    """What the tools answer from: the gate over dist/, its allowlist and its search index."""

    def __init__(self, dist: Path, base_url: str = "") -> None:
        from citavial.build.index.query.retriever import load_retriever
        self.gate = DistGate(Path(dist))
        self.retriever = load_retriever(Path(dist))
        self.base_url = base_url
        # {norm: its BOE id and consolidation date}, as the allowlist's entries carry them
        self.norms = {e.norm: {"norm": e.norm, "boe_id": e.boe_id, "consolidated": e.consolidated}
                      for e in self.gate.allowlist.entries.values()}

    def record(self, e: AllowlistEntry, url: str | None = None) -> dict[str, Any]:
        # the Reglamento's refs as bare fragments (as before), another norm's whole
        return {"ref": short_ref(e.ref), "label": e.label,
                "text": e.text, "url": self.base_url + (url or e.url), "as_of": e.as_of,
                "source": e.source_url, "license": e.source_license, "norm": e.norm,
                "boe_id": e.boe_id, "consolidated": e.consolidated}

    def entry(self, ref: str) -> AllowlistEntry:
        text = _text("ref", ref, 200)
        try:
            canon = self.gate.resolve(text)
        except BuildError as err:
            raise ToolError(f"ref {text!r}: {err.problem} (fix: {err.fix})") from None
        e = self.gate.allowlist.get(canon)
        moved = self.gate.renames.get(canon)
        if e is None and moved is not None:
            raise ToolError(f"ref {text!r} was renamed: it is now {short_ref(moved.new)} (since "
                            f"{moved.since}: {moved.reason}) (fix: ask for "
                            f"{short_ref(moved.new)})")
        if e is None:
            raise ToolError(f"ref {text!r} is not a citable passage in force on "
                            f"{self.gate.allowlist.as_of} (fix: find it with search, or list "
                            "the citavial:// resources)")
        return e

    def search(self, query: str, k: int) -> dict[str, Any]:
        query = _text("query", query, MAX_QUERY)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise ToolError(f"k={k!r} is out of range (fix: a whole number from 1 to {MAX_K})")
        hits = self.retriever.search(query, k).hits
        entries = [self.gate.allowlist.get(h.ref) for h in hits]
        return {"query": query, "hits": [self.record(e) for e in entries if e is not None]}

    def verify(self, ref: str, text: str) -> dict[str, Any]:
        v = self.gate.verify(_text("ref", ref, 200), _text("text", text, MAX_QUOTE))
        out: dict[str, Any] = {"ok": not v.code, "ref": short_ref(v.ref),
                               "quote": v.quote, "code": v.code, "reason": v.reason}
        try:   # the cited norm's identity, even when the ref is not one of its passages
            out.update(self.norms.get(Ref.parse(v.ref).norm, {}))
        except RefError:
            pass
        entry = self.gate.allowlist.get(v.ref)
        if entry is not None:
            out["passage"] = self.record(entry, v.url or None)
        return out

    def deep_link(self, ref: str, text: str | None) -> dict[str, Any]:
        e = self.entry(ref)
        if not text:
            return self.record(e)
        v = self.gate.verify(e.ref, _text("text", text, MAX_QUOTE))
        if v.code:
            raise ToolError(f"text is not a literal quote of {short_ref(e.ref)}: {v.reason}")
        return dict(self.record(e, v.url), quote=text)

    def unit(self, page: str) -> str:
        mine = [e for e in self.gate.allowlist.entries.values() if e.page == page]
        unit = short_ref(str(Ref.parse(mine[0].ref).unit)) if mine else page
        return json.dumps({"unit": unit, "passages": [self.record(e) for e in mine]},
                          ensure_ascii=False, indent=1)


def _text(name: str, value: object, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"{name}={value!r} must be a non-empty string")
    if len(value) > limit:
        raise ToolError(f"{name} is {len(value)} characters long (fix: at most {limit})")
    return value.strip()


def create_server(dist: Path, base_url: str = "") -> MCPServer:
    """The MCP server over ``dist``; raises BuildError when dist/ is missing or not built."""
    p = Passages(dist, base_url)
    server = MCPServer("citavial", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(annotations=READ_ONLY)
    def search(query: str, k: int = 5) -> dict[str, Any]:
        """Citable passages ranked for a question in Spanish (k from 1 to 20)."""
        return p.search(query, k)

    @server.tool(annotations=READ_ONLY)
    def get_passage(ref: str) -> dict[str, Any]:
        """One passage in force by ref, e.g. 'art48.1.a', 'artículo 82.2', 'anexo I, 5' (the
        Reglamento General de Circulación), 'RDL-6/2015#anexoII.r10', 'art. 76 de la Ley sobre
        Tráfico', 'RD-818/2009#art4.2', 'artículo 10.1 del Reglamento General de Vehículos'."""
        return p.record(p.entry(ref))

    @server.tool(annotations=READ_ONLY)
    def verify_quote(ref: str, text: str) -> dict[str, Any]:
        """Check that ``text`` is a literal quote of passage ``ref`` (the build's gate): ok,
        or the reason (code + message) it is not."""
        return p.verify(ref, text)

    @server.tool(annotations=READ_ONLY)
    def deep_link(ref: str, text: str | None = None) -> dict[str, Any]:
        """The link to passage ``ref``; with ``text``, a link that highlights exactly those
        words (refused unless they are a literal quote of the passage)."""
        return p.deep_link(ref, text)

    units = {e.page: Ref.parse(e.ref).unit for e in p.gate.allowlist.entries.values()}
    for page in sorted(units):
        # the Reglamento's units as before (citavial://art48); another norm's in its folder
        # (citavial://ley-trafico/art76)
        folder = page.rpartition("/")[0]
        name = (folder + "/" if folder else "") + units[page].fragment
        title = human_label(str(units[page]))   # another norm's opens with its short name
        server.add_resource(FunctionResource(
            uri=f"citavial://{name}", name=name, title=title,
            mime_type="application/json",
            description=f"Every passage in force of {name}, with its link",
            fn=partial(p.unit, page)))
    return server


def serve_stdio(dist: Path, base_url: str = "") -> None:
    anyio.run(_run_stdio, create_server(dist, base_url))


async def _run_stdio(server: MCPServer) -> None:
    """``MCPServer.run_stdio_async`` with stdin's lines judged first (worker/mcp/rpc.py), so
    a line that is not a message gets its JSON-RPC error instead of silence. The SDK has no
    hook that sees the line, hence its lowlevel server here (its run_stdio_async does the
    same); stdout stays the SDK's (diverted while serving, so stray prints miss the wire)."""
    # typeshed's sys.stdin is a TextIO; the interpreter's is a TextIOWrapper, which has it
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    lines = CheckedLines(anyio.wrap_file(sys.stdin))
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.answer_on(write_stream)
        low = server._lowlevel_server
        await low.run(read_stream, write_stream, low.create_initialization_options())
