"""The prebuilt index: deterministic bytes, loads without re-indexing, answers, and fails
clearly on a missing or corrupt index, a bad hooks file or an unknown embeddings model."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import FrozenInstanceError, replace

import pytest
from index_helpers import HOOKS, built_dist, passages, searcher

from citavial.build.errors import BuildError
from citavial.build.index.make import build_index
from citavial.build.index.query.rankers import FusionRanker, LexicalRanker
from citavial.build.index.query.retriever import load_retriever
from citavial.build.index.query.search import Searcher
from citavial.build.web.assets import asset


def _tree(path):
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*")) if p.is_file()}


def test_same_input_same_bytes(tmp_path):
    """The index of the built site, rebuilt from the same inputs as the pipeline's, byte for byte."""
    from index_helpers import CORPUS

    from citavial.build.index.embed import corpus_model
    from citavial.build.index.make import promoted_hooks
    from citavial.build.index.signmatch import sign_entry
    site = built_dist()
    urls = {e["ref"]: e["url"] for e in
            json.loads((site / "allowlist.json").read_text(encoding="utf-8"))["entries"]}
    signs = [sign_entry(o) for o in
             json.loads((site / "senales.json").read_text(encoding="utf-8"))["signs"]]
    build_index(passages(), urls, promoted_hooks(CORPUS), tmp_path / "a",
                embeddings=corpus_model(CORPUS), signs=signs)
    build_index(passages(), urls, promoted_hooks(CORPUS, dev_clean=True), tmp_path / "a",
                embeddings=corpus_model(CORPUS), signs=signs, index_dir="index-dev", static=False)
    # the published site names the static index by its content hash (build/web/assets.py)
    published = asset(site, "search-index.js").relative_to(site).as_posix()
    index_files = {("search-index.js" if k == published else k): v
                   for k, v in _tree(site).items()
                   if k.startswith(("index/", "index-dev/")) or k == published
                   or (k.startswith("search/") and not k.endswith(".gz"))}
    assert _tree(tmp_path / "a") == index_files


def test_layout_and_manifest():
    dist = built_dist()
    manifest = json.loads((dist / "index" / "manifest.json").read_text())
    assert manifest["schema"] == "citavial-index/1"
    assert manifest["counts"]["passages"] == len(passages())
    assert manifest["counts"]["hooks"] > 10000
    assert manifest["hooks"] == "hooks-v2+hooks-v4+hooks-v5+hooks-v6"
    # what dev-split measurements read: the same passages, hooks without dev's near-twins
    dev = json.loads((dist / "index-dev" / "manifest.json").read_text())
    assert dev["hooks"] == "hooks-v3+hooks-v4+hooks-v5+hooks-v6"
    assert dev["counts"]["passages"] == len(passages())
    assert 10000 < dev["counts"]["hooks"] < manifest["counts"]["hooks"]
    assert manifest["model"] == {"name": "citavial-static-v1", "bundled": True}
    assert (dist / "index" / "model" / "model.safetensors").is_file()
    assert asset(dist, "search-index.js").read_text().startswith("// citavial static search")


def test_urls_come_from_the_allowlist_or_fall_back_to_the_anchor(tmp_path):
    ps = passages()[:40]
    build_index(ps, {ps[0].ref: "x.html#:~:text=hola"}, HOOKS, tmp_path)
    s = Searcher.load(tmp_path / "index")
    assert s.docs.urls[0] == "x.html#:~:text=hola"
    assert s.docs.urls[1] == f"{ps[1].page}#{ps[1].anchor}"


@pytest.mark.parametrize("question, unit", [
    pytest.param("¿A qué velocidad máxima puede ir un turismo por autopista?",
                 "RD-1428/2003#art48", id="speed"),
    pytest.param("¿Se puede aparcar en doble fila?", "RD-1428/2003#art94", id="double-parking"),
    pytest.param("luces largas deslumbrar", "RD-1428/2003#art100", id="high-beam"),
])
def test_plain_questions_find_their_article(question, unit):
    result = searcher().search(question, k=5)
    assert unit in [h.unit_ref for h in result.hits]


