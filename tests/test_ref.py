"""The typed reference: parsed once from the canonical string, for every norm of the registry."""

import pytest

from citavial.build.refs import NORMS, Ref, RefError, anchor, page

R = "RD-1428/2003"


@pytest.mark.parametrize("text, norm, parts, unit, anchor_, page_", [
    pytest.param(f"{R}#art48", R, ("art48",), f"{R}#art48", "art48", "art48.html", id="article"),
    pytest.param(f"{R}#art82.2", R, ("art82", "2"), f"{R}#art82", "art82-2", "art82.html",
                 id="apartado"),
    pytest.param(f"{R}#art48.1.a.1o", R, ("art48", "1", "a", "1o"), f"{R}#art48",
                 "art48-1-a-1o", "art48.html", id="ordinal"),
    pytest.param(f"{R}#art36.3.p2", R, ("art36", "3", "p2"), f"{R}#art36", "art36-3-p2",
                 "art36.html", id="paragraph"),
    pytest.param(f"{R}#rd.df1.2.a", R, ("rd", "df1", "2", "a"), f"{R}#rd.df1", "rd-df1-2-a",
                 "rd-df1.html", id="real-decreto-precepto"),
    pytest.param(f"{R}#anexoI.p3", R, ("anexoI", "p3"), f"{R}#anexoI", "anexoI-p3",
                 "anexoI.html", id="annex-own-text"),
    pytest.param(f"{R}#anexoI.5.p37", R, ("anexoI", "5", "p37"), f"{R}#anexoI.5",
                 "anexoI-5-p37", "anexoI-5.html", id="annex-section"),
    pytest.param(f"{R}#anexoII.art14bis.2", R, ("anexoII", "art14bis", "2"),
                 f"{R}#anexoII.art14bis", "anexoII-art14bis-2", "anexoII-art14bis.html",
                 id="annex-article-bis"),
    pytest.param(f"{R}#anexoIII.s1.p3", R, ("anexoIII", "s1", "p3"), f"{R}#anexoIII.s1",
                 "anexoIII-s1-p3", "anexoIII-s1.html", id="annex-seccion"),
    pytest.param(f"{R}#art48.1.ñ", R, ("art48", "1", "ñ"), f"{R}#art48", "art48-1-ñ",
                 "art48.html", id="letter-enye"),
    pytest.param("RDL-6/2015#art76.a", "RDL-6/2015", ("art76", "a"), "RDL-6/2015#art76",
                 "art76-a", "ley-trafico/art76.html", id="ley-letter"),
    pytest.param("RDL-6/2015#anexoII.r10", "RDL-6/2015", ("anexoII", "r10"),
                 "RDL-6/2015#anexoII", "anexoII-r10", "ley-trafico/anexoII.html",
                 id="ley-points-row"),
    pytest.param("RD-818/2009#art4.2", "RD-818/2009", ("art4", "2"), "RD-818/2009#art4",
                 "art4-2", "conductores/art4.html", id="conductores"),
    pytest.param("RD-2822/1998#art10.1", "RD-2822/1998", ("art10", "1"), "RD-2822/1998#art10",
                 "art10-1", "vehiculos/art10.html", id="vehiculos"),
])
def test_parse(text, norm, parts, unit, anchor_, page_):
    ref = Ref.parse(text)
    assert (ref.norm, ref.parts) == (norm, parts)
    assert str(ref) == text                      # the canonical string, byte for byte
    assert str(ref.unit) == unit
    assert ref.anchor == anchor_ and ref.page == page_
    assert ref.norm in NORMS


@pytest.mark.parametrize("text", [
    pytest.param(f"{R}#art48", id="article"),
    pytest.param(f"{R}#art82.2", id="apartado"),
    pytest.param(f"{R}#anexoI.5.p37", id="annex-paragraph"),
    pytest.param(f"{R}#rd.df1", id="real-decreto"),
])
def test_reglamento_anchor_and_page_unchanged(text):
    """The Reglamento's published anchors and pages: the old string functions, the same bytes."""
    ref = Ref.parse(text)
    assert ref.anchor == anchor(text) == ref.fragment.replace(".", "-")
    assert ref.unit.page == page(str(ref.unit))


@pytest.mark.parametrize("text, apartado, letter, paragraph", [
    pytest.param(f"{R}#art48", None, None, None, id="lead"),
    pytest.param(f"{R}#art48.1.a", "1", "a", None, id="letter"),
    pytest.param(f"{R}#art48.1.a.1o", "1", "a", "1o", id="ordinal"),
    pytest.param(f"{R}#art36.3.p2", "3", None, "p2", id="paragraph"),
    pytest.param(f"{R}#anexoI.5.p37", None, None, "p37", id="annex-section-paragraph"),
    pytest.param("RDL-6/2015#art76.a", None, "a", None, id="ley-letter-without-apartado"),
])
def test_parts(text, apartado, letter, paragraph):
    ref = Ref.parse(text)
    assert (ref.apartado, ref.letter, ref.paragraph) == (apartado, letter, paragraph)


