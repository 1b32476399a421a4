"""Allowlist and prompt loading, input validation, rate limiter, queue, metrics."""

from __future__ import annotations

import json

import pytest
from worker_helpers import FIXED_ENTRIES, fixed_allowlist

from citavial.build.errors import BuildError
from citavial.worker.answer.allowlist import load_allowlist
from citavial.worker.http.limits import InferenceSlot, QueueFull, RateLimiter
from citavial.worker.http.metrics import Metrics
from citavial.worker.http.validate import InvalidInput, check_question, parse_search_args
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt, render_request, shorten


def _write_allowlist(tmp_path, mutate):
    allow = fixed_allowlist(tmp_path)
    doc = json.loads((tmp_path / "allowlist.json").read_text(encoding="utf-8"))
    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return allow, path


BAD_ALLOWLISTS = [
    ("schema", lambda d: d.update(schema="citavial-allowlist/0"), "schema"),
    ("no-entries", lambda d: d.update(entries=[]), "entries"),
    ("offsite-url", lambda d: d["entries"][0].update(url="https://evil.example/#x"),
     "entries[0].url"),
    ("other-page-url", lambda d: d["entries"][0].update(url="art99.html#art18-2"),
     "entries[0].url"),
    ("js-url", lambda d: d["entries"][0].update(url="javascript:alert(1)"), "entries[0].url"),
    ("missing-text", lambda d: d["entries"][1].pop("text"), "entries[1].text"),
    ("duplicate", lambda d: d["entries"].append(dict(d["entries"][0])), "appears twice"),
    ("directive", lambda d: d["entries"][0].update(directive="guess"), "directive"),
    ("source-url", lambda d: d["entries"][0].update(source_url="http://x.es"), "source_url"),
]


@pytest.mark.parametrize("mutate,needle", [b[1:] for b in BAD_ALLOWLISTS],
                         ids=[b[0] for b in BAD_ALLOWLISTS])
def test_bad_allowlist_is_refused_naming_the_field(tmp_path, mutate, needle):
    _, path = _write_allowlist(tmp_path, mutate)
    with pytest.raises(BuildError) as err:
        load_allowlist(path)
    assert needle in str(err.value) and "citavial build" in str(err.value)


def test_allowlist_loads(tmp_path):
    allow = fixed_allowlist(tmp_path)
    assert len(allow) == len(FIXED_ENTRIES) and "RD-1428/2003#art50.1" in allow


def test_not_json_allowlist(tmp_path):
    p = tmp_path / "a.json"
    p.write_bytes(b"\xff")
    with pytest.raises(BuildError, match="UTF-8 JSON"):
        load_allowlist(p)


def test_prompts_load_with_their_frontmatter():
    comp = load_prompt(PROMPTS_DIR / "answer-completion.md")
    chat = load_prompt(PROMPTS_DIR / "answer-chat.md")
    assert (comp.id, comp.mode, comp.passages, comp.prefill) == ("answer-completion",
                                                                "completion", 1, "[[REF:1]]")
    assert comp.fixed.endswith("\n\n") and comp.request.endswith(comp.prefill)
    assert chat.mode == "chat" and chat.slots == "after" and chat.passages == 4
    text = render_request(comp, [(1, "art. 1", "Texto  del\npasaje.")], "¿Pregunta\tuno?")
    assert "[1] Texto del pasaje." in text and "¿Pregunta uno?" in text


@pytest.mark.parametrize("body,needle", [
    ("no frontmatter", "frontmatter"),
    ("---\nid: x\n---\n@@ prefix\nhola\n", "has no 'version'"),
    ("---\nid: x\nversion: 1\nmodel: m\nmode: poem\nmax_tokens: 9\nstop: []\npassage: p\n"
     "passage_chars: 9\n---\n", "mode"),
    ("---\nid: x\nversion: 1\nmodel: m\nmode: completion\nmax_tokens: 9\nstop: []\n"
     "passage: p\npassage_chars: 9\n---\n@@ prefix\na\n@@ request\n{question}\n", "{passages}"),
])
def test_bad_prompt_names_the_problem(tmp_path, body, needle):
    p = tmp_path / "p.md"
    p.write_text(body, encoding="utf-8")
    with pytest.raises(BuildError, match=needle.replace("{", r"\{").replace("}", r"\}")):
        load_prompt(p)


def test_shorten_cuts_at_a_word():
    assert shorten("uno dos tres cuatro", 9) == "uno dos…"
    assert shorten("corto", 10) == "corto"


@pytest.mark.parametrize("value,ok", [("¿Qué?", True), ("  hola  ", True), ("ab", False),
                                      ("a" * 500, True), ("a" * 501, False), ("x\ty z", True), ("x\x0by z", False),
                                      (None, False), ("ok \u2028 no", True)])
def test_check_question(value, ok):
    if ok:
        assert check_question(value) == value.strip()
    else:
        with pytest.raises(InvalidInput):
            check_question(value)


def test_search_args():
    assert parse_search_args({"q": "velocidad", "k": "3"}) == ("velocidad", 3)
    for bad in ("0", "21", "-1", "\uff15", "1e3"):
        with pytest.raises(InvalidInput, match="'k'"):
            parse_search_args({"q": "velocidad", "k": bad})


def test_rate_limiter_refills_and_says_how_long_to_wait():
    now = [0.0]
    rl = RateLimiter(per_minute=6, burst=2, clock=lambda: now[0])
    assert rl.check("a") == 0 and rl.check("a") == 0
    assert rl.check("a") == 10.0          # one token every 10 s
    assert rl.check("b") == 0             # per client
    now[0] = 10.0
    assert rl.check("a") == 0


def test_unlimited_rate():
    rl = RateLimiter(0, 1)
    assert all(rl.check("a") == 0 for _ in range(100))


def test_inference_slot_bounds_the_queue():
    slot = InferenceSlot(max_waiting=1)
    first = slot.reserve()
    held = first.hold().__enter__()
    second = slot.reserve()                # one may wait
    with pytest.raises(QueueFull):
        slot.reserve()
    second.cancel()
    third = slot.reserve()                 # its place is free again
    held.__exit__(None, None, None)
    with third.hold():
        assert slot.active == 1 and slot.waiting == 0
    assert slot.active == 0


def test_metrics_render_prometheus_text():
    m = Metrics()
    m.inc("citavial_abstentions_total", reason="weak_evidence")
    m.observe("citavial_latency_seconds", 0.03, stage="sources")
    text = m.render()
    assert 'citavial_abstentions_total{reason="weak_evidence"} 1' in text
    assert 'citavial_latency_seconds_bucket{le="0.025",stage="sources"} 0' in text
    assert 'citavial_latency_seconds_bucket{le="0.05",stage="sources"} 1' in text
    assert 'citavial_latency_seconds_count{stage="sources"} 1' in text
    assert "# TYPE citavial_latency_seconds histogram" in text
