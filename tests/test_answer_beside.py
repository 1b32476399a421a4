"""The words beside the answer (worker/answer/beside.py, vague.py): the antecedent of a span that
points back, the sentence or passage that qualifies it, the list it belongs to or introduces, and
the table — with a question back — for a question too vague for it. Table tests over a small
allowlist written for them (our own wording, shaped like the Reglamento), then the same
behaviour on the real built site, with every shown piece's link proven by the gate's matcher."""

from __future__ import annotations

import pytest

from citavial.build.models import AllowlistEntry
from citavial.build.refs import Ref
from citavial.worker.answer import beside as B
from citavial.worker.answer.allowlist import Allowlist
from citavial.worker.answer.cite import Reader, answer_event, citations_event, clarify
from citavial.worker.answer.events import ABSENT
from citavial.worker.answer.question import read_question
from citavial.worker.answer.span import Cell, Piece, Span, clauses
from citavial.worker.answer.vague import reframe, vague_figure

N = "RD-1428/2003#"


def entry(frag: str, text: str) -> AllowlistEntry:
    page = frag.split(".")[0] + ".html"
    anchor = frag.replace(".", "-")
    return AllowlistEntry(ref=N + frag, url=f"{page}#{anchor}", page=page, anchor=anchor,
                          text=text, sha256="x", as_of="2026-12-01",
                          source_url="https://www.boe.es/x", source_license="BOE",
                          label=f"art. {frag}", directive="exact", norm="RD-1428/2003",
                          boe_id="BOE-A-2003-23514", consolidated="2026-07-31")


# Document order matters: the allowlist file is in document order, and so is this list.
TEXTS = [
    ("art20.1", "1. Los conductores de turismos llevarán el cinturón abrochado."),
    ("art20.1.p2", "En todo caso, los menores de estatura igual o inferior a 135 centímetros "
                   "irán en sillas homologadas."),
    ("art20.2", "2. En los turismos, los ocupantes a que se refiere el párrafo segundo del "
                "apartado 1 usarán sillas adaptadas a su talla."),
    ("art20.2.p2", "Dichos ocupantes irán en los asientos traseros. Excepcionalmente podrán ir "
                   "delante en los siguientes casos:"),
    ("art20.2.1o", "1.º Cuando el turismo no tenga asientos traseros."),
    ("art20.2.2o", "2.º Cuando los traseros estén ocupados por otros menores."),
    ("art20.3", "3. Las sillas se instalarán como indique su fabricante."),
    ("art30.1", "1. Se encenderá la luz de cruce cuando concurra alguna de estas circunstancias:"),
    ("art30.1.a", "a) Que no haya luz de carretera."),
    ("art30.1.b", "b) Que se circule a menos de 40 km/h sin luz de carretera."),
    ("art30.1.c", "c) Que se pueda deslumbrar a otros usuarios."),
    ("art30.2", "2. No encenderla será infracción grave."),
    ("art40.1", "1. Queda prohibido parar en los lugares siguientes:"),
    *[(f"art40.1.{c}", f"{c}) En el lugar número {i} de la lista de lugares prohibidos.")
      for i, c in enumerate("abcdefgh", 1)],
    ("art50.1", "1. Los ciclistas circularán por el arcén. No obstante, podrán ocupar la calzada "
                "en los descensos prolongados."),
    ("art50.2", "2. Excepcionalmente, los ciclistas mayores de catorce años podrán circular por "
                "los arcenes de las autovías."),
    ("art60.1", "1. Este reglamento se aplica en todas las vías públicas."),
    ("art60.2", "2. Esta normativa regula también los terrenos privados de uso común."),
    ("art70.1", "1. Los peatones circularán por la acera. En tal caso, cederán el paso en los "
                "pasos señalizados."),
    ("art80.1", "1. Las velocidades máximas en las vías fuera de poblado son las siguientes:"),
    ("art80.1.a", "Turismos Camiones Autopista 120 90 Convencional 90 80"),
    ("art80.1.a.1o", "1.º En convencionales separadas, el titular de la vía podrá fijar 100 km/h."),
]
ENTRIES = {N + f: entry(f, t) for f, t in TEXTS}
ALLOW = Allowlist(as_of="2026-12-01", entries=ENTRIES, path="test", sha256="x")
SPEED_ROWS = [[("", False), ("Turismos", True), ("Camiones", True)],
              [("Autopista", False), ("120", False), ("90", False)],
              [("Convencional", False), ("90", False), ("80", False)]]