@pytest.mark.parametrize("question, first", [
    pytest.param("artículo 48", "RD-1428/2003#art48.1", id="article"),
    pytest.param("art. 82.2", "RD-1428/2003#art82.2", id="apartado"),
    pytest.param("anexo I, 4", "RD-1428/2003#anexoI.4.p1", id="annex-section"),
])
def test_a_question_that_is_a_reference_gets_it_first(question, first):
    hits = searcher().search(question, k=3).hits
    assert hits[0].ref == first and hits[0].channels


def test_exact_sign_code_reaches_the_top():
    hits = searcher().search("señal M-6.3", k=3).hits
    assert "RD-1428/2003#anexoI.5.p225" in [h.ref for h in hits]


def test_hits_carry_everything_the_worker_needs():
    r = load_retriever(built_dist()).search("¿Cuándo hay que usar el cinturón?", k=10)
    assert len(r.hits) == 10 and r.index_version
    assert r.backend == "bm25-expanded(hooks-v2+hooks-v4+hooks-v5+hooks-v6)"
    assert [h.rank for h in r.hits] == list(range(1, 11))
    # Scores fall within the rolled-up head (top 5) and within the rest, which may start
    # with a second apartado of a head article scoring above the 5th hit.
    for part in (r.hits[:5], r.hits[5:]):
        assert all(a.score >= b.score for a, b in zip(part, part[1:], strict=False))
    s = searcher()
    head = [int(s.docs.group_of[s.docs.ref_row[h.ref]]) for h in r.hits[:5]]
    h = r.hits[0]
    assert h.url and h.text and h.label and dict(h.channels).keys() == {"bm25", "vector", "hooks"}
    evidence = dict(r.evidence)
    assert {"lexical_top", "bm25_top", "hooks_lex_top", "terms_known"} <= evidence.keys()
    assert len(head) == len(set(head))   # roll-up: one passage per article in the head


@pytest.mark.parametrize("name, kind, vectors", [
    pytest.param("lexical", LexicalRanker, False, id="lexical"),
    pytest.param("fusion", FusionRanker, True, id="fusion"),
])
def test_settings_name_the_ranker_and_whether_it_reads_the_embeddings(name, kind, vectors):
    ranker = searcher().ranker(replace(searcher().settings, ranker=name))
    assert isinstance(ranker, kind) and ranker.vectors is vectors


def test_a_loaded_index_cannot_be_changed_by_a_request():
    docs = searcher().docs
    for array in (docs.unit_of, docs.group_of, docs.hook_passage, docs.tiebreak):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0
    with pytest.raises(FrozenInstanceError):
        docs.refs = ()  # type: ignore[misc]


def test_search_is_deterministic():
    a = searcher().search("adelantar a un ciclista", k=20)
    b = searcher().search("adelantar a un ciclista", k=20)
    assert a == b


@pytest.mark.parametrize("question, k, error", [
    pytest.param("hola", 0, ValueError, id="k-zero"),
    pytest.param("hola", 101, ValueError, id="k-too-big"),
    pytest.param(None, 5, TypeError, id="not-a-string"),
])
def test_retriever_rejects_bad_arguments(question, k, error):
    with pytest.raises(error):
        load_retriever(built_dist()).search(question, k=k)


def test_empty_question_has_no_hits():
    assert load_retriever(built_dist()).search("   ", k=5).hits == ()


def _copy(tmp_path):
    dist = tmp_path / "dist"
    shutil.copytree(built_dist(), dist)
    return dist


def _no_index(dist):
    shutil.rmtree(dist / "index")


def _corrupt_arrays(dist):
    p = dist / "index" / "arrays.safetensors"
    p.write_bytes(p.read_bytes()[:-10])


