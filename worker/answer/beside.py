"""The words beside the answer: what a reader needs next to the chosen span to read it right.

* **Antecedent.** A span that opens by pointing back ("Dichos ocupantes deberán situarse…", "En
  tal caso…") is read with what names it: the clause before it in its passage (the span grows
  back to it), or — when it opens its passage — the passage before it; a passage that names its
  subject by a cross-reference inside the article ("los ocupantes a que se refiere el párrafo
  segundo del apartado 1") is read with that paragraph ("…de estatura igual o inferior a 135
  centímetros…").
* **Qualifier.** The next sentence of the same passage, when it qualifies the span
  ("Excepcionalmente…", "No obstante…", "Salvo…", "Lo dispuesto en…"), is part of the span; the
  next passage of the article, when it opens by qualifying the one before ("Excepcionalmente, los
  mayores de…", "No obstante lo dispuesto en el apartado anterior…"), is shown after it.
* **List.** A span that ends by introducing a list ("…en los siguientes casos:") is shown with
  its items; a "¿cuándo…?" question answered by one item of a list of conditions gets the whole
  list with that item in its place. Both only up to MAX_ITEMS items. The passages offered with
  "No lo tengo claro" are read the same way (``nearest``): an item after its lead-in, and for a
  "¿cuándo…?" question with the other items of its list.
* **Other cases.** A "¿cuándo…?" question is answered with every passage of the norm that states
  the answer's rule in another case (cases.py: art. 101.1 and art. 104 beside art. 101.2 for the
  dipped beams), each read as above (its lead-in, its items, the paragraph that carries it on),
  before or after the answer in document order.

Every piece is a substring of an allowlist entry (cite.py proves each one's link with the gate's
matcher). Nothing here changes the span's score, which the calibrated answer gate reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from citavial.build.models import AllowlistEntry
from citavial.build.refs import Ref
from citavial.build.text import fold, stems
from citavial.worker import patterns as P
from citavial.worker.answer.allowlist import Allowlist
from citavial.worker.answer.cases import same_rule
from citavial.worker.answer.question import Question
from citavial.worker.answer.span import Piece, Span, clauses, emphasis
from citavial.worker.answer.vague import reframe

__all__ = ["settle", "complete", "grow", "nearest", "MAX_ITEMS"]

MAX_ITEMS = 6      # a longer list keeps its one item (its page shows the rest)
MAX_BEFORE = 2     # antecedents: the passage pointed back to, then one cross-reference
MAX_STEPS = 2      # clauses a span grows by inside its passage, back or forward
MAX_WORDS = 70     # a longer antecedent passage is shown by the clause that names it
ORDINALS = {"primero": 1, "segundo": 2, "tercero": 3, "cuarto": 4, "quinto": 5}


class Passages(Protocol):
    """What this module reads (cite.Reader has it): the allowlist in document order."""

    allowlist: Allowlist
    order: list[str]
    position: dict[str, int]
    idf: dict[str, float]

    def lead_in(self, ref: str) -> AllowlistEntry | None: ...

    def table(self, ref: str) -> list: ...


def settle(q: Question, entries: Sequence[AllowlistEntry], span: Span,
           passages: Passages) -> tuple[tuple[AllowlistEntry, ...], Span]:
    """The answer as it is shown: a question too vague for the table it touches gets the table
    (vague.py); any other span gets the words beside it (``complete``)."""
    vague = reframe(q, entries, span, passages)
    if vague is not None:
        return vague
    return tuple(entries), complete(q, span, passages)


def nearest(q: Question, shown: Sequence[AllowlistEntry],
            passages: Passages) -> tuple[AllowlistEntry, ...]:
    """The passages offered with "No lo tengo claro", a list item read as an answer's is:
    after its lead-in, and for a "¿cuándo…?" question with every item of its list (up to
    MAX_ITEMS) — "c) Posibilidad de producir deslumbramiento…" says nothing without "…cuando
    concurra alguna de las siguientes circunstancias:" and its other cases. No passage twice."""
    cases = P.Q_CASES.search(fold(q.stem)) is not None
    out: list[AllowlistEntry] = []
    for e in shown:
        group: list[AllowlistEntry | None] = [e]
        lead = passages.lead_in(e.ref)
        if lead is not None:
            refs = [p.ref for p in _list_of(lead, passages)] if cases else []
            whole = e.ref in refs and len(refs) <= MAX_ITEMS
            group = [lead, *(passages.allowlist.get(r) for r in refs)] if whole else [lead, e]
        out += [g for g in group if g is not None and g not in out]
    return tuple(out)