class Tables:
    """The retriever's table look-up: art. 80.1.a is the table of speeds."""

    def table(self, ref):
        return SPEED_ROWS if ref == N + "art80.1.a" else []


READER = Reader(ALLOW, Tables())


def clause_span(frag: str, nth: int = -1) -> Span:
    """The span span.py would pick: clause ``nth`` of the passage (not its bare designator),
    with the lead-in the reader gives it when it opens the passage."""
    e = ENTRIES[N + frag]
    cl = [(a, b) for a, b in clauses(e.text) if len(e.text[a:b].split()) > 1]
    a, b = cl[nth] if nth >= 0 else (0, len(e.text))
    lead = READER.lead_in(e.ref) if a == 0 else None
    lead_piece = None if lead is None else Piece(lead.ref, lead.text, 0, len(lead.text))
    return Span(Piece(e.ref, e.text[a:b], a, b), 1.0, 0, lead_in=lead_piece)


def frags(pieces) -> list[str]:
    return [p.ref.split("#")[1] for p in pieces]


@pytest.mark.parametrize("question,frag,nth,before,main_end,items,after", [
    # "Dichos ocupantes…" is read with what names them (20.2, and the 135 cm of 20.1.p2 that
    # 20.2 refers to), the "Excepcionalmente…" sentence after it, and the cases it lists
    ("¿Puede un niño ir delante?", "art20.2.p2", 0, ["art20.1.p2", "art20.2"],
     "en los siguientes casos:", ["art20.2.1o", "art20.2.2o"], []),
    # one letter of a list of conditions: a "¿cuándo…?" question gets every letter, in order,
    # and not the next apartado
    ("¿Cuándo hay que encender la luz de cruce?", "art30.1.b", -1, [], "sin luz de carretera.",
     ["art30.1.a", "art30.1.b", "art30.1.c"], []),
    ("¿En qué casos se enciende la luz de cruce?", "art30.1.c", -1, [], "otros usuarios.",
     ["art30.1.a", "art30.1.b", "art30.1.c"], []),
    # a yes/no question about one condition keeps its one letter
    ("¿Debo encender la luz de cruce a 30 km/h?", "art30.1.b", -1, [], "sin luz de carretera.",
     [], []),
    # a list longer than MAX_ITEMS keeps its one item
    ("¿Cuándo está prohibido parar?", "art40.1.c", -1, [], "lugares prohibidos.", [], []),
    # the next sentence qualifies the rule ("No obstante…"), and the next apartado opens by
    # qualifying it ("Excepcionalmente, …")
    ("¿Por dónde van los ciclistas?", "art50.1", 0, [], "descensos prolongados.", [],
     ["art50.2"]),
    # a passage that opens by qualifying the one before is read with it
    ("¿Pueden ir bicis por el arcén de la autovía?", "art50.2", 0, ["art50.1"],
     "de las autovías.", [], []),
    # "Esta normativa…" points at the text itself, not at the passage before
    ("¿Qué regula en terrenos privados?", "art60.2", 0, [], "de uso común.", [], []),
    # "En tal caso…" in the middle of a passage grows back to the clause it points to
    ("¿Ceden el paso los peatones?", "art70.1", 1, [], "pasos señalizados.", [], []),
], ids=["anaphor-crossref-qualifier-list", "cuando-whole-list", "en-que-casos-whole-list",
        "yesno-keeps-one-letter", "long-list-keeps-one-item", "qualifier-sentence-and-passage",
        "qualifying-passage-reads-its-rule", "self-reference-is-no-anaphor",
        "mid-passage-anaphor-grows-back"])