def _missing_passages(dist):
    (dist / "index" / "passages.json").unlink()


def _other_schema(dist):
    p = dist / "index" / "manifest.json"
    p.write_text(p.read_text().replace("citavial-index/1", "citavial-index/0"))


def _bad_json(dist):
    (dist / "index" / "manifest.json").write_text("{not json")


@pytest.mark.parametrize("damage, names", [
    pytest.param(_no_index, "manifest.json", id="missing-index"),
    pytest.param(_corrupt_arrays, "arrays.safetensors", id="truncated-arrays"),
    pytest.param(_missing_passages, "passages.json", id="missing-file"),
    pytest.param(_other_schema, "citavial-index/0", id="other-schema"),
    pytest.param(_bad_json, "not valid JSON", id="manifest-not-json"),
])
def test_loader_errors_name_the_file_and_the_fix(tmp_path, damage, names):
    dist = _copy(tmp_path)
    damage(dist)
    with pytest.raises(BuildError) as err:
        load_retriever(dist)
    assert names in str(err.value) and "citavial build" in str(err.value)


def test_missing_dist_dir(tmp_path):
    with pytest.raises(BuildError, match="citavial build"):
        load_retriever(tmp_path / "nope")


@pytest.mark.parametrize("line, message", [
    pytest.param("{not json", "not valid JSON", id="invalid-json"),
    pytest.param('{"questions": ["¿?"]}', "no string 'ref'", id="no-ref"),
    pytest.param('{"ref": "RD-1428/2003#art48.1", "questions": []}', "non-empty list",
                 id="no-questions"),
])
def test_bad_hooks_line_is_an_error_naming_file_and_line(tmp_path, line, message):
    hooks = tmp_path / "hooks-v9.jsonl"
    hooks.write_text('{"ref": "RD-1428/2003#art48.1", "questions": ["¿Velocidad?"]}\n'
                     + line + "\n", encoding="utf-8")
    with pytest.raises(BuildError) as err:
        build_index(passages()[:50], {}, hooks, tmp_path / "out")
    assert f"{hooks}:2" in str(err.value) and message in str(err.value)
    assert not (tmp_path / "out" / "index" / "manifest.json").exists()


def test_hooks_of_refs_not_in_force_are_skipped_and_counted(tmp_path):
    hooks = tmp_path / "hooks-v2.jsonl"
    hooks.write_text('{"ref": "RD-1428/2003#art999.1", "questions": ["¿a?", "¿b?"]}\n'
                     '{"ref": "RD-1428/2003#art48.1", "questions": ["¿velocidad?"]}\n',
                     encoding="utf-8")
    report = build_index(passages()[:400], {}, hooks, tmp_path / "out")
    assert "1 hook questions (hooks-v2, 2 skipped" in report


def test_unknown_embeddings_name_is_a_clear_error_without_download(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))   # an empty cache
    with pytest.raises(BuildError) as err:
        build_index(passages()[:10], {}, HOOKS, tmp_path / "out",
                    embeddings="potion-multilingual-128M")
    assert "never downloaded" in str(err.value) and "potion-multilingual-128M" in str(err.value)


def test_embeddings_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("CITAVIAL_EMBEDDINGS", str(tmp_path / "missing-model"))
    with pytest.raises(BuildError, match="CITAVIAL_EMBEDDINGS"):
        build_index(passages()[:10], {}, HOOKS, tmp_path / "out")


def test_similarity_tells_which_passage_is_about_the_question():
    r = load_retriever(built_dist())
    speed, phone, unknown = r.similarity("¿A qué velocidad máxima puede ir un turismo por "
                                         "autopista?", ["RD-1428/2003#art48.1.a",
                                                        "RD-1428/2003#art18.2",
                                                        "RD-1428/2003#art999"])
    assert speed > phone > 0 and unknown == 0.0
