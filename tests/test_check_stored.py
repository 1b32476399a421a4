"""The `check` cache's plain-data form (build/check/stored.py): every norm's Regulation survives
JSON and back unchanged, and a file of any other shape is refused (a cache miss), not loaded."""

from __future__ import annotations

import json

import pytest
from support import AS_OF, CORPUS

from citavial.build.check.stored import dump_regulation, load_regulation
from citavial.build.corpus.integrity import verify_corpus
from citavial.build.corpus.norms import verify_norms
from citavial.build.ingest import from_bloques, parse_texto, source_of, with_renames
from citavial.build.ingest.markdown import ingest_norm
from citavial.build.models import NORM
from citavial.build.refs import NORMS


@pytest.fixture(scope="module")
def ingested():
    """{ref prefix: the Regulation as `check` ingests it} for the Reglamento and every norm."""
    info = verify_corpus(CORPUS)
    regs = {NORM: from_bloques(parse_texto(info.texto_path), source_of(info), AS_OF)}
    regs.update({p: ingest_norm(copy, AS_OF) for p, copy in verify_norms(CORPUS).items()})
    return regs


@pytest.mark.parametrize("prefix", sorted(NORMS))
def test_every_norm_round_trips(ingested, prefix):
    reg = ingested[prefix]
    data = dump_regulation(reg)
    back = load_regulation(data)
    assert back == reg and back is not reg
    assert dump_regulation(back) == data      # deterministic: same value, same bytes


def test_renames_round_trip(ingested):
    reg = with_renames(ingested[NORM], CORPUS)
    assert reg.renames.items, "the corpus has renamed refs: this test needs some"
    assert load_regulation(dump_regulation(reg)) == reg


def _first(items, has):
    return next(i for i in items if has(i))


def _set(path, value):
    """A mutation that puts ``value`` at ``path`` (keys and list indexes; a callable picks)."""
    def mutate(doc):
        node = doc
        for step in path[:-1]:
            node = step(node) if callable(step) else node[step]
        node[path[-1]] = value
        return doc
    return mutate


def _with_runs(units):
    return _first((b for u in units for b in u["blocks"]), lambda b: b["runs"])["runs"]


# id → what turns the Reglamento's JSON into a file that must be refused
WRONG_SHAPES = {
    "top-level-list": lambda doc: [doc],
    "units-a-string": _set(["units"], "x"),
    "unit-not-an-object": _set(["units", 0], ["art1"]),
    "extra-field": _set(["__reduce__"], ["os.system", ["true"]]),
    "extra-nested-field": _set(["units", 0, "evil"], 1),
    "missing-field": lambda doc: {k: v for k, v in doc.items() if k != "source"},
    "bool-for-int": _set(["toc", 0, "depth"], True),
    "str-for-int": _set(["toc", 0, "depth"], "1"),
    "float-for-int": _set(["toc", 0, "depth"], 1.0),
    "int-for-bool": _set(["per_date_history"], 1),
    "null-for-str": _set(["source", "title"], None),
    "bad-date": _set(["as_of"], "2026-13-40"),
    "date-as-number": _set(["as_of"], 20261129),
    "pair-too-short": _set(["units", _with_runs, 0], ["strong"]),
    "pair-too-long": _set(["units", _with_runs, 0], ["strong", "a", "b"]),
    "object-for-optional": _set(["units", 0, "expires"], {}),
}


@pytest.mark.parametrize("mutate", WRONG_SHAPES.values(), ids=WRONG_SHAPES.keys())
def test_a_wrong_shape_is_refused(ingested, mutate):
    doc = json.loads(dump_regulation(ingested[NORM]))
    assert load_regulation(json.dumps(mutate(doc)).encode()) is None


NOT_JSON = {
    "empty": b"",
    "truncated": None,   # the real file cut in half, as a killed writer would leave it
    "pickle": b"\x80\x05\x95\x10\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94\x93.",
    "deep-nesting": b"[" * 100_000 + b"]" * 100_000,
    "not-utf8": b"\xff\xfe{}",
}


@pytest.mark.parametrize("data", NOT_JSON.values(), ids=NOT_JSON.keys())
def test_not_json_is_refused(ingested, data):
    if data is None:
        whole = dump_regulation(ingested[NORM])
        data = whole[: len(whole) // 2]
    assert load_regulation(data) is None