def test_words_beside_the_span(question, frag, nth, before, main_end, items, after):
    span = clause_span(frag, nth)
    got = B.complete(read_question(question), span, READER)
    assert (frags(got.before), frags(got.items), frags(got.after)) == (before, items, after)
    assert got.main.text.endswith(main_end)
    main = ENTRIES[got.main.ref]
    assert main.text[got.main.start:got.main.end] == got.main.text   # literal
    for p in (*got.before, *got.items, *got.after):
        assert ENTRIES[p.ref].text[p.start:p.end] == p.text
    if items and frag in items:   # the answer's own piece stands in its place in the list
        assert got.items[items.index(frag)] == got.main
    assert got.score == span.score   # the gate's score is never touched


@pytest.mark.parametrize("question,near,offered", [
    # a letter of a list of conditions: its lead-in and every letter, in document order
    ("¿Cuándo hay que encender la luz de cruce?", ["art50.1", "art30.1.c"],
     ["art50.1", "art30.1", "art30.1.a", "art30.1.b", "art30.1.c"]),
    # two letters of one list: the list once
    ("¿En qué casos se enciende la luz de cruce?", ["art30.1.b", "art30.1.a"],
     ["art30.1", "art30.1.a", "art30.1.b", "art30.1.c"]),
    # not a "¿cuándo…?" question: the letter after its lead-in only
    ("¿Hay que encender la luz de cruce?", ["art30.1.c"], ["art30.1", "art30.1.c"]),
    # a list longer than MAX_ITEMS: its lead-in and the one item
    ("¿Cuándo está prohibido parar?", ["art40.1.c"], ["art40.1", "art40.1.c"]),
    # no list item: as retrieved
    ("¿Cuándo van los ciclistas por el arcén?", ["art50.2", "art50.1"], ["art50.2", "art50.1"]),
], ids=["cuando-letter-whole-list", "two-letters-one-list", "yesno-lead-in-only",
        "long-list-lead-in-only", "no-item-as-retrieved"])
def test_nearest_passages_read_a_list_item_with_its_lead_in(question, near, offered):
    """Issue 25.4: with "No lo tengo claro", a lone letter ("c) Posibilidad de producir
    deslumbramiento…") is offered after its lead-in, and for a "¿cuándo…?" question with its
    list."""
    got = B.nearest(read_question(question), [ENTRIES[N + f] for f in near], READER)
    assert frags(got) == offered


def test_the_span_grows_back_over_what_it_points_to():
    got = B.complete(read_question("¿Ceden el paso los peatones?"), clause_span("art70.1", 1),
                     READER)
    assert got.main.text == ENTRIES[N + "art70.1"].text   # the whole passage, designator too


@pytest.mark.parametrize("question,vague", [
    ("¿Puedo ir a 100?", True), ("¿Se puede circular a 90 km/h?", True),
    ("¿A cuánto puedo ir?", True), ("¿Puedo ir a 100 por autopista?", False),
    ("¿Puedo llevar 3 metros de carga?", False), ("¿Qué dice el art. 48?", False),
    ("¿Puedo aparcar aquí?", False),
], ids=["bare-figure", "figure-with-unit", "asks-a-figure", "names-the-road", "not-a-speed",
        "article-number", "no-figure"])
def test_vague_figure(question, vague):
    assert vague_figure(read_question(question)) is vague


