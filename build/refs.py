"""Canonical references: how a passage is named, where its page is, and how humans write it.

Scheme (documented in README "Reference scheme"):

=====================================  ===========================================================
``RD-1428/2003#art48``                 Reglamento article 48 (its lead paragraph as a passage)
``RD-1428/2003#art82.2``               apartado 2 of article 82
``RD-1428/2003#art87.1.b``             letter b) of apartado 1
``RD-1428/2003#art48.1.a.1o``          ordinal 1.º under letter a); ``2a`` for 2.ª
``RD-1428/2003#art48.1.b.p2``          2nd paragraph at the same position (unnumbered text)
``RD-1428/2003#da1`` / ``#df4``        Reglamento's disposición adicional primera / final cuarta
``RD-1428/2003#rd.artunico``           the Real Decreto's own preceptos: ``rd.artunico``, ``rd.dd``
                                       (derogatoria única), ``rd.df1`` … ``rd.df5``
``RD-1428/2003#anexoI``                ANEXO I's own text (its index); ``anexoI.5`` its section 5
``RD-1428/2003#anexoI.5.p37``          37th paragraph/table of ANEXO I §5 (annex sections are
                                       numbered in order: their own numbering repeats)
``RD-1428/2003#anexoII.art14bis.2``    ANEXO II restarts article numbers; ``14bis`` for "14 bis"
``RD-1428/2003#anexoIII.s1.p3``        ANEXO III, sección 1, 3rd paragraph
=====================================  ===========================================================

Anchors replace "." by "-" (``art82-2``); a unit's page is its anchor plus ".html".
"""

from __future__ import annotations

from citavial.build.models import NORM
from citavial.build.patterns import (
    CANONICAL_REF,
    DISPOSITION_CODES,
    HUMAN_ANNEX,
    HUMAN_ARTICLE,
    HUMAN_DISPOSITION,
    ORDINAL_WORDS,
    REF_FRAGMENT,
)


class RefError(ValueError):
    """A string that is not a reference in any accepted form."""


def canonical(fragment: str) -> str:
    return f"{NORM}#{fragment}"


def fragment(ref: str) -> str:
    m = CANONICAL_REF.match(ref)
    if not m:
        raise RefError(f"{ref!r} is not a canonical ref like 'RD-1428/2003#art82.2'")
    return m.group(1)


def anchor(ref: str) -> str:
    """HTML id of a passage or unit: ``RD-1428/2003#art82.2`` → ``art82-2``."""
    return fragment(ref).replace(".", "-")


def page(unit_ref: str) -> str:
    return anchor(unit_ref) + ".html"


def article_fragment(number: str, suffix: str = "") -> str:
    return f"art{number}{suffix.lower()}"


def disposition_fragment(kind: str, ordinal: str) -> str:
    """``("final", "cuarta")`` → ``df4``; "única" gives the bare code (``dd``)."""
    code = DISPOSITION_CODES[kind.lower()]
    n = ORDINAL_WORDS.get(ordinal.lower())
    if n is None:
        raise RefError(f"{ordinal!r} is not an ordinal like 'primera' or 'única'")
    return code if ordinal.lower() in ("única", "unica") else f"{code}{n}"


def parse_ref(text: str) -> str:
    """Return the canonical ref for ``text`` or raise RefError saying what is accepted.

    Accepted: canonical refs (``RD-1428/2003#art82.2``), bare fragments (``art82.2``) and human
    forms: "artículo 82.2", "art. 87.1 b)", "Art 82, apartado 2", "artículo 14 bis del anexo II",
    "anexo I, 5", "disposición final cuarta", "disposición final primera del Real Decreto".
    Whether the ref exists is checked against the built passages, not here.
    """
    raw = text.strip()
    if CANONICAL_REF.match(raw):
        return raw
    if REF_FRAGMENT.match(raw) and _looks_like_fragment(raw):
        return canonical(raw)
    for parse in (_human_article, _human_annex, _human_disposition):
        ref = parse(raw)
        if ref:
            return ref
    raise RefError(
        f"{text!r} is not a reference; write e.g. 'RD-1428/2003#art82.2', 'art82.2', "
        f"'artículo 82.2', 'art. 87.1 b)', 'anexo I, 5' or 'disposición final cuarta'")


def _looks_like_fragment(raw: str) -> bool:
    head = raw.split(".", 1)[0]
    return head.startswith(("art", "anexo", "da", "df", "dt", "dd", "rd"))


