"""One pass over the flat <bloque> sequence: numbering spaces, headings, units."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from lxml import etree

from citavial.build.errors import BuildError
from citavial.build.ingest.blocks import collapse, links_in, read_version
from citavial.build.ingest.structure import assign_article_refs, assign_sequential_refs
from citavial.build.ingest.versions import select
from citavial.build.models import (
    IN_FORCE,
    REPEALED,
    SUPPRESSED,
    Block,
    Heading,
    Note,
    TocEntry,
    Unit,
    Version,
)
from citavial.build.patterns import (
    ANEXO_HEADING,
    ANNEX_SECTION_NUMBER,
    ARTICLE_HEADING_TEXT,
    ARTICLE_TITLE,
    ARTICLE_UNICO_TITLE,
    CAPITULO_HEADING,
    DISPOSITION_TITLE,
    REGLAMENTO_HEADING,
    SECCION_HEADING,
    SUBSECCION_HEADING,
    TITULO_HEADING,
)
from citavial.build.refs import article_fragment, canonical, disposition_fragment, page

LEVELS = {"part": 0, "anexo": 0, "titulo": 1, "capitulo": 2, "seccion": 3, "subseccion": 4}


@dataclass
class _State:
    space: str = "rd"
    stack: list[Heading] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    inactive: list[Unit] = field(default_factory=list)
    toc: list[TocEntry] = field(default_factory=list)
    initial: list[Note] = field(default_factory=list)
    preamble: list[str] = field(default_factory=list)


def walk(bloques: list[etree._Element], as_of: date):
    """Return (units, toc, initial notes, preamble paragraphs, inactive units)."""
    st = _State()
    for bloque in bloques:
        tipo = bloque.get("tipo")
        status, version, versions, expires = select(bloque, as_of)
        if tipo == "encabezado":
            _heading(st, bloque, status, version, versions, expires, as_of)
        elif tipo == "precepto":
            _precept(st, bloque, status, version, versions, expires, as_of)
        elif version is not None and tipo == "nota_inicial":
            texts = tuple(b.text for b in read_version(version, as_of)[0])
            st.initial.append(Note("initial", texts, links_in(version)))
        elif version is not None and tipo == "preambulo":
            st.preamble.extend(b.text for b in read_version(version, as_of)[0])
    refs = [u.ref for u in st.units]
    dupes = sorted({r for r in refs if refs.count(r) > 1})
    if dupes:
        raise BuildError("corpus", f"two units in force share the ref(s) {dupes}",
                         "check the as-of date and the blocks' fecha_caducidad")
    return st.units, st.toc, st.initial, st.preamble, st.inactive


def _switch_space(st: _State, title: str) -> str | None:
    """Move between numbering spaces; return the heading level this title implies."""
    if REGLAMENTO_HEADING.match(title):
        st.space = "reglamento"
        return "part"
    if m := ANEXO_HEADING.match(title):
        st.space = f"anexo{m.group(1)}"
        return "anexo"
    if TITULO_HEADING.match(title):
        st.space = "reglamento"  # TÍTULO VI sits after the dispositions: back to the body
        return "titulo"
    if CAPITULO_HEADING.match(title):
        return "capitulo"
    if SECCION_HEADING.match(title):
        return "seccion"
    if SUBSECCION_HEADING.match(title):
        return "subseccion"
    if ANNEX_SECTION_NUMBER.match(title) and st.space.startswith("anexo"):
        return "section"
    return None


def _heading(st: _State, bloque, status, version, versions, expires, as_of) -> None:
    title = bloque.get("titulo") or ""
    level = _switch_space(st, title)
    if level is None:
        raise BuildError(f"bloque id={bloque.get('id')!r}", f"heading title {title!r} is unknown",
                         "extend build/patterns.py with this heading form and its test")
    if status != IN_FORCE:
        return  # an expired heading must not adopt the in-force articles that follow it
    blocks, notes = read_version(version, as_of)
    head = [b.text for b in blocks if b.kind == "heading"][:2]
    content = [b for b in blocks if b.kind != "heading" or b.source_class.startswith("centro")]
    has_content = any(b.kind in ("paragraph", "table", "figure") for b in content)
    in_annex = st.space.startswith("anexo")
    if level in LEVELS and not (in_annex and level in ("seccion",) and has_content):
        heading = Heading(level, head[0] if head else title,
                          " ".join(head[1:]) if len(head) > 1 else "", bloque.get("id"),
                          tuple(notes))
        depth = LEVELS[level]
        while st.stack and LEVELS[st.stack[-1].level] >= depth:
            st.stack.pop()
        st.stack.append(heading)
        st.toc.append(TocEntry(depth=len(st.stack) - 1, heading=heading))
        if not has_content:
            return
    frag, label = _annex_unit_name(st.space, level, title)
    _add_unit(st, bloque, frag, "annex" if level == "anexo" else "annex_section", label,
              _annex_title(blocks, level), IN_FORCE, version, versions, expires,
              assign_sequential_refs(canonical(frag), [b for b in blocks if b.kind != "heading"
                                                       or b not in _title_blocks(blocks, level)]),
              notes)


def _title_blocks(blocks: list[Block], level: str) -> list[Block]:
    """The heading blocks that form the unit's label/title (removed from its body)."""
    heads = [b for b in blocks if b.kind == "heading" and not b.source_class.startswith("centro")]
    return heads[:2] if level == "anexo" else heads[:1]