@pytest.mark.parametrize("question,cells", [
    ("¿Puedo ir a 100?", [("Autopista", "Turismos", "120"), ("Autopista", "Camiones", "90"),
                          ("Convencional", "Turismos", "90"), ("Convencional", "Camiones", "80")]),
    ("¿Puedo ir a 100 por autopista?", None),   # not vague: span.py answers with the row
], ids=["vague-gets-every-cell", "named-road-is-not-vague"])
def test_a_vague_question_gets_the_table_not_the_side_rule(question, cells):
    # retrieval brought the side rule only ("podrá fijar 100"); the table is found anyway
    side = ENTRIES[N + "art80.1.a.1o"]
    span = Span(Piece(side.ref, side.text, 0, len(side.text)), 0.7, 0)
    got = reframe(read_question(question), [side], span, READER)
    if cells is None:
        assert got is None
        return
    entries, table = got
    assert [e.ref for e in entries] == [side.ref, N + "art80.1.a"] and table.rank == 1
    assert [(c.row, c.column, c.value) for c in table.cells] == cells
    assert table.score == span.score and table.lead_in is not None


def speed(row: str, column: str, value: str) -> Cell:
    return Cell(row, column, value, "km/h")


@pytest.mark.parametrize("cells,asks", [
    ([speed("Autopista", "Turismos", "120"), speed("Convencional", "Camiones", "80")],
     "¿En qué vía y con qué vehículo?"),
    ([speed("Autopista", "Turismos", "120"), speed("Autopista", "Camiones", "90")],
     "¿Con qué vehículo?"),
    ([speed("Autopista", "Turismos", "120"), speed("Convencional", "Turismos", "90")],
     "¿Por qué vía?"),
    ([speed("Autopista", "Turismos", "120")], None),
    ([Cell("Fila", "A", "1", ""), Cell("Fila", "B", "2", "")], "Depende del caso"),
], ids=["road-and-vehicle", "vehicle", "road", "one-cell-asks-nothing", "other-table"])
def test_clarify(cells, asks):
    got = clarify(cells)
    assert got == asks if asks is None else got.startswith(asks)


def test_every_shown_piece_is_cited_with_its_span_main_first():
    q = read_question("¿Puede un niño ir delante?")
    span = B.complete(q, clause_span("art20.2.p2", 0), READER)
    entries = [ENTRIES[N + "art20.2.p2"], ENTRIES[N + "art20.3"]]
    event = answer_event(q, span, None, entries, READER)
    cites = citations_event(span, entries, READER).citations
    # the retrieved passage the answer alone would have cited (20.3) is still cited, last
    assert [c.ref.split("#")[1] for c in cites] == [
        "art20.2.p2", "art20.1.p2", "art20.2", "art20.2.1o", "art20.2.2o", "art20.3"]
    for c in cites:   # every shown piece's citation carries its words; 20.3 is not shown
        assert c.quote == ENTRIES[c.ref].text
        assert c.span in c.quote if c.ref != N + "art20.3" else c.span is ABSENT
    shown = [(p.cite, p.text) for p in (*event.before, *event.items)]
    assert all(cites[n - 1].span == text for n, text in shown)
    assert event.text == ENTRIES[N + "art20.2.p2"].text and event.cite == 1
    assert [p.answer for p in event.items] == [False, False]


# --- on the real built site -----------------------------------------------------------------
# The passages are the real ones; the span is the one span.py picks for such a question, built
# here so that the words beside it are tested apart from what retrieval ranks first. One
# end-to-end answer (the child in the front seat) goes through the whole path.

@pytest.fixture(scope="module")
def real(built_site):
    from citavial.worker.http.serve import load_deps
    deps, why, _ = load_deps(built_site, load_llm=False)
    assert deps is not None, why
    return deps


def real_span(deps, frag: str, nth: int = -1) -> Span:
    e = deps.allowlist.get(N + frag)
    cl = [(a, b) for a, b in clauses(e.text) if len(e.text[a:b].split()) > 1]
    a, b = cl[nth] if nth >= 0 else (0, len(e.text))
    lead = deps.reader.lead_in(e.ref) if a == 0 else None
    lead_piece = None if lead is None else Piece(lead.ref, lead.text, 0, len(lead.text))
    return Span(Piece(e.ref, e.text[a:b], a, b), 1.0, 0, lead_in=lead_piece)


