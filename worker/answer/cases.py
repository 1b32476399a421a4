"""The same rule's other cases: a "¿cuándo…?" question is answered by every case the norm states.

"¿Cuándo hay que usar las luces de cruce?" is answered by art. 101.2 ("…debe llevar encendido el
alumbrado de corto alcance o de cruce al circular entre el ocaso y la salida del sol por vías
interurbanas insuficientemente iluminadas…: a) … b) … c) …"), but a student asking "when" needs
every case the norm states for that obligation: art. 101.1 (at night on lit roads, with its
paragraph on towns), and art. 104 ("Deberán llevar encendida durante el día la luz de corto
alcance o cruce:" and its letters). Retrieval alone does not bring them (their words are not the
question's), so they are found by what they share with the answer's rule:

* the **named thing** is the run of content words of the answer's rule (its lead-in when the
  answer is a list item) around the question's rarest word that stands in it — "…corto alcance o
  de cruce" for "luces de cruce";
* a passage of the same norm states **the same rule** when a clause of it holds at least RUN of
  those words in a row, including that one ("…la luz de corto alcance o cruce"), introduced
  alike (a word of the VERB before the run is shared: "llevar encendida"), with the rule's
  force (it forbids when the rule forbids) and no exception ("…excepto cuando…");
* such a passage is shown with what it needs to be read: its lead-in (an item), its items (a
  lead-in, up to MAX_ITEMS) and a paragraph that carries it on ("Igualmente, …").

Only the MAX_CASES nearest such passages are read, at most NEAR articles away: the law states
the cases of one rule together. Every piece is a whole allowlist passage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Protocol

from citavial.build.models import AllowlistEntry
from citavial.build.refs import Ref
from citavial.build.text import fold, stems
from citavial.worker import patterns as P
from citavial.worker.answer.allowlist import Allowlist
from citavial.worker.answer.question import Question
from citavial.worker.answer.span import Span, clauses

__all__ = ["same_rule", "named_run", "shares_run", "RUN", "MAX_CASES"]

NEAR = 5        # at most this many units (articles) away from the answer's
VERB = 5        # words before the run that must share one: the rule's verb
RUN = 3         # content words in a row a passage must share with the rule's named thing
MAX_CASES = 3   # the nearest passages that state the rule read, no more


class Rules(Protocol):
    """What this module reads (cite.Reader has it)."""

    allowlist: Allowlist
    order: list[str]
    idf: dict[str, float]

    def table(self, ref: str) -> list: ...


@lru_cache(maxsize=None)
def _seq(text: str) -> tuple[str, ...]:
    return tuple(stems(text))


def named_run(q: Question, rule: str, idf: Mapping[str, float]) -> tuple[tuple[str, ...], int]:
    """The rule's content words and the place of the question's rarest word among them
    (-1 when no word of the question stands in the rule)."""
    seq = _seq(rule)
    at = [i for i, s in enumerate(seq) if s in q.terms]
    if not at:
        return seq, -1
    return seq, max(at, key=lambda i: (idf.get(seq[i], 0.0), -i))


def shares_run(seq: Sequence[str], anchor: int, other: Sequence[str]) -> bool:
    """``other`` holds at least RUN words of ``seq`` in a row, one of them ``seq[anchor]``, and
    the run is introduced alike: a word of the VERB words before it in ``seq`` stands in the
    VERB words before it in ``other`` ("llevará encendido … el alumbrado de corto alcance o de
    cruce", "deberán llevar encendida … la luz de corto alcance o cruce"; not "…indicadas por
    los agentes de la autoridad…" beside "…precisarán acompañamiento de los agentes…")."""
    for j, s in enumerate(other):
        if s != seq[anchor]:
            continue
        lo = 0
        while anchor - lo - 1 >= 0 and j - lo - 1 >= 0 and seq[anchor - lo - 1] == other[j - lo - 1]:
            lo += 1
        hi = 0
        while anchor + hi + 1 < len(seq) and j + hi + 1 < len(other) \
                and seq[anchor + hi + 1] == other[j + hi + 1]:
            hi += 1
        a, b = anchor - lo, j - lo
        if lo + hi + 1 >= RUN and set(seq[max(0, a - VERB):a]) & set(other[max(0, b - VERB):b]):
            return True
    return False


def same_rule(q: Question, span: Span, passages: Rules) -> list[AllowlistEntry]:
    """The passages that state the answer's rule in other cases (see the module docstring):
    the MAX_CASES nearest to it, of its norm and at most NEAR units away, in document order;
    [] for a question that is no "¿cuándo…?" one or whose words do not stand in the rule."""
    rule = span.lead_in or span.main
    if span.cells or not P.Q_CASES.search(fold(q.stem)):
        return []
    seq, anchor = named_run(q, rule.text, passages.idf)
    if anchor < 0 or P.EXCEPTION_WORDS.search(fold(rule.text)):
        return []   # the answer is itself an exception: its rule is elsewhere
    norm = rule.ref.partition("#")[0] + "#"
    refs = [r for r in passages.order if r.startswith(norm)]
    unit = {r: str(Ref.parse(r).unit) for r in refs}
    place = {u: i for i, u in enumerate(dict.fromkeys(unit.values()))}
    home = place.get(unit.get(rule.ref, ""), -1)
    forbids = _forbids(rule.text)
    found = []
    for i, ref in enumerate(refs):
        away = abs(place[unit[ref]] - home)
        if home < 0 or away > NEAR or ref in (span.main.ref, rule.ref) or passages.table(ref):
            continue
        e = passages.allowlist.get(ref)
        if e is not None and _states(seq, anchor, e.text, forbids):
            found.append((away, i, e))
    return [e for *_, e in sorted(sorted(found, key=lambda t: t[:2])[:MAX_CASES],
                                  key=lambda t: t[1])]


def _states(seq: Sequence[str], anchor: int, text: str, forbids: bool) -> bool:
    """A clause of ``text`` holds the rule's named thing (``shares_run``), with the rule's
    force (it forbids it when the rule does), and does not except it ("…excepto cuando haya
    de utilizarse la de corto alcance…")."""
    return any(shares_run(seq, anchor, _seq(c)) and _forbids(c) == forbids
               and P.EXCEPTION_WORDS.search(fold(c)) is None
               for c in (text[a:b] for a, b in clauses(text)))


def _forbids(text: str) -> bool:
    return P.PROHIBITS.search(fold(text)) is not None
