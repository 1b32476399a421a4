"""Render: Regulation → HTML pages (jinja2, autoescaped, StrictUndefined) into a directory.

Every page is self-contained for file:// use: relative links only, no request to another host.
A passage's element carries only the regulation text, so the page text a browser searches equals
the XML text (see tests/test_render.py); page chrome lives outside passage elements.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from citavial.build.atomic import write_staged
from citavial.build.models import EXPIRED, IN_FORCE, NOT_YET, REPEALED, SUPPRESSED, Regulation
from citavial.build.refs import anchor
from citavial.build.web.headers import csp

STATUS_LABELS = {
    IN_FORCE: "En vigor",
    REPEALED: "Derogado",
    SUPPRESSED: "Suprimido",
    EXPIRED: "Sin vigencia (caducado)",
    NOT_YET: "Aún no en vigor",
}
MONTHS = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
          "septiembre", "octubre", "noviembre", "diciembre"]


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


def environment(site_src: Path) -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(Path(site_src) / "templates")),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["anchor"] = anchor
    env.filters["fecha"] = spanish_date
    env.filters["first_passage"] = first_passage
    env.globals["STATUS_LABELS"] = STATUS_LABELS
    env.globals["csp"] = csp(meta=True)   # the same policy `citavial serve` sends as a header
    return env


def first_passage(unit) -> str:
    """The unit's first citable words: the description a shared link previews."""
    for block in unit.blocks:
        if block.ref and block.text.strip():
            return block.text
    return unit.title


# The site's sections, linked from every page's header (filename, label).
NAV = (("guias.html", "Guías"), ("buscar.html", "Buscar"), ("practica.html", "Practicar"),
       ("porque.html", "Por qué"))


def _common(reg: Regulation, nav: tuple[tuple[str, str], ...], base_url: str) -> dict:
    return {"reg": reg, "source": reg.source, "as_of": reg.as_of, "base_url": base_url,
            "site_links": [{"href": h, "text": t} for h, t in nav],
            "units_by_ref": {u.ref: u for u in reg.units}}


def render(reg: Regulation, site_src: Path, out_dir: Path,
           nav: tuple[tuple[str, str], ...] = NAV, base_url: str = "") -> list[Path]:
    """Write the regulation's pages for ``reg`` into ``out_dir`` (a staging directory).
    ``base_url`` (absolute, ending in /) adds canonical and OpenGraph URLs; "" keeps every
    URL relative."""
    env = environment(site_src)
    common = _common(reg, nav, base_url)
    written = [_write(env, out_dir, "index.html", "index.html", common)]
    shown = reg.units
    for i, unit in enumerate(shown):
        ctx = dict(common, unit=unit, prev=shown[i - 1] if i > 0 else None,
                   next=shown[i + 1] if i + 1 < len(shown) else None)
        written.append(_write(env, out_dir, unit.page, "unit.html", ctx))
    status_units = [u for u in reg.units if u.status in (REPEALED, SUPPRESSED)]
    written.append(_write(env, out_dir, "vigencia.html", "vigencia.html",
                          dict(common, repealed=status_units, inactive=reg.inactive)))
    _copy_static(Path(site_src) / "static", out_dir / "static")
    return written


def render_pages(reg: Regulation, site_src: Path, out_dir: Path, pages: list[ExtraPage],
                 nav: tuple[tuple[str, str], ...] = NAV, base_url: str = "") -> list[Path]:
    """Write pages made by later stages (guides, practice, search…) with the site layout."""
    env = environment(site_src)
    common = _common(reg, nav, base_url)
    return [_write(env, out_dir, p.filename, p.template, dict(common, **p.context))
            for p in pages]


def _write(env: Environment, out_dir: Path, filename: str, template: str, ctx: dict) -> Path:
    html = env.get_template(template).render(**ctx, page_name=filename)
    path = out_dir / filename
    write_staged(path, html)
    return path


def _copy_static(src: Path, dst: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dst, dirs_exist_ok=True)