@pytest.mark.parametrize("text, row", [
    pytest.param("RDL-6/2015#anexoII.r10", 10, id="points-row"),
    pytest.param("RDL-6/2015#anexoII", None, id="table-unit"),
    pytest.param(f"{R}#art5.r", None, id="letter-r-is-not-a-row"),
    pytest.param(f"{R}#anexoI.5.p37", None, id="paragraph"),
])
def test_row(text, row):
    assert Ref.parse(text).row == row


@pytest.mark.parametrize("earlier, later", [
    pytest.param("anexoI.5.p9", "anexoI.5.p10", id="annex-p9-before-p10"),
    pytest.param("art9", "art10", id="art9-before-art10"),
    pytest.param("art14", "art14bis", id="art14-before-14bis"),
    pytest.param("art14bis", "art15", id="art14bis-before-15"),
    pytest.param("art48", "art48.1", id="unit-before-its-apartado"),
    pytest.param("art48.p2", "art48.1", id="continuation-before-apartado"),
    pytest.param("art48.1.n", "art48.1.ñ", id="n-before-enye"),
    pytest.param("art48.1.ñ", "art48.1.o", id="enye-before-o"),
    pytest.param("art48.1.a.1o", "art48.1.a.2o", id="ordinals"),
    pytest.param("art48.2", "art48.10", id="apartado-2-before-10"),
    pytest.param("rd.df5", "art1", id="real-decreto-before-reglamento"),
    pytest.param("art173", "da1", id="articles-before-dispositions"),
    pytest.param("df4", "anexoI", id="dispositions-before-annexes"),
    pytest.param("anexoII.art14", "anexoIII", id="anexoII-before-III"),
    pytest.param("anexoIV", "anexoV", id="roman-IV-before-V"),
])
def test_sort_key_is_document_order(earlier, later):
    a, b = Ref.parse(f"{R}#{earlier}"), Ref.parse(f"{R}#{later}")
    assert a.sort_key < b.sort_key
    assert sorted([b, a], key=lambda r: r.sort_key) == [a, b]


def test_string_order_misplaces_annex_paragraphs():
    """Why the key exists: string order puts …p10 before …p9."""
    refs = [f"{R}#anexoI.5.p{i}" for i in (1, 2, 9, 10, 11)]
    assert sorted(refs) != refs
    assert sorted(refs, key=lambda t: Ref.parse(t).sort_key) == refs


@pytest.mark.parametrize("outer, inner, contained", [
    pytest.param("art48", "art48.1.a", True, id="article-contains-letter"),
    pytest.param("art48", "art48", True, id="contains-itself"),
    pytest.param("art48.1", "art48.10", False, id="not-a-string-prefix"),
    pytest.param("art48", "art4", False, id="shorter-ref"),
    pytest.param("anexoI.5", "anexoI.5.p37", True, id="annex-section"),
])
def test_contains(outer, inner, contained):
    assert Ref.parse(f"{R}#{outer}").contains(Ref.parse(f"{R}#{inner}")) is contained


def test_contains_never_crosses_norms():
    assert not Ref.parse("RD-818/2009#art4").contains(Ref.parse(f"{R}#art4.2"))


@pytest.mark.parametrize("text, parent", [
    pytest.param(f"{R}#art48.1.a.1o", f"{R}#art48.1.a", id="ordinal"),
    pytest.param(f"{R}#art36.3.p2", f"{R}#art36.3", id="paragraph"),
    pytest.param(f"{R}#anexoII.art14bis", f"{R}#anexoII", id="annex-article"),
    pytest.param(f"{R}#art48", None, id="top"),
])
def test_parent(text, parent):
    up = Ref.parse(text).parent
    assert (str(up) if up else None) == parent


@pytest.mark.parametrize("text", [
    pytest.param("art48", id="no-norm"),
    pytest.param("RD-1428/2004#art48", id="unknown-norm"),
    pytest.param("Ley-6/2015#art76", id="unknown-prefix"),
    pytest.param(f"{R}#", id="empty-fragment"),
    pytest.param(f"{R}#art48..1", id="empty-part"),
    pytest.param(f"{R}#art48.1 a", id="space"),
    pytest.param(f"{R}#art48.1.", id="trailing-dot"),
])
def test_errors(text):
    with pytest.raises(RefError):
        Ref.parse(text)


def test_every_unit_page_and_passage_anchor_of_the_reglamento(reg):
    """The type reproduces every ref, unit, page and anchor the build publishes, and sorts the
    passages in document order except where the BOE numbers paragraphs after letters."""
    for u in reg.units:
        assert Ref.parse(u.ref).unit == Ref.parse(u.ref), u.ref   # a unit is its own unit
    passages = [(u, b) for u in reg.units for b in u.passages]
    for u, b in passages:
        ref = Ref.parse(b.ref)
        assert str(ref) == b.ref and ref.unit == Ref.parse(u.ref)
        assert ref.page == u.page == Ref.parse(u.ref).page
    refs = [b.ref for _, b in passages]
    ordered = sorted(refs, key=lambda t: Ref.parse(t).sort_key)
    misplaced = {a for a, b in zip(refs, ordered, strict=False) if a != b}
    # rd.df1.2: "p2, a), b), c), p3, p4" — paragraphs after letters; the ref cannot tell.
    assert misplaced <= {f"{R}#rd.df1.2.{p}" for p in ("a", "b", "c", "p3", "p4")}
