"""Cite: turn a chosen span into what clients see — every ref, url and quote an allowlist entry's.

A citation (events.Citation) is ``{n, ref, label, url, quote, source_url, source_license,
as_of}`` copied from one allowlist entry; the answer's own words are added beside them as ``span`` (a substring of
``quote``) and ``span_url`` (a text-fragment link to exactly those words, proven by the gate's
matcher when the answer is made — worker/answer/spanlink.py — or the entry's ``url`` when no unique
link exists). A table answer is linked to its cells — one text directive per cell, each proven
to first match that cell — when the matcher proves every one; else to the words of the header
the question named (or the whole passage). ``Reader`` holds
what the stages look up: IDF weights, parents, tables, links.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from citavial.build.index.collect import parent_ref
from citavial.build.models import AllowlistEntry
from citavial.build.refs import Ref
from citavial.worker.answer.allowlist import Allowlist
from citavial.worker.answer.decide import UNSURE, Decision
from citavial.worker.answer.define import Glossary
from citavial.worker.answer.events import (
    ABSENT,
    Abstain,
    Answer,
    Beside,
    Citation,
    Citations,
    DecisionInfo,
    Item,
    Option,
    QuoteCell,
    Shown,
    Source,
    Table,
)
from citavial.worker.answer.judge import Verdict
from citavial.worker.answer.question import Question
from citavial.worker.answer.span import Cell, Piece, Span, idf_table
from citavial.worker.answer.spanlink import Rows, SpanLinker

EXTRACTIVE_LABEL = "Respuesta extractiva: las palabras de la norma que responden."
UNDECIDED = "No puedo elegir entre las opciones; estas son las palabras que lo deciden:"
MAX_CITATIONS = 3
NEIGHBOUR = 0.8   # a neighbouring passage's retrieval weight, relative to its retrieved one


class Reader:
    """Look-ups over the allowlist and the index, built once at start-up."""

    def __init__(self, allowlist: Allowlist, retriever: object,
                 linker: SpanLinker | None = None) -> None:
        self.allowlist = allowlist
        self.known = set(allowlist.entries)
        self.order = list(allowlist.entries)            # document order (the file's)
        self.position = {ref: i for i, ref in enumerate(self.order)}
        self.idf = idf_table([e.text for e in allowlist.entries.values()])
        self._table = getattr(retriever, "table", None)
        self._hooks = getattr(retriever, "hooks", None)
        self._similarity = getattr(retriever, "similarity", None)
        self.linker = linker
        self.glossary = Glossary.from_entries(allowlist.entries.values())

    def __repr__(self) -> str:
        return f"Reader({len(self.known)} passages, links={'on' if self.linker else 'off'})"

    def similarity(self, question: str, entries: Sequence[AllowlistEntry]) -> list[float] | None:
        """Meaning-similarity of each entry to the question (None: the retriever has none)."""
        if self._similarity is None:
            return None
        return list(self._similarity(question, [e.ref for e in entries]))

    def parent(self, ref: str) -> AllowlistEntry | None:
        p = parent_ref(ref, self.known)
        return None if p is None else self.allowlist.get(p)

    def lead_in(self, ref: str) -> AllowlistEntry | None:
        """The passage that introduces a list item: the nearest earlier passage of the same
        apartado that ends with ":" ("Se exceptúa de lo dispuesto…:", "…son las siguientes:"),
        skipping the item's sibling items; None for a passage that is not a list item."""
        i = self.position.get(ref)
        item = Ref.parse(ref)
        if i is None or not _is_item(item) or (parent := item.parent) is None:
            return None
        for j in range(i - 1, -1, -1):   # never past the item's own parent (its apartado)
            e = self.allowlist.get(self.order[j])
            if e is None or not parent.contains(Ref.parse(e.ref)):
                return None
            if e.text.rstrip().endswith(":"):
                return e
        return None

    def expand(self, entries: Sequence[AllowlistEntry],
               scores: Sequence[float], top: int = 2) -> tuple[list[AllowlistEntry], list[float]]:
        """The retrieved entries, then the other passages of the apartado of each of the first
        ``top`` (an answer is often the neighbouring item), with their retrieval weights: a
        retrieved passage's score over the best one's; a neighbour gets NEIGHBOUR × its
        source's."""
        best = max(scores, default=0.0) or 1.0
        out, priors = list(entries), [max(0.0, s) / best for s in scores]
        seen = {e.ref for e in entries}
        for i, e in enumerate(entries[:top]):
            head = _apartado(e.ref)
            j = self.position.get(e.ref, 0)
            lo = j
            while lo > 0 and _apartado(self.order[lo - 1]) == head:
                lo -= 1
            for ref in self.order[lo:lo + 12]:
                if _apartado(ref) != head or ref in seen:
                    continue
                seen.add(ref)
                out.append(self.allowlist.entries[ref])
                priors.append(NEIGHBOUR * priors[i])
        return out, priors

    def hooks(self, ref: str) -> list[str]:
        return self._hooks(ref) if self._hooks is not None else []

    def table(self, ref: str) -> list:
        return self._table(ref) if self._table is not None else []

    def span_url(self, entry: AllowlistEntry, span: str) -> str:
        link = self.linker.link(entry, span) if self.linker is not None else None
        return link or entry.url

    def cells_url(self, entry: AllowlistEntry, cells: Sequence[Cell]) -> str | None:
        """The proven link to the cells a table answer is (spanlink.cells_link), or None."""
        rows = self.table(entry.ref)
        at = [cell_at(rows, c) for c in cells]
        if self.linker is None or not at or None in at:
            return None
        return self.linker.cells_link(entry, rows, [a for a in at if a is not None])


