"""The gate's output is pinned byte for byte: optimising build/gate/verify.py or build/gate/fragments/ must
not change a single deep link or verdict.

Pinned (tests/snapshots/gate-digest.json): the sha256 of dist/allowlist.json and
dist/gate-report.json of the test build (AS_OF, the committed corpus and site_src), and of every
quote's (file, line, ref, url) as the gate judged it. When the corpus, the guides, the practice
bank or a deliberate gate rule changes, regenerate the snapshot explicitly and review the diff:

    .venv/bin/python tests/test_gate_identity.py --update
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

SNAPSHOT = Path(__file__).resolve().parent / "snapshots" / "gate-digest.json"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def gate_digest(reg, site: Path) -> dict[str, str | int]:
    """Digests of what the gate decided on the built ``site``."""
    from support import SITE_SRC

    from citavial.build.content.guides import read_guides
    from citavial.build.content.practice import read_bank
    from citavial.build.gate.verify import verify

    cits = [c for g in read_guides(SITE_SRC / "content") for c in g.citations]
    cits += [q.citation for q in read_bank(SITE_SRC / "practice")]
    checks, _ = verify(reg, site, cits)
    # file paths relative to site_src: the digest must not depend on where the repo is cloned
    judged = [[Path(c.citation.file).resolve().relative_to(SITE_SRC.resolve()).as_posix(),
               c.citation.line, c.citation.ref, c.url] for c in checks]
    return {
        "allowlist.json": _sha((site / "allowlist.json").read_bytes()),
        "gate-report.json": _sha((site / "gate-report.json").read_bytes()),
        "quotes": len(judged),
        "quote-links": _sha(json.dumps(judged, ensure_ascii=False).encode("utf-8")),
    }


def test_gate_output_is_byte_identical(reg, built_site):
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert gate_digest(reg, built_site) == expected, (
        "the gate's output changed; if that is intended, run "
        "`.venv/bin/python tests/test_gate_identity.py --update` and review the diff")


def _update() -> None:
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from support import AS_OF, CORPUS, SITE_SRC

    from citavial.build.ingest import load_regulation
    from citavial.build.pipeline import build_site
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "dist"
        build_site(corpus_dir=CORPUS, out_dir=out, as_of=AS_OF, site_src=SITE_SRC)
        digest = gate_digest(load_regulation(CORPUS, AS_OF), out)
    SNAPSHOT.write_text(json.dumps(digest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: tests/test_gate_identity.py --update   (rewrites the pinned digest)")
    _update()
