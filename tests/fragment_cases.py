"""Text-fragment cases with the outcome measured in Chromium 156 (the ground truth).

Shared by the fast matcher tests (Python must reproduce ``expect``) and the browser test
(Chromium must still produce ``expect``, so Python and Chromium agree). ``expect`` is the id of
the closest element with an id around the match (what ``:target.closest('[id]')`` gives),
``""`` for a match with no id around it, or None when nothing matches.
"""

from __future__ import annotations

from typing import NamedTuple

SENTINEL = "zzcentinelazz"


class Case(NamedTuple):
    id: str
    body: str
    fragment: str  # without '#'
    expect: str | None


def page_html(body: str) -> str:
    """The full page for a case: a spacer (so a match must scroll), the body, a sentinel block."""
    return (
        '<!doctype html><html lang="es"><head><meta charset="utf-8"><title>caso</title></head>'
        f'<body><div style="height:1500px"></div>{body}'
        f'<div style="height:1500px"></div><p id="sentinel">{SENTINEL}</p></body></html>'
    )


def python_target(html: str, fragment: str) -> str | None:
    """What the Python model says ``:target.closest('[id]')`` is: id, "" (no id) or None.

    The first valid directive that matches decides (Chromium targets the first directive that
    matches); the element id in front of ``:~:`` is never a fallback (measured).
    """
    from citavial.build.gate.fragments import match_directive, parse_fragment, read_page
    page = read_page(html)
    for directive in parse_fragment(fragment)[1]:
        if directive is not None and (hit := match_directive(page, directive)) is not None:
            return (hit.target or "") if hit.targetable else None
    return None


def _enc(text: str) -> str:
    from citavial.build.gate.fragments import encode_term
    return encode_term(text)


def _t(*terms: str, prefix: str | None = None, suffix: str | None = None, el: str = "") -> str:
    parts = ([_enc(prefix) + "-"] if prefix else []) + [_enc(t) for t in terms]
    parts += ["-" + _enc(suffix)] if suffix else []
    return f"{el}:~:text=" + ",".join(parts)


def _two(text: str, term: str) -> tuple[str, str]:
    """A decoy block before the real one, so a match must land on #b1."""
    return f'<p id="b0">zzz</p><p id="b1">{text}</p>', _t(term)


def _norm(name: str, text: str, term: str, expect: str | None) -> Case:
    body, frag = _two(text, term)
    return Case(name, body, frag, expect)


NORMALIZATION = [
    _norm("accent-via", "la vía pública", "via publica", "b1"),
    _norm("enye-n", "el niño juega", "nino", "b1"),
    _norm("n-enye", "el nino juega", "niño", "b1"),
    _norm("u-diaeresis", "el pingüino", "pinguino", "b1"),
    _norm("case", "ARTÍCULO 5", "artículo 5", "b1"),
    _norm("fullwidth-digits", "hora １２ fin", "hora 12 fin", "b1"),
    _norm("ordinal-o", "1º apartado", "1o apartado", "b1"),
    _norm("ordinal-a", "2ª vez", "2a vez", "b1"),
    _norm("superscript-2", "m² total", "m2 total", "b1"),
    _norm("ligature-fi", "ﬁnal del texto", "final del", "b1"),
    _norm("eszett", "die straße hier", "strasse hier", "b1"),
    _norm("o-stroke", "the søren come", "soren come", "b1"),
    _norm("ae-ligature", "the æsir come", "aesir come", "b1"),
    _norm("thorn-distinct", "þing x", "thing x", None),
    _norm("dotless-i-distinct", "ırmak x", "irmak x", None),
    _norm("nbsp-page", "art.&nbsp;5 del", "art. 5 del", "b1"),
    _norm("nbsp-term", "art. 5 del", "art.\u00a05 del", "b1"),
    _norm("soft-hyphen-page", "circu&shy;lación vial", "circulación vial", "b1"),
    _norm("zwsp-page", "ab\u200bcd ef", "abcd ef", "b1"),
    _norm("curly-apostrophe", "l’auto bien", "l'auto bien", "b1"),
    _norm("curly-dquotes", "dijo “hola” ya", 'dijo "hola" ya', "b1"),
    _norm("guillemets-not-quotes", "dijo «hola» ya", 'dijo "hola" ya', None),
    _norm("guillemets-exact", "dijo «hola» ya", "dijo «hola» ya", "b1"),
    _norm("en-dash-not-hyphen", "a – b c", "a - b c", None),
    _norm("ellipsis", "y así… fin", "así... fin", "b1"),
    _norm("half-not-slash", "x ½ y", "x 1/2 y", None),
    _norm("spacing-acute-not-space", "x a´b y", "x a b y", None),
    _norm("combining-acute", "vi\u0301a libre", "vía libre", "b1"),
    _norm("prime-not-apostrophe", "5′ ya", "5' ya", None),
    _norm("newline-in-source", "a\n   b c", "a b c", "b1"),
    _norm("term-double-space", "a b c", "a  b c", None),
    _norm("term-tab", "a b c", "a\tb c", None),
    _norm("nbsp-plus-space-page", "a&nbsp; b c", "a b c", None),
    _norm("term-leading-space-block-start", "a b c", " a b c", None),
    _norm("term-leading-space-mid-block", "x a b c", " a b c", "b1"),
    _norm("term-trailing-space", "a b c d", "a b c ", "b1"),
]

