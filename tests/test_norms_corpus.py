"""corpus/norms/ integrity (build/corpus/norms.py) and the passage dump CLI."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from support import CORPUS

from citavial.build.corpus.integrity import verify_corpus
from citavial.build.corpus.norms import verify_norms
from citavial.build.errors import BuildError
from citavial.build.ingest.markdown.dump import main as dump_main

# The sha256 of the shared PROVENANCE.md (corpus/norms/PROVENANCE.md repeats them).
SHA256 = {
    "BOE-A-2015-11722.md": "6020554c98a96a738a7b9e090ab43c4242e121c20ed6956c004cac00a1767004",
    "BOE-A-1999-1826.md": "eaf2e834be61f7feb2f225b5a00efec318eec7da679e94982038704769d1ade5",
    "BOE-A-2009-9481.md": "f7244ee13795a954641a7294e24b4af7f3c2973eabf519f11c83559881ae10e8",
    "BOE-A-2009-9481.pdf": "9138c10c43d96d707c37d1796739556e4779dbf66699eecd496f98e0d42402e5",
    "BOE-A-2015-11722.pdf": "c4feee7afd06ecf3c0c07c407dc94a522f07a03f0bf7267f88ab19f49e43a911",
}


def test_manifest_matches_provenance() -> None:
    doc = json.loads((CORPUS / "norms" / "MANIFEST.json").read_text(encoding="utf-8"))
    recorded = {rec["path"]: rec["sha256"] for e in doc["norms"].values() for rec in e["files"].values()}
    assert recorded == SHA256
    copies = verify_norms(CORPUS)
    assert {n: (c.boe_id, c.consolidated) for n, c in copies.items()} == {
        "RDL-6/2015": ("BOE-A-2015-11722", "2026-07-31"),
        "RD-2822/1998": ("BOE-A-1999-1826", "2026-06-26"),
        "RD-818/2009": ("BOE-A-2009-9481", "2023-12-06"),
    }


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    dest = tmp_path / "corpus"
    shutil.copytree(CORPUS, dest, ignore=shutil.ignore_patterns("embeddings", "hooks"))
    monkeypatch.chdir(tmp_path)
    return dest


def _flip(name: str) -> Callable[[Path], None]:
    def damage(corpus: Path) -> None:
        path = corpus / "norms" / name
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
    return damage


def _truncate(name: str) -> Callable[[Path], None]:
    def damage(corpus: Path) -> None:
        path = corpus / "norms" / name
        path.write_bytes(path.read_bytes()[:1000])
    return damage


def _delete(name: str) -> Callable[[Path], None]:
    return lambda corpus: (corpus / "norms" / name).unlink()


def _manifest(edit: Callable[[dict], None]) -> Callable[[Path], None]:
    def damage(corpus: Path) -> None:
        path = corpus / "norms" / "MANIFEST.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        edit(doc)
        path.write_text(json.dumps(doc), encoding="utf-8")
    return damage


def _escape(doc: dict) -> None:
    doc["norms"]["BOE-A-2009-9481"]["files"]["markdown"]["path"] = "../MANIFEST.json"


DAMAGE = [
    ("flipped-md", _flip("BOE-A-2015-11722.md"), ["corpus/norms/BOE-A-2015-11722.md", "sha256"]),
    ("truncated-pdf", _truncate("BOE-A-2009-9481.pdf"), ["BOE-A-2009-9481.pdf", "1,000 bytes"]),
    ("deleted-md", _delete("BOE-A-1999-1826.md"), ["BOE-A-1999-1826.md", "is missing"]),
    ("no-manifest", _delete("MANIFEST.json"), ["corpus/norms/MANIFEST.json", "is missing"]),
    ("path-escape", _manifest(_escape), ["files.markdown.path", "plain file name"]),
    ("bad-date", _manifest(lambda d: d["norms"]["BOE-A-2009-9481"].update(consolidated="6/12/2023")),
     ["consolidated", "YYYY-MM-DD"]),
    ("bad-norm", _manifest(lambda d: d["norms"]["BOE-A-2009-9481"].update(norm="RGC")),
     ["norm", "ref prefix"]),
]


@pytest.mark.parametrize("name,damage,expected", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_damaged_norms_stop_the_build(corpus: Path, name, damage, expected) -> None:
    damage(corpus)
    with pytest.raises(BuildError) as err:
        verify_corpus(corpus)   # the build's own check covers corpus/norms/
    message = str(err.value)
    assert all(part in message for part in expected), message
    assert "fix:" in message


def test_dump_lists_refs_in_document_order(capsys: pytest.CaptureFixture[str]) -> None:
    assert dump_main(["dump", "RDL-6/2015", "--corpus", str(CORPUS)]) == 0
    lines = capsys.readouterr().out.splitlines()
    refs = [line.split("\t", 1)[0] for line in lines]
    assert refs[0] == "RDL-6/2015#rd.artunico"
    assert refs.index("RDL-6/2015#art1.1") < refs.index("RDL-6/2015#anexoII.r10")
    assert len(refs) == len(set(refs)) == 1046


def test_dump_of_a_broken_corpus_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert dump_main(["dump", "RD-818/2009", "--corpus", str(tmp_path)]) == 2
    assert "MANIFEST.json" in capsys.readouterr().err
