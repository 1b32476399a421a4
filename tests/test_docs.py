"""The documentation keeps up with the code (datasette's docs tests do the same).

Each list is read from the code — the parser, the SSE events the worker yields, the metric names it
exports, the CITAVIAL_* variables it reads — so adding one without documenting it fails here. Also:
every relative link of README.md and docs/*.md lands on a file (and heading) of the repo, the README
stays an on-ramp (≤ 150 lines), and its figures block is what docs/figures.py makes of the reports.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from citavial.build.check.claims import ClaimCode
from citavial.build.check.notes import CHECK_REASONS
from citavial.build.gate.verify import Reason
from citavial.worker.answer.events import KINDS
from citavial.worker.answer.judge import Basis, Undecided
from citavial.worker.cli import parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = [README, ROOT / "CHANGELOG.md", ROOT / "worker" / "README.md", *sorted(DOCS.glob("*.md"))]


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _section(page: str, heading: str) -> str:
    """The text under ``## heading`` up to the next heading of level ≤ 2 ("" if absent)."""
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^#{{1,2}} |\Z)", page, re.M | re.S)
    return m.group(1) if m else ""


def _py_sources(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


SUBCOMMANDS = sorted(_subcommands())


def test_the_parser_has_the_subcommands_we_expect_at_least():
    assert {"build", "check", "serve", "ask", "mcp"} <= set(SUBCOMMANDS)


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_subcommand_is_in_the_readme_table(name):
    rows = [line for line in _text(README).splitlines() if line.startswith("| `citavial ")]
    assert any(line.startswith(f"| `citavial {name}") for line in rows), (
        f"README.md: add a row `citavial {name} …` to the commands table ('What you can do')")


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_option_is_in_its_cli_section(name):
    section = _section(_text(DOCS / "cli.md"), f"citavial {name}")
    assert section, f"docs/cli.md: add a section '## citavial {name}'"
    missing = [opt for action in _subcommands()[name]._actions for opt in action.option_strings
               if opt not in ("-h", "--help") and f"`{opt}" not in section]
    assert not missing, (f"docs/cli.md '## citavial {name}': document {', '.join(missing)} "
                         "(as `--option …`)")


def _events() -> set[str]:
    # every kind of event an answer sends is a typed class of worker/answer/events.py
    return {kind.NAME for kind in KINDS}


def test_the_event_scan_finds_the_contract():
    assert {"sources", "answer", "citations", "abstain", "done", "token", "retract", "sign",
            "error"} <= _events()


@pytest.mark.parametrize("event", sorted(_events()))
def test_every_sse_event_is_in_the_contract_table(event):
    table = _section(_text(DOCS / "answers.md"), "SSE contract")
    assert re.search(rf"^\| `{event}` \|", table, re.M), (
        f"docs/answers.md 'SSE contract': add a row for the event `{event}`")


def _metrics() -> set[str]:
    names = set()
    for path in _py_sources("worker/http"):
        names |= set(re.findall(r"""["'](citavial_[a-z_]+)["']""", _text(path)))
    return names


@pytest.mark.parametrize("metric", sorted(_metrics()))
def test_every_metric_is_documented(metric):
    assert f"`{metric}" in _text(DOCS / "answers.md"), (
        f"docs/answers.md 'Other endpoints and errors': list the metric `{metric}` under /metrics")


def test_the_metric_scan_finds_them():
    assert {"citavial_requests_total", "citavial_latency_seconds"} <= _metrics()


def _env_vars() -> set[str]:
    names = set()
    for path in _py_sources("build", "worker"):
        names |= set(re.findall(r"""["'](CITAVIAL_[A-Z0-9_]+)["']""", _text(path)))
    return names


@pytest.mark.parametrize("var", sorted(_env_vars()))
def test_every_environment_variable_is_documented(var):
    table = _section(_text(DOCS / "cli.md"), "Environment")
    assert re.search(rf"^\| `{var}` \|", table, re.M), (
        f"docs/cli.md 'Environment': add a row for `{var}`")


def test_the_environment_scan_finds_them():
    assert {"CITAVIAL_CACHE", "CITAVIAL_MODEL", "CITAVIAL_HOME"} <= _env_vars()


@pytest.mark.parametrize("code", sorted({r.value for r in Reason} | {code for code, _ in CHECK_REASONS}))
def test_every_gate_reason_code_is_in_the_check_table(code):
    table = _section(_text(DOCS / "check.md"), "Reason codes")
    assert re.search(rf"^\|[^|\n]*`{code}`", table, re.M), (
        f"docs/check.md 'Reason codes': add the code `{code}` to the table")


@pytest.mark.parametrize("code", sorted(c.value for c in ClaimCode))
def test_every_claim_code_is_in_the_claims_table(code):
    table = _section(_text(DOCS / "check.md"), "Claims: `--claims`")
    assert re.search(rf"^\| `{code}` \|", table, re.M), (
        f"docs/check.md 'Claims': add the code `{code}` to the table")


@pytest.mark.parametrize("value", sorted(v.value for v in (*Basis, *Undecided)))
def test_every_ground_and_reason_of_the_option_judge_is_documented(value):
    assert f"`{value}`" in _text(DOCS / "answers.md"), (
        f"docs/answers.md 'Which option': say when the judge gives `{value}`")


_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces → hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", _strip_code(_text(path)), re.M)}


def _strip_code(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def _links() -> list[tuple[str, str]]:
    out = []
    for page in PAGES:
        for target in _LINK.findall(_strip_code(_text(page))):
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target):        # http:, mailto:, cita: …
                out.append((str(page.relative_to(ROOT)), target))
    return out


def test_the_pages_have_links():
    assert len(_links()) > 50


@pytest.mark.parametrize("page,target", _links(), ids=lambda v: v)
def test_every_relative_link_resolves(page, target):
    path, _, anchor = unquote(target).partition("#")
    dest = (ROOT / page).parent / path if path else ROOT / page
    assert dest.exists(), f"{page}: link {target!r} points at {dest}, which does not exist"
    assert dest.resolve().is_relative_to(ROOT), f"{page}: link {target!r} leaves the repository"
    if anchor and dest.suffix == ".md":
        assert anchor in _anchors(dest), (
            f"{page}: link {target!r}: {dest.name} has no heading whose anchor is #{anchor}")


def test_the_readme_is_an_on_ramp():
    lines = _text(README).splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move detail into docs/"
    for command in ("bash tests/run_all.sh", ".venv/bin/citavial build && .venv/bin/citavial serve"):
        assert command in _text(README), f"README.md: keep the command {command!r}"


def test_the_figures_block_is_up_to_date():
    spec = importlib.util.spec_from_file_location("docs_figures", DOCS / "figures.py")
    assert spec and spec.loader
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    readme = _text(README)
    assert figures.splice(readme, figures.render()) == readme, (
        "README.md's figures block differs from golden/reports/*.json: run "
        ".venv/bin/python docs/figures.py")
