"""A quote that only matches after a Unicode trick must fail the gate (issue: hardening).

Base quote (literal, passes): art. 48.1.a.1.º "un límite máximo de 100 km/h para turismos".
Each case rewrites it with one trick; the gate must refuse it with a reason, never crash.
"""

from __future__ import annotations

import unicodedata

import pytest

from citavial.build.gate.verify import Pages, check_quote
from citavial.build.models import Citation
from citavial.build.refs import parse_ref

pytestmark = pytest.mark.adversarial
REF = parse_ref("art48.1.a.1o")
BASE = "un límite máximo de 100 km/h para turismos"


@pytest.fixture(scope="module")
def judge(reg, built_site):
    pages = Pages(built_site)
    return lambda quote: check_quote(reg, pages, Citation("x.md", 1, REF, quote))


def test_base_quote_passes(judge):
    assert judge(BASE).reason == ""


@pytest.mark.parametrize("quote", [
    pytest.param(BASE.replace("a", "\u0430", 1), id="cyrillic-a-homoglyph"),
    pytest.param(BASE.replace("o", "\u03bf", 1), id="greek-omicron-homoglyph"),
    pytest.param(BASE.replace("máximo", "má\u200bximo"), id="zero-width-space"),
    pytest.param(BASE.replace("límite", "lí\u200dmite"), id="zero-width-joiner"),
    pytest.param(BASE.replace("límite", "lí\u00admite"), id="soft-hyphen"),
    pytest.param("\u202e" + BASE, id="bidi-override"),
    pytest.param(BASE.replace("100", "\u200f100"), id="rtl-mark"),
    pytest.param(unicodedata.normalize("NFD", BASE), id="nfd-decomposed-accents"),
    pytest.param(BASE.replace("100", "\uff11\uff10\uff10"), id="fullwidth-digits"),
    pytest.param(BASE.replace("límite máximo", "limite maximo"), id="accents-dropped"),
    pytest.param(BASE.upper(), id="upper-case"),
    pytest.param(BASE.replace("km/h", "km／h"), id="fullwidth-solidus"),
    pytest.param(BASE + "\ufeff", id="bom-at-end"),
])
def test_trick_fails_the_gate(judge, quote):
    check = judge(quote)
    assert check.reason, f"{quote!r} passed the gate"
    assert check.url == ""
