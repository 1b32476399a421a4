"""Properties of the one BKT + selector implementation (site_src/static/practice-core.js),
run under node: mastery stays in [0,1], a correct answer never lowers it, an incorrect one never
raises it, and the selector never repeats a question while its topic has unanswered ones."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import ROOT

CORE = ROOT / "site_src" / "static" / "practice-core.js"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is required")

# A tiny node REPL over stdin: one JSON request per line, one JSON reply per line.
HARNESS = r"""
const core = require(process.argv[1]);
const rl = require('readline').createInterface({input: process.stdin});
rl.on('line', (line) => {
  const req = JSON.parse(line);
  let out;
  if (req.op === 'update') out = core.update(req.m, req.correct);
  else if (req.op === 'run') {
    const st = core.newState(req.seed);
    const picks = [];
    for (const ans of req.answers) {
      const q = core.next(st, req.bank);
      picks.push({id: q.id, topic: q.topic, answered: JSON.parse(JSON.stringify(st.answered))});
      core.record(st, q, ans);
    }
    out = {picks, mastery: st.mastery};
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
"""


@pytest.fixture(scope="module")
def node():
    proc = subprocess.Popen(["node", "-e", HARNESS, str(CORE)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)

    def call(req):
        proc.stdin.write(json.dumps(req) + "\n")
        return json.loads(proc.stdout.readline())

    yield call
    proc.stdin.close()
    proc.wait(timeout=5)


probability = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(m=probability)
def test_correct_never_lowers_incorrect_never_raises(node, m):
    up, down = node({"op": "update", "m": m, "correct": True}), node(
        {"op": "update", "m": m, "correct": False})
    assert 0.0 <= down <= m <= up <= 1.0


@settings(max_examples=100, deadline=None)
@given(answers=st.lists(st.booleans(), min_size=1, max_size=60))
def test_mastery_stays_in_unit_interval_over_histories(node, answers):
    m = 0.25
    for a in answers:
        m2 = node({"op": "update", "m": m, "correct": a})
        assert 0.0 <= m2 <= 1.0
        assert (m2 >= m) if a else (m2 <= m)
        m = m2


@pytest.mark.parametrize("m, correct, expected", [
    pytest.param(0.25, True, 0.5526, id="prior-correct"),
    pytest.param(0.25, False, 0.0476, id="prior-incorrect"),
    pytest.param(1.0, False, 1.0, id="certain-stays"),
    pytest.param(0.0, True, 0.15, id="zero-learns"),
])
def test_update_table(node, m, correct, expected):
    assert node({"op": "update", "m": m, "correct": correct}) == pytest.approx(expected, abs=1e-4)


bank_strategy = st.lists(
    st.tuples(st.sampled_from(["velocidad", "luces", "prioridad"]), st.integers(0, 40)),
    min_size=1, max_size=25, unique=True,
).map(lambda items: [{"id": f"{t}-{n:03d}", "topic": t} for t, n in items])


@settings(max_examples=60, deadline=None)
@given(bank=bank_strategy, answers=st.lists(st.booleans(), min_size=1, max_size=50),
       seed=st.integers(1, 2**31))
def test_selector_never_repeats_within_a_round(node, bank, answers, seed):
    out = node({"op": "run", "seed": seed, "bank": bank, "answers": answers})
    sizes = {}
    for q in bank:
        sizes[q["topic"]] = sizes.get(q["topic"], 0) + 1
    for pick in out["picks"]:
        seen = pick["answered"].get(pick["topic"], [])
        if len(seen) < sizes[pick["topic"]]:
            assert pick["id"] not in seen


def test_selector_prefers_the_most_uncertain_topic(node):
    bank = [{"id": f"{t}-{i:03d}", "topic": t} for t in ("a", "b") for i in range(5)]
    out = node({"op": "run", "seed": 7, "bank": bank, "answers": [True] * 4})
    topics = [p["topic"] for p in out["picks"]]
    # Tie at the prior → "a" by id; a → 0.553 (closer to 0.5 than b's 0.25) → "a" again;
    # a → 0.804 (variance 0.158 < 0.1875) → "b"; b → 0.553 → "b"; then a tie again.
    assert topics == ["a", "a", "b", "b"]
    assert out["mastery"]["a"] == pytest.approx(out["mastery"]["b"])