def complete(q: Question, span: Span, passages: Passages) -> Span:
    """``span`` with its antecedent, qualifier and list (see the module docstring)."""
    entry = passages.allowlist.get(span.main.ref)
    if span.cells or entry is None:
        return span
    main = grow(entry, span.main)
    items = _items(q, main, span.lead_in, entry, passages)
    shown = {main.ref, *(p.ref for p in items)}
    if span.lead_in is not None:
        shown.add(span.lead_in.ref)
    first = span.lead_in if span.lead_in is not None else main
    before = _antecedents([first, main, *items], passages, shown)
    after = () if items else _after(main, entry, passages, shown | {p.ref for p in before})
    exception = span.exception
    if exception is not None and (_inside(exception, main) or exception.ref in
                                  {p.ref for p in (*before, *items, *after)}):
        exception = None
    ahead, later = _cases(q, replace(span, main=main), passages,
                          shown | {p.ref for p in (*before, *after)})
    return replace(span, main=main, emphasis=emphasis(main.text), exception=exception,
                   before=_in_order((*before, *ahead), passages), items=items,
                   after=(*after, *later))


def _cases(q: Question, span: Span, passages: Passages,
           shown: set[str]) -> tuple[tuple[Piece, ...], tuple[Piece, ...]]:
    """The same rule's other cases (cases.py), each with its lead-in, its items (a lead-in
    without them, or with more than MAX_ITEMS, is left out) and the paragraph that carries it
    on; split into those before the answer and those after it, in document order."""
    out: list[Piece] = []
    seen = set(shown)
    for e in same_rule(q, span, passages):
        lead = passages.lead_in(e.ref)
        group = [_whole(x) for x in ([lead, e] if lead is not None else [e])]
        if e.text.rstrip().endswith(":"):
            items = _list_of(e, passages)
            if not items or len(items) > MAX_ITEMS:
                continue
            group += items
        group = [p for p in group if p.ref not in seen]
        seen |= {p.ref for p in group}
        group += _after(_whole(e), e, passages, seen)
        seen |= {p.ref for p in group}
        out += group
    here = passages.position.get((span.lead_in or span.main).ref, 0)
    out = list(_in_order(out, passages))
    return (tuple(p for p in out if passages.position.get(p.ref, 0) < here),
            tuple(p for p in out if passages.position.get(p.ref, 0) > here))


def _in_order(pieces: Sequence[Piece], passages: Passages) -> tuple[Piece, ...]:
    return tuple(sorted(pieces, key=lambda p: passages.position.get(p.ref, 0)))


def grow(entry: AllowlistEntry, piece: Piece) -> Piece:
    """``piece`` grown inside its passage: back over the clauses it points back to, forward
    over the clauses that qualify it (at most MAX_STEPS each way)."""
    text = entry.text
    cl = clauses(text)
    starts = [a for a, _ in cl]
    ends = [b for _, b in cl]
    if piece.ref != entry.ref or piece.start not in starts or piece.end not in ends:
        return piece
    i, j = starts.index(piece.start), ends.index(piece.end)
    moved = 0
    while i > 0 and moved < MAX_STEPS and P.ANAPHOR.match(fold(text[starts[i]:ends[i]])):
        i, moved = i - 1, moved + 1
    if moved and i == 1 and _designator(text[starts[0]:ends[0]]):
        i = 0
    moved = 0
    while j + 1 < len(cl) and moved < MAX_STEPS and _qualifies(text[starts[j + 1]:ends[j + 1]]):
        j, moved = j + 1, moved + 1
    a, b = starts[i], ends[j]
    return piece if (a, b) == (piece.start, piece.end) else Piece(entry.ref, text[a:b], a, b)