BOUNDARIES = [
    _norm("range-in-orange", "an orange x", "range", None),
    _norm("range-in-ranger", "a ranger x", "range", None),
    _norm("digit-dot-digit", "art 5.1 x", "art 5", None),
    _norm("digit-comma-digit", "art 5,1 x", "art 5", None),
    _norm("digit-dot-space", "art 5. x", "art 5", "b1"),
    _norm("letter-dot-letter", "x a.b y", "x a", "b1"),
    _norm("apostrophe-letters", "x l'auto y", "x l", None),
    _norm("colon-letters", "x a:b y", "x a", "b1"),
    _norm("underscore", "x abc_def y", "x abc", None),
    _norm("digit-ordinal", "x 12º y", "x 12", None),
    _norm("digit-dot-ordinal", "x 1.º y", "x 1", "b1"),
    _norm("m-superscript", "x m² y", "x m", "b1"),
    _norm("accented-plural", "x vías y", "x vía", None),
    _norm("digit-letter", "x 5a y", "x 5", None),
    _norm("hyphen", "x a-b y", "x a", "b1"),
    _norm("inverted-question", "x ¿qué y", "qué y", "b1"),
    _norm("middle-dot-letters", "x ab·c y", "x ab", None),
    _norm("combining-end", "x cafe\u0301 y", "x cafe", "b1"),
    _norm("combining-inside", "x y\u0301z", "x y", None),
    _norm("soft-hyphen-breaks", "x ab\u00adcd y", "x ab", "b1"),
    _norm("word-joiner-joins", "x ab\u2060cd y", "x ab", None),
    _norm("term-starts-mid-word", "abc def", "bc def", None),
    _norm("term-ends-mid-word", "abc def", "abc de", None),
    _norm("digit-semicolon-digit", "x 5;5 y", "x 5", None),
    _norm("parenthesis", "x(a)y", "(a)", "b1"),
]

Z = '<p id="z">zzz</p>'

