"""Shared pieces of the worker tests: an allowlist, a retriever and a scripted model.

* ``allowlist_path()`` — dist/allowlist.json when the build has made one, else an allowlist in
  the same schema generated from the ingest (url = page#anchor, directive "anchor").
* ``LexicalRetriever`` — a small, deterministic stand-in for build/index/retriever.py (token overlap
  over the allowlist texts), with one evidence feature, used where the test is about the
  pipeline and not about search quality.
* ``ScriptedModel`` — yields given pieces as if they were model tokens.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from datetime import date
from functools import lru_cache
from pathlib import Path

from citavial.build.models import SearchHit, SearchResult
from citavial.build.normalize import normalize
from citavial.worker.allowlist import Allowlist, load_allowlist
from citavial.worker.calibration import Calibration
from citavial.worker.model import ModelStatus

ROOT = Path(__file__).resolve().parent.parent
DIST_ALLOWLIST = ROOT / "dist" / "allowlist.json"
AS_OF = date(2026, 11, 29)


@lru_cache(maxsize=1)
def allowlist_path() -> Path:
    if DIST_ALLOWLIST.is_file():
        return DIST_ALLOWLIST
    from citavial.build.pipeline import load_regulation
    from citavial.build.refs import human_label
    reg = load_regulation(ROOT / "corpus", AS_OF)
    src = reg.source
    entries = []
    for unit in reg.units:
        for b in unit.passages:
            anchor = b.ref.split("#", 1)[1].replace(".", "-")
            entries.append({
                "ref": b.ref, "url": f"{unit.page}#{anchor}", "page": unit.page,
                "anchor": anchor, "text": b.text,
                "sha256": hashlib.sha256(b.text.encode()).hexdigest(),
                "as_of": AS_OF.isoformat(),
                "source_url": f"{src.html_url}#{unit.block_id}",
                "source_license": src.license, "label": human_label(b.ref),
                "directive": "anchor"})
    doc = {"schema": "citavial-allowlist/1", "as_of": AS_OF.isoformat(),
           "source": {"norm_id": src.norm_id}, "entries": entries}
    out = Path(tempfile.mkdtemp(prefix="citavial-allowlist-")) / "allowlist.json"
    out.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return out


@lru_cache(maxsize=1)
def allowlist() -> Allowlist:
    return load_allowlist(allowlist_path())


_TOKEN = re.compile(r"[a-z0-9]{3,}")


def _terms(text: str) -> set[str]:
    return {t[:6] for t in _TOKEN.findall(normalize(text))}


class LexicalRetriever:
    """Rank allowlist passages by shared 6-letter stems with the question (ties: ref asc)."""

    index_version = "test-lexical-1"

    def __init__(self, allow: Allowlist) -> None:
        self.allow = allow
        self.docs = [(ref, _terms(e.text)) for ref, e in sorted(allow.entries.items())]

    def search(self, question: str, k: int) -> SearchResult:
        q = _terms(question)
        scored = sorted(((len(q & terms), ref) for ref, terms in self.docs if q & terms),
                        key=lambda x: (-x[0], x[1]))[:k]
        hits = tuple(SearchHit(ref=ref, unit_ref=ref.split(".")[0], url=self.allow.get(ref).url,
                               score=float(s), rank=i + 1, label=self.allow.get(ref).label,
                               text=self.allow.get(ref).text)
                     for i, (s, ref) in enumerate(scored))
        top = float(scored[0][0]) if scored else 0.0
        return SearchResult(query=question, hits=hits, backend="test-lexical",
                            index_version=self.index_version,
                            evidence=(("overlap_top", top),))


class ScriptedModel:
    """A stand-in for worker.model.Model that yields fixed pieces; records its requests."""

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = list(pieces)
        self.requests: list[str] = []
        self.closed = False

    def stream(self, request: str):
        self.requests.append(request)
        try:
            yield from self.pieces
        finally:
            self.closed = True


FIXED_ENTRIES = [
    {"ref": "RD-1428/2003#art18.2", "page": "art18.html", "anchor": "art18-2",
     "url": "art18.html#art18-2:~:text=2.%20Queda%20prohibido,de%20conducci%C3%B3n.",
     "label": "art. 18.2",
     "text": "2. Queda prohibido conducir utilizando cualquier tipo de casco de audio, auriculares "
             "o instrumentos similares conectados a aparatos receptores o reproductores de "
             "sonido."},
    {"ref": "RD-1428/2003#art48.1.a", "page": "art48.html", "anchor": "art48-1-a",
     "url": "art48.html#art48-1-a", "label": "art. 48.1.a)",
     "text": "En autopistas y autovías: turismos y motocicletas, 120 km/h."},
    {"ref": "RD-1428/2003#art50.1", "page": "art50.html", "anchor": "art50-1",
     "url": "art50.html#art50-1:~:text=1.%20El%20l%C3%ADmite", "label": "art. 50.1",
     "text": "1. El límite genérico de velocidad en vías urbanas será de 50 km/h."},
]


def fixed_allowlist(tmp_dir: Path) -> Allowlist:
    """A three-entry allowlist with fixed content: contract snapshots do not move with builds."""
    entries = [dict(e, sha256=hashlib.sha256(e["text"].encode()).hexdigest(), as_of="2026-11-29",
                    source_url="https://www.boe.es/buscar/act.php?id=BOE-A-2003-23514#a"
                    + e["anchor"].split("-")[0][3:], source_license="Fuente: BOE.",
                    directive="exact" if ":~:" in e["url"] else "anchor")
               for e in FIXED_ENTRIES]
    path = Path(tmp_dir) / "allowlist.json"
    path.write_text(json.dumps({"schema": "citavial-allowlist/1", "as_of": "2026-11-29",
                                "source": {}, "entries": entries}, ensure_ascii=False,
                               sort_keys=True), encoding="utf-8")
    return load_allowlist(path)


class FixedRetriever:
    """Returns the given refs, in order, for every question (with one evidence feature)."""

    index_version = "fixed-1"

    def __init__(self, allow: Allowlist, refs: list[str], evidence: float = 1.0) -> None:
        self.allow, self.refs, self.evidence = allow, refs, evidence

    def search(self, question: str, k: int) -> SearchResult:
        hits = tuple(SearchHit(ref=r, unit_ref=r.split(".")[0], url=self.allow.get(r).url,
                               score=1.0 / (i + 1), rank=i + 1, label=self.allow.get(r).label,
                               text=self.allow.get(r).text)
                     for i, r in enumerate(self.refs[:k]))
        return SearchResult(query=question, hits=hits, backend="fixed",
                            index_version=self.index_version,
                            evidence=(("overlap_top", self.evidence),))


class StepClock:
    """A deterministic clock: every call advances one millisecond."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 0.001
        return self.t


SCRIPTED_STATUS = ModelStatus(True, "completion", "/scripted.gguf", "scripted.gguf",
                              "0" * 64, "loaded")
TEST_CALIBRATION = Calibration(gate=None, support_threshold=0.6, calibrated=False)
