"""`citavial mcp` driven by the MCP SDK's own client over stdio, on a real built site.

One server process answers every call of the tables below (spawning one per case would cost a
second each); each case is then asserted on its own. The server is started from an empty
folder with $CITAVIAL_HOME pointing at an empty folder, so it can only have read --dist.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from support import WAIT_S

BASE = "https://example.org/rgc/"
FIELDS = {"ref", "label", "text", "url", "as_of", "source", "license", "norm", "boe_id",
          "consolidated"}
QUOTE = "el adelantamiento deberá efectuarse por la izquierda del vehículo"

# Another norm's passage per case (issue 23): the ref asked (canonical or human), its canonical
# ref, a literal quote of it, and its page in the norm's folder.
ROW10 = ("10. Incumplir las disposiciones legales sobre preferencia de paso, y la obligación de "
         "detenerse en la señal de stop, ceda el paso y en los semáforos con luz roja encendida. | 4")
NORM_CASES = {
    "ley-canonical": ("RDL-6/2015#art76.a", "RDL-6/2015#art76.a",
                      "No respetar los límites de velocidad reglamentariamente establecidos",
                      "ley-trafico/art76.html"),
    "ley-human": ("art. 76 a) de la Ley sobre Tráfico", "RDL-6/2015#art76.a",
                  "No respetar los límites de velocidad reglamentariamente establecidos",
                  "ley-trafico/art76.html"),
    "ley-points-row": ("RDL-6/2015#anexoII.r10", "RDL-6/2015#anexoII.r10", ROW10,
                       "ley-trafico/anexoII.html"),
    "conductores-canonical": ("RD-818/2009#art4.2", "RD-818/2009#art4.2",
                              "El permiso de conducción será de las siguientes clases",
                              "conductores/art4.html"),
    "conductores-human": ("artículo 4.2 del Reglamento General de Conductores",
                          "RD-818/2009#art4.2",
                          "El permiso de conducción será de las siguientes clases",
                          "conductores/art4.html"),
    "vehiculos-canonical": ("RD-2822/1998#art10.1", "RD-2822/1998#art10.1",
                            "deberán someterse a inspección técnica", "vehiculos/art10.html"),
    "vehiculos-human": ("artículo 10.1 del Reglamento General de Vehículos",
                        "RD-2822/1998#art10.1", "deberán someterse a inspección técnica",
                        "vehiculos/art10.html"),
}


def _misquote(quote: str) -> str:
    """The quote with its first accent dropped: found by a browser, refused as not literal."""
    i = next(i for i, ch in enumerate(quote) if ch in "áéíóú")
    return quote[:i] + "aeiou"["áéíóú".index(quote[i])] + quote[i + 1:]


CALLS = {  # id → (tool, arguments)
    "search": ("search", {"query": "¿Cuál es la velocidad máxima en autopista?", "k": 3}),
    "search-default-k": ("search", {"query": "adelantar por la derecha"}),
    "get-canonical": ("get_passage", {"ref": "art82.1"}),
    "get-human": ("get_passage", {"ref": "artículo 82.2"}),
    "verify-ok": ("verify_quote", {"ref": "art82.1", "text": QUOTE}),
    "verify-not-literal": ("verify_quote", {"ref": "art82.1", "text": QUOTE.replace("á", "a")}),
    "verify-outside": ("verify_quote", {"ref": "art82.2", "text": QUOTE}),
    "link-passage": ("deep_link", {"ref": "art82.1"}),
    "link-quote": ("deep_link", {"ref": "art82.1", "text": QUOTE}),
    "verify-renamed": ("verify_quote", {"ref": "rd.df1.77", "text": "Vía urbana"}),
    **{f"get-{n}": ("get_passage", {"ref": c[0]}) for n, c in NORM_CASES.items()},
    **{f"verify-{n}": ("verify_quote", {"ref": c[0], "text": c[2]}) for n, c in NORM_CASES.items()},
    **{f"misquote-{n}": ("verify_quote", {"ref": c[0], "text": _misquote(c[2])})
       for n, c in NORM_CASES.items()},
    **{f"link-{n}": ("deep_link", {"ref": c[0], "text": c[2]}) for n, c in NORM_CASES.items()},
    "verify-ley-unknown": ("verify_quote", {"ref": "RDL-6/2015#art999",
                                            "text": "cualquier texto de cuatro palabras"}),
}
BAD_CALLS = {  # id → (tool, arguments, words the error must contain)
    "missing-argument": ("get_passage", {}, "ref"),
    "k-wrong-type": ("search", {"query": "luces", "k": "many"}, "k"),
    "k-out-of-range": ("search", {"query": "luces", "k": 99}, "k=99 is out of range"),
    "empty-query": ("search", {"query": "  ", "k": 3}, "query"),
    "query-too-long": ("search", {"query": "a" * 501, "k": 3}, "at most 500"),
    "ref-unknown": ("get_passage", {"ref": "art999"}, "not a citable passage"),
    "ref-unparsable": ("get_passage", {"ref": "capítulo tres"}, "is not a reference"),
    "ref-repealed": ("get_passage", {"ref": "art51"}, "not a citable passage"),
    # corpus/refs-renamed.json, copied into dist/ by the build: the server reads only dist/
    "ref-renamed": ("get_passage", {"ref": "rd.df1.77"}, "is now rd.df1.3.p4"),
    "link-renamed": ("deep_link", {"ref": "rd.df1.77"}, "fix: ask for rd.df1.3.p4"),
    "link-not-literal": ("deep_link", {"ref": "art82.1", "text": "por donde se quiera ir"},
                         "not a literal quote"),
    "unknown-tool": ("delete_everything", {}, "delete_everything"),
    "ley-unknown": ("get_passage", {"ref": "RDL-6/2015#art999"}, "not a citable passage"),
    "ley-suppressed": ("get_passage", {"ref": "RDL-6/2015#art21.4"}, "not a citable passage"),
    "unknown-norm": ("get_passage", {"ref": "RDL-7/2015#art1"}, "names no norm of this site"),
    "ley-link-not-literal": ("deep_link", {"ref": "RDL-6/2015#art76.a",
                                           "text": _misquote(NORM_CASES["ley-canonical"][2])},
                             "not a literal quote of RDL-6/2015#art76.a"),
}


async def _session(dist: Path, cwd: Path) -> dict:
    env = {"CITAVIAL_HOME": str(cwd)}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=sys.executable, cwd=str(cwd), env=env,
                                   args=["-m", "citavial.worker.cli", "mcp", "--dist", str(dist),
                                         "--base-url", BASE.rstrip("/")])
    out: dict = {}
    async with Client(params, read_timeout_seconds=WAIT_S) as client:
        out["tools"] = (await client.list_tools()).tools
        for name, (tool, args) in CALLS.items():
            out[name] = await client.call_tool(tool, args)
        for name, (tool, args, _) in BAD_CALLS.items():
            out[name] = await client.call_tool(tool, args)
        out["resources"] = (await client.list_resources()).resources
        out["art48"] = await client.read_resource("citavial://art48")
        out["ley-art76"] = await client.read_resource("citavial://ley-trafico/art76")
        try:
            await client.read_resource("citavial://art999")
        except MCPError as err:
            out["resource-unknown"] = err
        out["still-alive"] = await client.call_tool(*CALLS["get-canonical"])
    return out


@pytest.fixture(scope="module")
def dist(built_site, tmp_path_factory):
    copy = tmp_path_factory.mktemp("mcp") / "dist"
    shutil.copytree(built_site, copy)
    return copy


@pytest.fixture(scope="module")
def session(dist, tmp_path_factory):
    empty = tmp_path_factory.mktemp("empty-project")
    # On its own thread: the session's Chromium (sync Playwright) may hold this thread's loop.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _session(dist, empty)).result()


@pytest.fixture(scope="module")
def allowlist(dist):
    doc = json.loads((dist / "allowlist.json").read_text(encoding="utf-8"))
    # keyed as MCP writes refs: the Reglamento's bare fragment, another norm's whole ref
    return {e["ref"].partition("#")[2] if e["norm"] == "RD-1428/2003" else e["ref"]: e
            for e in doc["entries"]}


def _passage_ok(p: dict, allowlist: dict) -> None:
    assert set(p) >= FIELDS, p
    entry = allowlist[p["ref"]]
    assert p["text"] == entry["text"] and p["url"].startswith(BASE + entry["url"].split("#")[0])
    assert p["as_of"] == entry["as_of"] and p["source"].startswith("https://www.boe.es/")
    assert "BOE" in p["license"]


def test_tools_are_listed_read_only(session):
    tools = {t.name: t for t in session["tools"]}
    assert set(tools) == {"search", "get_passage", "verify_quote", "deep_link"}
    assert tools["verify_quote"].input_schema["required"] == ["ref", "text"]
    assert tools["deep_link"].input_schema["required"] == ["ref"]
    assert all(t.annotations.read_only_hint for t in tools.values())


@pytest.mark.parametrize("name", ["search", "search-default-k"])
def test_search(session, allowlist, name):
    r = session[name]
    hits = r.structured_content["hits"]
    assert not r.is_error and 1 <= len(hits) <= CALLS[name][1].get("k", 5)
    for h in hits:
        _passage_ok(h, allowlist)


@pytest.mark.parametrize("name, ref", [("get-canonical", "art82.1"), ("get-human", "art82.2")])
def test_get_passage(session, allowlist, name, ref):
    r = session[name]
    assert not r.is_error and r.structured_content["ref"] == ref
    _passage_ok(r.structured_content, allowlist)
    assert r.structured_content["url"] == BASE + allowlist[ref]["url"]


@pytest.mark.parametrize("name, ok, code", [("verify-ok", True, ""),
                                            ("verify-not-literal", False, "not-literal"),
                                            ("verify-outside", False, "outside-passage")])
def test_verify_quote_is_the_gate(session, allowlist, name, ok, code):
    r = session[name].structured_content
    assert (r["ok"], r["code"]) == (ok, code) and bool(r["reason"]) is not ok
    _passage_ok(r["passage"], allowlist)
    if ok:
        assert r["passage"]["url"] == BASE + "art82.html#art82-1:~:text=" + \
            "el%20adelantamiento%20deber%C3%A1%20efectuarse%20por%20la%20izquierda%20del%20veh%C3%ADculo"


def test_verify_quote_names_a_renamed_ref_as_the_build_does(session):
    r = session["verify-renamed"].structured_content
    assert (r["ok"], r["code"]) == (False, "ref-renamed") and "is now rd.df1.3.p4" in r["reason"]


def test_deep_link(session, allowlist):
    whole, quote = session["link-passage"], session["link-quote"]
    assert whole.structured_content["url"] == BASE + allowlist["art82.1"]["url"]
    assert quote.structured_content["url"] == session["verify-ok"].structured_content[
        "passage"]["url"] and quote.structured_content["quote"] == QUOTE


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_bad_arguments_are_tool_errors(session, name):
    r = session[name]
    assert r.is_error and BAD_CALLS[name][2] in r.content[0].text, r.content


def test_server_survives_bad_calls(session):
    assert not session["still-alive"].is_error


def test_unit_resources(session, allowlist):
    uris = {str(r.uri) for r in session["resources"]}
    assert "citavial://art48" in uris and "citavial://anexoI.5" in uris
    assert "citavial://ley-trafico/anexoII" in uris   # another norm's units, in its folder
    assert len(uris) == len({e["page"] for e in allowlist.values()})
    doc = json.loads(session["art48"].contents[0].text)
    assert doc["unit"] == "art48" and [p["ref"] for p in doc["passages"]][:2] == ["art48.1",
                                                                                 "art48.1.a"]
    for p in doc["passages"]:
        _passage_ok(p, allowlist)
    assert "Unknown resource" in str(session["resource-unknown"])


def test_missing_dist_is_a_clear_error(tmp_path):
    import subprocess
    proc = subprocess.run([sys.executable, "-m", "citavial.worker.cli", "mcp", "--dist",
                           str(tmp_path / "nope")], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 1 and "allowlist" in proc.stderr and "citavial build" in proc.stderr
    assert "Traceback" not in proc.stderr


# -- lines that are not JSON-RPC messages (issue 26, item 9) ----------------------------------
# The SDK's stdio transport dropped them without a reply, so the client waited forever.

PARSE, INVALID = -32700, -32600
RAW = [  # id, line, the error code of the reply, the id of the reply
    ("not-json", "hola", PARSE, None),
    ("truncated", '{"jsonrpc": "2.0", "id": 1, "method": "ping"', PARSE, None),
    ("two-messages-one-line", '{"jsonrpc": "2.0", "id": 1, "method": "ping"} {}', PARSE, None),
    ("nan", "NaN", PARSE, None),
    ("byte-order-mark", "\ufeff{}", PARSE, None),
    ("not-utf8", b"\xff\xfe{}", PARSE, None),   # bytes: read as the server reads stdin
    ("nested-100000-deep", "[" * 100_000 + "]" * 100_000, PARSE, None),
    ("empty-array", "[]", INVALID, None),
    ("batch", '[{"jsonrpc": "2.0", "id": 8, "method": "ping"}]', INVALID, None),
    ("number", "42", INVALID, None),
    ("string", '"ping"', INVALID, None),
    ("null", "null", INVALID, None),
    ("empty-object", "{}", INVALID, None),
    ("id-without-method", '{"jsonrpc": "2.0", "id": 5}', INVALID, 5),
    ("jsonrpc-1.0", '{"jsonrpc": "1.0", "id": 6, "method": "ping"}', INVALID, 6),
    ("no-jsonrpc", '{"id": "seis", "method": "ping"}', INVALID, "seis"),
    ("method-not-string", '{"jsonrpc": "2.0", "id": 9, "method": 7}', INVALID, 9),
    ("params-not-object", '{"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": 7}',
     INVALID, 10),
    # the SDK read these as notifications (no reply): an id that is not a string or an integer
    ("id-object", '{"jsonrpc": "2.0", "id": {"n": 1}, "method": "ping"}', INVALID, None),
    ("id-boolean", '{"jsonrpc": "2.0", "id": true, "method": "ping"}', INVALID, None),
    ("id-fraction", '{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', INVALID, None),
    ("id-null", '{"jsonrpc": "2.0", "id": null, "method": "ping"}', INVALID, None),
    ("notification-params-not-object",
     '{"jsonrpc": "2.0", "method": "notifications/initialized", "params": 3}', INVALID, None),
    ("response-result-not-object", '{"jsonrpc": "2.0", "id": 3, "result": 7}', INVALID, None),
    ("unknown-method", '{"jsonrpc": "2.0", "id": 11, "method": "borrar"}', -32601, 11),  # SDK's
]
MESSAGES = [  # id, line: what passes on to the SDK untouched
    ("request", '{"jsonrpc": "2.0", "id": 1, "method": "ping"}'),
    ("request-string-id", '{"jsonrpc": "2.0", "id": "uno", "method": "tools/list", "params": {}}'),
    ("notification", '{"jsonrpc": "2.0", "method": "notifications/initialized"}'),
    ("response", '{"jsonrpc": "2.0", "id": 2, "result": {}}'),
    ("error-response", '{"jsonrpc": "2.0", "id": 2, "error": {"code": -1, "message": "no"}}'),
    ("unknown-method", '{"jsonrpc": "2.0", "id": 11, "method": "borrar"}'),
]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}}


def _text(line: str | bytes) -> str:
    return line.decode("utf-8", "replace") if isinstance(line, bytes) else line


@pytest.mark.parametrize("line, code, rid", [r[1:] for r in RAW if r[2] != -32601],
                         ids=[r[0] for r in RAW if r[2] != -32601])
def test_a_line_that_is_not_a_message_gets_its_error(line, code, rid):
    from citavial.worker.mcp.rpc import problem
    error = problem(_text(line), 7)
    assert (error.error.code, error.id) == (code, rid)
    assert error.error.data.startswith("line 7 ") and "fix:" in error.error.data


@pytest.mark.parametrize("line", [m[1] for m in MESSAGES], ids=[m[0] for m in MESSAGES])
def test_a_message_passes_to_the_sdk(line):
    from citavial.worker.mcp.rpc import problem
    assert problem(line, 1) is None


@pytest.fixture(scope="module")
def raw_replies(dist, tmp_path_factory):
    """One server on a bare pipe: the handshake, each RAW line in turn (waiting for its one
    reply), then a blank line and a ping, which must be the next reply."""
    import queue
    import subprocess
    import threading
    empty = tmp_path_factory.mktemp("empty-raw")
    env = {"CITAVIAL_HOME": str(empty), **({"PYTHONPATH": os.environ["PYTHONPATH"]}
                                           if os.environ.get("PYTHONPATH") else {})}
    proc = subprocess.Popen([sys.executable, "-m", "citavial.worker.cli", "mcp", "--dist",
                             str(dist)], cwd=empty, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()

    def send(line: str | bytes) -> dict:
        proc.stdin.write((line if isinstance(line, bytes) else line.encode()) + b"\n")
        proc.stdin.flush()
        return json.loads(lines.get(timeout=WAIT_S))   # a bound for a broken server

    try:
        out = {"initialize": send(json.dumps(INIT))}
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        out.update((name, send(line)) for name, line, _, _ in RAW)
        proc.stdin.write(b"\n   \n")
        out["ping-after-blank-lines"] = send('{"jsonrpc": "2.0", "id": 99, "method": "ping"}')
    finally:
        proc.stdin.close()
        proc.wait(WAIT_S)
    return out


@pytest.mark.parametrize("name, code, rid", [(r[0], r[2], r[3]) for r in RAW],
                         ids=[r[0] for r in RAW])
def test_the_server_answers_every_line_that_is_not_a_message(raw_replies, name, code, rid):
    reply = raw_replies[name]
    assert reply["jsonrpc"] == "2.0" and "result" not in reply
    assert (reply["error"]["code"], reply["id"]) == (code, rid)


def test_the_server_keeps_serving_and_skips_blank_lines(raw_replies):
    assert "result" in raw_replies["initialize"]
    assert raw_replies["ping-after-blank-lines"] == {"jsonrpc": "2.0", "id": 99, "result": {}}

@pytest.mark.parametrize("case", list(NORM_CASES))
def test_other_norms_passages(session, allowlist, case):
    """get_passage, verify_quote and deep_link take another norm's ref, canonical or human, and
    answer with its norm, BOE id and consolidation date and a link into its folder."""
    _, canonical, quote, page = NORM_CASES[case]
    entry = allowlist[canonical]
    got, ok = session[f"get-{case}"].structured_content, session[f"verify-{case}"]
    assert got["ref"] == canonical and got["url"] == BASE + entry["url"]
    _passage_ok(got, allowlist)
    v = ok.structured_content
    assert (v["ok"], v["code"], v["ref"]) == (True, "", canonical), v
    assert (v["norm"], v["boe_id"], v["consolidated"]) == (entry["norm"], entry["boe_id"],
                                                           entry["consolidated"])
    assert v["passage"]["url"].startswith(BASE + page + "#" + entry["anchor"] + ":~:text=")
    link = session[f"link-{case}"].structured_content
    assert link["url"] == v["passage"]["url"] and link["quote"] == quote


@pytest.mark.parametrize("case", list(NORM_CASES))
def test_other_norms_misquote_is_the_gates_reason(session, allowlist, case):
    v = session[f"misquote-{case}"].structured_content
    assert (v["ok"], v["code"], v["ref"]) == (False, "not-literal", NORM_CASES[case][1])
    assert v["norm"] == NORM_CASES[case][1].partition("#")[0]


def test_other_norm_unknown_ref_keeps_its_norm(session):
    v = session["verify-ley-unknown"].structured_content
    assert (v["ok"], v["code"], v["ref"], v["norm"]) == (False, "ref-unknown",
                                                         "RDL-6/2015#art999", "RDL-6/2015")
    assert v["boe_id"] == "BOE-A-2015-11722" and "passage" not in v


def test_other_norm_unit_resource(session, allowlist):
    doc = json.loads(session["ley-art76"].contents[0].text)
    assert doc["unit"] == "RDL-6/2015#art76" and "RDL-6/2015#art76.a" in [
        p["ref"] for p in doc["passages"]]
    for p in doc["passages"]:
        _passage_ok(p, allowlist)