STRUCTURE = [
    Case("br-straddle", Z + '<p id="a">uno<br>dos tres</p>', _t("uno dos"), None),
    Case("br-newline-term", Z + '<p id="a">uno<br>dos tres</p>', _t("uno\ndos"), "a"),
    Case("br-spaces-newline-term", Z + '<p id="a">uno <br> dos tres</p>', _t("uno\ndos"), "a"),
    Case("br-spaces-term-space", Z + '<p id="a">uno <br> dos tres</p>', _t("uno \ndos"), None),
    Case("pre-newline-term", Z + '<pre id="a">uno\ndos tres</pre>', _t("uno\ndos"), "a"),
    Case("pre-double-space", Z + '<pre id="a">uno  dos</pre>', _t("uno  dos"), "a"),
    Case("br-trailing-newline-term", Z + '<p id="a">uno dos<br></p>', _t("uno dos\n"), None),
    Case("br-leading-newline-term", Z + '<p id="a"><br>uno dos</p>', _t("\nuno dos"), None),
    Case("br-double", Z + '<p id="a">uno<br><br>dos</p>', _t("uno\n\ndos"), "a"),
    Case("br-after", Z + '<p id="a">uno<br>dos tres</p>', _t("dos tres"), "a"),
    Case("td-straddle", Z + '<table><tr><td id="a">uno</td><td id="b">dos</td></tr></table>',
         _t("uno dos"), None),
    Case("td-cell", Z + '<table><tr><td id="a">uno</td><td id="b">dos</td></tr></table>',
         _t("dos"), "b"),
    Case("li-straddle", Z + '<ul><li id="a">uno</li><li id="b">dos</li></ul>', _t("uno dos"), None),
    Case("nested-block-straddle", Z + '<div id="a">uno <p id="b">dos</p> tres</div>',
         _t("uno dos"), None),
    Case("anonymous-block", Z + '<div id="a">uno <p id="b">dos</p> tres cuatro</div>',
         _t("tres cuatro"), "a"),
    Case("inline-em", Z + '<p id="a">la <em>vía</em> pública</p>', _t("la via publica"), "a"),
    Case("inline-in-word", Z + '<p id="a">circu<em>la</em>ción x</p>', _t("circulación x"), "a"),
    Case("inline-id", Z + '<p id="a">ver <a id="lnk" href="#">el artículo</a> cinco</p>',
         _t("el artículo"), "lnk"),
    Case("inline-id-whole", Z + '<p id="a">ver <a id="lnk" href="#">el artículo</a> cinco</p>',
         _t("ver el artículo cinco"), "a"),
    Case("inline-block", Z + '<p id="a">uno <span style="display:inline-block">dos</span> t</p>',
         _t("uno dos"), None),
    Case("sup-joins", Z + '<p id="a">texto<sup>1</sup> más</p>', _t("texto1 más"), "a"),
    Case("img-transparent", Z + '<p id="a">uno <img alt="FOTO" src="data:,"> dos</p>',
         _t("uno dos"), "a"),
    Case("img-alt-hidden", Z + '<p id="a">uno <img alt="FOTO" src="data:,"> dos</p>',
         _t("FOTO"), None),
    Case("input-breaks", Z + '<p id="a">uno <input value="x"> dos</p>', _t("uno dos"), None),
    Case("select-transparent", Z + '<p id="a">uno <select><option>x</option></select> dos</p>',
         _t("uno dos"), "a"),
    Case("wbr-nothing", Z + '<p id="a">circu<wbr>lación x</p>', _t("circulación x"), "a"),
    Case("hidden-attr", Z + '<p id="h" hidden>secreto</p><p id="a">secreto</p>', _t("secreto"), "a"),
    Case("display-none", Z + '<p id="h" style="display:none">secreto</p><p id="a">secreto</p>',
         _t("secreto"), "a"),
    Case("visibility-hidden", Z + '<p id="h" style="visibility:hidden">secreto</p>'
         '<p id="a">secreto</p>', _t("secreto"), "a"),
    Case("noscript", Z + '<noscript><p id="h">secreto</p></noscript><p id="a">secreto</p>',
         _t("secreto"), "a"),
    Case("details-closed", Z + '<details><summary>res</summary><p id="h">secreto</p></details>'
         '<p id="a">secreto</p>', _t("secreto"), "h"),
    Case("details-single-text-node", Z + '<details id="d"><summary>r</summary>x uno dos y'
         '</details>', _t("uno dos"), "d"),
    Case("details-two-text-nodes", Z + '<details id="d"><summary>r</summary><em>x uno</em> dos y'
         '</details><p id="a">uno dos</p>', _t("uno dos"), None),
    Case("details-range-two-children", Z + '<details id="d"><summary>r</summary><p id="h">uno x'
         '</p><p id="h2">dos</p></details>', _t("uno", "dos"), None),
    Case("details-range-in-div", Z + '<details id="d"><summary>r</summary><div id="w"><p>uno x'
         '</p><p>dos</p></div></details>', _t("uno", "dos"), "w"),
    Case("details-range-summary-to-body", Z + '<div id="w"><details><summary>la arcén</summary>'
         '<p>x</p><p>ñu</p></details></div>', _t("arcén", "ñu"), "w"),
    Case("details-prefix-skips-hidden", Z + '<details id="d"><summary>resumen</summary><p id="h">'
         'uno dos</p></details><p id="a">uno dos</p>', _t("uno dos", prefix="resumen"), "a"),
    Case("until-found", Z + '<div id="h" hidden="until-found">secreto</div><p id="a">secreto</p>',
         _t("secreto"), "h"),
    Case("dialog-closed", Z + '<dialog id="h">secreto</dialog><p id="a">secreto</p>',
         _t("secreto"), "a"),
    Case("textarea-first", Z + '<textarea id="h">secreto</textarea><p id="a">secreto</p>',
         _t("secreto"), None),
    Case("css-content", Z + '<style>#a::before{content:"antes "}</style><p id="a">secreto</p>',
         _t("antes secreto"), None),
    Case("hidden-inline", Z + '<p id="a">ab<span hidden>zz</span>cd x</p>', _t("abcd x"), "a"),
    Case("pre-newline", Z + '<pre id="a">uno\ndos tres</pre>', _t("uno dos"), None),
    Case("range-across-blocks", Z + '<p id="a">uno dos</p><p id="b">tres</p><p id="c">cuatro</p>',
         _t("uno", "cuatro"), ""),
    Case("range-common-ancestor", Z + '<div id="d"><p>uno</p><p>dos</p></div>', _t("uno", "dos"),
         "d"),
    Case("no-id", Z + '<p>uno dos</p>', _t("uno dos"), ""),
    Case("nested-id", Z + '<section id="s"><p>uno dos</p></section>', _t("uno dos"), "s"),
]

