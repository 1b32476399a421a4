"""Signs: "¿Qué significa la señal R-101?" — a question about a sign itself, answered honestly.

A question that names a sign (the retrieval's sign hits: build/index/signmatch.py) and asks
nothing else — "R-101", "señal R-101", "¿Qué significa la señal de calle residencial?" — does
not get whatever passage ranks first. Instead:

* a **road marking** (M-…) that the text in force defines in words: that passage is the answer,
  an ordinary extractive answer cited from the allowlist (its mentions follow as citations);
* a **vertical sign** (P-, R-, S-), which the catalogue in force (ANEXO I §5) gives only as an
  image: no answer in the regulation's words. The reply names the sign as the *previous*
  catalogue (2003) did, says that this name is not a quote of the text in force, links the
  sign's place on the signs page, and cites the in-force passages that mention the code (and
  the definition of a road marking with the same name, if the question named one).

Every passage shown is an allowlist entry (cite.citation); the signs page link is the build's
(``senales.html#senal-<code>``); nothing is written by a model. The events (events.py):
``sources`` → ``sign`` → ``answer`` → ``citations`` → (``done``), or
``sources`` → ``sign`` → ``abstain`` → (``done``); worker/answer/ask.py adds ``done``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

from citavial.build import patterns as P
from citavial.build.index.signmatch import FILLER, sign_key
from citavial.build.models import AllowlistEntry, SearchResult, SignEntry, SignHit
from citavial.build.text import STOP_WORDS, fold
from citavial.worker.answer.allowlist import Allowlist
from citavial.worker.answer.cite import EXTRACTIVE_LABEL, Reader, citation, source
from citavial.worker.answer.events import (
    Abstain,
    Answer,
    Citations,
    DecisionInfo,
    Event,
    Sign,
    SignBrief,
    Sources,
)

SIGN = "sign"          # the outcome of a vertical sign's reply (no answer in the text in force)
MAX_PASSAGES = 3
# Words that only ask what a sign is ("¿qué es…?", "explícame…", "¿cómo se llama…?").
ASKS = FILLER | frozenset({"explica", "explicame", "dime", "describe", "define", "definicion",
                          "significar", "llamada", "llamado", "llaman"})
PREVIOUS_NOTE = "nombre del catálogo anterior (2003), no es una cita del texto en vigor"
IN_FORCE_NOTE = "nombre y definición del texto en vigor (anexo I, 5)"


@dataclass(frozen=True)
class SignPlan:
    sign: SignEntry
    others: tuple[SignEntry, ...]
    definition: AllowlistEntry | None      # the in-force passage that defines it (markings)
    passages: tuple[AllowlistEntry, ...]   # the in-force passages cited with it

    def __repr__(self) -> str:
        return f"SignPlan({self.sign.code}, defined={self.definition is not None})"


def about_sign(question: str, hits: tuple[SignHit, ...]) -> bool:
    """Whether ``question`` asks only what the signs it names are: once the codes, the names'
    words, stop words and "significa / señal / qué es…" are taken out, nothing is left."""
    if not hits:
        return False
    folded = P.SIGN_QUERY_CODE.sub(" ", fold(question))
    named = {k for h in hits if h.how in ("name", "partial")
             for k in (sign_key(m.group(0)) for m in P.SEARCH_CLIENT_TOKEN.finditer(
                 fold(h.sign.name)))}
    rest = [t for t in (m.group(0) for m in P.SEARCH_CLIENT_TOKEN.finditer(folded))
            if t not in STOP_WORDS and t not in ASKS and sign_key(t) not in named]
    return not rest


def plan(question: str, result: SearchResult, allowlist: Allowlist) -> SignPlan | None:
    """The reply to a question about a sign itself, or None for any other question."""
    hits: tuple[SignHit, ...] = getattr(result, "signs", ())
    if not about_sign(question, hits):
        return None
    sign, others = hits[0].sign, tuple(h.sign for h in hits[1:])
    definition = allowlist.get(sign.definition) if sign.definition else None
    refs = list(sign.mentions) + [o.definition for o in others if o.definition]
    passages = [e for ref in dict.fromkeys(refs)
                if (e := allowlist.get(ref)) is not None and e != definition]
    if definition is not None:
        passages.insert(0, definition)
    return SignPlan(sign, others, definition, tuple(passages[:MAX_PASSAGES]))


def sign_event(p: SignPlan) -> Sign:
    """The ``sign`` event: the sign and where it is on the signs page (not a citation);
    ``label`` is what the chat widget's link to it says, with where the name comes from."""
    s = p.sign
    kind = "Marca vial" if s.code.startswith("M-") else "Señal"
    note = IN_FORCE_NOTE if s.name_in_force else PREVIOUS_NOTE
    return Sign(code=s.code, name=s.name, url=s.url, name_source=_name_source(s), group=s.group,
                label=f"{kind} {s.code} · {s.name} — {note}", defined=p.definition is not None,
                definition=s.definition or None, mentions=tuple(s.mentions),
                others=tuple(SignBrief(code=o.code, name=o.name, url=o.url,
                                       name_source=_name_source(o)) for o in p.others))


def _name_source(s: SignEntry) -> Literal["in_force", "previous_catalogue"]:
    return "in_force" if s.name_in_force else "previous_catalogue"


def message(p: SignPlan) -> str:
    """A vertical sign's reply, in Spanish, with its name labelled as not a quote."""
    s = p.sign
    text = (f"El texto en vigor no define con palabras la señal {s.code}: el catálogo vigente "
            f"(anexo I, 5) la recoge solo como imagen. En el catálogo anterior (2003) su nombre "
            f"era: {s.name}. Ese nombre no es una cita del texto en vigor. Puedes verla en la "
            f"página de señales.")
    mentioned = [e for e in p.passages if e.ref in s.mentions]
    if mentioned:
        text += (" Abajo, los párrafos en vigor que la mencionan" if len(mentioned) > 1
                 else " Abajo, el párrafo en vigor que la menciona")
        text += (" y la definición de la marca vial del mismo nombre."
                 if len(mentioned) < len(p.passages) else ".")
    elif p.passages:
        text += " Ningún párrafo en vigor menciona su código; abajo, la marca vial del mismo nombre."
    else:
        text += " Ningún párrafo en vigor menciona su código."
    return text


def events(p: SignPlan, reader: Reader, index_version: str) -> Iterator[Event]:
    """Every event of the reply but ``done`` (see the module docstring)."""
    yield Sources(sources=tuple(source(n, e) for n, e in enumerate(p.passages, 1)),
                  index_version=index_version)
    yield sign_event(p)
    cited = [citation(n, e, reader.table(e.ref)) for n, e in enumerate(p.passages, 1)]
    if p.definition is None:
        yield Abstain(outcome=SIGN, message=message(p), norm=None, passages=tuple(cited),
                      decision=DecisionInfo(outcome=SIGN, score=None, calibrated=False))
        return
    d = p.definition
    yield Answer(label=EXTRACTIVE_LABEL, cite=1, kind="clause", text=d.text, emphasis=())
    cited[0] = replace(cited[0], span=d.text, span_url=reader.span_url(d, d.text))
    yield Citations(label=EXTRACTIVE_LABEL, citations=tuple(cited))
