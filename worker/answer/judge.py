"""Judge pasted options against the cited words: name one only when the law's words decide it.

A student pastes an exam question with its options; a named option that is wrong, shown beside
a literal citation, looks proven and is worse than no answer. So an option is named only on a
ground that can be shown and checked:

* ``STATED`` — the option's own words (at least ``MIN_WORDS`` of them, in order, ignoring case,
  accents and punctuation) stand in the cited passage, its lead-in or its exception, **and** no
  other option's words stand in any passage the answer read. The deciding words are then the
  passage's own, and the answer links to exactly them.

* ``CELL`` — the question names one row and one column of a table (the answer is that single
  cell, worker/answer/span.py) and exactly one option states that cell's figure (its number, and
  its unit when the option writes one); no other option does — and the question adds no case
  the table does not state while a passage read states it (``case_beside``: "un autobús con
  pasajeros de pie" is answered by art. 48.1.b's second paragraph, not the table's cell).

* ``ROW`` — the question asks for a figure ("¿Cuántos puntos…?"), the answer is one row of a
  table published row by row (the Ley's anexo II: "2. Conducir con presencia de drogas en el
  organismo. 6"), and exactly one option states the row's last cell, its figure.

* ``FIGURE`` — every option is a figure with its unit ("50 metros", "0,15 mg"), all of exactly
  one option's figures stand in the cited passage, its lead-in or its exception, and no other
  option's figures all stand in any passage the answer read (worker/answer/quantity.py).

Everything else is "cannot decide", with the reason (``Undecided``) and the deciding passage's
words shown anyway. Rules that read word overlap, polarity ("Sí"/"No"), modality or absolutes
were measured on the real bank's dev split and named a wrong option far too often (precision
0.58–0.74 at every threshold, n = 591 questions; docs/answers.md), so they do not name options.
The rule is symmetric in the options: their order and letters never change the choice, and
rewording another option can only keep it or make it undecided.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from citavial.build.normalize import normalize, normalize_with_map
from citavial.build.refs import Ref
from citavial.build.text import fold, numbers, stems
from citavial.worker.answer.quantity import clause_stating, quantities

# Fewer words in a row are too often a phrase of the law used in another sense ("la marcha
# atrás", "en ambos sentidos"): with three, dev named 26 options, 3 of them wrong; with four, 16
# and none wrong (real bank, dev split, text-only questions).
MIN_WORDS = 4

# The clause holding the figure must speak of what the question asks: at least this many of the
# question's content stems stand in it. A figure alone is too common ("mayor de 18 años" in a
# passage on another licence): with 0, our practice bank got 2 wrong of 8 named; see docs/answers.md.
FIGURE_TOPIC = 2

_WORD = re.compile(r"\w+")
# A case the question adds to a table: this many of its content words in a row, none in the
# table, standing in a row in another passage read ("pasajeros de pie").
CASE_RUN = 2

# A row of a table published row by row (``Ref.row``): its figure ends its text.
_LAST_FIGURE = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s*$")


class Basis(str, Enum):
    """Why an option was named."""

    STATED = "stated"          # the option's words stand in the cited passage, no other's do
    CELL = "cell"              # the option's figure is the one table cell the question names
    FIGURE = "figure"          # every option is a figure; only this one's stands in the passage
    ROW = "row"                # the option's figure is the last cell of the row that answers


class Undecided(str, Enum):
    """Why no option was named."""

    NONE_STATED = "none_stated"          # no option's words stand in the cited passage
    SEVERAL_STATED = "several_stated"    # more than one option's words stand there
    OTHER_STATED = "other_stated"        # another option's words stand in a passage read
    CASE_STATED = "case_stated"          # the question's case stands in a passage, not the table


@dataclass(frozen=True)
class Evidence:
    """A passage the answer read: its ref and its exact text."""

    ref: str
    text: str


@dataclass(frozen=True)
class Verdict:
    letter: str | None               # None: cannot decide
    text: str                        # the option's text as pasted ("" when undecided)
    basis: Basis | None
    reason: Undecided | None
    words: str = ""                  # the deciding words, exactly as the passage has them
    ref: str = ""                    # the passage that holds them

    def __repr__(self) -> str:
        return f"Verdict({self.letter}, {self.basis or self.reason}, {self.ref})"


def option_words(option: str) -> list[str]:
    """The option's words in the gate's comparison form (case, accents, punctuation dropped)."""
    return _WORD.findall(normalize(option))


def find_stated(option: str, text: str, min_words: int = MIN_WORDS) -> str | None:
    """The words of ``text`` that state ``option`` (its words in order, whole words, any
    punctuation or spacing between them), exactly as ``text`` writes them; None if absent."""
    wanted = option_words(option)
    if len(wanted) < min_words:
        return None
    norm, offsets = normalize_with_map(text)
    pattern = r"(?<!\w)" + r"\W+".join(re.escape(w) for w in wanted) + r"(?!\w)"
    m = re.search(pattern, norm)
    if m is None:
        return None
    return text[offsets[m.start()]:offsets[m.end()]].rstrip()


def judge(options: Sequence[tuple[str, str]], cited: Sequence[Evidence],
          read: Sequence[Evidence]) -> Verdict:
    """Name the one option whose words stand in ``cited`` (the answer's passage, its lead-in,
    its exception) when no other option's words stand in ``read`` (every passage shown)."""
    stated = []
    for letter, text in options:
        for ev in cited:
            words = find_stated(text, ev.text)
            if words is not None:
                stated.append((letter, text, words, ev.ref))
                break
    if not stated:
        return Verdict(None, "", None, Undecided.NONE_STATED)
    if len(stated) > 1:
        return Verdict(None, "", None, Undecided.SEVERAL_STATED)
    letter, text, words, ref = stated[0]
    for other, other_text in options:
        if other != letter and any(find_stated(other_text, ev.text, 1) for ev in read):
            return Verdict(None, "", None, Undecided.OTHER_STATED)
    return Verdict(letter, text, Basis.STATED, None, words, ref)


