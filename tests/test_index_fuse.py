"""Reciprocal Rank Fusion and the roll-up: properties on small hand-made rankings."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citavial.build.index.query import fuse

REFS = ["r0", "r1", "r2", "r3", "r4", "r5"]
TIE = np.arange(len(REFS))          # refs are already in sorted order
UNIT = np.array([0, 0, 0, 1, 1, 2])


def ranking(*ids):
    return np.array(ids, dtype=np.int64)


def test_single_channel_keeps_its_order():
    fused = fuse.rrf({"a": ranking(4, 2, 0)}, 6, {"a": 1.0})
    assert fuse.order(fused, TIE).tolist() == [4, 2, 0]


def test_rrf_formula():
    fused = fuse.rrf({"a": ranking(1, 2), "b": ranking(2)}, 6, {"a": 1.0, "b": 0.5}, k=10)
    assert fused[1] == pytest.approx(1 / 11)
    assert fused[2] == pytest.approx(1 / 12 + 0.5 / 11)


def test_zero_weight_channel_is_ignored():
    fused = fuse.rrf({"a": ranking(1), "b": ranking(2)}, 6, {"a": 1.0, "b": 0.0})
    assert fuse.order(fused, TIE).tolist() == [1]


def test_ties_break_by_ref_ascending():
    fused = fuse.rrf({"a": ranking(3, 1), "b": ranking(1, 3)}, 6, {"a": 1.0, "b": 1.0})
    assert fused[1] == fused[3]
    assert fuse.order(fused, TIE).tolist() == [1, 3]


perm = st.permutations(list(range(6)))


@settings(max_examples=100, deadline=None)
@given(a=perm, b=perm, pos=st.integers(1, 5))
def test_moving_up_in_a_channel_never_lowers_the_score(a, b, pos):
    a = list(a)
    item = a[pos]
    before = fuse.rrf({"a": np.array(a), "b": np.array(b)}, 6, {"a": 1, "b": 1})[item]
    a[pos - 1], a[pos] = a[pos], a[pos - 1]
    after = fuse.rrf({"a": np.array(a), "b": np.array(b)}, 6, {"a": 1, "b": 1})[item]
    assert after > before


@settings(max_examples=100, deadline=None)
@given(a=perm, b=perm)
def test_equal_weights_are_symmetric(a, b):
    x = fuse.rrf({"a": np.array(a), "b": np.array(b)}, 6, {"a": 1, "b": 1})
    y = fuse.rrf({"a": np.array(b), "b": np.array(a)}, 6, {"a": 1, "b": 1})
    assert np.allclose(x, y)


def test_diversify_spreads_the_head_over_units():
    ranked = ranking(0, 1, 3, 2, 5, 4)
    assert fuse.diversify(ranked, UNIT, 1).tolist() == [0, 3, 5, 1, 2, 4]
    assert fuse.diversify(ranked, UNIT, 2).tolist() == [0, 1, 3, 5, 4, 2]


def test_diversify_only_the_head():
    """After the head, the skipped passages come back in their own order."""
    ranked = ranking(0, 1, 2, 3, 4, 5)
    assert fuse.diversify(ranked, UNIT, 1, head=2).tolist() == [0, 3, 1, 2, 4, 5]


@settings(max_examples=100, deadline=None)
@given(order=perm, per_unit=st.integers(1, 3), head=st.one_of(st.none(), st.integers(0, 6)))
def test_diversify_is_a_permutation_with_capped_head(order, per_unit, head):
    out = fuse.diversify(np.array(order), UNIT, per_unit, head).tolist()
    assert sorted(out) == sorted(order)
    n = len(set(UNIT.tolist())) if head is None else min(head, len(set(UNIT.tolist())))
    head_units = [int(UNIT[p]) for p in out[:n]]
    assert all(head_units.count(u) <= per_unit for u in set(head_units))


def test_collapse_before_orders_units_then_passages():
    ranks = {"a": ranking(3, 0, 1), "b": ranking(4, 1)}
    fused = fuse.rrf(ranks, 6, {"a": 1, "b": 1})
    out = fuse.collapse_before(ranks, fused, UNIT, 3, np.arange(3), TIE, {"a": 1, "b": 1})
    # unit 1 is first in both channels; within unit 0, passage 1 (two votes) beats 0.
    assert out.tolist() == [3, 4, 1, 0]
