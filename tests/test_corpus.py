"""Corpus integrity: the real corpus verifies; every kind of damage stops the build with one clear line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Callable

import pytest

from citavial.build.corpus.integrity import (
    MAIN_NORM,
    SCHEMA,
    CorpusInfo,
    parse_metadata,
    read_metadata,
    verify_corpus,
)
from citavial.build.errors import BuildError

REAL_CORPUS = Path(__file__).resolve().parent.parent / "corpus"
TEXTO = f"{MAIN_NORM}.xml"
METADATOS = f"{MAIN_NORM}.metadatos.xml"
TEXTO_SHA = "1105a26b121e2048816438ddf8a36910e04d5a92ee49e87982608d027ab40072"


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the real corpus; cwd is its parent so messages say ``corpus/…``."""
    dest = tmp_path / "corpus"
    shutil.copytree(REAL_CORPUS, dest)
    monkeypatch.chdir(tmp_path)
    return dest


def test_real_corpus_verifies() -> None:
    info = verify_corpus(REAL_CORPUS)
    assert info.boe_id == MAIN_NORM
    assert info.texto_path == REAL_CORPUS / TEXTO
    assert info.metadatos_path == REAL_CORPUS / METADATOS
    assert info.sha256 == TEXTO_SHA
    assert info.consolidated == "2026-07-31T08:26:21Z"
    assert info.eli == "https://www.boe.es/eli/es/rd/2003/11/21/1428"
    assert info.html_url == "https://www.boe.es/buscar/act.php?id=BOE-A-2003-23514"
    assert info.title.startswith("Real Decreto 1428/2003, de 21 de noviembre")
    assert repr(info) == ("CorpusInfo(BOE-A-2003-23514, BOE-A-2003-23514.xml, "
                          "consolidated 2026-07-31T08:26:21Z, sha256 1105a26b121e…)")