def cell_at(rows: Rows, cell: Cell) -> tuple[int, int] | None:
    """(row, column) of ``cell`` in the table: the first row and column with its headers — the
    ones span.table_cells picks on a tie — holding its value; None when it is not there."""
    if not rows:
        return None
    r = next((i for i, row in enumerate(rows) if i and row and row[0][0] == cell.row), None)
    c = next((j for j, (h, _) in enumerate(rows[0]) if j and h == cell.column), None)
    if r is None or c is None or c >= len(rows[r]) or rows[r][c][0] != cell.value:
        return None
    return r, c


def cells_words(quote: str, rows: Rows, cells: Sequence[Cell]) -> str:
    """The answer's words as they stand in the table's quote: the run from the first cell to
    the last when the cells follow one another in reading order (a row's: "120 90 100"), else
    the first cell's words (the cells of a column are not one run of the quote)."""
    order = [(r, c) for r, row in enumerate(rows) for c, (t, _) in enumerate(row) if t.strip()]
    at = [cell_at(rows, cell) for cell in cells]
    where, cursor = [], 0
    for r, c in order:   # each non-empty cell's place in the quote, in reading order
        text = " ".join(rows[r][c][0].split())
        i = quote.find(text, cursor)
        if i < 0:
            return cells[0].value
        where.append((i, i + len(text)))
        cursor = i + len(text)
    picked = sorted(order.index(a) for a in at if a in order)
    if len(picked) != len(cells) or picked != list(range(picked[0], picked[-1] + 1)):
        return cells[0].value
    return quote[where[picked[0]][0]:where[picked[-1]][1]]


def _apartado(ref: str) -> str:
    """``…#art18.2.b.p2`` → ``…#art18.2``: the unit and its first numbered part."""
    head, _, frag = ref.partition("#")
    parts = frag.split(".")
    if parts[0] in ("rd",) and len(parts) > 1:
        parts = parts[1:]
    keep = 2 if len(parts) > 1 and parts[1].isdigit() else 1
    return head + "#" + ".".join(parts[:keep])


def source(n: int, e: AllowlistEntry) -> Source:
    """A retrieved passage as ``sources`` lists it, with which norm it is of, its BOE id and
    consolidation date: from the allowlist (the build's corpus manifest), never the model."""
    return Source(n=n, ref=e.ref, label=e.label, url=e.url, norm=e.norm, boe_id=e.boe_id,
                  consolidated=e.consolidated)


