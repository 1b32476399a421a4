"""The practice question bank: a line-oriented text format read with file:line errors.

Format (documented in site_src/practice/README.md)::

    ### velocidad-002
    tema: velocidad
    pregunta: ¿…?
    a: …
    b: …
    c: …
    correcta: a
    cita: art48.1.a.1o
    texto: exact words of that passage
    explicacion: one or two sentences
    cita2: art68.1.p2          (optional: more quotes — an exception, a list's lead-in)
    texto2: exact words of that passage

Each explanation's quote (cita + texto) goes through the same gate as the guides (verify.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from citavial.build.content.guides import read_utf8
from citavial.build.errors import BuildError, BuildErrors
from citavial.build.gate.verify import GateError
from citavial.build.models import Citation
from citavial.build.patterns import QUESTION_ID
from citavial.build.refs import NORMS, Ref, RefError, human_label, parse_ref
from citavial.build.render.changes import latest_change

KEYS = ("tema", "pregunta", "a", "b", "c", "correcta", "cita", "texto", "explicacion")
# Optional after explicacion: more quotes the explanation relies on (an exception, a list's
# lead-in), each a cita/texto pair checked by the same gate.
MORE_KEYS = (("cita2", "texto2"), ("cita3", "texto3"))
ALL_KEYS = KEYS + tuple(k for pair in MORE_KEYS for k in pair)
TOPICS = {
    "velocidad": "Velocidad", "adelantamientos": "Adelantamientos", "prioridad": "Prioridad de paso",
    "luces": "Luces y alumbrado", "parada-estacionamiento": "Parada y estacionamiento",
    "senales-marcas": "Señales y marcas viales", "agentes-semaforos": "Agentes y semáforos",
    "autopistas-autovias": "Autopistas y autovías", "alcohol-drogas": "Alcohol y drogas",
    "cinturon-casco-movil": "Cinturón, casco y móvil",
    "transporte-personas-carga": "Transporte de personas y carga",
    "normas-generales": "Normas generales de circulación",
    "puntos-sanciones": "Permiso por puntos y sanciones",
    "permisos-documentacion": "Permisos, ITV y documentación",
}
# "Leer en …" for a quote of another norm than the Reglamento (build/refs.py NORMS).
SOURCE_NAMES = {"RDL-6/2015": "la Ley sobre Tráfico",
                "RD-818/2009": "el Reglamento General de Conductores",
                "RD-2822/1998": "el Reglamento General de Vehículos"}


@dataclass(frozen=True)
class Question:
    id: str
    topic: str
    question: str
    options: tuple[str, str, str]
    correct: int            # 0, 1 or 2
    explanation: str
    citation: Citation
    more: tuple[Citation, ...] = ()   # cita2/texto2, cita3/texto3
    line: int = 0                     # the line of its explanation

    @property
    def citations(self) -> tuple[Citation, ...]:
        return (self.citation,) + self.more

    def __repr__(self) -> str:
        return f"Question({self.id})"


def read_bank(practice_dir: Path) -> list[Question]:
    """Read every ``*.txt`` of the bank; collect every format error before raising."""
    questions: list[Question] = []
    errors: list[BuildError] = []
    for path in sorted(Path(practice_dir).glob("*.txt")):
        for start, fields in _blocks(path, errors):
            q = _question(path, start, fields, errors)
            if q:
                questions.append(q)
    seen: dict[str, Question] = {}
    for q in questions:
        if q.id in seen:
            errors.append(BuildError(f"{q.citation.file}:{q.citation.line}",
                                     f"question id {q.id!r} is used twice",
                                     f"rename one; the other is in {seen[q.id].citation.file}"))
        seen[q.id] = q
    if errors:
        raise BuildErrors(errors)
    return questions


def _blocks(path: Path, errors: list[BuildError]):
    """Yield (line of '### id', {key: (line, value)}) for each question block."""
    current: tuple[int, dict] | None = None
    for n, raw in enumerate(read_utf8(path).splitlines(), start=1):
        line = raw.strip()
        if line.startswith("### "):
            if current:
                yield current
            current = (n, {"id": (n, line[4:].strip())})
        elif not line:
            continue
        elif current is None:
            errors.append(BuildError(f"{path}:{n}", f"text outside a question: {line[:40]!r}",
                                     "start each question with '### <id>'"))
        else:
            key, sep, value = line.partition(":")
            key = key.strip()
            if not sep or key not in ALL_KEYS:
                errors.append(BuildError(f"{path}:{n}", f"unknown line {line[:40]!r}",
                                         f"use 'key: value' with a key among {', '.join(ALL_KEYS)}"))
            elif key in current[1]:
                errors.append(BuildError(f"{path}:{n}", f"key {key!r} repeated",
                                         "give each key once per question"))
            else:
                current[1][key] = (n, value.strip())
    if current:
        yield current


def _question(path: Path, start: int, f: dict, errors: list[BuildError]) -> Question | None:
    where = f"{path}:{start}"
    missing = [k for k in KEYS if not f.get(k, (0, ""))[1]]
    if missing:
        errors.append(BuildError(where, f"question {f['id'][1]!r} lacks {', '.join(missing)}",
                                 "each question needs tema, pregunta, exactly three options a, b, "
                                 "c, correcta, cita, texto and explicacion"))
        return None
    qid = f["id"][1]
    if not QUESTION_ID.match(qid):
        errors.append(BuildError(where, f"id {qid!r} is not '<topic>-NNN'", "e.g. velocidad-007"))
    topic = f["tema"][1]
    if topic not in TOPICS:
        errors.append(BuildError(f"{path}:{f['tema'][0]}", f"tema {topic!r} is unknown",
                                 f"use one of {', '.join(TOPICS)}"))
    correct = f["correcta"][1]
    if correct not in ("a", "b", "c"):
        errors.append(BuildError(f"{path}:{f['correcta'][0]}",
                                 f"correcta is {correct!r}: exactly one of the three options "
                                 "must be correct", "write correcta: a, b or c"))
        return None
    options = (f["a"][1], f["b"][1], f["c"][1])
    if len(set(options)) != 3:
        errors.append(BuildError(where, "two options are identical", "make the options distinct"))
    more = []
    for cita, texto in MORE_KEYS:
        if (cita in f) != (texto in f):
            errors.append(BuildError(where, f"question {qid!r} has {cita if cita in f else texto} "
                                     f"without {texto if cita in f else cita}",
                                     f"give both {cita} and {texto}, or neither"))
        elif cita in f:
            more.append(_citation(path, f[cita][1], f[texto]))
    return Question(id=qid, topic=topic, question=f["pregunta"][1], options=options,
                    correct="abc".index(correct), explanation=f["explicacion"][1],
                    citation=_citation(path, f["cita"][1], f["texto"]), more=tuple(more),
                    line=f["explicacion"][0])


def _citation(path: Path, raw_ref: str, texto: tuple[int, str]) -> Citation:
    try:
        ref, err = cited_ref(raw_ref), ""
    except RefError as exc:
        ref, err = raw_ref, str(exc)
    return Citation(str(path), texto[0], ref, texto[1], err)


def cited_ref(raw: str) -> str:
    """A ``cita`` value as a canonical ref: the Reglamento's fragment as ever (``art48.1.b``),
    or another norm's full ref (``RDL-6/2015#anexoII.r10``, ``RD-818/2009#art4.2.p2``,
    ``RD-2822/1998#art26.1.b``). RefError naming the accepted prefixes otherwise."""
    if "#" not in raw:
        return parse_ref(raw)
    try:
        return str(Ref.parse(raw))
    except RefError as exc:
        raise RefError(f"{exc}; write the Reglamento's refs without a prefix ('art48.1.b') "
                       f"and another norm's in full ('RDL-6/2015#anexoII.r10')") from None