DIRECTIVES = [
    Case("first-match-wins", Z + '<p id="a">la vía</p><p id="b">la vía</p>', _t("la via"), "a"),
    Case("prefix-same-block", Z + '<p id="a">uno dos</p><p id="b">tres dos</p>',
         _t("dos", prefix="tres"), "b"),
    Case("prefix-across-blocks", Z + '<p id="a">dos</p><p id="b">uno</p><p id="c">dos</p>',
         _t("dos", prefix="uno"), "c"),
    Case("prefix-across-br", Z + '<p id="a">dos</p><p id="b">uno<br>dos</p>',
         _t("dos", prefix="uno"), "b"),
    Case("prefix-across-td", Z + '<p id="a">dos</p><table><tr><td>uno</td><td id="b">dos</td>'
         '</tr></table>', _t("dos", prefix="uno"), "b"),
    Case("prefix-not-end-bounded", Z + '<p id="a">dos</p><p id="b">unodos</p>',
         _t("dos", prefix="uno"), "b"),
    Case("prefix-start-bounded", Z + '<p id="a">dos</p><p id="b">xuno dos</p><p id="c">uno dos</p>',
         _t("dos", prefix="uno"), "c"),
    Case("prefix-punctuation-gap", Z + '<p id="a">dos</p><p id="b">uno, dos</p>'
         '<p id="c">uno dos</p>', _t("dos", prefix="uno"), "c"),
    Case("prefix-input-gap", Z + '<p id="a">dos</p><p id="b">uno <input> dos</p>',
         _t("dos", prefix="uno"), "b"),
    Case("prefix-trailing-space", Z + '<p id="a">dos</p><p id="b">uno dos</p>',
         _t("dos", prefix="uno "), "b"),
    Case("suffix-leading-space", Z + '<p id="a">dos</p><p id="b">dos tres</p>',
         _t("dos", suffix=" tres"), None),
    Case("prefix-missing", Z + '<p id="a">dos</p>', _t("dos", prefix="nada"), None),
    Case("suffix-across-blocks", Z + '<p id="a">dos</p><p id="b">dos</p><p id="c">tres</p>',
         _t("dos", suffix="tres"), "b"),
    Case("suffix-not-start-bounded", Z + '<p id="a">dos</p><p id="b">dostres</p>',
         _t("dos", suffix="tres"), "b"),
    Case("suffix-end-bounded", Z + '<p id="a">dos</p><p id="b">dos tresx</p>',
         _t("dos", suffix="tres"), None),
    Case("suffix-missing", Z + '<p id="a">dos</p>', _t("dos", suffix="nada"), None),
    Case("end-after-first-start", Z + '<p id="a">uno dos</p><p id="b">uno tres</p>',
         _t("uno", "tres"), ""),
    Case("end-missing", Z + '<p id="a">tres</p><p id="b">uno cuatro</p>', _t("uno", "tres"), None),
    Case("end-inside-start", Z + '<p id="a">uno dos</p>', _t("uno dos", "dos"), None),
    Case("range-suffix-extends-end", Z + '<p id="a">uno dos cinco dos seis</p>',
         _t("uno", "dos", suffix="seis"), "a"),
    Case("range-suffix-next-block", Z + '<p id="a">uno dos cinco</p><p id="b">uno dos seis</p>',
         _t("uno", "dos", suffix="seis"), ""),
    Case("prefix-and-range", Z + '<p id="a">uno dos tres</p><p id="b">cero uno dos tres</p>',
         _t("uno", "tres", prefix="cero"), "b"),
    Case("fabricated", Z + '<p id="a">la vía pública</p>', _t("la vía privada"), None),
    Case("raw-hyphen-invalid", Z + '<p id="a">a-b</p>', ":~:text=a-b", None),
    Case("encoded-hyphen", Z + '<p id="a">a-b</p>', ":~:text=a%2Db", "a"),
    Case("three-terms-invalid", Z + '<p id="a">uno dos tres</p>', ":~:text=uno,dos,tres", None),
    Case("bad-escape-invalid", Z + '<p id="a">uno%zz</p>', ":~:text=uno%zz", None),
    Case("plus-is-literal", Z + '<p id="a">uno dos</p>', ":~:text=uno+dos", None),
    Case("id-fallback-not-used", Z + '<p id="a">uno</p>', _t("nada", el="a"), None),
    Case("text-beats-id", Z + '<p id="a">uno</p><p id="b">dos</p>', _t("dos", el="a"), "b"),
]

ALL = NORMALIZATION + BOUNDARIES + STRUCTURE + DIRECTIVES