def citation(n: int, e: AllowlistEntry, table: Rows = ()) -> Citation:
    """A citation as clients see it: every field copied from the allowlist entry; a table
    passage's (``table``: Reader.table) with its rows of cells, when they read exactly as the
    quote — else the quote stays one run of words."""
    c = Citation(n=n, ref=e.ref, label=e.label, url=e.url, quote=e.text,
                 source_url=e.source_url, source_license=e.source_license, as_of=e.as_of,
                 norm=e.norm, boe_id=e.boe_id, consolidated=e.consolidated)
    words = [" ".join(t.split()) for row in table for t, _ in row if t.strip()]
    if not words or " ".join(words) != " ".join(e.text.split()):
        return c
    return replace(c, rows=tuple(tuple(QuoteCell(text=" ".join(t.split()), header=h)
                                       for t, h in row) for row in table))


def shown_pieces(span: Span) -> list[Piece]:
    """Every piece of text the answer shows, in citation order: the answer's words, its
    lead-in, its exception, then the words beside it (beside.py)."""
    return [span.main, *(p for p in (span.lead_in, span.exception) if p is not None),
            *span.before, *span.items, *span.after]


def cited_entries(span: Span, entries: Sequence[AllowlistEntry],
                  reader: Reader) -> list[AllowlistEntry]:
    """The answer's passage first, then the passage of every other piece it shows, then the
    retrieved ones that fill its first MAX_CITATIONS with its lead-in and exception — the
    words shown beside the answer never push those out."""
    main = entries[span.rank]
    pieces = shown_pieces(span)
    out = list(dict.fromkeys([main] + [reader.allowlist.get(p.ref) or main for p in pieces[1:]]))
    first = list(dict.fromkeys([main] + [reader.allowlist.get(p.ref) or main for p in pieces[1:]
                                         if p in (span.lead_in, span.exception)]))
    room = MAX_CITATIONS - len(first)
    out += [e for e in entries if e not in first][:max(0, room)]
    return list(dict.fromkeys(out))


def _table_span(span: Span, entry: AllowlistEntry, reader: Reader) -> tuple[str, str]:
    """``span`` / ``span_url`` of a table answer: its cells, each highlighted where it stands
    (Reader.cells_url); unproven, the header the question named — the row's when every cell
    is in one row, the column's when in one column — or else the whole passage."""
    url = reader.cells_url(entry, span.cells) if all(
        c.value in entry.text for c in span.cells) else None
    if url is not None:
        return cells_words(entry.text, reader.table(entry.ref), span.cells), url
    rows, columns = {c.row for c in span.cells}, {c.column for c in span.cells}
    header = span.cells[0].row if len(rows) == 1 else \
        span.cells[0].column if len(columns) == 1 else None
    if header is None or header not in entry.text:
        return entry.text, entry.url
    return header, reader.span_url(entry, header)


def answer_event(q: Question, span: Span, choice: Verdict | None,
                 entries: Sequence[AllowlistEntry], reader: Reader) -> Answer:
    cited = cited_entries(span, entries, reader)
    number = {e.ref: n for n, e in enumerate(cited, 1)}

    def shown(p: Piece | None) -> Shown | None:
        return None if p is None else Shown(text=p.text, cite=number.get(p.ref, 1))

    return Answer(
        label=EXTRACTIVE_LABEL, cite=1,
        kind="table" if span.cells else "option" if choice else "clause",
        text=" · ".join(c.value for c in span.cells) if span.cells else span.main.text,
        emphasis=() if span.cells else span.emphasis,
        lead_in=shown(span.lead_in), exception=shown(span.exception),
        table=Table(cells=span.cells) if span.cells else None,
        option=None if choice is None else option_payload(choice, reader),
        before=beside(span.before, (span.lead_in or span.main).ref, number, reader),
        items=tuple(Item(text=p.text, cite=number.get(p.ref, 1), answer=p.ref == span.main.ref)
                    for p in span.items),
        after=beside(span.after, (span.items[-1] if span.items else span.main).ref, number,
                     reader),
        clarify=clarify(span.cells))


