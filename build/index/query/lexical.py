"""Lexical: the ranking that `citavial search`, the worker and the static search page share.

Each passage is ONE BM25 document made of its unit's label and title, the lead-in it hangs from
(collect.contexts), its own text and every hook question written for it (document expansion:
the students' words sit next to the regulation's). Chosen on the golden set's ``dev`` split over
the earlier fusion of BM25, static embeddings and question-to-hook matching, which ranked worse
there (tests/bench/bench_search.py prints the comparison).

The ranking is defined on integers so that site_src/static/search-core.js reproduces it exactly:

* analysis: the text module's fold (ñ kept), tokens of ``SEARCH_CLIENT_TOKEN``; numbers without
  thousands dots; words of two letters or more that are not stop words, Snowball-stemmed on the
  document side; "art./artículo" + number also gives the designator "art48", and a sign code
  ("R-101", "m-6.3") the term "r-101"; in a question, a code the sign catalogue knows, however
  typed ("r101", "R 101": signmatch.py), gives its term(s) and its number is not a word of its
  own (so "S-28" does not rank art. 28);
* a question word maps to a stem through ``forms`` (every word seen in the documents); an unseen
  word falls back to the longest known stem that prefixes it (≥ ``MIN_PREFIX`` letters), then —
  for "inadecuada", "desobedecer" — to the same for the word without its negation prefix;
  words that only point at a picture ("imagen", "foto") are dropped; an everyday word the norms
  do not use is read as theirs first ("alcoholemia" → "alcohol", "carnet" → "permiso":
  text.QUERY_ALIASES, shipped in the ranking data as ``aliases`` so the page reads the same table);
* a passage's score is the sum of its integer BM25 weights (weight × ``SCALE``, rounded) over
  the question's terms; ties go to the ref (ascending). Each norm is its own BM25 collection
  (its own idf and average length: adding a norm leaves the others' rankings as they were), and
  a passage of another norm than the Reglamento has its weights scaled by ``OTHER_NORM_PRIOR``
  at build time (so the page's script needs no rule of its own);
* roll-up: the first ``HEAD`` places hold at most one passage per group (an article, or a
  subheaded section of a long annex), except the top group, which may hold ``FIRST_UNIT`` —
  the answer is often the neighbouring apartado of the best one;
* a question that is only a reference ("artículo 82.2", "art. 87.1 b)", "anexo I, 4") gets the
  passages of that reference first, in document order (``named``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from citavial.build import patterns as P
from citavial.build.index import signmatch
from citavial.build.index.analyze import MEMO_LIMIT
from citavial.build.index.bm25 import build_bm25_parts
from citavial.build.index.collect import groups
from citavial.build.index.hooks import Hook
from citavial.build.models import NORM, Passage
from citavial.build.refs import Ref
from citavial.build.text import QUERY_ALIASES, STOP_WORDS, fold, stem

SCALE = 100
MIN_PREFIX = 4
HEAD = 5
FIRST_UNIT = 2
NEGATION = ("des", "in", "im")
# Words of exam questions that refer to a picture the reader cannot see.
QUERY_STOP = frozenset({"imagen", "imagenes", "foto", "fotografia", "dibujo", "figura",
                        "ilustracion", "grafico"})
DESIGNATOR_WORDS = frozenset({"art", "articulo", "articulos"})
ROMANS = {"i": "I", "ii": "II", "iii": "III", "iv": "IV"}
# The Ley, the vehicles' and the drivers' regulations have few hooks and three times the
# Reglamento's passages; at full weight their passages that merely share a question's words
# outrank the Reglamento's answer. Chosen on dev with tests/bench/bench_norm_prior.py (hooks-v6
# promoted), over the real bank's labels of both rounds (428 questions): 0.8 puts the labelled
# article first for 307 and keeps golden dev article R@1 at 0.9023; 0.9 gives 314 but golden
# 0.8886, and sends everyday questions to the wrong norm ("¿Se puede adelantar en un paso de
# peatones?" to the driving test's faults, RD 818/2009 anexo V); 0.65 gives 296, 1.0 305.
# Re-swept with hooks-v7 promoted (2026-12-05, not kept): 0.8 gives 309 (golden 0.9023), 0.9 317
# (golden 0.8864), 1.0 308 (golden 0.8727) — the same trade.
OTHER_NORM_PRIOR = 0.8


def _tokens(text: str) -> list[str]:
    return [m.group(0) for m in P.SEARCH_CLIENT_TOKEN.finditer(fold(text))]


def _designators(folded: str, tokens: list[str]) -> list[str]:
    """"art48" for "artículo 48", and sign codes ("r-101", "m-6.3") as terms of their own."""
    arts = [f"art{tokens[i + 1]}" for i in range(len(tokens) - 1)
            if tokens[i] in DESIGNATOR_WORDS and tokens[i + 1].isdigit()] if "art" in folded \
        else []   # every designator word contains "art"
    if "-" not in folded and "\u2010" not in folded and "\u2011" not in folded:
        return arts   # a sign code has one of these hyphens
    return arts + [f"{a}-{b}" for a, b in P.SEARCH_SIGN_CODE.findall(folded)]


def doc_terms(text: str) -> list[str]:
    """The index terms of a document, in reading order (duplicates kept: BM25 counts them)."""
    return doc_analysis(text)[0]


class _TokenTerms(dict):
    """A document token → its index term: a number without its thousands dots, a word's stem,
    or "" (a stop word or a one-letter word: no term). Filled on first sight of each token, up
    to analyze.MEMO_LIMIT tokens."""

    def __missing__(self, tok: str) -> str:
        if tok[0].isdigit():
            term = tok.replace(".", "")
        elif len(tok) > 1 and tok not in STOP_WORDS:
            term = stem(tok)
        else:
            term = ""
        if len(self) < MEMO_LIMIT:
            self[tok] = term
        return term


_TOKEN_TERM = _TokenTerms()


def doc_analysis(text: str) -> tuple[list[str], frozenset[str]]:
    """(doc_terms, form_tokens) of a document from one tokenisation."""
    folded = fold(text)
    tokens = P.SEARCH_CLIENT_TOKEN.findall(folded)   # no capturing group: whole matches
    term = _TOKEN_TERM.__getitem__
    out = [t for t in map(term, tokens) if t]
    forms = {tok for tok in set(tokens) if not tok[0].isdigit() and term(tok)}   # words
    return out + _designators(folded, tokens), frozenset(forms)


def _word_id(data: Mapping[str, Any], stem_id: Mapping[str, int], tok: str) -> int | None:
    found = data["forms"].get(tok)
    for n in range(len(tok), MIN_PREFIX - 1, -1):
        if found is not None:
            break
        found = stem_id.get(tok[:n])
    return found


def query_ids(data: Mapping[str, Any], stem_id: Mapping[str, int], question: str) -> list[int]:
    """The term ids of a question (see the module docstring), in reading order."""
    folded = fold(question)
    codes = signmatch.code_rows(signmatch.prepare(data), folded)
    masked = signmatch.mask(folded, codes)
    tokens = [m.group(0) for m in P.SEARCH_CLIENT_TOKEN.finditer(masked)]
    aliases = data.get("aliases", {})   # an index written before the table: none
    read = [w for t in tokens for w in aliases.get(t, (t,))]
    ids = []
    for tok in read:
        if tok[0].isdigit():
            found = stem_id.get(tok.replace(".", ""))
        elif len(tok) < 2 or tok in STOP_WORDS or tok in QUERY_STOP:
            found = None
        else:
            found = _word_id(data, stem_id, tok)
            for neg in NEGATION:
                if found is None and tok.startswith(neg) and len(tok) - len(neg) >= MIN_PREFIX:
                    found = _word_id(data, stem_id, tok[len(neg):])
        if found is not None:
            ids.append(found)
    ids += [stem_id[d] for d in _designators(masked, tokens) if d in stem_id]
    known = [data["signs"][r][0].lower() for _, _, rows, _ in codes for r in rows]
    return ids + [stem_id[c] for c in known if c in stem_id]


def named_fragment(question: str) -> str | None:
    """The ref fragment a question that is only a reference names, else None:
    [art|artículo] N [bis] [[apartado] A [[letra] x]]  or  anexo ROMAN [N]."""
    toks = [t for t in _tokens(question) if t not in ("apartado", "letra")]
    if len(toks) >= 2 and toks[0] in DESIGNATOR_WORDS and toks[1].isdigit():
        frag, rest = f"art{toks[1]}", toks[2:]
        if rest and rest[0] == "bis":
            frag, rest = frag + "bis", rest[1:]
        if rest and rest[0].isdigit():
            frag, rest = f"{frag}.{rest[0]}", rest[1:]
            if rest and len(rest[0]) == 1 and rest[0].isalpha():
                frag, rest = f"{frag}.{rest[0]}", rest[1:]
        return None if rest else frag
    if len(toks) in (2, 3) and toks[0] == "anexo" and toks[1] in ROMANS:
        frag = "anexo" + ROMANS[toks[1]]
        if len(toks) == 3:
            if not toks[2].isdigit():
                return None
            frag += "." + toks[2]
        return frag
    return None


def ref_key(ref: str) -> str:
    """A passage's key in the index docs: the Reglamento's bare fragment (``art48.1.a``: what
    a reference-only question such as "artículo 48" names), another norm's whole ref
    (``RDL-6/2015#art76.a``, never named by a bare number)."""
    parsed = Ref.parse(ref)
    return parsed.fragment if parsed.norm == NORM else str(parsed)


def named(fragments: Sequence[str], question: str) -> list[int]:
    """Rows of the passages a reference-only question names, in document order."""
    frag = named_fragment(question)
    if frag is None:
        return []
    return [i for i, f in enumerate(fragments) if f == frag or f.startswith(frag + ".")]


def document(p: Passage, context: str, hooks: Sequence[str]) -> str:
    """The text a passage is indexed by."""
    return " ".join([f"{p.label}. {p.title}", context, p.text, *hooks])


def form_tokens(text: str) -> frozenset[str]:
    """The distinct word tokens of a document that ``forms`` maps to their stems."""
    return doc_analysis(text)[1]


def build_lexical(passages: Sequence[Passage], ctx: Mapping[str, str],
                  hooks: Sequence[Hook], *,
                  terms_of: Callable[[str], list[str]] = doc_terms,
                  forms_of: Callable[[str], frozenset[str]] = form_tokens,
                  group_keys: Sequence[str] | None = None) -> dict[str, Any]:
    """The ranking data: stems, word forms, integer postings and each passage's group.
    ``terms_of``/``forms_of`` are doc_terms/form_tokens or memoised versions of them, and
    ``group_keys`` collect.groups(passages) computed before (the build's two indexes share one
    analysis: build/index/make/analysis.py)."""
    extra: dict[str, list[str]] = {}
    for h in hooks:
        extra.setdefault(h.ref, []).append(h.question)
    texts = [document(p, ctx[p.ref], extra.get(p.ref, [])) for p in passages]
    norms = norms_of(passages)
    bm = build_bm25_parts([terms_of(t) for t in texts], norms)
    stem_id = {t: i for i, t in enumerate(bm.vocab)}
    forms: dict[str, int] = {}
    term = _TOKEN_TERM.__getitem__   # a form token's term is its stem
    for tok in set().union(*(forms_of(t) for t in texts)):
        s = stem_id.get(term(tok))
        if s is not None:
            forms[tok] = s
    # [row, weight, row, weight, …] per term, weights as integers ≥ 1, sliced from one array
    w = np.maximum(1, np.rint(bm.weights * SCALE)).astype(np.int64)
    other = np.array([n != NORM for n in norms], dtype=bool)[bm.docs]
    w = np.where(other, np.maximum(1, np.rint(w * OTHER_NORM_PRIOR)).astype(np.int64), w)
    flat = np.column_stack((bm.docs.astype(np.int64), w)).ravel().tolist()
    bounds = (2 * bm.indptr).tolist()
    postings = [flat[bounds[t]:bounds[t + 1]] for t in range(len(bm.vocab))]
    keys = groups(passages) if group_keys is None else group_keys
    group_row = {g: i for i, g in enumerate(dict.fromkeys(keys))}
    return {"scale": SCALE, "stop": sorted(STOP_WORDS), "query_stop": sorted(QUERY_STOP),
            "negation": list(NEGATION), "min_prefix": MIN_PREFIX, "head": HEAD,
            "aliases": {k: list(v) for k, v in sorted(QUERY_ALIASES.items())},
            "first_unit": FIRST_UNIT, "stems": list(bm.vocab), "forms": dict(sorted(forms.items())),
            "postings": postings, "groups": [group_row[k] for k in keys]}


def norms_of(passages: Sequence[Passage]) -> list[str]:
    """Each passage's norm: the collection its BM25 statistics come from (bm25.build_bm25_parts)."""
    return [Ref.parse(p.ref).norm for p in passages]


def postings_arrays(data: Mapping[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each term's (rows, integer weights) as arrays, converted once when an index loads."""
    return [(np.asarray(p[0::2], dtype=np.int64), np.asarray(p[1::2], dtype=np.int64))
            for p in data["postings"]]


def scores(postings: Sequence[tuple[np.ndarray, np.ndarray]], data: Mapping[str, Any],
           stem_id: Mapping[str, int], question: str, n_docs: int) -> np.ndarray:
    """Each passage's integer score for ``question`` (a term's rows are distinct)."""
    out = np.zeros(n_docs, dtype=np.int64)
    for t in query_ids(data, stem_id, question):
        rows, weights = postings[t]
        out[rows] += weights
    return out


def rank(score: np.ndarray, tiebreak: np.ndarray, group_of: Sequence[int],
         limit: int | None = None, first: Sequence[int] = ()) -> list[int]:
    """Rows with a positive score: score desc, then ``tiebreak`` (the ref's sorted position),
    rolled up as the module docstring says; ``first`` (named rows) go before everything."""
    if first:
        pinned = set(first)
        rest = rank(np.where(np.isin(np.arange(len(score)), list(pinned)), 0, score),
                    tiebreak, group_of)
        out = list(first) + [d for d in rest if d not in pinned]
        return out if limit is None else out[:limit]
    idx = np.flatnonzero(score > 0)
    ordered = idx[np.lexsort((tiebreak[idx], -score[idx]))].tolist()
    seen: dict[int, int] = {}
    head: list[int] = []
    tail: list[int] = []
    for d in ordered:
        g = group_of[d]
        cap = FIRST_UNIT if head and group_of[head[0]] == g else 1
        if len(head) < HEAD and seen.get(g, 0) < cap:
            seen[g] = seen.get(g, 0) + 1
            head.append(d)
        else:
            tail.append(d)
    out = head + tail
    return out if limit is None else out[:limit]
