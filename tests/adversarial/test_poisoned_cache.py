"""Issue 26, `citavial check`'s cache: a CI cache can be restored from someone else's run. A
poisoned entry — a pickle bomb where the old pickle was, JSON of the wrong shape, a tampered or
missing page — is ignored and rendered again: nothing in it runs, and every verdict is the one a
clean cache gives. What the manifest cannot stop (a writer who rewrites it too) is shown last."""

from __future__ import annotations

import contextlib
import io
import json
import pickle
import shutil
from pathlib import Path

import pytest
from support import AS_OF, CORPUS, SITE_SRC

from citavial.build.check.stored import MANIFEST_FILE, REGULATION_FILE, entry_intact, write_manifest
from citavial.worker.cli import main

pytestmark = pytest.mark.adversarial

REPO = Path(__file__).parents[1] / "fixtures" / "check-repo" / "notas"
OVERTAKE = "el adelantamiento deberá efectuarse por la izquierda del vehículo"
SPEED = "No respetar los límites de velocidad reglamentariamente establecidos"
LEY = "norms/ley-trafico"   # the Ley sobre Tráfico's entry inside the Reglamento's


def check(cache: Path, notes: Path) -> dict:
    """The exit status and the JSON results of `citavial check` run in-process."""
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(["check", str(notes), "--format", "json", "--as-of", AS_OF.isoformat(),
                     "--corpus", str(CORPUS), "--site-src", str(SITE_SRC),
                     "--cache-dir", str(cache)])
    doc = json.loads(out.getvalue())
    return {"exit": code, "results": doc["results"], "checked": doc["checked"],
            "failed": doc["failed"]}


@pytest.fixture(scope="module")
def notes(tmp_path_factory) -> Path:
    """The fixture repo's good and bad notes plus citations of the Ley sobre Tráfico."""
    root = tmp_path_factory.mktemp("notes")
    shutil.copytree(REPO, root / "notas")
    (root / "notas" / "ley.md").write_text(
        f"[«{SPEED}»](cita:RDL-6/2015#art76.a)\n[«{SPEED} y más»](cita:RDL-6/2015#art76.a)\n",
        encoding="utf-8")
    return root / "notas"


@pytest.fixture(scope="module")
def clean(tmp_path_factory, notes):
    """A cache filled by a clean run, and that run's verdicts (some pass, some fail)."""
    cache = tmp_path_factory.mktemp("clean-cache")
    verdicts = check(cache, notes)
    assert verdicts["exit"] == 1 and 0 < verdicts["failed"] < verdicts["checked"]
    return cache, verdicts


class Bomb:
    """Unpickling it creates ``marker``: proof that the file's code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def _bomb(marker: Path) -> bytes:
    return pickle.dumps(Bomb(marker))


def _replace(page: Path, old: str, new: str) -> None:
    html = page.read_text(encoding="utf-8")
    assert old in html, f"{page.name} no longer holds the words this test changes"
    page.write_text(html.replace(old, new), encoding="utf-8")


def old_pickle(entry: Path, marker: Path) -> None:
    for folder in (entry, entry / LEY):
        (folder / "regulation.pickle").write_bytes(_bomb(marker))


def pickle_as_json(entry: Path, marker: Path) -> None:
    (entry / REGULATION_FILE).write_bytes(_bomb(marker))
    write_manifest(entry, skip="norms")   # consistent: only the JSON reader stands in the way


def wrong_shape(entry: Path, marker: Path) -> None:
    doc = json.loads((entry / LEY / REGULATION_FILE).read_bytes())
    doc["units"] = [{"__class__": "os.system", "args": ["true"]}]
    (entry / LEY / REGULATION_FILE).write_text(json.dumps(doc), encoding="utf-8")
    write_manifest(entry / LEY)


def tampered_page(entry: Path, marker: Path) -> None:
    _replace(entry / "art82.html", OVERTAKE, OVERTAKE.replace("izquierda", "derecha"))


def tampered_norm_page(entry: Path, marker: Path) -> None:
    _replace(entry / LEY / "ley-trafico" / "art76.html", SPEED, SPEED + " y más")


def missing_page(entry: Path, marker: Path) -> None:
    (entry / "art82.html").unlink()   # a partial write


def extra_page(entry: Path, marker: Path) -> None:
    (entry / "art82bis.html").write_text("<p>nuevo</p>", encoding="utf-8")


def truncated_manifest(entry: Path, marker: Path) -> None:
    data = (entry / MANIFEST_FILE).read_bytes()
    (entry / MANIFEST_FILE).write_bytes(data[: len(data) // 2])


POISONS = [old_pickle, pickle_as_json, wrong_shape, tampered_page, tampered_norm_page,
           missing_page, extra_page, truncated_manifest]


@pytest.mark.parametrize("poison", POISONS, ids=[p.__name__.replace("_", "-") for p in POISONS])
def test_poisoned_entry_is_rebuilt_and_verdicts_unchanged(tmp_path, clean, notes, poison):
    cache = tmp_path / "cache"
    shutil.copytree(clean[0], cache)
    (entry,) = cache.glob("check-*")
    marker = tmp_path / "code-ran"
    poison(entry, marker)
    assert check(cache, notes) == clean[1]
    assert not marker.exists(), "a file of the cache was executed"
    assert entry_intact(entry, skip="norms") and entry_intact(entry / LEY)   # rendered again
    assert not list(entry.rglob("*.pickle"))


def test_a_writer_who_rewrites_the_manifest_is_trusted(tmp_path, clean, notes):
    """The documented limit (docs/check.md): the manifest catches corruption, not a hostile
    writer — so the tampered-page cases above do change verdicts when they go unnoticed, and a
    cache must not be restored across a trust boundary."""
    cache = tmp_path / "cache"
    shutil.copytree(clean[0], cache)
    (entry,) = cache.glob("check-*")
    tampered_page(entry, tmp_path / "unused")
    write_manifest(entry, skip="norms")
    assert check(cache, notes) != clean[1]