def judge_cell(options: Sequence[tuple[str, str]], ref: str, value: str,
               unit: str = "") -> Verdict:
    """Name the one option whose figure is the table cell ``value`` (with ``unit``, when the
    option writes a unit) — the single cell where the row and column the question names cross."""
    want = numbers(value)
    if not want:
        return Verdict(None, "", None, Undecided.NONE_STATED)
    hits = [(letter, text) for letter, text in options
            if numbers(text) == want and (not unit or _unit_ok(text, unit))]
    if len(hits) != 1:
        return Verdict(None, "", None,
                       Undecided.SEVERAL_STATED if hits else Undecided.NONE_STATED)
    letter, text = hits[0]
    return Verdict(letter, text, Basis.CELL, None, value, ref)


def case_beside(asked: Sequence[str], table: str,
                read: Sequence[Evidence]) -> Evidence | None:
    """The passage of ``read`` that states a case the question adds to the table: a run of at
    least CASE_RUN of the question's content stems (``asked``, in the question's order), none
    of them in ``table`` (its cells and lead-in), that stands in a row in that passage. None
    when the question adds no such case — a figure alone never makes one: "100 km/h" in a side
    rule is no case of "Un turismo en autopista…"."""
    have = set(stems(table))
    runs: list[tuple[str, ...]] = []
    run: list[str] = []
    for s in [*asked, ""]:
        if s and s not in have:
            run.append(s)
            continue
        if len(run) >= CASE_RUN:
            runs.append(tuple(run))
        run = []
    wanted = {r[i:i + CASE_RUN] for r in runs for i in range(len(r) - CASE_RUN + 1)}
    for ev in read:
        seq = tuple(stems(ev.text))
        if any(seq[i:i + CASE_RUN] in wanted for i in range(len(seq) - CASE_RUN + 1)):
            return ev
    return None


def _unit_ok(option: str, unit: str) -> bool:
    """An option that writes a unit must write the cell's ("120 km/h" for a speed cell)."""
    folded = fold(option)
    written = [u for u in ("km/h", "km", "metros", "m", "kg", "%") if u in folded.split()
               or (u == "km/h" and "km/h" in folded)]
    return not written or fold(unit) in written


def judge_row(options: Sequence[tuple[str, str]], ref: str, text: str) -> Verdict | None:
    """Name the one option whose figure is the last cell of the table row ``text`` (None when
    ``ref`` is not such a row or the row ends in no figure)."""
    m = _LAST_FIGURE.search(text)
    if Ref.parse(ref).row is None or m is None:
        return None
    v = judge_cell(options, ref, m.group(1))
    if v.letter is None:
        return v
    return Verdict(v.letter, v.text, Basis.ROW, None, text.rstrip(), ref)


def judge_figure(options: Sequence[tuple[str, str]], cited: Sequence[Evidence],
                 read: Sequence[Evidence], asked: frozenset[str]) -> Verdict | None:
    """Name the one option whose figures (value and unit: "100 metros", "0,15 mg") all stand in
    ``cited`` when no other option's figures all stand in any passage of ``read``. None when
    some option states no figure with a unit: the question is not one of figures."""
    figures = [(letter, text, quantities(text)) for letter, text in options]
    if len(figures) < 2 or not all(f for _, _, f in figures):
        return None
    held = [(ev, quantities(ev.text)) for ev in read]
    stated = [(letter, text, f, ev) for letter, text, f in figures
              for ev in cited if f <= quantities(ev.text)]
    letters = {letter for letter, *_ in stated}
    if not letters:
        return Verdict(None, "", None, Undecided.NONE_STATED)
    if len(letters) > 1:
        return Verdict(None, "", None, Undecided.SEVERAL_STATED)
    letter, text, wanted, ev = stated[0]
    if any(f <= have for other, _, f in figures if other != letter for _, have in held):
        return Verdict(None, "", None, Undecided.OTHER_STATED)
    words = clause_stating(wanted, ev.text) or ev.text
    if len(asked & set(stems(words))) < FIGURE_TOPIC:
        return Verdict(None, "", None, Undecided.NONE_STATED)
    return Verdict(letter, text, Basis.FIGURE, None, words, ev.ref)
