"""read_page(): the searchable text and its blocks, as Chromium's finder sees them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citavial.build.gate.fragments import read_page


def blocks(html: str) -> list[tuple[str | None, str]]:
    return [(b.anchor, b.text) for b in read_page(html).blocks]


CASES = [
    ("paragraphs", '<p id="a">uno</p><p id="b">dos</p>', [("a", "uno"), ("b", "dos")]),
    ("inline-concatenates", '<p id="a">la <em>vía</em> <strong>pú</strong>blica</p>',
     [("a", "la vía pública")]),
    ("whitespace-collapses", '<p id="a">\n  uno \t\n dos  <span> tres </span> </p>',
     [("a", "uno dos tres")]),
    ("nbsp-kept", '<p id="a">art.&nbsp; 5</p>', [("a", "art.\u00a0 5")]),
    ("br-is-a-newline", '<p id="a">uno<br>dos</p>', [("a", "uno\ndos")]),
    ("spaces-around-br", '<p id="a">uno <br> dos <br></p>', [("a", "uno\ndos")]),
    ("td-th-cells", '<table id="t"><tr><th>h</th><td id="c">x</td></tr></table>',
     [("t", "h"), ("c", "x")]),
    ("li-items", '<ul id="u"><li>uno</li><li id="l">dos</li></ul>', [("u", "uno"), ("l", "dos")]),
    ("anonymous-text", '<div id="d">uno <p id="p">dos</p> tres</div>',
     [("d", "uno"), ("p", "dos"), ("d", "tres")]),
    ("nearest-id", '<section id="s"><div><p>uno</p></div></section>', [("s", "uno")]),
    ("no-id", "<p>uno</p>", [(None, "uno")]),
    ("head-skipped", "<html><head><title>T</title></head><body><p>x</p></body></html>",
     [(None, "x")]),
    ("script-style-template", '<script>a</script><style>b</style><template>c</template><p>x</p>',
     [(None, "x")]),
    ("hidden-and-display-none", '<p hidden>a</p><p style="display: none !important">b</p><p>x</p>',
     [(None, "x")]),
    ("until-found-searchable", '<div hidden="until-found">x</div>', [(None, "x")]),
    ("details-searchable", "<details><summary>s</summary>x</details>", [(None, "s"), (None, "x")]),
    ("visibility", '<div style="visibility:hidden">a<p style="visibility:visible">x</p></div>',
     [(None, "x")]),
    ("img-alt-skipped", '<p>uno <img alt="ALT" src="x.png"> dos</p>', [(None, "uno dos")]),
    ("input-breaks", "<p>uno <input> dos</p>", [(None, "uno"), (None, "dos")]),
    ("hidden-input-nothing", '<p>uno <input type="hidden"> dos</p>', [(None, "uno dos")]),
    ("select-nothing", "<p>uno <select><option>o</option></select> dos</p>", [(None, "uno dos")]),
    ("wbr-nothing", "<p>circu<wbr>lación</p>", [(None, "circulación")]),
    ("inline-block-breaks", '<p>uno <span style="display:inline-block">dos</span> tres</p>',
     [(None, "uno"), (None, "dos"), (None, "tres")]),
    ("div-display-inline", '<div>uno <div style="display:inline">dos</div></div>',
     [(None, "uno dos")]),
    ("dialog", "<dialog>a</dialog><dialog open>x</dialog>", [(None, "x")]),
    ("textarea-no-anchor", '<div id="d"><textarea>t</textarea></div>', [(None, "t")]),
    ("pre-keeps-spaces-and-newlines", '<pre id="p">uno  dos\ntres</pre>', [("p", "uno  dos\ntres")]),
    ("pre-line", '<p style="white-space:pre-line">uno  dos \n tres</p>', [(None, "uno dos\ntres")]),
    ("comment-tail", "<p>ab<!-- c -->cd</p>", [(None, "abcd")]),
    ("svg-text", '<svg><title>t</title><text id="s">x</text></svg>', [("s", "x")]),
    ("only-ignorables-dropped", "<p>\u200b</p><p>x</p>", [(None, "x")]),
]


@pytest.mark.parametrize("html,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_blocks(html, expected):
    assert blocks(html) == expected


def test_bytes_and_str_agree():
    html = '<meta charset="utf-8"><p id="a">la vía</p>'
    assert blocks(html.encode("utf-8")) == blocks(html) == [("a", "la vía")]


def test_empty_page():
    page = read_page("")
    assert page.blocks == () and page.joined == ""


def test_joined_and_extent():
    page = read_page('<div id="d"><p id="a">Uno</p><p>Dos <b id="b">TRES</b></p></div><p>x</p>')
    assert page.joined == "uno\ndos tres\nx"
    assert page.extent("b") == (8, 12)
    assert page.extent("d") == (0, 12)
    assert page.extent("nope") is None


def test_chain_at_inline_id():
    page = read_page('<p id="a">ver <a id="lnk">el art</a> x</p>')
    block = page.blocks[0]
    assert [page.ids[s] for s in block.chain_at(4)] == ["a", "lnk"]
    assert [page.ids[s] for s in block.chain_at(0)] == ["a"]


def test_repr_is_short():
    page = read_page("<p id='a'>" + "palabra " * 50 + "</p>")
    assert len(repr(page.blocks[0])) < 70 and "1 blocks" in repr(page)


@pytest.mark.parametrize("tag", ["wbr", "source", "track", "embed", "keygen"])
def test_html5_void_elements_do_not_swallow_text(tag):
    assert blocks(f"<p>uno<{tag}> dos</p><p>tres</p>") == [(None, "uno dos"), (None, "tres")]


def _kept_reference(kinds: str) -> list[int]:
    """The collapse rule item by item (the walker's original loop), as kept indexes."""
    out: list[int] = []
    for i, k in enumerate(kinds):
        if not out and k != "t":
            continue  # leading whitespace and <br>s
        if k == "c" and kinds[out[-1]] != "t":
            continue  # collapse a whitespace run
        if k == "n":
            while out and kinds[out[-1]] == "c":
                out.pop()  # spaces before a forced line break
        out.append(i)
    while out and kinds[out[-1]] != "t":
        out.pop()  # trailing whitespace
    return out


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="tcn", max_size=40))
def test_kept_spans_equal_the_item_by_item_rule(kinds):
    from citavial.build.gate.fragments.collapse import kept_spans
    view = kinds.translate(str.maketrans("cn", " \n"))
    kept = [i for a, b in kept_spans(view) for i in range(a, b)]
    assert kept == _kept_reference(kinds)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "<b>", "</b>", "<br>", "<span>", "</span>",
                                           "<pre>", "</pre>", "<p>", "</p>"]),
                          st.text(alphabet=" \t\n\rab", max_size=6)), max_size=8))
