"""`citavial ask` / `serve` / `model-setup` / `calibrate` as registered by worker.cli.add_parsers."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT
from worker_helpers import (
    SCRIPTED_STATUS,
    TEST_CALIBRATION,
    FixedRetriever,
    ScriptedModel,
    fixed_allowlist,
)

import citavial.worker.http.serve
from citavial.worker.answer.ask import Deps
from citavial.worker.cli import add_parsers, main
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt

REFS = ["RD-1428/2003#art18.2", "RD-1428/2003#art48.1.a", "RD-1428/2003#art50.1"]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="citavial")
    add_parsers(p.add_subparsers(dest="command", required=True))
    return p


def run(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


@pytest.fixture()
def scripted(tmp_path, monkeypatch):
    allow = fixed_allowlist(tmp_path)

    def fake_load_deps(dist, load_llm=True, model_lead=False, **kw):
        model = ScriptedModel(["Queda prohibido conducir utilizando auriculares [[REF:1]]."]) \
            if load_llm and model_lead else None
        return Deps(FixedRetriever(allow, REFS), allow,
                    load_prompt(PROMPTS_DIR / "answer-chat.md"), model, SCRIPTED_STATUS,
                    TEST_CALIBRATION, model_lead=model is not None), "", {}
    monkeypatch.setattr(citavial.worker.http.serve, "load_deps", fake_load_deps)
    return allow


def test_subcommands_are_registered():
    p = parser()
    for cmd in ("serve", "ask", "model-setup", "calibrate"):
        assert p.parse_args([cmd] + (["¿x?"] if cmd == "ask" else [])).command == cmd
    args = p.parse_args(["serve"])
    assert (args.host, args.port) == ("127.0.0.1", 8000)


def test_ask_json(scripted, capsys):
    """The documented record (docs/answers.md): outcome, the shown text, the answer event,
    citations whose ref/url/quote are the allowlist entry's, with the span beside them."""
    assert run(["ask", "¿Puedo conducir con auriculares?", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"answered", "outcome", "mode", "kind", "text", "answer", "message",
                        "citations", "passages", "retracted", "latencies", "model",
                        "prompt", "index_version"}
    assert (out["answered"], out["outcome"], out["mode"]) == (True, "answer", "extractive")
    assert out["text"].startswith("Queda prohibido conducir utilizando")
    c = out["citations"][0]
    assert set(c) == {"n", "ref", "label", "url", "quote", "span", "span_url", "norm", "boe_id",
                      "consolidated"}
    entry = scripted.get(REFS[0])
    assert c["quote"] == entry.text and c["url"] == entry.url
    assert (c["norm"], c["boe_id"]) == ("RD-1428/2003", entry.boe_id)   # from the allowlist
    assert c["span"] in c["quote"]


def test_ask_with_model_lead(scripted, capsys):
    assert run(["ask", "¿Puedo conducir con auriculares?", "--json", "--model-lead"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "generated" and out["text"].startswith(
        "Queda prohibido conducir utilizando auriculares.")


def test_ask_human_readable(scripted, capsys):
    assert run(["ask", "¿Puedo conducir con auriculares?"]) == 0
    out = capsys.readouterr().out
    assert "[1] art. 18.2 — art18.html#art18-2" in out and "«2. Queda prohibido" in out


def test_ask_no_model_is_extractive(scripted, capsys):
    assert run(["ask", "¿Auriculares?", "--json", "--no-model"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "extractive" and out["citations"][0]["ref"] == REFS[0]


def test_batch_one_json_object_per_line(scripted, tmp_path, capsys):
    f = tmp_path / "q.txt"
    f.write_text("¿Puedo conducir con auriculares?\n\nab\n¿Y en autopista?\n", encoding="utf-8")
    assert run(["ask", "--batch", str(f)]) == 1        # one invalid line → exit 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3
    assert lines[0]["answered"] is True and lines[2]["answered"] is True
    assert lines[1] == {"line": 3, "ok": False, "error": lines[1]["error"]}
    assert "between 3 and 500" in lines[1]["error"]


def test_batch_unreadable_file(scripted, tmp_path, capsys):
    assert run(["ask", "--batch", str(tmp_path / "none.txt")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_ask_needs_exactly_one_input(scripted, capsys):
    assert run(["ask"]) == 2
    assert run(["ask", "¿x?", "--batch", "f"]) == 2


def test_ask_rejects_a_bad_question(scripted, capsys):
    assert run(["ask", "a\x07b c"]) == 2
    assert "U+0007" in capsys.readouterr().err


MARCHA_ATRAS = ("¿Cuál es la distancia máxima que se puede recorrer marcha atrás? a) Hasta 50 "
                "metros si no hay tráfico. b) No podrá ser superior a 15 metros. c) Sin límite.")
YES_NO = ("¿Se puede conducir con auriculares conectados a un reproductor de sonido? "
          "a) Sí. b) No. c) Solo en ciudad.")


def test_ask_human_shows_the_named_option_first(built_site, capsys):
    """Item 7 of issue 22: "Respuesta: b) …", then the deciding words with their proven link,
    then the answer and its citations (questions written by us)."""
    from citavial.worker.cli import main
    assert main(["ask", MARCHA_ATRAS, "--dist", str(built_site)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Respuesta: b) No podrá ser superior a 15 metros."
    assert lines[1].startswith("  «no podrá ser superior a 15 metros» — art80.html#")
    assert ":~:text=" in lines[1] and lines[2].startswith("El recorrido hacia atrás")


def test_ask_human_says_it_cannot_choose(built_site, capsys):
    from citavial.worker.answer.cite import UNDECIDED
    from citavial.worker.cli import main
    assert main(["ask", YES_NO, "--dist", str(built_site)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == UNDECIDED and "auriculares" in lines[1]


def test_ask_json_keeps_the_option_payload(built_site, capsys):
    from citavial.worker.cli import main
    assert main(["ask", MARCHA_ATRAS, "--json", "--dist", str(built_site)]) == 0
    option = json.loads(capsys.readouterr().out)["answer"]["option"]
    assert set(option) == {"letter", "text", "basis", "reason", "words", "ref", "url"}
    assert (option["letter"], option["basis"], option["ref"]) == ("b", "stated",
                                                                  "RD-1428/2003#art80.2")


@pytest.mark.parametrize("argv", [
    pytest.param(["search", "x"], id="search"),
    pytest.param(["eval"], id="eval"),
    pytest.param(["serve"], id="serve"),
    pytest.param(["ask", "x"], id="ask"),
    pytest.param(["calibrate"], id="calibrate"),
    pytest.param(["exam", "bank.jsonl"], id="exam"),
    pytest.param(["mcp"], id="mcp"),
])
def test_every_dist_option_is_the_same_option(argv):
    """Every subcommand that reads the built site takes ``--dist`` alike (default dist/)."""
    from citavial.build import paths
    from citavial.worker.cli import parser as citavial_parser
    p = citavial_parser()
    assert p.parse_args(argv).dist == paths.DIST
    assert p.parse_args([*argv, "--dist", "elsewhere"]).dist == Path("elsewhere")


def test_dist_is_declared_once():
    """One declaration (build/search_cli.py: dist_option, an argparse parent parser)."""
    sources = [p.read_text(encoding="utf-8") for folder in ("build", "worker")
               for p in sorted((ROOT / folder).rglob("*.py"))]
    assert sum(s.count('add_argument("--dist"') for s in sources) == 1


@pytest.mark.parametrize("argv", [
    pytest.param(["build"], id="build"),
    pytest.param(["check", "x.md", "--fix-links"], id="check"),
    pytest.param(["mcp"], id="mcp"),
])
@pytest.mark.parametrize("url", [
    pytest.param("https://x/?q", id="query"),
    pytest.param("https://x/#f", id="fragment"),
    pytest.param("ftp://x/", id="not-http"),
    pytest.param("x.org/rgc/", id="relative"),
])
def test_every_base_url_is_validated_alike(capsys, argv, url):
    """One validator (build.cli.base_url_arg) for every --base-url that says where the site is
    published: a usage error (exit 2) naming the option and the value, before any work."""
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--base-url", url])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--base-url" in err and repr(url) in err


def test_calibration_is_written_where_the_user_says_and_read_from_there(tmp_path, monkeypatch):
    """`calibrate` never writes into the installed package: --out, else the user cache folder;
    `serve`/`ask --calibration FILE` read it (a missing FILE is a usage error)."""
    import citavial.worker.eval.calibrate as cal
    from citavial.worker.answer import calibration
    written = []
    monkeypatch.setattr(cal, "calibrate", lambda golden, labels, dist, out: written.append(out) or "")
    monkeypatch.setenv("CITAVIAL_CACHE", str(tmp_path / "cache"))
    assert main(["calibrate", "--out", str(tmp_path / "mine.json")]) == 0
    assert main(["calibrate"]) == 0
    assert written == [tmp_path / "mine.json", tmp_path / "cache" / "calibration.json"]
    assert calibration.PATH.parent not in {w.parent for w in written}
    p = parser()
    (tmp_path / "mine.json").write_text("{}", encoding="utf-8")
    for cmd in (["serve"], ["ask", "¿x?"]):
        args = p.parse_args([*cmd, "--calibration", str(tmp_path / "mine.json")])
        assert args.calibration == tmp_path / "mine.json"
        with pytest.raises(SystemExit) as exc:
            p.parse_args([*cmd, "--calibration", str(tmp_path / "none.json")])
        assert exc.value.code == 2


@pytest.mark.parametrize("user, expected", [
    pytest.param(None, "1", id="unset-one-thread"),
    pytest.param("4", "4", id="the-user-setting-wins"),
])
def test_commands_run_one_blas_thread_unless_the_user_set_one(monkeypatch, user, expected):
    from citavial.worker.cli import one_blas_thread
    if user is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", user)
    one_blas_thread()
    assert os.environ["OPENBLAS_NUM_THREADS"] == expected


def test_the_cli_loads_no_numpy_before_its_thread_setting():
    """OpenBLAS reads its thread count when numpy loads it: main() sets it first, which works
    only while importing the CLI (every command registered) loads no numpy."""
    code = ("import sys, citavial.worker.cli, citavial.worker.__main__; "
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


@pytest.mark.parametrize("argv, code, fast", [
    pytest.param(["build"], 0, True, id="build-ends-without-teardown"),
    pytest.param(["build"], 1, False, id="failed-build-exits-normally"),
    pytest.param(["search", "casco"], 0, False, id="other-command-exits-normally"),
])
def test_console_skips_the_teardown_only_after_a_build(monkeypatch, argv, code, fast):
    """The console script ends a successful build with os._exit (output flushed first); any
    other command or a failure exits as usual."""
    from citavial.worker import cli as worker_cli
    ended = []
    monkeypatch.setattr(worker_cli.sys, "argv", ["citavial", *argv])
    monkeypatch.setattr(worker_cli, "main", lambda got: code if got == argv else 99)

    def fake_exit(status):
        ended.append(("_exit", status))
        raise SystemExit(status)
    monkeypatch.setattr(worker_cli.os, "_exit", fake_exit)
    with pytest.raises(SystemExit) as exc:
        worker_cli.console()
    assert exc.value.code == code
    assert ended == ([("_exit", 0)] if fast else [])