# Our own questions (never the DGT bank's): the three of issue 25's item 4, reworded.
REAL = [
    pytest.param("¿Un niño puede sentarse delante en el coche?", "art117.3.p2", 0,
                 ["art117.1.p2", "art117.3"],
                 ["art117.3.1o", "art117.3.2o", "art117.3.3o", "art117.3.3o.p2"], [],
                 "Excepcionalmente podrán ocupar el asiento delantero", id="child-front-seat"),
    # the same rule's other cases too (cases.py): art. 101.1 by night, art. 104 by day
    pytest.param("¿Cuándo hay que poner la luz de cruce?", "art101.2.b", -1,
                 ["art101.1", "art101.1.p2"], ["art101.2.a", "art101.2.b", "art101.2.c"],
                 ["art104", "art104.a", "art104.b"], "40 kilómetros por hora",
                 id="when-dipped-lights-letters"),
    pytest.param("¿Cuándo se enciende el alumbrado de cruce en vías iluminadas?", "art101.1", 0,
                 [], [], ["art101.1.p2", "art101.2", "art101.2.a", "art101.2.b", "art101.2.c"],
                 "llevará encendido", id="when-dipped-lights-goes-on"),
    pytest.param("¿Pueden ir carros por la autovía?", "art128.p2", -1, ["art128"], [], [],
                 "tracción animal", id="dicha-prohibicion"),
    pytest.param("¿Hay que guardar distancia yendo en grupo en bici?", "art54.1.p2", -1,
                 ["art54.1"], [], [], "circular en grupo", id="no-obstante-reads-its-rule"),
]


@pytest.mark.parametrize("question,frag,nth,before,items,after,said", REAL)
def test_real_passages_get_the_words_beside_them(real, question, frag, nth, before, items,
                                                 after, said):
    got = B.complete(read_question(question), real_span(real, frag, nth), real.reader)
    assert (frags(got.before), frags(got.items), frags(got.after)) == (before, items, after)
    assert said in got.main.text
    for p in (got.main, *got.before, *got.items, *got.after):
        assert real.allowlist.get(p.ref).text[p.start:p.end] == p.text


def test_real_vague_speed_question_gets_the_whole_table(real):
    side = real.allowlist.get(N + "art48.1.a.1o")   # "…podrá fijar un límite máximo de 100…"
    span = Span(Piece(side.ref, side.text, 0, len(side.text)), 1.0, 0)
    got = reframe(read_question("¿Puedo circular a 100?"), [side], span, real.reader)
    assert got is not None
    entries, table = got
    assert entries[table.rank].ref == N + "art48.1.a" and len(table.cells) == 6
    assert {c.value for c in table.cells} == {"120", "100", "90", "80"}
    assert clarify(table.cells).startswith("¿En qué vía y con qué vehículo?")


def ask(deps, question: str) -> dict:
    from citavial.worker.answer.ask import answer
    from citavial.worker.answer.record import collect
    return collect(answer(question, deps))


# Issue 25.4's own example and its kin: the gate alone doubts them ("no lo tengo claro", with
# a side rule's "podrá fijar… 100" among the passages); the student gets the question back
# with every cell of the table, as a rule (score None), never a quote of the side rule.
@pytest.mark.parametrize("question", ["¿Puedo ir a 100?", "¿Puedo circular a 100?",
                                      "¿A cuánto puedo ir?"])
def test_real_vague_question_the_gate_doubts_gets_the_table_and_the_question_back(real,
                                                                                  question):
    r = ask(real, question)
    assert (r["outcome"], r["kind"]) == ("answer", "table"), r["text"]
    a = r["answer"]
    assert a["clarify"].startswith("¿En qué vía y con qué vehículo?")
    assert len(a["table"]["cells"]) == 6 and r["citations"][0]["ref"] == N + "art48.1.a"
    assert "podrá fijar" not in a["text"]