def beside(pieces: Sequence[Piece], answer: str, number: Mapping[str, int],
           reader: Reader) -> tuple[Beside, ...]:
    """The words shown before or after the answer, each run of another article part
    (``_apartado``) than the one shown before it headed by its first passage's label ("art.
    104", as the sources label it), and a list item marked as one (its lead-in is shown too).
    The first piece is compared with ``answer``: the answer's lead-in (or words) for those
    before it, its last item (or words) for those after."""
    out, last = [], _apartado(answer)
    refs = {p.ref for p in pieces}
    for p in pieces:
        e = reader.allowlist.get(p.ref)
        part = _apartado(p.ref)
        lead = reader.lead_in(p.ref)
        out.append(Beside(text=p.text, cite=number.get(p.ref, 1),
                          heading=e.label if e is not None and part != last else None,
                          item=lead is not None and lead.ref in refs))
        last = part
    return tuple(out)


def option_payload(choice: Verdict, reader: Reader) -> Option:
    """The named option with the passage's words that state it and their proven link, or
    "cannot decide" with the reason (the answer's words are shown either way)."""
    if choice.letter is None:
        return Option(letter=None, text=UNDECIDED, basis=None, reason=choice.reason or None,
                      words=None, ref=None, url=None)
    entry = reader.allowlist.get(choice.ref)
    return Option(letter=choice.letter, text=choice.text, basis=choice.basis or None,
                  reason=None, words=choice.words, ref=choice.ref,
                  url=reader.span_url(entry, choice.words) if entry is not None else None)


def citations_event(span: Span, entries: Sequence[AllowlistEntry], reader: Reader) -> Citations:
    """The citations, each shown piece's carrying ``span`` (its words) and ``span_url`` (their
    link, proven on the served page by spanlink.py, or the passage's own link)."""
    cited = cited_entries(span, entries, reader)
    out = [citation(n, e, reader.table(e.ref)) for n, e in enumerate(cited, 1)]
    words, url = (_table_span(span, cited[0], reader) if span.cells
                  else (span.main.text, reader.span_url(cited[0], span.main.text)))
    out[0] = replace(out[0], span=words, span_url=url)
    at = {e.ref: i for i, e in enumerate(cited)}
    for piece in shown_pieces(span)[1:]:
        i = at.get(piece.ref)
        if i is not None and out[i].span is ABSENT and piece.text in cited[i].text:
            out[i] = replace(out[i], span=piece.text,
                             span_url=reader.span_url(cited[i], piece.text))
    return Citations(label=EXTRACTIVE_LABEL, citations=tuple(out))


# What a table answer of several cells asks back (plain Spanish, never a quote): the table
# tells apart what the question did not say.
CLARIFY = {
    ("km/h", True, True): "¿En qué vía y con qué vehículo? El límite depende de las dos cosas:",
    ("km/h", False, True): "¿Con qué vehículo? En esa vía el límite depende de él:",
    ("km/h", True, False): "¿Por qué vía? Para ese vehículo el límite depende de ella:",
}
CLARIFY_ANY = "Depende del caso; estas son las celdas de la tabla que se aplican:"


def clarify(cells: Sequence[Cell]) -> str | None:
    """The question back for a table answer of several cells (rows: roads, columns: vehicles
    in the table of speeds), or None for one cell or none."""
    if len(cells) < 2:
        return None
    rows, columns = len({c.row for c in cells}) > 1, len({c.column for c in cells}) > 1
    return CLARIFY.get((cells[0].unit, rows, columns), CLARIFY_ANY)


def abstain_event(decision: Decision, shown: Sequence[AllowlistEntry],
                  reader: Reader) -> Abstain:
    return Abstain(outcome=decision.outcome, message=decision.message,
                   passages=tuple(citation(n, e, reader.table(e.ref))
                                  for n, e in enumerate(shown, 1))
                   if decision.outcome == UNSURE else (),
                   decision=decision_info(decision))


def decision_info(decision: Decision) -> DecisionInfo:
    """The decision as ``abstain`` and ``done`` carry it (decide.Decision.as_dict's fields)."""
    d = decision.as_dict()
    return DecisionInfo(outcome=d["outcome"], score=d["score"], calibrated=d["calibrated"])


def _is_item(ref: Ref) -> bool:
    """A list item: its last part is a letter (``b``, ``ñ``, ``bbis``) or an ordinal (``1o``) —
    not a numbered apartado (``art48.3`` is no item of ``art48.2``'s list)."""
    last = ref.parts[-1]
    return (len(ref.parts) > 1 and ref.letter == last) or (
        last[:-1].isdigit() and last[-1:] in ("o", "a"))