def _qualifies(clause: str) -> bool:
    """The clause qualifies the one before it: it opens as an exception or restriction, or it
    points back and denies or excepts ("Esta obligación no será exigible…")."""
    f = fold(clause)
    return bool(P.QUALIFIER.match(f)) or (bool(P.ANAPHOR.match(f)) and (
        " no " in f" {f} " or P.EXCEPTION_WORDS.search(f) is not None))


def _designator(text: str) -> bool:
    return len(P.WORDS.findall(text)) < 3


def _inside(piece: Piece, main: Piece) -> bool:
    return piece.ref == main.ref and main.start <= piece.start and piece.end <= main.end


def _items(q: Question, main: Piece, lead: Piece | None, entry: AllowlistEntry,
           passages: Passages) -> tuple[Piece, ...]:
    """The list the answer introduces, or — for a "¿cuándo…?" question answered by one item —
    the list it belongs to, with the answer's own piece in its place; () for a longer list."""
    if main.text.rstrip().endswith(":") and main.end >= len(entry.text.rstrip()):
        found = _list_of(entry, passages)
        return found if len(found) <= MAX_ITEMS else ()
    head = passages.allowlist.get(lead.ref) if lead is not None else None
    if head is None or not P.Q_CASES.search(fold(q.stem)):
        return ()
    found = _list_of(head, passages)
    if len(found) > MAX_ITEMS or main.ref not in {p.ref for p in found} or len(found) < 2:
        return ()
    return tuple(main if p.ref == main.ref else p for p in found)


def _list_of(head: AllowlistEntry, passages: Passages) -> tuple[Piece, ...]:
    """The passages ``head`` introduces, in document order, with the paragraphs inside each
    item; stops one past MAX_ITEMS (the caller refuses a list that long)."""
    i = passages.position.get(head.ref)
    if i is None:
        return ()
    out: list[Piece] = []
    item: Ref | None = None
    here = Ref.parse(head.ref)
    # "2. …:" introduces 2.a, 2.b; "3.p2 …:" introduces its apartado's 3.1o, 3.2o
    parent = here.parent if here.paragraph is not None else here
    for ref in passages.order[i + 1:]:
        lead = passages.lead_in(ref)
        e = passages.allowlist.get(ref)
        if e is None or len(out) > MAX_ITEMS:
            break
        if lead is not None and lead.ref == head.ref and Ref.parse(ref).parent == parent:
            item = Ref.parse(ref)
        elif item is None or not item.contains(Ref.parse(ref)):
            break
        out.append(_whole(e))
    return tuple(out)


def _antecedents(pieces: Sequence[Piece], passages: Passages,
                 shown: set[str]) -> tuple[Piece, ...]:
    """What names the subject of the first piece read, when it points back (or qualifies)
    from the start of its passage: the passage before it; then the paragraphs the shown
    pieces cross-refer to."""
    out: list[Piece] = []
    first = pieces[0]
    folded = fold(first.text)
    m = P.ANAPHOR.match(folded)
    # "No obstante, se permitirá a los ciclistas… sin mantener tal separación" is read with
    # the rule it qualifies, like a span that points back
    if (m is not None or P.QUALIFIES_PREVIOUS.match(folded)) and _opens_passage(first, passages):
        prev = _previous(first.ref, passages)
        if prev is not None and prev.ref not in shown:
            out.append(_naming(prev, m.group(1) if m is not None else None))
    for piece in [*out, *pieces]:
        for x in P.CROSS_REF.finditer(fold(piece.text)):
            ref = _resolve(piece.ref, x.group(1), x.group(2))
            e = passages.allowlist.get(ref) if ref is not None else None
            # a lead-in without its list ("El orden de preferencia … es el siguiente:")
            # defines nothing
            if e is not None and e.ref not in shown and e.ref not in {p.ref for p in out} \
                    and not e.text.rstrip().endswith(":"):
                out.append(_naming(e, None))
    return tuple(sorted(out[:MAX_BEFORE], key=lambda p: passages.position.get(p.ref, 0)))