def test_manifest_hashes_match_provenance() -> None:
    # PROVENANCE.md is the human record of the frozen copy; the manifest must agree with it.
    provenance = (REAL_CORPUS / "PROVENANCE.md").read_text(encoding="utf-8")
    manifest = json.loads((REAL_CORPUS / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["schema"] == SCHEMA
    entry = manifest["norms"][MAIN_NORM]
    for kind, name in (("texto", TEXTO), ("metadatos", METADATOS)):
        row = next(line for line in provenance.splitlines() if line.startswith(f"| `{name}`"))
        size, sha = re.search(r"\| ([\d,]+) \| `([0-9a-f]{64})` \|$", row).groups()
        assert entry["files"][kind]["sha256"] == sha
        assert entry["files"][kind]["bytes"] == int(size.replace(",", ""))
        assert entry["files"][kind]["source_url"] == (
            f"https://www.boe.es/datosabiertos/api/legislacion-consolidada/id/{MAIN_NORM}/{kind}")
    assert entry["consolidated"] == "2026-07-31T08:26:21Z"
    assert entry["frozen"] is True and entry["fetched_at"] is None


def test_read_metadata_of_real_file() -> None:
    meta = read_metadata(REAL_CORPUS / METADATOS)
    assert meta.boe_id == MAIN_NORM
    assert meta.consolidated == "2026-07-31T08:26:21Z"
    assert meta.eli == "https://www.boe.es/eli/es/rd/2003/11/21/1428"
    assert meta.html_url == "https://www.boe.es/buscar/act.php?id=BOE-A-2003-23514"
    assert "Reglamento General de Circulación" in meta.title


# --- damage -------------------------------------------------------------------------------------

def _flip_byte(name: str) -> Callable[[Path], None]:
    def damage(corpus: Path) -> None:
        data = bytearray((corpus / name).read_bytes())
        data[len(data) // 2] ^= 0x01
        (corpus / name).write_bytes(bytes(data))
    return damage


def _truncate(name: str, size: int) -> Callable[[Path], None]:
    def damage(corpus: Path) -> None:
        (corpus / name).write_bytes((corpus / name).read_bytes()[:size])
    return damage


def _delete(name: str) -> Callable[[Path], None]:
    return lambda corpus: (corpus / name).unlink()


def _write_manifest(text: str | bytes) -> Callable[[Path], None]:
    def damage(corpus: Path) -> None:
        data = text.encode("utf-8") if isinstance(text, str) else text
        (corpus / "MANIFEST.json").write_bytes(data)
    return damage


def _edit_manifest(edit: Callable[[dict], None]) -> Callable[[Path], None]:
    def damage(corpus: Path) -> None:
        doc = json.loads((corpus / "MANIFEST.json").read_text(encoding="utf-8"))
        edit(doc)
        (corpus / "MANIFEST.json").write_text(json.dumps(doc), encoding="utf-8")
    return damage


def _set(path: str, value: object) -> Callable[[dict], None]:
    def edit(doc: dict) -> None:
        *parents, last = path.split(".")
        node = doc
        for key in parents:
            node = node[key]
        node[last] = value
    return edit


def _entry(key: str) -> str:
    return f"norms.{MAIN_NORM}.{key}"


RESTORE = ["git checkout -- corpus/", f"citavial fetch {MAIN_NORM}"]

DAMAGE = [
    pytest.param(_flip_byte(TEXTO),
                 [f"corpus/{TEXTO}: sha256 is ", "manifest says 1105a26b121e…", "was modified", *RESTORE],
                 id="texto-one-byte-flipped"),
    pytest.param(_truncate(TEXTO, 1000),
                 [f"corpus/{TEXTO}: is 1,000 bytes, manifest says 1,158,926", "truncated", *RESTORE],
                 id="texto-truncated"),
    pytest.param(_truncate(TEXTO, 0), [f"corpus/{TEXTO}: is 0 bytes", *RESTORE], id="texto-emptied"),
    pytest.param(_delete(TEXTO), [f"corpus/{TEXTO}: is missing", "MANIFEST.json lists it", *RESTORE],
                 id="texto-missing"),
    pytest.param(_flip_byte(METADATOS), [f"corpus/{METADATOS}: sha256 is ", "manifest says 1122cd914e22…",
                                         *RESTORE], id="metadatos-one-byte-flipped"),
    pytest.param(_delete(METADATOS), [f"corpus/{METADATOS}: is missing", *RESTORE], id="metadatos-missing"),
    pytest.param(_delete("MANIFEST.json"),
                 ["corpus/MANIFEST.json: is missing", "git checkout -- corpus/MANIFEST.json",
                  f"citavial fetch {MAIN_NORM}"], id="manifest-missing"),
    pytest.param(_truncate("MANIFEST.json", 200),
                 ["corpus/MANIFEST.json: is not valid JSON (", "line ", "git checkout -- corpus/MANIFEST.json"],
                 id="manifest-truncated-json"),
    pytest.param(_write_manifest(b"\xff\xfe{}"), ["corpus/MANIFEST.json: is not UTF-8"], id="manifest-not-utf8"),
    pytest.param(_write_manifest("[]"), ["corpus/MANIFEST.json: top level is a JSON list, expected an object"],
                 id="manifest-is-a-list"),
    pytest.param(_edit_manifest(_set("schema", "citavial-corpus-manifest/99")),
                 ["corpus/MANIFEST.json: schema is 'citavial-corpus-manifest/99', this build reads "
                  "'citavial-corpus-manifest/1'", "update build/corpus/integrity.py"], id="manifest-unknown-schema"),
    pytest.param(_edit_manifest(lambda d: d.pop("schema")), ["schema is None"], id="manifest-no-schema"),
    pytest.param(_edit_manifest(_set("norms", {})), ["field norms must be a non-empty object"],
                 id="manifest-no-norms"),
    pytest.param(_edit_manifest(lambda d: d["norms"].update({"BOE-A-2003-1": d["norms"].pop(MAIN_NORM)})),
                 [f"corpus/MANIFEST.json: has no entry for {MAIN_NORM} (it lists BOE-A-2003-1)"],
                 id="manifest-lacks-main-norm"),
    pytest.param(_edit_manifest(_set(_entry("files.texto.path"), "../../etc/passwd")),
                 [f"{_entry('files.texto.path')} is '../../etc/passwd', expected a plain file name"],
                 id="manifest-path-escapes-corpus"),
    pytest.param(_edit_manifest(_set(_entry("files.texto.sha256"), "1105A26B")),
                 [f"{_entry('files.texto.sha256')} is '1105A26B', expected 64 lowercase hex digits"],
                 id="manifest-sha256-malformed"),
    pytest.param(_edit_manifest(_set(_entry("files.metadatos.bytes"), "1478")),
                 [f"{_entry('files.metadatos.bytes')} is '1478', expected a non-negative integer"],
                 id="manifest-bytes-not-int"),
    pytest.param(_edit_manifest(lambda d: d["norms"][MAIN_NORM]["files"].pop("metadatos")),
                 [f"{_entry('files.metadatos')} is missing"], id="manifest-metadatos-record-missing"),
    pytest.param(_edit_manifest(_set(_entry("consolidated"), "2026-07-31")),
                 [f"{_entry('consolidated')} is '2026-07-31', expected YYYY-MM-DDTHH:MM:SSZ"],
                 id="manifest-consolidated-malformed"),
    pytest.param(_edit_manifest(_set(_entry("consolidated"), "2027-01-01T00:00:00Z")),
                 [f"corpus/{METADATOS}: consolidated is '2026-07-31T08:26:21Z' but MANIFEST.json says "
                  "'2027-01-01T00:00:00Z'", f"citavial fetch {MAIN_NORM}"],
                 id="manifest-disagrees-with-metadatos"),
]


@pytest.mark.parametrize(("damage", "expected"), DAMAGE)
def test_damaged_corpus_is_refused(corpus: Path, damage: Callable[[Path], None], expected: list[str]) -> None:
    damage(corpus)
    with pytest.raises(BuildError) as caught:
        verify_corpus(corpus)
    message = str(caught.value)
    assert "\n" not in message, "a BuildError is one line"
    for fragment in expected:
        assert fragment in message, f"{fragment!r} not in {message!r}"


METADATA_ERRORS = [
    pytest.param(b"<response><status><code>200</code></status><data><metadatos>"
                 b"<identificador>BOE-A-2003-23514</identificador></metadatos></data></response>",
                 "<metadatos> has no <titulo>", id="missing-field"),
    pytest.param(b"<response><status><code>200</code></status><data><metadatos>"
                 b"<identificador>BOE-A-2003-23514</identificador><titulo>T</titulo>"
                 b"<fecha_actualizacion>2026-07-31</fecha_actualizacion></metadatos></data></response>",
                 "fecha_actualizacion is '2026-07-31', expected YYYYMMDDTHHMMSSZ", id="bad-date"),
    pytest.param(b"<html><body>Not found</body></html>", "root element is <html>, expected <response>",
                 id="not-a-boe-response"),
    pytest.param(b"<response><status><code>400</code><text>bad id</text></status></response>",
                 "BOE API status code is '400' (bad id), expected 200", id="api-error-status"),
    pytest.param(b'<!DOCTYPE r [<!ENTITY x "y">]><response/>', "declares a DOCTYPE", id="doctype-refused"),
]


@pytest.mark.parametrize(("data", "expected"), METADATA_ERRORS)
def test_parse_metadata_errors(data: bytes, expected: str) -> None:
    with pytest.raises(BuildError) as caught:
        parse_metadata(data, "meta.xml")
    assert str(caught.value).startswith("meta.xml: ")
    assert expected in str(caught.value)


def test_corpus_info_is_frozen() -> None:
    info = verify_corpus(REAL_CORPUS)
    assert isinstance(info, CorpusInfo)
    with pytest.raises(AttributeError):
        info.sha256 = "0" * 64  # type: ignore[misc]