def test_segments_start_at_each_text_node(parts):
    """Segments start inside the block, strictly in order; no carriage return is rendered."""
    html = "<body><div id='x'>" + "".join(tag + txt for tag, txt in parts) + "</div></body>"
    for block in read_page(html).blocks:
        starts = [s[0] for s in block.segments]
        assert starts == sorted(set(starts)) and 0 <= starts[0] < len(block.text)
        assert "\r" not in block.text and block.text[0] not in "\n"


def _model(page) -> tuple:
    return (page.blocks, page.ids, page.joined, page.starts, page.details, page.summaries)


def test_the_plain_parser_reads_what_lxml_html_reads(built_site, monkeypatch):
    """read_page parses with lxml's plain HTML parser (issue 26: lxml.html's Python lookup of
    an element class per element was a tenth of a page's reading): every block, anchor and
    segment is the same as from lxml.html's tree, on the site's pages and the cases above."""
    import lxml.html

    from citavial.build.gate.fragments import textmodel as T
    pages = [p.read_bytes() for p in sorted(built_site.rglob("*.html"))[::3]]
    pages += [html for _name, html, _blocks in CASES]
    plain = [_model(T.read_page(p)) for p in pages]
    monkeypatch.setattr(T, "_PARSER", lxml.html.HTMLParser())
    monkeypatch.setattr(T, "_STRING", lambda el: el.text_content())
    assert [_model(T.read_page(p)) for p in pages] == plain
    assert len(pages) > 200 and sum(len(m[0]) for m in plain) > 5000


PAGES = [   # blocks that recur from page to page (the site's chrome) and blocks that do not
    '<nav><a href="/">Índice</a> <a href="/g">Guías</a></nav><p id="a">uno  <em>dos</em></p>',
    '<nav><a href="/">Índice</a> <a href="/g">Guías</a></nav><pre id="p">  uno\n dos </pre>',
    '<nav><a href="/">Índice</a></nav><p id="b">uno <br> dos</p><p>Guías</p>',
    '<p id="c">uno  dos</p><pre id="d">uno  dos</pre>',   # one raw text, two renderings
]


def test_a_page_reads_the_same_after_other_pages(monkeypatch):
    """A block's rendered text is remembered across pages (textmodel._RENDERED: most of a site's
    blocks are its chrome); pages read one after another, the memo kept, are the pages read
    with nothing remembered from one block to the next."""
    from citavial.build.gate.fragments import textmodel
    class Forgets(dict):
        def __setitem__(self, key, value):
            pass

    monkeypatch.setattr(textmodel, "_RENDERED", Forgets())
    alone = [read_page(html) for html in PAGES]
    monkeypatch.setattr(textmodel, "_RENDERED", {})
    together = [read_page(html) for html in PAGES + PAGES]
    assert together == alone + alone
    assert len(textmodel._RENDERED) > 1   # the memo was used


def test_the_rendered_text_memo_is_bounded(monkeypatch):
    from citavial.build.gate.fragments import textmodel
    monkeypatch.setattr(textmodel, "_RENDERED_MAX", 3)
    textmodel._RENDERED.clear()
    read_page("".join(f"<p>bloque {i}</p>" for i in range(10)))
    assert len(textmodel._RENDERED) <= 3
