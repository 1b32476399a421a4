"""The build cache's memos of the edit path (issue 27): the parsed corpus kept as typed JSON
(build/ingest/read.py, build/typedjson.py) and each page's asset rewrite (build/web/pagememo.py):
reused only for the very inputs, a foreign entry is a miss, the output the same bytes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from support import AS_OF, CORPUS, tree_hash

from citavial.build.stagecache import Key, StageCache

# --- the parsed corpus (ingest/read.py) and typed JSON (typedjson.py) --------------------------

def _read(tmp_path, inputs="a" * 64):
    from citavial.build.ingest.read import read_corpus
    return read_corpus(CORPUS, AS_OF, None, (StageCache(tmp_path), inputs))


@pytest.fixture(scope="module")
def corpus_cached(tmp_path_factory):
    """The corpus read once with the cache on (its entry filled), and the cache folder."""
    root = tmp_path_factory.mktemp("corpus-cache")
    return _read(root), root


def _no_parse(monkeypatch):
    from citavial.build.ingest import read

    def parse(*_args):
        raise AssertionError("parsed again")
    monkeypatch.setattr(read, "_parse", parse)


def test_the_parsed_corpus_comes_back_from_the_cache_unparsed(corpus_cached, monkeypatch):
    corpus, root = corpus_cached
    _no_parse(monkeypatch)
    again = _read(root)
    assert again == corpus and again.wordings == corpus.wordings
    assert again.regulation.units and again.others and again.wordings


def _corpus_copy(tmp_path, corpus_cached):
    shutil.copytree(corpus_cached[1], tmp_path / "c")
    return tmp_path / "c"


def test_another_inputs_digest_parses_the_corpus_again(tmp_path, corpus_cached, monkeypatch):
    root = _corpus_copy(tmp_path, corpus_cached)
    _no_parse(monkeypatch)
    with pytest.raises(AssertionError, match="parsed again"):
        _read(root, inputs="b" * 64)


@pytest.mark.parametrize("payload", [
    pytest.param(b'{"regulation": {}, "wordings": [], "others": []}', id="wrong-shape"),
    pytest.param(b"\x80\x04\x95 pickle-like bytes", id="binary"),
    pytest.param(b'{"regulation": ', id="truncated"),
])
def test_a_foreign_corpus_entry_is_parsed_again(tmp_path, corpus_cached, monkeypatch, payload):
    """A manifest and blob that check out (rewritten together), holding no corpus: a miss."""
    from citavial.build.ingest import read
    root = _corpus_copy(tmp_path, corpus_cached)
    cache = StageCache(root)
    key = Key(read.STAGE).text("inputs", "a" * 64).hexdigest()
    cache.commit(cache.stash_data({read.FILE: payload}), read.STAGE, key)
    _no_parse(monkeypatch)
    with pytest.raises(AssertionError, match="parsed again"):
        _read(root)


def test_tables_begun_early_give_the_same_corpus(tmp_path, corpus_cached):
    """`citavial build` begins the PDF tables before loading the pipeline (read.begin_tables):
    the read that then parses the corpus uses them, and gives the same corpus."""
    from citavial.build.ingest import read
    begun = read.begin_tables(CORPUS, None, (StageCache(tmp_path), "b" * 64))
    assert begun and all(hasattr(f, "result") for f in begun.tables.values())
    corpus = read.read_corpus(CORPUS, AS_OF, None, (StageCache(tmp_path), "b" * 64),
                              begun=begun)
    assert corpus == corpus_cached[0] and corpus.wordings == corpus_cached[0].wordings


def test_no_tables_are_begun_when_the_pickle_will_serve_or_the_corpus_is_bad(tmp_path,
                                                                             corpus_cached):
    """A build that will read this cache's own pickle (released: its manifests are ours), or
    whose corpus does not verify, begins nothing; a copied cache (the typed JSON, and maybe a
    parse) still does."""
    from citavial.build.ingest import read
    root = _corpus_copy(tmp_path, corpus_cached)
    first = StageCache(root)
    _read_with(first)   # pickled, then released as a build does at its end
    first.release()
    assert read.begin_tables(CORPUS, None, (StageCache(root), "a" * 64)) is None
    shutil.copytree(root, tmp_path / "copied")
    assert read.begin_tables(CORPUS, None, (StageCache(tmp_path / "copied"), "a" * 64))
    (tmp_path / "corpus").mkdir()   # no manifest: the read itself reports it
    assert read.begin_tables(tmp_path / "corpus", None, (StageCache(None), "")) is None


def _corpus_json(root):
    """The bytes of the corpus entry's typed JSON in the cache at ``root``."""
    from citavial.build.ingest import read
    found = StageCache(root).lookup(read.STAGE, Key(read.STAGE).text("inputs", "a" * 64)
                                    .hexdigest())
    assert found is not None
    return Path(found[1][0]).read_bytes()


