"""Search names each hit's norm (issue 23): the CLI's JSON carries ``norm`` and the static page's
data the norm's title beside each passage; a reference-only question ("artículo 48") names the
Reglamento's article. (The index holds the Reglamento's passages only for now: see
build/pipeline.py _indexes.)"""

from __future__ import annotations

import pytest

from citavial.build.index.make.export import read_static
from citavial.build.index.query.lexical import ref_key
from citavial.build.index.query.retriever import load_retriever
from citavial.build.refs import NORMS, Ref
from citavial.build.search_cli import result_json
from citavial.build.web.assets import asset


@pytest.fixture(scope="module")
def retriever(built_site):
    return load_retriever(built_site)


@pytest.mark.parametrize("ref, key", [
    pytest.param("RD-1428/2003#art48.1.a", "art48.1.a", id="reglamento-fragment"),
    pytest.param("RDL-6/2015#anexoII.r10", "RDL-6/2015#anexoII.r10", id="other-norm-whole-ref"),
])
def test_ref_key(ref, key):
    assert ref_key(ref) == key


def test_a_bare_article_number_names_the_reglamento(retriever):
    first = retriever.search("artículo 48", k=5).hits[0]
    assert Ref.parse(first.ref).norm == "RD-1428/2003" and "#art48" in first.ref


def test_cli_json_and_static_page_name_the_norm(built_site, retriever):
    out = result_json(retriever.search("velocidad máxima de un turismo en autopista", k=10))
    assert out["results"] and all(h["norm"] == Ref.parse(h["ref"]).norm for h in out["results"])
    data = read_static(asset(built_site, "search-index.js"))
    assert data["norm"] == "RD-1428/2003"
    assert all(d[6] == NORMS[Ref.parse(d[0] if "#" in d[0] else f"{data['norm']}#{d[0]}").norm].title
               for d in data["docs"])