def _annex_title(blocks: list[Block], level: str) -> str:
    heads = _title_blocks(blocks, level)
    return heads[-1].text if heads else ""


def _annex_unit_name(space: str, level: str, title: str) -> tuple[str, str]:
    roman = space[len("anexo"):]
    if level == "anexo":
        return space, f"Anexo {roman}"
    if m := SECCION_HEADING.match(title):
        return f"{space}.s{m.group(1)}", f"Anexo {roman}, sección {m.group(1)}"
    return f"{space}.{title}", f"Anexo {roman}, apartado {title}"


def _precept_name(st: _State, title: str, where: str) -> tuple[str, str]:
    """(fragment, kind) of a precepto block in the current numbering space."""
    if m := ARTICLE_TITLE.match(title):
        frag = article_fragment(m.group(1), m.group(2) or "")
        kind = "article"
    elif ARTICLE_UNICO_TITLE.match(title):
        frag, kind = "artunico", "article"
    elif m := DISPOSITION_TITLE.match(title):
        frag, kind = disposition_fragment(m.group(1), m.group(2)), "disposition"
    else:
        raise BuildError(where, f"precepto title {title!r} is not an article or disposition",
                         "extend build/patterns.py with this form and its test")
    if st.space == "rd":
        return f"rd.{frag}", "rd_precept"
    if kind == "disposition" and st.space == "reglamento":
        # The Reglamento's dispositions follow TÍTULO VI but belong to no título.
        del st.stack[1:]
    if st.space.startswith("anexo"):
        return f"{st.space}.{frag}", "annex_article"
    return frag, kind


def _precept(st: _State, bloque, status, version, versions, expires, as_of) -> None:
    title = bloque.get("titulo") or ""
    where = f"bloque id={bloque.get('id')!r}"
    frag, kind = _precept_name(st, title, where)
    label = title + (f" ({_space_label(st.space)})" if st.space != "reglamento" else "")
    if status != IN_FORCE:
        _add_unit(st, bloque, frag, kind, label, "", status, None, versions, expires, [], [])
        return
    blocks, notes = read_version(version, as_of)
    heading = next((b for b in blocks if b.source_class == "articulo"), None)
    body = [b for b in blocks if b is not heading]
    m = ARTICLE_HEADING_TEXT.match(heading.text) if heading else None
    unit_title = collapse(m.group(1)) if m else (heading.text if heading else "")
    _add_unit(st, bloque, frag, kind, label, unit_title, IN_FORCE, version, versions, expires,
              assign_article_refs(canonical(frag), body), notes)


def _space_label(space: str) -> str:
    return "Real Decreto" if space == "rd" else f"Anexo {space[len('anexo'):]}"


def _add_unit(st: _State, bloque, frag: str, kind: str, label: str, title: str, status: str,
              version, versions: tuple[Version, ...], expires, blocks: list[Block],
              notes: list[Note]) -> None:
    ref = canonical(frag)
    if status == IN_FORCE:
        citable = [b for b in blocks if b.ref]
        if citable and all(b.status == REPEALED for b in citable):
            status = REPEALED
        elif citable and all(b.status == SUPPRESSED for b in citable):
            status = SUPPRESSED
    unit = Unit(
        ref=ref, kind=kind, space=st.space, label=label, title=title,
        block_id=bloque.get("id"), status=status, page=page(ref),
        version=None if version is None else next(
            v for v in versions if v.in_force.strftime("%Y%m%d") == version.get("fecha_vigencia")
            and v.norm_id == version.get("id_norma")),
        versions=versions, blocks=tuple(blocks),
        notes=tuple(n for n in notes if n.kind != "history"),
        history=tuple(n for n in notes if n.kind == "history"),
        path=tuple(h.label for h in st.stack), expires=expires,
    )
    if status in (IN_FORCE, REPEALED, SUPPRESSED):
        st.units.append(unit)
        st.toc.append(TocEntry(depth=len(st.stack), unit_ref=ref))
    else:
        st.inactive.append(unit)
