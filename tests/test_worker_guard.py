"""The slot guard: table cases, and properties over arbitrary tokenisations."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citavial.worker.lead.guard import CITE, TEXT, SlotGuard


def run(pieces: list[str], n: int = 3, primed: str = "") -> tuple[list, object]:
    guard = SlotGuard(n, primed=primed)
    items = guard.primed_items()
    for p in pieces:
        items += guard.feed(p)
    guard.finish()
    return _merge(items), guard.cut


def _merge(items):
    out = []
    for kind, value in items:
        if out and kind == TEXT and out[-1][0] == TEXT:
            out[-1] = (TEXT, out[-1][1] + value)
        else:
            out.append((kind, value))
    return out


CASES = [
    # id, pieces, n, expected items, expected cut (reason, token) or None
    ("plain-text", ["La ", "velocidad."], 3, [(TEXT, "La velocidad.")], None),
    ("slot-one-token", ["Es 50 km/h ", "[[REF:2]]", "."], 3,
     [(TEXT, "Es 50 km/h "), (CITE, 2), (TEXT, ".")], None),
    ("slot-split-like-gemma", [" [[", "REF", ":", "3", "]]."], 3,
     [(TEXT, " "), (CITE, 3), (TEXT, ".")], None),
    ("two-slots", ["a[[REF:1]][[REF:2]]b"], 2, [(TEXT, "a"), (CITE, 1), (CITE, 2), (TEXT, "b")],
     None),
    ("out-of-range", ["x ", "[[REF:", "4", "]]", " y"], 3, [(TEXT, "x ")],
     ("out_of_range_slot", 2)),
    ("out-of-range-two-digits", ["[[REF:1", "2]]"], 3, [], ("out_of_range_slot", 1)),
    ("zero", ["[[REF:0]]"], 3, [], ("malformed_slot", 0)),
    ("lowercase", ["ok [[ref:1]]"], 3, [(TEXT, "ok ")], ("malformed_slot", 0)),
    ("single-bracket", ["según [1] dice"], 3, [(TEXT, "según ")], ("malformed_slot", 0)),
    ("markdown-link", ["mira ", "[aquí]", "(http://x.es)"], 3, [(TEXT, "mira ")],
     ("malformed_slot", 1)),
    ("article-in-slot", ["[[REF:art48]]"], 3, [], ("malformed_slot", 0)),
    ("unfinished-at-end", ["fin [[REF:2]"], 3, [(TEXT, "fin ")], ("unfinished_slot", 0)),
    ("cut-stops-everything", ["[x", "[[REF:1]]", "más"], 3, [], ("malformed_slot", 0)),
    ("closing-brackets-alone-are-text", ["a ]] b"], 3, [(TEXT, "a ]] b")], None),
]


@pytest.mark.parametrize("pieces,n,items,cut", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_guard_table(pieces, n, items, cut):
    got, got_cut = run(pieces, n)
    assert got == items
    assert (None if got_cut is None else (got_cut.reason, got_cut.token)) == cut


def test_primed_prefill_counts_as_no_token():
    items, cut = run(["2]] Hola", " [[REF:9"], n=3, primed="[[REF:")
    assert items == [(CITE, 2), (TEXT, " Hola ")]
    assert (cut.reason, cut.token) == ("out_of_range_slot", 1)


def test_full_prefill_slot_is_an_item_of_the_prefill():
    guard = SlotGuard(1, primed="[[REF:1]]")
    assert guard.primed_items() == [(CITE, 1)]


# --- properties ---------------------------------------------------------------------------

prose = st.text(st.characters(blacklist_characters="[", blacklist_categories=("Cs",)),
                max_size=12)


@st.composite
def valid_stream(draw):
    """A well-formed output for n sources, and an arbitrary tokenisation of it."""
    n = draw(st.integers(1, 12))
    parts = draw(st.lists(st.one_of(prose, st.integers(1, n).map(lambda k: f"[[REF:{k}]]")),
                          max_size=8))
    text = "".join(parts)
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=10)))
    bounds = [0, *cuts, len(text)]
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    return n, text, pieces


@given(valid_stream())
@settings(max_examples=300, deadline=None)
def test_every_prefix_of_a_valid_stream_passes(case):
    n, text, pieces = case
    guard = SlotGuard(n)
    rebuilt = []
    for piece in pieces:
        for kind, value in guard.feed(piece):
            rebuilt.append(value if kind == TEXT else f"[[REF:{value}]]")
        assert guard.cut is None            # no prefix is ever cut
    guard.finish()
    assert guard.cut is None
    assert "".join(rebuilt) == text         # and nothing is lost or reordered


@given(valid_stream(), st.sampled_from(["[[REF:0]]", "[[REF:99]]", "[[ref:1]]", "[1]",
                                        "[[REF: 1]]", "[[REF:1]", "[texto](u)", "[[REF:x]]"]),
       st.data())
@settings(max_examples=300, deadline=None)
def test_a_bad_slot_is_cut_at_its_token_and_never_emitted(case, bad, data):
    n, text, _ = case
    if bad == "[[REF:99]]" and n >= 99:
        return
    full = text + bad + "tras"
    # one character per token: the cut token is exactly the character that broke the slot
    guard = SlotGuard(n)
    emitted = []
    for ch in full:
        emitted += guard.feed(ch)
        if guard.cut:
            break
    guard.finish()
    assert guard.cut is not None
    first_bad = len(text) + _first_invalid(bad, n)
    assert guard.cut.token == first_bad
    out = "".join(v if k == TEXT else f"[[REF:{v}]]" for k, v in emitted)
    assert out == text                      # the bad slot and everything after it: gone
    assert "tras" not in out


def _first_invalid(bad: str, n: int) -> int:
    """Index of the character at which ``bad`` stops being a prefix of a valid slot for n."""
    for i in range(1, len(bad) + 1):
        prefix = bad[:i]
        valid = [f"[[REF:{k}]]" for k in range(1, n + 1)]
        if not any(v.startswith(prefix) for v in valid):
            return i - 1
    return len(bad)   # never invalid inside: the unfinished slot is cut at the end
