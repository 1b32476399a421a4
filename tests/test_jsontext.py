"""jsontext.dumps_indented writes the very text json.dumps(indent=1, sort_keys=True,
ensure_ascii=False) writes (build/jsontext.py): crafted shapes, generated trees, and the
built site's own indented documents."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citavial.build.jsontext import dumps_indented


def reference(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=1)


CASES = {
    "empty-dict": {},
    "empty-list": [],
    "scalar": "señal",
    "one-key": {"a": 1},
    "flat-entry": {"ref": "RD-1428/2003#art48", "n": 3, "ok": True, "none": None, "f": 0.5},
    "separators-inside-strings": {"a": "x,\n y", "b": "k: v", "c": "\"},{\""},
    "nested": {"entries": [{"b": 1, "a": [1, 2]}, {}], "meta": {"z": [], "y": {}}},
    "list-of-lists": [[1, 2], [], [[3]], "x"],
    "tuple": {"t": (1, "dos")},
    "int-keys": {2: "b", 1: "a"},
    "int-keys-nested": {"outer": {2: [1], 1: {"x": 1}}},
    "non-ascii": {"ñ": "Ávila — «vía»", "emoji": "🚦"},
    "floats": [1e300, -0.0, 1.5, 3],
}


@pytest.mark.parametrize("obj", list(CASES.values()), ids=list(CASES))
def test_same_text_as_json_dumps(obj):
    assert dumps_indented(obj) == reference(obj)


def test_unsortable_keys_fail_as_json_fails():
    with pytest.raises(TypeError):
        reference({"a": 1, 2: 3})
    with pytest.raises(TypeError):
        dumps_indented({"a": 1, 2: 3})
    with pytest.raises(TypeError):
        dumps_indented({"a": [1, {"b": object()}]})


_leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                    st.floats(allow_nan=False))
_trees = st.recursive(_leaves, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=4), kids, max_size=4)),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(_trees)
def test_generated_trees(obj):
    assert dumps_indented(obj) == reference(obj)


@pytest.mark.parametrize("name", ["allowlist.json", "gate-report.json", "senales.json",
                                  "practice-bank.json", "web-report.json"])
def test_the_built_sites_documents(built_site, name):
    """The documents the build writes with it read back to the same text json.dumps makes."""
    text = (built_site / name).read_text("utf-8")
    obj = json.loads(text)
    assert text == reference(obj) + "\n"
    assert dumps_indented(obj) + "\n" == text