def _human_article(raw: str) -> str | None:
    m = HUMAN_ARTICLE.match(raw)
    if not m:
        return None
    parts = [article_fragment(m.group("num"), m.group("bis") or "")]
    if m.group("apartado"):
        parts.append(m.group("apartado"))
    if m.group("letra"):
        if not m.group("apartado"):
            return None
        parts.append(m.group("letra").lower())
    if m.group("anexo"):
        parts.insert(0, f"anexo{m.group('anexo').upper()}")
    return canonical(".".join(parts))


def _human_annex(raw: str) -> str | None:
    m = HUMAN_ANNEX.match(raw)
    if not m:
        return None
    frag = f"anexo{m.group('anexo').upper()}"
    if m.group("section"):
        frag += ("." if m.group("anexo").upper() != "III" else ".s") + m.group("section")
    return canonical(frag)


def _human_disposition(raw: str) -> str | None:
    m = HUMAN_DISPOSITION.match(raw)
    if not m:
        return None
    try:
        frag = disposition_fragment(m.group("kind"), m.group("ord"))
    except RefError:
        return None
    return canonical(("rd." if m.group("rd") else "") + frag)


_DISPOSITION_NAMES = {"da": "disp. adicional", "dt": "disp. transitoria",
                      "dd": "disp. derogatoria", "df": "disp. final"}


def human_label(ref: str) -> str:
    """A short Spanish label for a chip: ``art48.1.a.1o`` → "art. 48.1.a) 1.º"."""
    parts = fragment(ref).split(".")
    prefix = ""
    if parts[0] == "rd":
        prefix, parts = "RD, ", parts[1:]
    if parts[0].startswith("anexo"):
        annex, parts = parts[0][len("anexo"):], parts[1:]
        if not parts:
            return f"anexo {annex}"
        if parts[0].startswith("art"):
            return _article_label(parts) + f" del anexo {annex}"
        rest = ", ".join(f"sec. {p[1:]}" if p.startswith("s") and p[1:].isdigit() else p
                         for p in parts)
        return f"anexo {annex}, " + _paragraphs(rest)
    if parts[0].startswith("art"):
        return prefix + _article_label(parts)
    code = parts[0].rstrip("0123456789")
    number = parts[0][len(code):]
    name = _DISPOSITION_NAMES.get(code, code)
    label = f"{name} {number + '.ª' if number else 'única'}"
    return prefix + label + "".join(", " + _paragraphs(p) if p.startswith("p") else f".{p}"
                                    for p in parts[1:])


def passage_label(ref: str) -> str:
    """Where a passage sits inside its unit, in words a student reads: ``art48.1.a`` →
    "apartado 1, letra a)"; ``art48.1.a.1o`` → "apartado 1, letra a), párrafo 1.º";
    ``anexoI.5.p37`` → "apartado 5, párrafo 37"; a unit's lead paragraph → ""."""
    parts = fragment(ref).split(".")
    if parts[0] == "rd":
        parts = parts[1:]
    parts = parts[2:] if parts[0].startswith("anexo") and len(parts) > 1 and \
        parts[1].startswith("art") else parts[1:]
    words = []
    for p in parts:
        if p.isdigit():
            words.append(f"apartado {p}")
        elif p.startswith("s") and p[1:].isdigit():
            words.append(f"sección {p[1:]}")
        elif p.startswith("p") and p[1:].isdigit():
            words.append(f"párrafo {p[1:]}")
        elif p[:-1].isdigit() and p[-1] in "oa":
            words.append(f"párrafo {p[:-1]}.{'º' if p[-1] == 'o' else 'ª'}")
        else:
            words.append(f"letra {p})")
    return ", ".join(words)


def _article_label(parts: list[str]) -> str:
    head = parts[0][len("art"):]
    if head.endswith("bis"):
        head = head[:-3] + " bis"
    elif head == "unico":
        head = "único"
    out = f"art. {head}"
    for p in parts[1:]:
        if p.isdigit():
            out += f".{p}"
        elif len(p) == 1 or p == "ñ":
            out += f".{p})"
        elif p[:-1].isdigit() and p[-1] in "oa":
            out += f" {p[:-1]}.{'º' if p[-1] == 'o' else 'ª'}"
        else:
            out += " " + _paragraphs(p)
    return out


def _paragraphs(text: str) -> str:
    """``p37`` → "párr. 37" wherever it appears."""
    return ", ".join(f"párr. {p[1:]}" if p.startswith("p") and p[1:].isdigit() else p
                     for p in text.split(", "))