def link_label(ref: str) -> str:
    """The chip label after "Leer en <source>: ": human_label without the norm's short name,
    which the source already says ("anexo II, fila 10", not "Ley de Tráfico, anexo II, …")."""
    short = NORMS[Ref.parse(ref).norm].short
    return human_label(ref).removeprefix(f"{short}, ") if short else human_label(ref)


def source_name(ref: str) -> str:
    """Where the link leads, for "Leer en …": "el reglamento" (the Reglamento General de
    Circulación, as the page always said), or the other norm's name."""
    norm = ref.partition("#")[0]
    return SOURCE_NAMES.get(norm, "el reglamento")


def name_questions(errors: list[BuildError], bank: list[Question]) -> list[BuildError]:
    """The build's errors, those at a question's lines (its quotes, its explanation) saying
    which question they are about: "question puntos-sanciones-001: RDL-6/2015#anexoII.r10
    «…»: table row not found…". Other errors are returned unchanged, in the same order."""
    at: dict[str, str] = {}
    for q in bank:
        at[f"{q.citation.file}:{q.line}"] = q.id
        for c in q.citations:
            at[f"{c.file}:{c.line}"] = q.id
    out = []
    for err in errors:
        qid = at.get(err.where)
        if qid is not None and not err.problem.startswith("question "):
            problem = f"question {qid}: {err.problem}"
            err = (GateError(err.where, problem, err.fix, err.code) if isinstance(err, GateError)
                   else BuildError(err.where, problem, err.fix))
        out.append(err)
    return out


def prose_items(bank: list[Question]) -> list:
    """Each question's explanation and correct option for the prose check (build/content/prose.py); the
    question's own numbers are given, not claimed."""
    from citavial.build.content.prose import ProseItem

    return [ProseItem(q.citation.file, q.line, f"{q.explanation} {q.options[q.correct]}",
                      q.citations, given=q.question) for q in bank]


def bank_json(bank: list[Question], links: dict[tuple[str, int, str], str], version: str,
              recent: dict | None = None) -> dict:
    """The bank as the practice page reads it; every explanation's link is the gate's deep link.
    ``recent``: {passage ref: date its words last changed} for the "este texto cambió" warning."""
    return {
        "schema": "citavial-practice-bank/1",
        "version": version,
        "topics": {t: TOPICS[t] for t in sorted({q.topic for q in bank})},
        "questions": [{
            "id": q.id, "topic": q.topic, "question": q.question, "options": list(q.options),
            "correct": q.correct, "explanation": q.explanation, "quote": q.citation.quote,
            "ref": q.citation.ref, "label": link_label(q.citation.ref),
            "source": source_name(q.citation.ref),
            "url": links[(q.citation.file, q.citation.line, q.citation.quote)],
            "more": [{"quote": c.quote, "ref": c.ref, "label": link_label(c.ref),
                      "source": source_name(c.ref),
                      "url": links[(c.file, c.line, c.quote)]} for c in q.more],
            "changed": _iso(latest_change(q.citation.ref, recent or {})),
        } for q in sorted(bank, key=lambda q: q.id)],
    }



def _iso(day) -> str:
    return day.isoformat() if day else ""