@pytest.mark.parametrize("child", [
    pytest.param("citavial.build.ingest.read:json_form", id="made-in-a-child"),
    pytest.param("citavial.build.no_such_module:json_form", id="child-fails-made-here"),
])
def test_a_deferred_corpus_entry_is_the_one_stored_at_once(tmp_path, corpus_cached, monkeypatch,
                                                            child, caplog):
    """The build defers the typed JSON to publish (read.CorpusJson): nothing is stored until
    ``store``, and then the same bytes as a read that stores it at once, whether the child
    made them or, when it failed, this process."""
    from citavial.build import beside
    from citavial.build.ingest import read
    later: list = []
    read.read_corpus(CORPUS, AS_OF, None, (StageCache(tmp_path), "a" * 64), later)
    assert len(later) == 1
    assert StageCache(tmp_path).lookup(read.STAGE, later[0].key) is None
    real = beside.Beside
    monkeypatch.setattr(read, "Beside", lambda _entry, value, nice=0: real(child, value, nice))
    monkeypatch.setattr(read, "cpus", lambda: 2)
    with caplog.at_level("WARNING", logger="citavial.build.beside"):
        later[0].begin()
        later[0].store()
    assert _corpus_json(tmp_path) == _corpus_json(corpus_cached[1])
    assert ("beside the build failed" in caplog.text) == ("no_such_module" in child)


def test_our_own_pickle_of_the_corpus_is_read_and_equal_to_a_fresh_parse(tmp_path,
                                                                         corpus_cached,
                                                                         monkeypatch):
    """Once a build released the cache (its manifests recorded as ours), the corpus comes from
    the pickle, neither parsed nor read from typed JSON; a copied cache reads the JSON again."""
    from citavial.build import typedjson
    corpus, _root = corpus_cached
    root = _corpus_copy(tmp_path, corpus_cached)   # a copy: not ours, read from typed JSON,
    first = StageCache(root)                       # and pickled for the next build
    assert _read_with(first) == corpus
    first.release()
    _no_parse(monkeypatch)

    def no_json(*_args):
        raise AssertionError("typed JSON read")
    monkeypatch.setattr(typedjson, "loads", no_json)
    again = _read_with(StageCache(root))
    assert again == corpus and again.wordings == corpus.wordings
    assert again.regulation.units[0].__dict__ == corpus.regulation.units[0].__dict__
    shutil.copytree(root, tmp_path / "copied")
    with pytest.raises(AssertionError, match="typed JSON read"):
        _read_with(StageCache(tmp_path / "copied"))


def _read_with(cache):
    from citavial.build.ingest.read import read_corpus
    return read_corpus(CORPUS, AS_OF, None, (cache, "a" * 64))


def test_the_corpus_changes_come_back_from_our_pickle_for_the_same_inputs(tmp_path,
                                                                          corpus_cached,
                                                                          monkeypatch):
    from citavial.build import pipeline
    corpus, _root = corpus_cached
    args = (corpus.wordings, corpus.regulation)
    first = StageCache(tmp_path / "c")
    computed = pipeline._changes(*args, (first, "a" * 64))
    first.release()

    def diff(*_args):
        raise AssertionError("diffed again")
    monkeypatch.setattr(pipeline, "unit_changes", diff)
    assert pipeline._changes(*args, (StageCache(tmp_path / "c"), "a" * 64)) == computed
    assert computed[0] and computed[2]
    with pytest.raises(AssertionError, match="diffed again"):
        pipeline._changes(*args, (StageCache(tmp_path / "c"), "b" * 64))


# --- pickles of our own entries (stagevalues.py) -------------------------------------------------

def _saved(tmp_path, value, stage="pickled-test"):
    from citavial.build import stagevalues
    cache = StageCache(tmp_path / "cache")
    stagevalues.save(cache, stage, KEY, value)
    cache.release()
    return StageCache(tmp_path / "cache")


KEY = Key("t").text("v", "1").hexdigest()


def test_a_pickle_loads_only_the_classes_of_its_annotation(tmp_path):
    from datetime import date

    from citavial.build import stagevalues
    from citavial.build.models import Source, Version
    v = (Version("BOE-A-1", AS_OF, date(2020, 1, 2)),)
    assert stagevalues.load(_saved(tmp_path / "a", v), "pickled-test", KEY,
                            tuple[Version, ...], tuple) == v
    # a class the annotation does not name (here another dataclass of the models) is refused
    src = Source("n", "t", "c", "e", "h", "a", "l")
    assert stagevalues.load(_saved(tmp_path / "b", (src,)), "pickled-test", KEY,
                            tuple[Version, ...], tuple) is None
    assert stagevalues.load(_saved(tmp_path / "c", [1]), "pickled-test", KEY,
                            tuple[Version, ...], tuple) is None   # not a tuple


