"""The worker on a question about a sign itself (worker/answer/signq.py), on the real built site: a road
marking the text in force defines is answered with that passage, cited from the allowlist; a
vertical sign gets its previous-catalogue name labelled as not a quote, its signs-page link and
the in-force passages that mention it — never a random passage, never an invented citation."""

from __future__ import annotations

import json

import pytest
from worker_helpers import SCRIPTED_STATUS, TEST_CALIBRATION, wire

from citavial.build.index.query.retriever import load_retriever
from citavial.worker.answer.allowlist import load_allowlist
from citavial.worker.answer.ask import Deps, answer
from citavial.worker.answer.record import collect
from citavial.worker.lead.prompts import PROMPTS_DIR, load_prompt


@pytest.fixture(scope="module")
def deps(built_site):
    return Deps(load_retriever(built_site), load_allowlist(built_site / "allowlist.json"),
                load_prompt(PROMPTS_DIR / "answer-chat.md"), None, SCRIPTED_STATUS,
                TEST_CALIBRATION)


@pytest.fixture(scope="module")
def signs(built_site):
    data = json.loads((built_site / "senales.json").read_text(encoding="utf-8"))
    return {s["code"]: s for s in data["signs"]}


def run(question, deps):
    events = wire(answer(question, deps))
    return [n for n, _ in events], dict(events)


def _from_allowlist(items, deps):
    for c in items:
        e = deps.allowlist.get(c["ref"])
        assert e is not None and (c["url"], c["quote"], c["label"]) == (e.url, e.text, e.label)


@pytest.mark.parametrize("question", ["¿Qué significa la señal R-101?", "R-101", "señal r101",
                                      "¿Qué quiere decir la señal de entrada prohibida?"])
def test_vertical_sign_is_named_not_quoted(question, deps, signs):
    names, ev = run(question, deps)
    assert names == ["sources", "sign", "abstain", "done"]
    sign, abstain, done = ev["sign"], ev["abstain"], ev["done"]
    assert (sign["code"], sign["name"], sign["url"]) == ("R-101", "Entrada prohibida",
                                                        "senales.html#senal-R-101")
    assert sign["name_source"] == "previous_catalogue"
    assert sign["label"] == ("Señal R-101 · Entrada prohibida — nombre del catálogo anterior "
                             "(2003), no es una cita del texto en vigor")
    assert sign["defined"] is False and sign["definition"] is None
    assert abstain["outcome"] == "sign" and "no es una cita del texto en vigor" in abstain["message"]
    assert [c["ref"] for c in abstain["passages"]] == signs["R-101"]["mentions"]
    _from_allowlist(abstain["passages"], deps)
    assert not any(c["quote"] == "Entrada prohibida" for c in abstain["passages"])
    assert [s["ref"] for s in ev["sources"]["sources"]] == signs["R-101"]["mentions"]
    assert (done["answered"], done["mode"], done["outcome"], done["sign"]) == (
        False, "abstained", "sign", "R-101")


def test_sign_without_mentions_says_so(deps):
    names, ev = run("S-28", deps)
    assert names == ["sources", "sign", "abstain", "done"]
    assert ev["sign"]["name"] == "Calle residencial" and ev["abstain"]["passages"] == []
    assert "Ningún párrafo en vigor menciona su código" in ev["abstain"]["message"]


@pytest.mark.parametrize("question", ["m-6.3", "¿Qué significa la marca vial M-6.3?"])
def test_road_marking_is_answered_with_its_in_force_definition(question, deps, signs):
    names, ev = run(question, deps)
    assert names == ["sources", "sign", "answer", "citations", "done"]
    definition = deps.allowlist.get(signs["M-6.3"]["definition"])
    assert ev["sign"]["name_source"] == "in_force" and ev["sign"]["defined"] is True
    assert ev["answer"]["text"] == definition.text and ev["answer"]["kind"] == "clause"
    cited = ev["citations"]["citations"]
    assert cited[0]["ref"] == definition.ref and cited[0]["span"] == definition.text
    _from_allowlist(cited, deps)
    done = ev["done"]
    assert (done["answered"], done["mode"], done["outcome"], done["kind"]) == (
        True, "extractive", "answer", "clause")
    record = collect(answer(question, deps))
    assert record["sign"]["code"] == "M-6.3" and record["text"] == definition.text


def test_a_name_shared_with_a_marking_cites_its_definition(deps, signs):
    names, ev = run("¿Qué significa la señal de ceda el paso?", deps)
    assert names == ["sources", "sign", "abstain", "done"]
    assert ev["sign"]["code"] == "R-1" and ev["sign"]["others"][0]["code"] == "M-6.5"
    refs = [c["ref"] for c in ev["abstain"]["passages"]]
    assert signs["M-6.5"]["definition"] in refs and len(refs) <= 3
    _from_allowlist(ev["abstain"]["passages"], deps)


@pytest.mark.parametrize("question", ["¿Puedo entrar en una calle con la señal R-101 en bici?",
                                      "¿Qué hay que hacer ante una señal de ceda el paso?",
                                      "¿Puedo conducir con auriculares?"])
def test_other_questions_take_the_ordinary_path(question, deps):
    names, _ = run(question, deps)
    assert "sign" not in names and names[0] == "sources" and names[-1] == "done"


def test_api_search_returns_the_signs_a_query_names(built_site):
    from citavial.worker.http.app import create_app
    from citavial.worker.http.serve import load_state
    client = create_app(load_state(built_site, ask_per_minute=0)).test_client()
    doc = client.get("/api/search", query_string={"q": "r101", "k": 3}).get_json()
    assert doc["ok"] and doc["signs"][0] == {"code": "R-101", "name": "Entrada prohibida",
                                             "url": "senales.html#senal-R-101",
                                             "name_in_force": False, "match": "code"}
    assert client.get("/api/search", query_string={"q": "luces de cruce"}).get_json()["signs"] == []
