"""The static search index in pieces (build/index/make/export.py): the compact encodings read
back to exactly the ranking data lexical.py wrote, shard bounds are found as search-core.js finds
them, and the built site's first script plus shards hold every passage and posting once."""

from __future__ import annotations

import json

import pytest

from citavial.build.errors import BuildError
from citavial.build.index.make.export import (
    SHARD_DIR,
    decode_forms,
    decode_posting,
    encode_forms,
    encode_posting,
    read_static,
    shard_of,
)
from citavial.build.web.assets import asset


@pytest.mark.parametrize("posting, text", [
    pytest.param([], "", id="empty"),
    pytest.param([0, 1], "0,1", id="first-row"),
    pytest.param([5, 100, 6, 36, 5899, 1449], "5,2s,0,10,4jo,149", id="deltas-base36"),
    pytest.param([0, 1295, 1, 1296, 50000, 46656], "0,zz,0,100,12ku,1000", id="beyond-two-digits"),
])
def test_posting_round_trip(posting, text):
    assert encode_posting(posting) == text
    assert decode_posting(text) == posting


STEMS = ["camion", "kg", "luz", "rojo"]


@pytest.mark.parametrize("forms, encoded", [
    pytest.param({"camion": 0, "camiones": 0}, [",es", None, None, None], id="stem-and-suffix"),
    pytest.param({"kg": 1}, [None, "", None, None], id="word-is-its-stem"),
    pytest.param({"luces": 2}, [None, None, "!luces", None], id="word-not-after-its-stem"),
    pytest.param({}, [None, None, None, None], id="no-words"),
])
def test_forms_round_trip(forms, encoded):
    assert encode_forms(forms, STEMS) == encoded
    assert decode_forms(encoded, STEMS) == forms


@pytest.mark.parametrize("word", ["a,b", "!luz", "a\nb"])
def test_a_separator_in_a_word_stops_the_export(word):
    with pytest.raises(BuildError) as err:
        encode_forms({word: 2}, STEMS)
    assert "forms" in str(err.value) and repr(word) in str(err.value)


@pytest.mark.parametrize("i, shard", [
    pytest.param(0, 0, id="first"), pytest.param(9, 0, id="before-second-start"),
    pytest.param(10, 1, id="second-start"), pytest.param(99, 2, id="last")])
def test_shard_of(i, shard):
    assert shard_of([0, 10, 25], i) == shard


def test_the_built_index_reads_back_to_the_ranking_data(built_site):
    lexical = json.loads((built_site / "index" / "lexical.json").read_text("utf-8"))
    first = asset(built_site, "search-index.js")
    data = read_static(first)
    for key in ("stems", "forms", "postings", "groups"):
        assert data[key] == lexical[key], key
    assert len(data["docs"]) == len(data["keys"]) == len(lexical["groups"])
    files = data["term_shards"]["files"] + data["doc_shards"]["files"]
    on_disk = {p.relative_to(built_site).as_posix()
               for p in (built_site / SHARD_DIR).glob("*.js")}
    assert set(files) == on_disk and len(files) == len(on_disk)
    # the first script holds no posting and no result text: they are in the shards
    assert first.stat().st_size < sum((built_site / f).stat().st_size for f in files) / 5