CALLS: list[tuple] = []


def _record(*args):
    CALLS.append(args)


class _Called:
    def __reduce__(self):
        return (_record, ("called",))


def test_a_pickle_naming_any_other_callable_is_refused(tmp_path):
    import pickle

    from citavial.build import stagevalues
    cache = _saved(tmp_path, [_Called()])
    assert stagevalues.load(cache, "pickled-test", KEY, list[int], list) is None
    assert CALLS == []
    blob = next((tmp_path / "cache" / "stages" / "blobs").iterdir())
    pickle.loads(blob.read_bytes())   # a plain unpickler would have called it
    assert CALLS == [("called",)]


def test_a_pickle_in_an_entry_not_ours_is_not_loaded(tmp_path):
    from citavial.build import stagevalues
    cache = _saved(tmp_path, [1, 2])
    assert stagevalues.load(cache, "pickled-test", KEY, list[int], list) == [1, 2]
    shutil.copytree(tmp_path / "cache", tmp_path / "copy")
    assert stagevalues.load(StageCache(tmp_path / "copy"), "pickled-test", KEY, list[int],
                            list) is None
    manifest = next((tmp_path / "cache" / "stages").glob("pickled-test-*.json"))
    manifest.write_bytes(manifest.read_bytes())   # rewritten in place: its ctime moved
    assert stagevalues.load(StageCache(tmp_path / "cache"), "pickled-test", KEY, list[int],
                            list) is None


def test_typed_json_is_strict_and_builds_the_same_objects():
    from dataclasses import dataclass

    from citavial.build import typedjson
    from citavial.build.models import Version

    v = Version("BOE-A-1", AS_OF, AS_OF)
    back = typedjson.loads(Version, typedjson.dumps(v))
    assert back == v and hash(back) == hash(v) and back.__dict__ == v.__dict__
    bad = json.loads(typedjson.dumps(v))
    assert typedjson.loads(Version, json.dumps({**bad, "norm_id": 1}).encode()) is None
    assert typedjson.loads(Version, json.dumps({**bad, "x": 1}).encode()) is None

    @dataclass(frozen=True)
    class Checked:
        n: int

        def __post_init__(self):
            if self.n < 0:
                raise ValueError("negative")

    assert typedjson.loads(Checked, b'{"n": 2}') == Checked(2)
    assert typedjson.loads(Checked, b'{"n": -1}') is None   # __post_init__ ran
    assert typedjson.loads(Checked, b'{"n": true}') is None


def _encode_reference(value):
    """typedjson.encode as first written: the plain recursion its per-class encoders replace."""
    from dataclasses import fields, is_dataclass
    from datetime import date
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode_reference(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple):
        return [_encode_reference(v) for v in value]
    if isinstance(value, date):
        return value.isoformat()
    return value


def _encode_cases():
    from dataclasses import dataclass, field
    from enum import Enum

    class Kind(str, Enum):
        A = "a"

    @dataclass(frozen=True)
    class Leaf:
        s: str
        n: int
        flag: bool
        when: object = None

    @dataclass(frozen=True)
    class Tree:
        leaves: tuple
        pairs: tuple = ()
        note: object = field(default=None)

    leaf = Leaf("señal", 3, True, AS_OF)
    return [
        pytest.param(leaf, id="dataclass-with-date"),
        pytest.param(Tree((leaf, Leaf("", 0, False))), id="nested-dataclasses"),
        pytest.param(Tree((), (("a", (1, 2)), ("b", ())), AS_OF), id="tuples-of-tuples"),
        pytest.param(Tree((Kind.A, 1.5, None)), id="enum-float-none-in-a-tuple"),
        pytest.param(Leaf("x", 1, False, Kind.A), id="str-subclass-field"),
        pytest.param((AS_OF, "x", (leaf,)), id="bare-tuple"),
    ]


@pytest.mark.parametrize("value", _encode_cases())
def test_typed_json_encode_matches_the_plain_recursion(value):
    from citavial.build import typedjson
    assert json.dumps(typedjson.encode(value)) == json.dumps(_encode_reference(value))


def test_typed_json_of_the_parsed_corpus_matches_the_plain_recursion(reg):
    from citavial.build import typedjson
    assert typedjson.encode(reg) == _encode_reference(reg)


