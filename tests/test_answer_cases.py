"""The same rule's other cases (worker/answer/cases.py, beside.py): a "¿cuándo…?" question is
answered with every passage of the norm near the answer that states its rule in another case —
each with its lead-in, its items and the paragraph that carries it on — and never with one that
forbids or excepts it, one far away, nor any when the question is no "¿cuándo…?" one. Over a
small allowlist written for them (our own wording, shaped like the Reglamento's lights
articles), then on the real built site with issue 25.4's question reworded."""

from __future__ import annotations

import pytest

from citavial.build.models import AllowlistEntry
from citavial.worker.answer import beside as B
from citavial.worker.answer import cases as C
from citavial.worker.answer.allowlist import Allowlist
from citavial.worker.answer.cite import Reader
from citavial.worker.answer.question import read_question
from citavial.worker.answer.span import Piece, Span

N = "RD-1428/2003#"
TEXTS = [
    ("art5.1", "1. En los carriles de sentido variable todo turismo llevará encendida la luz "
               "de paso corto o de niebla."),
    *[(f"art{n}", f"Texto del artículo {n}, que trata de otra materia.") for n in range(6, 12)],
    ("art30.1", "1. Todo turismo que circule de noche por vías con farolas llevará encendida "
                "la luz de paso corto o de niebla."),
    ("art30.1.p2", "Igualmente, llevará encendida dicha luz dentro de los pueblos."),
    ("art30.2", "2. Todo turismo deberá llevar encendida la luz de paso corto o de niebla en "
                "vías sin farolas cuando concurra alguno de estos supuestos:"),
    ("art30.2.a", "a) Que no tenga luz de paso largo."),
    ("art30.2.b", "b) Que pueda deslumbrar a otros usuarios."),
    ("art31.1", "1. Se prohíbe usar la luz de paso corto o de niebla como señal de aviso."),
    ("art31.2", "2. La luz larga se encenderá siempre, excepto cuando deba usarse la de paso "
                "corto o de niebla."),
    ("art32", "Deberán llevar encendida de día la luz de paso corto o de niebla:"),
    ("art32.a", "a) Las motocicletas."),
    ("art32.b", "b) Los vehículos que circulen por un carril de sentido variable."),
    ("art33", "Los conductores de camiones deberán respetar las distancias de seguridad."),
]
ALLOW = Allowlist(as_of="2026-12-01", path="test", sha256="x", entries={
    N + f: AllowlistEntry(ref=N + f, url=f"{f}.html", page=f"{f.split('.')[0]}.html",
                          anchor=f.replace(".", "-"), text=t, sha256="x", as_of="2026-12-01",
                          source_url="https://www.boe.es/x", source_license="BOE",
                          label=f"art. {f}", directive="exact", norm="RD-1428/2003",
                          boe_id="BOE-A-2003-23514", consolidated="2026-07-31")
    for f, t in TEXTS})


class NoTables:
    def table(self, ref):
        return []


READER = Reader(ALLOW, NoTables())


def item_span(frag: str) -> Span:
    """The answer the span picker gives for a letter of art. 30.2: the letter, with its
    lead-in, read with its list (beside.complete)."""
    e, lead = ALLOW.get(N + frag), READER.lead_in(N + frag)
    return Span(Piece(e.ref, e.text, 0, len(e.text)), 1.0, 0,
                lead_in=None if lead is None else Piece(lead.ref, lead.text, 0, len(lead.text)))


def frags(pieces) -> list[str]:
    return [p.ref.split("#")[1] for p in pieces]


