"""Pick the words that answer: the shortest literal span of a retrieved passage that settles the
question, in the regulation's words.

A passage is split into clauses (patterns.CLAUSE_BREAK); each clause of the top passages is
scored by how much of the question it covers (IDF-weighted Snowball stems, so "luces" and
"adelantar" weigh more than "vehículo"), by whether it holds the kind of fact asked for (a number,
a rule word, an exception), and by its passage's retrieval rank. A list item is shown with its
lead-in ("1. Queda prohibido adelantar: … b) En los pasos para peatones"), and an exception next
to the rule when the question is about one. A question pasted with its options prefers the
clause that tells them apart (which option it supports is said later, options.py). A table is
answered as a table: the row and the column that the question names, and the cell where they
cross — each piece a literal cell.

Every piece of text here is a substring of an allowlist entry's text: nothing is paraphrased.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from citavial.build.models import AllowlistEntry
from citavial.build.refs import Ref
from citavial.build.text import fold, numbers, stems
from citavial.worker import patterns as P
from citavial.worker.answer.options import option_score
from citavial.worker.answer.question import EXCEPTION, NUMBER, YESNO, Question

__all__ = ["Piece", "Cell", "Span", "select", "clauses", "coverage", "table_cells", "emphasis",
           "decisiveness", "idf_table", "label", "asks_when",
           "states_case"]

RETRIEVAL_WEIGHT = 2.0   # how much the retrieval's own score counts beside the words (chosen on dev)
CLAUSE_SHARE = 0.3       # the clause's own coverage vs its passage's with its hooks (chosen on dev)
SEMANTIC_WEIGHT = 1.0    # the passage's meaning-similarity to the question, in choosing only (dev)
# A pasted question: weight of a clause that tells its options apart. Off: on the real bank's dev
# split it drew the span away from the labelled article (first citation labelled 0.843 at 0.0,
# 0.837 at 0.5, 0.832 at 1.0; n=318) with named options unchanged (13 right, 0 wrong).
OPTION_WEIGHT = 0.0
KIND_BONUS = 0.25        # the clause holds the kind of fact the question asks for
LONG_WORDS = 45          # clauses longer than this lose a little (shortest span that settles it)
MIN_HEADER = 0.5         # a table header must share at least one word with the question
ASIDE = 0.5              # in choosing only: a "¿cuándo…?" clause that names the thing asked
#                          about only in another rule's condition (states_case)
LABEL_WORDS = 8          # a passage this short that holds no verb only names a thing (a label)


@dataclass(frozen=True)
class Piece:
    """Literal text of one allowlist entry: ``text == entry.text[start:end]``."""

    ref: str
    text: str
    start: int
    end: int

    def __repr__(self) -> str:
        return f"Piece({self.ref}, {self.text[:30]!r})"


@dataclass(frozen=True)
class Cell:
    row: str          # the row's header cell ("Autopista y autovía")
    column: str       # the column's header cell ("Turismos, motocicletas…")
    value: str        # the cell ("120")
    unit: str         # "km/h" when the table is of speeds, else ""


@dataclass(frozen=True)
class Span:
    """The answer: a clause (or a table cell) of one passage, with what it needs to be read."""

    main: Piece
    score: float
    rank: int                              # the passage's place among the retrieved ones (0 = first)
    lead_in: Piece | None = None
    exception: Piece | None = None
    cells: tuple[Cell, ...] = ()
    emphasis: tuple[tuple[int, int], ...] = ()   # offsets inside main.text
    # the words beside it (worker/answer/beside.py): what names its antecedent, the items of
    # its list, the passage after it that qualifies it — each literal, in document order
    before: tuple[Piece, ...] = ()
    items: tuple[Piece, ...] = ()
    after: tuple[Piece, ...] = ()

    def __repr__(self) -> str:
        return f"Span({self.main.ref}, {self.score:.2f}, {self.main.text[:30]!r})"


def clauses(text: str) -> list[tuple[int, int]]:
    """[start, end) of each clause of ``text`` (at least one: the whole text)."""
    out, start = [], 0
    for m in P.CLAUSE_BREAK.finditer(text):
        if text[start:m.start()].strip():
            out.append((start, m.start()))
        start = m.end()
    if text[start:].strip():
        out.append((start, len(text.rstrip())))
    return out or [(0, len(text))]


def coverage(q: Question, text: str, idf: Mapping[str, float]) -> float:
    """IDF-weighted share of the question's stems found in ``text`` (0..1)."""
    if not q.terms:
        return 0.0
    have = set(stems(text))
    total = sum(idf.get(t, 1.0) for t in q.terms)
    return sum(idf.get(t, 1.0) for t in q.terms if t in have) / total


