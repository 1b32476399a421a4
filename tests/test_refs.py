"""parse_ref accepts the human forms people write and rejects anything else with a clear error."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citavial.build.refs import NORMS, RefError, anchor, canonical, page, parse_ref, short_ref


@pytest.mark.parametrize("text, expected", [
    pytest.param("RD-1428/2003#art82.2", "RD-1428/2003#art82.2", id="canonical"),
    pytest.param("art82.2", "RD-1428/2003#art82.2", id="bare-fragment"),
    pytest.param("artículo 82.2", "RD-1428/2003#art82.2", id="articulo-dot"),
    pytest.param("Artículo 48", "RD-1428/2003#art48", id="article-only"),
    pytest.param("art. 87.1 b)", "RD-1428/2003#art87.1.b", id="art-dot-letter"),
    pytest.param("Art 82, apartado 2", "RD-1428/2003#art82.2", id="apartado-word"),
    pytest.param("artículo 87.1.b", "RD-1428/2003#art87.1.b", id="dotted-letter"),
    pytest.param("art. 87.1, letra b)", "RD-1428/2003#art87.1.b", id="letra-word"),
    pytest.param("artículo 14 bis del anexo II", "RD-1428/2003#anexoII.art14bis", id="annex-bis"),
    pytest.param("anexo I, 5", "RD-1428/2003#anexoI.5", id="annex-section"),
    pytest.param("Anexo III, sección 1", "RD-1428/2003#anexoIII.s1", id="annex-iii-section"),
    pytest.param("anexo IV", "RD-1428/2003#anexoIV", id="annex"),
    pytest.param("disposición final cuarta", "RD-1428/2003#df4", id="disposition"),
    pytest.param("Disposición final primera del Real Decreto", "RD-1428/2003#rd.df1",
                 id="rd-disposition"),
    pytest.param("disposición derogatoria única del real decreto", "RD-1428/2003#rd.dd",
                 id="derogatoria-unica"),
    # another norm: its canonical ref, or a human form that names it at the end
    pytest.param("RDL-6/2015#art76.a", "RDL-6/2015#art76.a", id="ley-canonical"),
    pytest.param("RDL-6/2015#anexoII.r10", "RDL-6/2015#anexoII.r10", id="ley-points-row"),
    pytest.param("RD-818/2009#art4.2", "RD-818/2009#art4.2", id="conductores-canonical"),
    pytest.param("RD-2822/1998#art10.1", "RD-2822/1998#art10.1", id="vehiculos-canonical"),
    pytest.param("art. 76 de la Ley sobre Tráfico", "RDL-6/2015#art76", id="ley-human"),
    pytest.param("art. 76 a) de la Ley sobre Trafico", "RDL-6/2015#art76.a",
                 id="ley-letter-under-article-no-accent"),
    pytest.param("artículo 65.5 j) de la LSV", "RDL-6/2015#art65.5.j", id="ley-abbreviation"),
    pytest.param("anexo II de la Ley sobre Tráfico, Circulación de Vehículos a Motor y "
                 "Seguridad Vial", "RDL-6/2015#anexoII", id="ley-full-title"),
    pytest.param("artículo 76 del Real Decreto Legislativo 6/2015", "RDL-6/2015#art76",
                 id="ley-decree-number"),
    pytest.param("artículo 4.2 del Reglamento General de Conductores", "RD-818/2009#art4.2",
                 id="conductores-human"),
    pytest.param("Artículo 10.1 del reglamento general de vehiculos", "RD-2822/1998#art10.1",
                 id="vehiculos-human-lower-case"),
    pytest.param("disposición adicional primera del RGCond", "RD-818/2009#da1",
                 id="conductores-disposition"),
    pytest.param("art. 4.2 del Reglamento de Conductores", "RD-818/2009#art4.2",
                 id="conductores-label-short-name"),
    pytest.param("artículo 20 del Reglamento General de Circulación", "RD-1428/2003#art20",
                 id="rgc-named"),
    pytest.param("art 82, RGC", "RD-1428/2003#art82", id="rgc-abbreviation"),
])
def test_parse_ref_accepts(text, expected):
    assert parse_ref(text) == expected


@pytest.mark.parametrize("text", [
    pytest.param("", id="empty"),
    pytest.param("artículo", id="no-number"),
    pytest.param("art. 87 b)", id="letter-without-apartado"),
    pytest.param("ley 6/2015 art 12", id="other-law"),
    pytest.param("RD-1428/2003#", id="empty-fragment"),
    pytest.param("RD-999/2003#art1", id="other-norm"),
    pytest.param("capítulo II", id="chapter"),
    pytest.param("https://example.org/art1", id="url"),
    pytest.param("disposición final vigésima", id="unknown-ordinal"),
    pytest.param("RDL-7/2015#art1", id="canonical-unknown-norm"),
    pytest.param("Ley sobre Tráfico", id="norm-name-alone"),
    pytest.param("art. 76 de la Ley de Enjuiciamiento Civil", id="norm-not-on-the-site"),
    pytest.param("art. 87 b) del Reglamento General de Circulación", id="rgc-letter-no-apartado"),
])
def test_parse_ref_rejects(text):
    with pytest.raises(RefError) as err:
        parse_ref(text)
    assert "write e.g." in str(err.value)


@pytest.mark.parametrize("ref, anchor_, page_", [
    ("RD-1428/2003#art82.2", "art82-2", "art82-2.html"),
    ("RD-1428/2003#anexoI.5.p37", "anexoI-5-p37", "anexoI-5-p37.html"),
    ("RD-1428/2003#rd.df1", "rd-df1", "rd-df1.html"),
])
def test_anchor_and_page(ref, anchor_, page_):
    assert anchor(ref) == anchor_
    assert page(ref) == page_


@pytest.mark.parametrize("ref, short", [
    pytest.param("RD-1428/2003#art82.2", "art82.2", id="reglamento-bare"),
    pytest.param("RDL-6/2015#anexoII.r10", "RDL-6/2015#anexoII.r10", id="other-norm-whole"),
    pytest.param("not a ref", "not a ref", id="unchanged"),
])
def test_short_ref(ref, short):
    assert short_ref(ref) == short


segment = st.from_regex(r"[A-Za-z0-9]{1,6}", fullmatch=True)


@given(st.lists(segment, min_size=1, max_size=5))
def test_canonical_round_trips(parts):
    ref = canonical(".".join(["art1"] + parts))
    assert parse_ref(ref) == ref


@given(st.lists(segment, min_size=1, max_size=4), st.lists(segment, min_size=1, max_size=4))
def test_anchor_is_injective(a, b):
    ra, rb = canonical(".".join(a)), canonical(".".join(b))
    assert (anchor(ra) == anchor(rb)) == (ra == rb)


@pytest.mark.parametrize("prefix", sorted(NORMS))
def test_a_labels_short_name_parses_back(prefix):
    """What a chip shows ("Reglamento de Conductores, art. 4.2") names the norm in a human ref."""
    short = NORMS[prefix].short or NORMS[prefix].title
    assert parse_ref(f"artículo 4.2 del {short}") == f"{prefix}#art4.2"