def test_real_when_dipped_lights_offers_art_101_2_with_its_letters(real):
    """Issue 25.4's own question: the gate doubts it (its words are not art. 101's: "llevará
    encendido… el alumbrado de corto alcance o de cruce"); the passages offered read art.
    101.2's lead-in and every letter, not its letter c) alone."""
    r = ask(real, "¿Cuándo hay que usar las luces de cruce?")
    if r["outcome"] == "answer":   # a stronger index answers it: then with the whole list
        assert r["answer"]["items"] and r["answer"]["lead_in"], r["text"]
        return
    got = [p["ref"].split("#")[1] for p in r["passages"]]
    at = got.index("art101.2")
    assert got[at:at + 4] == ["art101.2", "art101.2.a", "art101.2.b", "art101.2.c"], got


@pytest.mark.parametrize("question", ["¿Qué truco hay para aparcar en línea a la primera?",
                                      "¿Puedo ir a 100 por autopista con un camión?"])
def test_a_question_that_is_not_vague_is_left_to_the_gate(real, question):
    r = ask(real, question)
    assert r["answer"] is None or r["answer"]["clarify"] is None, r["text"]


def test_real_answer_names_who_dichos_ocupantes_are_and_every_link_is_proven(real, built_site):
    from dataclasses import replace

    from citavial.build.gate.fragments import match_directive, parse_fragment, read_page
    from citavial.build.gate.fragments.match import source_text
    from citavial.build.text import fold
    from citavial.worker.answer.calibration import UNCALIBRATED

    # The words beside the answer, not the gate, are under test: with the gate off, a span
    # is an answer (the calibrated score of this question sits near the threshold).
    r = ask(replace(real, calibration=UNCALIBRATED), "¿Un niño puede sentarse delante en el coche?")
    assert r["outcome"] == "answer", r["text"]
    refs = [c["ref"].split("#")[1] for c in r["citations"]]
    assert refs[0] == "art117.3.p2" and {"art117.1.p2", "art117.3", "art117.3.1o"} <= set(refs)
    text = r["text"]   # reading order: who they are, the rule, its exception, the cases
    assert text.index("135 centímetros") < text.index("Dichos ocupantes") \
        < text.index("Excepcionalmente") < text.index("1.º Cuando el vehículo")
    for c in r["citations"]:
        e = real.allowlist.get(c["ref"])
        assert e is not None and c["quote"] == e.text and c.get("span", e.text) in e.text
        url = c.get("span_url")
        if url is None or url == e.url:
            continue
        page, _, fragment = url.partition("#")
        _, directives = parse_fragment(fragment)
        model = read_page((built_site / page).read_bytes())
        hit = match_directive(model, directives[0])
        assert hit is not None, url
        words = source_text(model, hit.pos, hit.end_pos)
        assert " ".join(fold(words).split()) == " ".join(fold(c["span"]).split()), url


# A list item's lead-in (Reader.lead_in) is read inside the item's own apartado only; a numbered
# apartado is no list item (it used to take "…:" from an earlier article: art5.1 from art1.2).
@pytest.mark.parametrize("frag, lead", [
    pytest.param("art48.1.b", "art48.1", id="letter-takes-its-apartado"),
    pytest.param("art48.1.c.2o", "art48.1.c", id="ordinal-takes-its-letter"),
    pytest.param("art5.1", None, id="apartado-is-no-item"),
    pytest.param("art1.3", None, id="apartado-after-a-colon-apartado"),
])
def test_a_lead_in_stays_inside_the_items_apartado(real, frag, lead):
    found = real.reader.lead_in(N + frag)
    assert (None if found is None else found.ref) == (None if lead is None else N + lead)


def test_no_lead_in_crosses_its_items_parent(real):
    for ref in real.allowlist.entries:
        found = real.reader.lead_in(ref)
        if found is not None:
            assert Ref.parse(ref).parent.contains(Ref.parse(found.ref)), (ref, found.ref)