def _kind_bonus(q: Question, text: str) -> float:
    folded = fold(text)
    if q.kind == NUMBER:
        return KIND_BONUS if numbers(text) else 0.0
    if q.kind == EXCEPTION:
        return KIND_BONUS if P.EXCEPTION_WORDS.search(folded) else 0.0
    if q.kind == YESNO:
        return KIND_BONUS / 2 if P.RULE_WORDS.search(folded) else 0.0
    return 0.0


def score_clause(q: Question, text: str, context: str, weight: float,
                 idf: Mapping[str, float], passage_cover: float = 0.0) -> float:
    """Coverage of the question by the clause read with its lead-in (``context``) — and, at
    half weight, by its whole passage with the students' questions written for it — the kind
    of fact it holds, and its passage's retrieval ``weight`` (1 = the best retrieved)."""
    words = len(text.split())
    long = max(0, words - LONG_WORDS) / LONG_WORDS * 0.1
    clause = coverage(q, f"{context} {text}", idf)
    return (CLAUSE_SHARE * clause + (1 - CLAUSE_SHARE) * max(clause, passage_cover)
            + _kind_bonus(q, text) + RETRIEVAL_WEIGHT * weight - long)


def emphasis(text: str) -> tuple[tuple[int, int], ...]:
    """Offsets of the key facts in ``text``: numbers with units and the words that carry the
    rule's force ("prohibido", "deberán", "salvo")."""
    spans = [m.span() for m in P.NUMBER_WITH_UNIT.finditer(text)]
    folded = fold(text)
    if len(folded) == len(text):   # offsets agree only when folding kept every character
        spans += [m.span() for m in P.RULE_WORDS.finditer(folded)]
    return tuple(sorted(set(spans)))


def best_clause(q: Question, entries: Sequence[AllowlistEntry], idf: Mapping[str, float],
                weights: Sequence[float],
                lead_in: Callable[[str], AllowlistEntry | None],
                hooks: Callable[[str], Sequence[str]] = lambda ref: (),
                semantic: Sequence[float] | None = None) -> tuple[Piece, float, int] | None:
    """The best clause, its score and its entry's index. A clause that only introduces a list
    ("Queda prohibido adelantar:") or is a bare designator is no answer by itself (but see
    ``_may_answer``); to a "¿cuándo…?" question, nor is a label (``label``).
    ``semantic[i]`` (entry i's meaning-similarity to the question) helps choose the clause but
    is not part of the score returned: the answer gate was calibrated on words alone."""
    best: tuple[float, float, int, int, float, Piece] | None = None
    when = asks_when(q)
    for i, e in enumerate(entries):
        lead = lead_in(e.ref)
        if when and lead is None and label(e.text):
            continue   # "¿cuándo…?" asks for the cases a rule states: a label states none
        context = lead.text if lead is not None else ""
        whole = coverage(q, " ".join([context, e.text, *hooks(e.ref)]), idf)
        for a, b in clauses(e.text):
            text = e.text[a:b]
            if not _may_answer(text, when):
                continue
            s = score_clause(q, text, context if a == 0 else "", weights[i], idf, whole)
            sem = SEMANTIC_WEIGHT * semantic[i] if semantic is not None else 0.0
            if q.options and OPTION_WEIGHT:
                sem += OPTION_WEIGHT * decisiveness(q, f"{context} {text}")
            if when and not states_case(q, text, idf):
                sem -= ASIDE   # names the thing asked about only as another rule's condition
            key = (round(s + sem, 9), weights[i], -i, -a)
            if best is None or key > best[:4]:
                best = (*key, s, Piece(e.ref, text, a, b))
    if best is None:
        return None
    return best[5], best[4], -best[2]


def asks_when(q: Question) -> bool:
    """A question that asks in which cases ("¿Cuándo hay que…?", "¿En qué casos…?") — not a
    pasted statement that opens with a condition ("Cuando vende su coche, … en un plazo de...")."""
    return P.Q_CASES.search(fold(q.stem)) is not None and "?" in q.stem


def label(text: str) -> bool:
    """``text`` is a one-line label that only names things: one clause of at most LABEL_WORDS
    words with no word that may be a finite verb or a rule word (FINITE, RULE_WORDS)."""
    folded = fold(text)
    return (len(P.WORDS.findall(text)) <= LABEL_WORDS and len(clauses(text)) == 1
            and not P.FINITE.search(folded) and not P.RULE_WORDS.search(folded))


def _may_answer(text: str, when: bool) -> bool:
    """A clause that only introduces a list ("Queda prohibido adelantar:") or is a bare
    designator is no answer by itself — except, to a "¿cuándo…?" question, a lead-in that
    states the rule ("Deberán llevar encendida de día la luz de corto alcance o cruce:"),
    whose items are the cases asked for (shown with it, beside.py)."""
    if len(P.WORDS.findall(text)) < 3:
        return False
    return not text.rstrip().endswith(":") or (when and P.RULE_WORDS.search(fold(text)) is not None)


