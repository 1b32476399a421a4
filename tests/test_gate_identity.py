"""The gate's output is pinned: optimising build/gate/verify.py or build/gate/fragments/ must not
change a single deep link or verdict.

Pinned on frozen inputs, not on the live guides (a guide edit must not force an update):
- tests/fixtures/gate/quotes.json: quotes copied once from the guides and the practice bank
  (plain sentences and table rows, across 18 pages), each with the deep link the gate gave it;
  the test judges each again on the built regulation pages and compares;
- tests/snapshots/gate-digest.json: the sha256 of dist/allowlist.json, the deep link of every
  citable passage. It depends only on the committed corpus and the page templates (the
  regulation pages are rendered before, and without, the guides).
When the corpus or a deliberate gate rule changes, regenerate both explicitly and review the diff:

    .venv/bin/python tests/test_gate_identity.py --update
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SNAPSHOT = HERE / "snapshots" / "gate-digest.json"
QUOTES = HERE / "fixtures" / "gate" / "quotes.json"
FIXTURE = json.loads(QUOTES.read_text(encoding="utf-8"))


def judge(reg, site: Path, ref: str, quote: str):
    from citavial.build.gate.verify import Pages, check_quote
    from citavial.build.models import Citation
    return check_quote(reg, Pages(site), Citation("fixture", 1, ref, quote))


def allowlist_digest(site: Path) -> dict[str, str]:
    return {"allowlist.json": hashlib.sha256((site / "allowlist.json").read_bytes()).hexdigest()}


@pytest.mark.parametrize("case", FIXTURE, ids=[f"{c['ref'].split('#')[1]}-{i}"
                                               for i, c in enumerate(FIXTURE)])
def test_frozen_quote_keeps_its_verdict_and_link(reg, built_site, case):
    check = judge(reg, built_site, case["ref"], case["quote"])
    assert (check.reason, check.url) == ("", case["url"])


def test_allowlist_is_byte_identical(built_site):
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert allowlist_digest(built_site) == expected, (
        "the allowlist's deep links changed; if that is intended, run "
        "`.venv/bin/python tests/test_gate_identity.py --update` and review the diff")


def _update() -> None:
    import tempfile

    sys.path.insert(0, str(HERE))
    from support import AS_OF, CORPUS, SITE_SRC

    from citavial.build.ingest import load_regulation
    from citavial.build.pipeline import build_site
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "dist"
        build_site(corpus_dir=CORPUS, out_dir=out, as_of=AS_OF, site_src=SITE_SRC,
                   regulation_only=True)
        reg = load_regulation(CORPUS, AS_OF)
        cases = [dict(c, url=judge(reg, out, c["ref"], c["quote"]).url) for c in FIXTURE]
        digest = allowlist_digest(out)
    QUOTES.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    SNAPSHOT.write_text(json.dumps(digest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {QUOTES} and {SNAPSHOT}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: tests/test_gate_identity.py --update   (rewrites the pinned links)")
    _update()
