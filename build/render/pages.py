"""Render: Regulation → HTML pages (jinja2, autoescaped, StrictUndefined) into a directory.

Every page is self-contained for file:// use: relative links only, no request to another host.
A passage's element carries only the regulation text, so the page text a browser searches equals
the XML text (see tests/test_render.py); page chrome lives outside passage elements.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from citavial.build.atomic import write_staged
from citavial.build.headers import csp
from citavial.build.models import EXPIRED, IN_FORCE, NOT_YET, REPEALED, SUPPRESSED, Regulation
from citavial.build.refs import NORMS, Norm, anchor, human_label

STATUS_LABELS = {
    IN_FORCE: "En vigor",
    REPEALED: "Derogado",
    SUPPRESSED: "Suprimido",
    EXPIRED: "Sin vigencia (caducado)",
    NOT_YET: "Aún no en vigor",
}
MONTHS = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
          "septiembre", "octubre", "noviembre", "diciembre"]


DEEPLINKS_DIR = "deeplinks"   # a page's deep links script, see deeplinks_script


def deeplinks_script(page: str) -> str:
    """``art48.html`` → ``deeplinks/art48.js`` (written by gate/deeplinks.py once the gate has run)."""
    return f"{DEEPLINKS_DIR}/{page.removesuffix('.html')}.js"


@dataclass(frozen=True)
class ExtraPage:
    """A page produced by another stage (guides, search, practice…) rendered with the site layout."""

    filename: str
    template: str
    context: dict

    def __repr__(self) -> str:
        return f"ExtraPage({self.filename})"


def spanish_date(value) -> str:
    return f"{value.day} de {MONTHS[value.month - 1]} de {value.year}"


def spanish_iso_date(value: str) -> str:
    """``"2026-07-31"`` (a Source's consolidation date) → "31 de julio de 2026"."""
    return spanish_date(date.fromisoformat(value))


def norm_of(reg: Regulation) -> Norm:
    """The registry entry (build/refs.py NORMS) of a Regulation, by its BOE id."""
    for norm in NORMS.values():
        if norm.boe_id == reg.source.norm_id:
            return norm
    raise KeyError(f"{reg.source.norm_id} is not a norm of build/refs.py NORMS")


def root_prefix(page: str) -> str:
    """The relative way back to the site root from ``page``: "" at the root, "../" from
    ``ley-trafico/art76.html``."""
    return "../" * page.count("/")


def environment(site_src: Path) -> Environment:
    """The templates' environment, one per templates folder and process: the build renders
    in six calls, and compiling the templates again for each cost ~0.2 s. (jinja's auto_reload
    still picks up a template edited on disk.)"""
    return _environment(str(Path(site_src) / "templates"))


@lru_cache(maxsize=8)
def _environment(templates: str) -> Environment:
    env = Environment(
        loader=FileSystemLoader(templates),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["anchor"] = anchor
    env.filters["fecha"] = spanish_date
    env.filters["fecha_iso"] = spanish_iso_date
    env.filters["deeplinks_script"] = deeplinks_script
    env.filters["human_label"] = human_label
    env.filters["first_passage"] = first_passage
    env.filters["shown_title"] = shown_title
    env.globals["STATUS_LABELS"] = STATUS_LABELS
    env.globals["csp"] = csp(meta=True)   # the same policy `citavial serve` sends as a header
    return env


def shown_title(unit) -> str:
    """The unit's title as a heading shows it after its label: an annex section's BOE title
    repeats the number the label already gives ("Anexo I, apartado 5" + "5. Catálogo…"), so
    that leading number goes ("Anexo I, apartado 5. Catálogo…", not "5. 5."); likewise
    "Anexo III, sección 1" + "Sección 1.ª Condiciones…"."""
    title = unit.title or ""
    words = unit.label.split()
    number, kind = words[-1], words[-2] if len(words) > 1 else ""
    # "1.\u2003Señales…" (\s matches the BOE's em space) or "Sección 1.ª Condiciones…".
    pattern = rf"(?:{re.escape(kind)}\s+)?{re.escape(number)}(?:\.ª|\.º)?\.?-?\s+(?=\S)"
    repeat = re.match(pattern, title, re.IGNORECASE) if number.isdigit() else None
    return title[repeat.end():] if repeat else title


def first_passage(unit) -> str:
    """The unit's first citable words: the description a shared link previews."""
    for block in unit.blocks:
        if block.ref and block.text.strip():
            return block.text
    return unit.title


# The site's sections, linked from every page's header (filename, label).
NAV = (("guias.html", "Guías"), ("buscar.html", "Buscar"), ("practica.html", "Practicar"),
       ("simulacro.html", "Simulacro"), ("senales.html", "Señales"), ("cambios.html", "Cambios"),
       ("porque.html", "Por qué"))


# The home page's "Empieza aquí": the student's way in (href, title, text).
START_HERE = (
    ("guias.html", "1. Guías de estudio",
     "Los temas que más caen en el examen, resumidos con citas literales."),
    ("practica.html", "2. Practicar",
     "Preguntas tipo test con la explicación y el artículo de cada respuesta."),
    ("simulacro.html", "3. Simulacro de examen",
     "30 preguntas en 30 minutos; apto con 3 errores como máximo, y la corrección."),
    ("senales.html", "Señales",
     "Todas las señales del reglamento por código y nombre, con su significado legal."),
    ("buscar.html", "Buscar", "Escribe una duda («adelantar en curva») y encuentra el artículo."),
    ("cambios.html", "Qué ha cambiado", "Las últimas modificaciones, palabra por palabra."),
)


def _common(reg: Regulation, nav: tuple[tuple[str, str], ...], base_url: str,
            images: dict[str, str] | None = None) -> dict:
    return {"reg": reg, "source": reg.source, "as_of": reg.as_of, "base_url": base_url,
            "local_images": images or {}, "norm": norm_of(reg),
            "site_links": [{"href": h, "text": t} for h, t in nav],
            "units_by_ref": {u.ref: u for u in reg.units}}


def norm_links(others: list[Regulation]) -> list[dict]:
    """The home page's links to the other norms' front pages."""
    return [{"href": f"{norm_of(r).folder}/index.html", "title": norm_of(r).title,
             "boe_id": r.source.norm_id, "consolidated": r.source.consolidated} for r in others]


def render(reg: Regulation, site_src: Path, out_dir: Path,
           nav: tuple[tuple[str, str], ...] = NAV,
           change_links: dict[str, dict[str, str]] | None = None,
           base_url: str = "", images: dict[str, str] | None = None,
           others: list[Regulation] | None = None) -> list[Path]:
    """Write the regulation's pages for ``reg`` into ``out_dir`` (a staging directory).

    ``change_links``: {unit ref: {"<norm id> <ISO date>": anchor on cambios.html}} for the
    history section's "qué cambió" links (the diffs themselves live on cambios.html so a
    unit page holds each wording's words once, as the gate requires). ``base_url`` (absolute,
    ending in /) adds canonical and OpenGraph URLs; "" keeps every URL relative. ``images``:
    {BOE image URL: path in the site} of the images fetched into corpus/images (corpus/images.py).
    ``others``: the other norms, linked from the home page (their pages: :func:`render_norm`)."""
    env = environment(site_src)
    common = dict(_common(reg, nav, base_url, images), change_links=change_links or {})
    start = [{"href": h, "title": t, "text": x} for h, t, x in START_HERE]
    written = [_write(env, out_dir, "index.html", "index.html",
                      dict(common, start_here=start, other_norms=norm_links(others or [])))]
    written += _unit_pages(env, out_dir, reg, common)
    status_units = [u for u in reg.units if u.status in (REPEALED, SUPPRESSED)]
    written.append(_write(env, out_dir, "vigencia.html", "vigencia.html",
                          dict(common, repealed=status_units, inactive=reg.inactive,
                               in_force_by_label={u.label: u for u in reg.units
                                                  if u.status == IN_FORCE})))
    _copy_static(Path(site_src) / "static", out_dir / "static")
    return written


def render_norm(reg: Regulation, site_src: Path, out_dir: Path,
                nav: tuple[tuple[str, str], ...] = NAV, base_url: str = "",
                images: dict[str, str] | None = None) -> list[Path]:
    """Write another norm's pages into its folder (build/refs.py NORMS): its front page and
    index (``ley-trafico/index.html``) and a page per unit."""
    env = environment(site_src)
    common = dict(_common(reg, nav, base_url, images), change_links={})
    front = f"{norm_of(reg).folder}/index.html"
    return [_write(env, out_dir, front, "norm_index.html", common)] + \
        _unit_pages(env, out_dir, reg, common)


def _unit_pages(env: Environment, out_dir: Path, reg: Regulation, common: dict) -> list[Path]:
    shown, written = reg.units, []
    for i, unit in enumerate(shown):
        ctx = dict(common, unit=unit, prev=shown[i - 1] if i > 0 else None,
                   next=shown[i + 1] if i + 1 < len(shown) else None)
        written.append(_write(env, out_dir, unit.page, "unit.html", ctx))
    return written


def render_pages(reg: Regulation, site_src: Path, out_dir: Path, pages: list[ExtraPage],
                 nav: tuple[tuple[str, str], ...] = NAV, base_url: str = "",
                 images: dict[str, str] | None = None) -> list[Path]:
    """Write pages made by later stages (guides, practice, search…) with the site layout."""
    env = environment(site_src)
    common = _common(reg, nav, base_url, images)
    return [_write(env, out_dir, p.filename, p.template, dict(common, **p.context))
            for p in pages]


def _write(env: Environment, out_dir: Path, filename: str, template: str, ctx: dict) -> Path:
    html = env.get_template(template).render(**ctx, page_name=filename,
                                             root=root_prefix(filename))
    path = out_dir / filename
    write_staged(path, html)
    return path


def _copy_static(src: Path, dst: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dst, dirs_exist_ok=True)