def states_case(q: Question, text: str, idf: Mapping[str, float]) -> bool:
    """For a "¿cuándo…?" question: the question's rarest word in ``text`` stands before the
    condition a rule is stated under ("Las luces de posición … deben estar encendidas siempre
    que lo estén las de cruce" says when other lights go on, not the dipped beams; "b) Cuando
    trabajen en…" is itself a case)."""
    words = set(stems(text))
    named = [t for t in q.terms if t in words]
    m = P.CONDITION.search(fold(text))
    if not named or m is None or len(fold(text)) != len(text) \
            or len(P.WORDS.findall(text[:m.start()])) < 3:
        return True   # no condition, or one that opens the clause: the clause is a case
    rarest = max(named, key=lambda t: (idf.get(t, 0.0), t))
    return rarest in set(stems(text[:m.start()]))


def decisiveness(q: Question, evidence: str) -> float:
    """How clearly ``evidence`` tells the pasted options apart: the best option's support
    minus the runner-up's (options.option_score), 0 when it supports none."""
    scores = sorted((option_score(q, text, evidence) for _, text in q.options), reverse=True)
    if not scores or scores[0] <= 0:
        return 0.0
    return min(1.0, scores[0] - (scores[1] if len(scores) > 1 else 0.0))


def _header_score(q: Question, header: str, about: frozenset[str] = frozenset()) -> float:
    """How many of the header's words the question names (by stem prefix: "moto" meets
    "motocicletas"), its first word counting more, a shorter header winning a tie. A word of
    ``about`` (what the table's lead-in says it is about: "Las velocidades máximas…") names
    the whole table, not a header that happens to hold it ("masa máxima autorizada")."""
    seq = stems(header)
    terms = q.terms - about
    prefixes = {t[:5] for t in terms}
    named = [w in terms or w[:5] in prefixes for w in seq]
    hits = sum(named)
    # the header's head word ("Turismos, …") names it more than a word deep inside it
    # ("Autobuses, vehículos derivados de turismo")
    return hits + 0.5 * named[0] - 0.01 * len(seq) if hits else 0.0


def table_cells(q: Question, rows: Sequence[Sequence[tuple[str, bool]]],
                context: str, whole: bool = False, intro: str = "") -> tuple[Cell, ...]:
    """The cells the question names: where its row and its column cross (one cell), or the
    whole row (or column) when it names only one of them; () when it names neither — or,
    with ``whole``, every cell (a question too vague for the table: worker/answer/vague.py).
    ``intro``: the table's lead-in, whose words name no header (``_header_score``)."""
    about = frozenset(stems(intro))
    header = [c for c, _ in rows[0]] if rows and all(h for _, h in rows[0][1:]) else None
    body = [r for r in rows[1:] if r and r[0][0]] if header else []
    if not header or not body:
        return ()
    cols = [(_header_score(q, h, about), i) for i, h in enumerate(header) if i > 0 and h]
    rws = [(_header_score(q, r[0][0], about), i) for i, r in enumerate(body)]
    if not cols or not rws:
        return ()
    (cs, ci), (rs, ri) = max(cols, key=lambda t: (t[0], -t[1])), max(rws, key=lambda t: (t[0], -t[1]))
    unit = "km/h" if "velocidad" in fold(context) else ""
    pick = [(r, c) for r in range(len(body)) for c in range(1, len(header))
            if (rs < MIN_HEADER or r == ri) and (cs < MIN_HEADER or c == ci)]
    if not whole and ((cs < MIN_HEADER and rs < MIN_HEADER)
                      or len(pick) > max(len(header) - 1, len(body))):
        return ()
    return tuple(Cell(body[r][0][0], header[c], body[r][c][0], unit) for r, c in pick
                 if c < len(body[r]))


def select(q: Question, entries: Sequence[AllowlistEntry], idf: Mapping[str, float],
           table: Callable[[str], Sequence[Sequence[tuple[str, bool]]]],
           lead_in: Callable[[str], AllowlistEntry | None],
           weights: Sequence[float] | None = None,
           hooks: Callable[[str], Sequence[str]] = lambda ref: (),
           semantic: Sequence[float] | None = None) -> Span | None:
    """The answer span among ``entries`` (retrieval order, then their neighbours), or None.
    ``lead_in(ref)`` is the passage that introduces a list item (…"son las siguientes:");
    ``weights[i]`` is entry i's retrieval score relative to the best one (0..1)."""
    weights = weights if weights is not None else [1.0 / (1 + i) for i in range(len(entries))]
    sem = [SEMANTIC_WEIGHT * x for x in semantic] if semantic is not None else [0.0] * len(entries)
    tabled = _best_table(q, entries, idf, table, lead_in, weights, hooks)
    found = best_clause(q, entries, idf, weights, lead_in, hooks, semantic)
    # A table the question names answers it — unless the question already states a speed
    # ("en esta vía limitada a 100 km/h, ¿cómo adelanta a un ciclista?"): then the limit is
    # given, not asked, and the table (of speed limits) must beat the best clause.
    states_figure = P.SPEED_FIGURE.search(q.stem) is not None
    if tabled is not None and (found is None or not states_figure
                               or tabled.score + sem[tabled.rank] >= found[1] + sem[found[2]]):
        return tabled
    if found is None:
        return None
    piece, score, rank = found
    entry = entries[rank]
    lead = lead_in(entry.ref) if piece.start == 0 else None
    return Span(piece, score, rank, lead_in=_whole(lead),
                exception=_exception(q, entries, entry, piece, lead, lead_in, idf),
                emphasis=emphasis(piece.text))