@pytest.mark.parametrize("question,frag,before,after", [
    # the question's rarest word standing in the rule ("niebla") names it: "paso corto o de
    # niebla" in a row; art. 31 forbids or excepts it, art. 5 is too far, art. 33 is another
    # rule; art. 30.1's next paragraph carries it on ("Igualmente, …")
    pytest.param("¿Cuándo se pone la luz de niebla?", "art30.2.b",
                 ["art30.1", "art30.1.p2"], ["art32", "art32.a", "art32.b"], id="every-case"),
    pytest.param("¿En qué casos se usa la luz de niebla?", "art30.2.a",
                 ["art30.1", "art30.1.p2"], ["art32", "art32.a", "art32.b"], id="en-que-casos"),
    # no "¿cuándo…?": the answer is the rule asked about, not every case of it
    pytest.param("¿Debe un turismo llevar la luz de niebla sin farolas?", "art30.2.b", [], [],
                 id="not-a-when-question"),
    # the rule's words the question shares name nothing a row of three long ("turismo")
    pytest.param("¿Cuándo debe un turismo encender luces?", "art30.2.b", [], [],
                 id="no-named-thing"),
])
def test_a_when_question_gets_every_case_of_the_rule(question, frag, before, after):
    got = B.complete(read_question(question), item_span(frag), READER)
    assert (frags(got.before), frags(got.after)) == (before, after)
    for p in (*got.before, *got.after):
        assert ALLOW.get(p.ref).text[p.start:p.end] == p.text   # every piece literal


def test_cases_are_the_nearest_few_and_no_more(monkeypatch):
    q = read_question("¿Cuándo se pone la luz de niebla?")
    span = item_span("art30.2.b")
    assert [e.ref.split("#")[1] for e in C.same_rule(q, span, READER)] == [
        "art30.1", "art32"]
    monkeypatch.setattr(C, "MAX_CASES", 1)   # the nearest first: art. 30.1 is in its article
    assert [e.ref.split("#")[1] for e in C.same_rule(q, span, READER)] == ["art30.1"]
    monkeypatch.undo()
    seq, at = C.named_run(q, span.lead_in.text, READER.idf)
    assert seq[at] == C._seq("niebla")[0]
    # art. 5 states the rule too, but more than NEAR articles away: out of reach
    assert C.shares_run(seq, at, C._seq(ALLOW.get(N + "art5.1").text))


RULE = "Todo turismo llevará encendida la luz de paso corto o de niebla."


@pytest.mark.parametrize("other,shared", [
    ("Deberá llevar encendida de día la luz de paso corto o de niebla.", True),
    ("Cuando llueva, la niebla espesa obliga a frenar.", False),        # one word, no run
    ("Llevará encendido el paso de niebla.", False),                    # two in a row: RUN is 3
    # the same words in another role: nothing before them is the rule's ("llevar")
    ("El agente indicará con la luz de paso corto o de niebla.", False),
])
def test_shares_run(other, shared):
    seq = C._seq(RULE)
    at = seq.index(C._seq("niebla")[0])
    assert C.shares_run(seq, at, C._seq(other)) is shared


@pytest.fixture(scope="module")
def real(built_site):
    from citavial.worker.http.serve import load_deps
    deps, why, _ = load_deps(built_site, load_llm=False)
    assert deps is not None, why
    return deps


def test_real_dipped_beams_read_art_101_1_101_2_and_104(real):
    """Issue 25.4: art. 101.1 (at night, with its paragraph on towns), 101.2's lead-in and
    letters and art. 104 (by day: motorcycles, reversible lanes) are read and cited."""
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    r = collect(answer("¿Cuándo hay que usar las luces de cruce?", real))
    assert r["outcome"] == "answer", r["text"]
    refs = [c["ref"].split("#")[1] for c in r["citations"]]
    assert {"art101.1", "art101.1.p2", "art101.2", "art101.2.a", "art101.2.b", "art101.2.c",
            "art104", "art104.a", "art104.b"} <= set(refs), refs
    text = r["text"]
    assert text.index("suficientemente iluminadas") < text.index("cuando concurra alguna") \
        < text.index("durante el día la luz de corto alcance o cruce")
    for c in r["citations"]:
        assert c["quote"] == real.allowlist.get(c["ref"]).text