# --- each page's asset rewrite (web/pagememo.py) ------------------------------------------------

def _site(root):
    (root / "static").mkdir(parents=True)
    (root / "static" / "app.js").write_text("console.log(1);\n")
    (root / "a.html").write_text('<script src="static/app.js"></script>\n')
    (root / "sub").mkdir()
    (root / "sub" / "b.html").write_text('<p><script src="../static/app.js?v=1"></script></p>\n')
    return root


def _publish(root, cache_dir):
    from citavial.build.web import assets
    from citavial.build.web.pagememo import PageMemo
    memo = PageMemo(StageCache(cache_dir))
    renamed = assets.hash_assets(root, memo=memo)
    return renamed, memo.reused, tree_hash(root)


def test_unchanged_pages_are_not_rewritten_again_and_come_out_the_same(tmp_path):
    cache = tmp_path / "cache"
    first = _publish(_site(tmp_path / "one"), cache)
    assert first[1] == 0
    again = _publish(_site(tmp_path / "two"), cache)
    assert again[1] == 2 and again[2] == first[2]
    assert again[2] == _publish(_site(tmp_path / "off"), None)[2]


def test_a_changed_page_or_asset_map_is_rewritten_anew(tmp_path):
    cache = tmp_path / "cache"
    _publish(_site(tmp_path / "one"), cache)
    edited = _site(tmp_path / "edit")
    (edited / "a.html").write_text('<p>otra</p><script src="static/app.js"></script>\n')
    _renamed, reused, got = _publish(edited, cache)
    assert reused == 1 and "otra" in (edited / "a.html").read_text()
    assert got == _publish(_edit_a(_site(tmp_path / "off")), None)[2]
    other = _site(tmp_path / "asset")
    (other / "static" / "app.js").write_text("console.log(2);\n")   # another hashed name
    renamed, reused, got = _publish(other, cache)
    assert reused == 0 and renamed["static/app.js"] in (other / "sub" / "b.html").read_text()
    assert got == _publish(_asset_off(tmp_path / "asset-off"), None)[2]


def _edit_a(root):
    (root / "a.html").write_text('<p>otra</p><script src="static/app.js"></script>\n')
    return root


def _asset_off(root):
    _site(root)
    (root / "static" / "app.js").write_text("console.log(2);\n")
    return root


@pytest.mark.parametrize("note", [
    pytest.param({"map": 3, "pages": {}}, id="map-not-text"),
    pytest.param({"map": "x", "pages": {"a.html": ["sha", ["../../etc/passwd"]]}},
                 id="target-climbs-out"),
    pytest.param({"map": "x", "pages": {"a.html": "sha"}}, id="page-not-a-pair"),
    pytest.param([], id="not-an-object"),
])
def test_a_foreign_page_memo_is_not_used(tmp_path, note):
    from citavial.build.web.pagememo import STAGE, PageMemo
    cache = tmp_path / "cache"
    first = _publish(_site(tmp_path / "one"), cache)
    memo = PageMemo(StageCache(cache))
    StageCache(cache).commit([], STAGE, memo.key, json.dumps(note))
    assert _publish(_site(tmp_path / "two"), cache)[1:] == (0, first[2])


# --- one collection of unnamed blobs per build (stagecache.StageCache.hold) ---------------------

def test_held_blobs_are_dropped_once_at_release(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_bytes(b"one")
    cache = StageCache(tmp_path / "cache")
    cache.store("site", Key("t").text("v", "1").hexdigest(), src, ["a.txt"])
    blobs = lambda: sorted(p.name for p in (cache.root / "blobs").iterdir())
    first = blobs()
    cache.hold()
    (src / "a.txt").unlink()
    (src / "a.txt").write_bytes(b"two")
    cache.store("site", Key("t").text("v", "2").hexdigest(), src, ["a.txt"])
    assert set(first) < set(blobs())   # the old entry's blob kept while held
    cache.release()
    assert len(blobs()) == 1 and blobs() != first
    assert cache.restore("site", Key("t").text("v", "2").hexdigest(), tmp_path / "o")
    assert (tmp_path / "o" / "a.txt").read_bytes() == b"two"


@pytest.mark.parametrize("nice", [0, 19])
def test_a_child_beside_the_build_runs_at_the_niceness_asked(nice):
    """beside.Beside(..., nice=19): the corpus's JSON is made at the lowest priority, in the
    second core's idle moments, never slowing the build's own process."""
    from citavial.build import beside
    ok, value = beside.Beside("os:nice", 0, nice=nice).result()   # os.nice(0): its niceness
    assert ok and value == min(19, os.nice(0) + nice)   # 19 at most