def _best_table(q: Question, entries: Sequence[AllowlistEntry], idf: Mapping[str, float],
                table: Callable[[str], Sequence[Sequence[tuple[str, bool]]]],
                lead_in: Callable[[str], AllowlistEntry | None], weights: Sequence[float],
                hooks: Callable[[str], Sequence[str]]) -> Span | None:
    """The first table (in retrieval order) whose row or column the question names, answered
    as its cells and scored like a clause that holds the fact asked for."""
    for rank, e in enumerate(entries):
        rows = table(e.ref)
        lead = lead_in(e.ref)
        context = (lead.text if lead else "") + " " + e.text
        cells = table_cells(q, rows, context, intro=lead.text if lead else "") if rows else ()
        if cells:
            score = (coverage(q, " ".join([context, *hooks(e.ref)]), idf) + KIND_BONUS
                     + RETRIEVAL_WEIGHT * weights[rank])
            return Span(Piece(e.ref, e.text, 0, len(e.text)), score, rank,
                        lead_in=_whole(lead), cells=cells)
    return None


def _whole(e: AllowlistEntry | None) -> Piece | None:
    return None if e is None else Piece(e.ref, e.text, 0, len(e.text))


def _exception(q: Question, entries: Sequence[AllowlistEntry], entry: AllowlistEntry,
               piece: Piece, lead: AllowlistEntry | None,
               lead_in: Callable[[str], AllowlistEntry | None],
               idf: Mapping[str, float]) -> Piece | None:
    """A clause that states an exception to the answer — in the same passage, or in a
    candidate passage of the same unit — when the question asks about one (or is a yes/no
    question, whose honest answer is often "no, salvo…")."""
    if q.kind not in (EXCEPTION, YESNO) or P.EXCEPTION_WORDS.search(fold(piece.text)) \
            or (lead is not None and P.EXCEPTION_WORDS.search(fold(lead.text))):
        return None   # the answer is itself an exception, or an item of a list of them
    here = Ref.parse(entry.ref)
    later = [x for x in entries if _follows(here, Ref.parse(x.ref))]
    for e in [entry] + sorted(later, key=lambda x: Ref.parse(x.ref).sort_key):
        for a, b in clauses(e.text):
            text = e.text[a:b]
            if (e.ref, a, b) != (piece.ref, piece.start, piece.end) \
                    and P.EXCEPTION_WORDS.search(fold(text)):
                if text.rstrip().endswith(":"):   # "Se exceptúa…:" — the item that fits
                    return _best_item(q, entries, e, lead_in, idf) or Piece(e.ref, text, a, b)
                return Piece(e.ref, text, a, b)
    return None


def _follows(here: Ref, other: Ref) -> bool:
    """``other`` is below ``here`` or a later paragraph beside it (``…p10`` after ``…p9``: in
    document order, not string order)."""
    return (other != here and here.contains(other)) or (
        other.parent == here.parent and other.parts[-1].startswith("p")
        and other.sort_key > here.sort_key)


def _best_item(q: Question, entries: Sequence[AllowlistEntry], head: AllowlistEntry,
               lead_in: Callable[[str], AllowlistEntry | None],
               idf: Mapping[str, float]) -> Piece | None:
    """The item of the list that ``head`` introduces which covers the question best."""
    items = [e for e in entries if (lead := lead_in(e.ref)) is not None and lead.ref == head.ref]
    if not items:
        return None
    best = max(items, key=lambda e: (coverage(q, e.text, idf), e.ref))
    return Piece(best.ref, best.text, 0, len(best.text))


def idf_table(texts: Sequence[str]) -> dict[str, float]:
    """Smoothed inverse document frequency of each stem over the passages."""
    df: dict[str, int] = {}
    for t in texts:
        for s in set(stems(t)):
            df[s] = df.get(s, 0) + 1
    n = len(texts)
    return {s: math.log(1 + n / c) for s, c in df.items()}