def _opens_passage(piece: Piece, passages: Passages) -> bool:
    """Nothing but the passage's designator ("3.", "b)") stands before ``piece``."""
    if not piece.start:
        return True
    e = passages.allowlist.get(piece.ref)
    return e is not None and _designator(e.text[:piece.start])


def _previous(ref: str, passages: Passages) -> AllowlistEntry | None:
    """The passage before ``ref`` in the same unit — for an apartado ("…art12.2"), the head
    of the apartado before it ("…art12.1"), not that one's last item — never a table (a bag
    of cells names nothing)."""
    i = passages.position.get(ref)
    if not i:
        return None
    here = Ref.parse(ref)
    n = here.parts[-1]
    if here.parent == here.unit and n.isdigit() and int(n) > 1:
        prev = passages.allowlist.get(f"{here.unit}.{int(n) - 1}")
    else:
        prev = passages.allowlist.get(passages.order[i - 1])
    if prev is None or Ref.parse(prev.ref).unit != Ref.parse(ref).unit or passages.table(prev.ref):
        return None
    return prev


def _resolve(ref: str, ordinal: str | None, apartado: str) -> str | None:
    """"el párrafo segundo del apartado 1" read from ``ref`` → its article's ``…1.p2``."""
    here = Ref.parse(ref)
    if apartado == "anterior":
        if here.apartado is None or not here.apartado.isdigit() or int(here.apartado) < 2:
            return None
        apartado = str(int(here.apartado) - 1)
    nth = ORDINALS.get(ordinal or "primero", 1)
    base = f"{here.unit}.{apartado}"
    return base if nth == 1 else f"{base}.p{nth}"


def _naming(e: AllowlistEntry, noun: str | None, last: bool = True) -> Piece:
    """The words of ``e`` to show beside the answer: the whole passage when it is short, else
    its last clause holding the noun pointed with (or its last clause; its first with
    ``last=False``, for a passage read after the answer)."""
    if len(e.text.split()) <= MAX_WORDS:
        return _whole(e)
    cl = [(a, b) for a, b in clauses(e.text) if not _designator(e.text[a:b])]
    if not cl:
        return _whole(e)
    want = set(stems(noun)) if noun else set()
    hold = [(a, b) for a, b in cl if want & set(stems(e.text[a:b]))]
    a, b = (hold or cl)[-1 if last else 0]
    a = 0 if _designator(e.text[:a]) else a
    return Piece(e.ref, e.text[a:b], a, b)


def _after(main: Piece, entry: AllowlistEntry, passages: Passages,
           shown: set[str]) -> tuple[Piece, ...]:
    """The next passage of the unit, when the answer ends its passage and that one opens by
    qualifying it ("Excepcionalmente, …") or, as a paragraph of the same apartado, carries it
    on ("Igualmente, …", "Dicha prohibición…"); not one that introduces a list of its own."""
    i = passages.position.get(entry.ref)
    if i is None or i + 1 >= len(passages.order) or main.end < len(entry.text.rstrip()):
        return ()
    nxt = passages.allowlist.get(passages.order[i + 1])
    if nxt is None or nxt.ref in shown or Ref.parse(nxt.ref).unit != Ref.parse(entry.ref).unit \
            or nxt.text.rstrip().endswith(":"):
        return ()
    f = fold(nxt.text)
    here, there = Ref.parse(entry.ref), Ref.parse(nxt.ref)
    # a paragraph of the same apartado that carries the rule on ("Igualmente, … dicho
    # alumbrado…") is read with it too
    goes_on = there.parts[-1].startswith("p") and there.parent in (here, here.parent) \
        and (P.CONTINUES.match(f) is not None or P.ANAPHOR.match(f) is not None)
    if not (P.QUALIFIES_PREVIOUS.match(f) or goes_on):
        return ()
    return (_naming(nxt, None, last=False),)


def _whole(e: AllowlistEntry) -> Piece:
    return Piece(e.ref, e.text, 0, len(e.text))
