"""The five errata of the expert review (site_src/ERRATA.md): each corrected item keeps the quote
that makes it right. A test per item pins that quote (the gate proves it literal at build time)."""

from __future__ import annotations

import pytest
from support import SITE_SRC

from citavial.build.content.guides import read_guide
from citavial.build.content.practice import read_bank


@pytest.fixture(scope="module")
def bank():
    return {q.id: q for q in read_bank(SITE_SRC / "practice")}


def quotes(question) -> set[tuple[str, str]]:
    return {(c.ref.split("#")[1], c.quote) for c in question.citations}


def test_autopistas_008_cites_the_priority_vehicles_exception(bank):
    q = bank["autopistas-autovias-008"]
    assert ("art68.1.p2", "con carácter excepcional, cuando circulen por autopista o autovía en "
            "servicio urgente y no comprometan la seguridad de ningún usuario, dar media vuelta o "
            "marcha atrás") in quotes(q)
    assert "en ningún caso" not in q.explanation
    assert "siguiente salida" not in q.explanation   # advice, not a rule of the regulation


def test_normas_generales_024_puts_the_single_file_duty_on_the_calzada(bank):
    q = bank["normas-generales-024"]
    assert ("art36.2.p2", "podrán circular en columna de a dos por la parte imprescindible de la "
            "calzada, si bien deberán colocarse en hilera en los tramos sin visibilidad") in quotes(q)
    assert "calzada" in q.explanation and q.options[q.correct] == "En columna de a dos como máximo."


def test_prioridad_008_states_who_entered_first_before_article_62(bank):
    q = bank["prioridad-008"]
    assert ("art60.1", "tendrá derecho de preferencia de paso el que hubiese entrado primero") \
        in quotes(q)
    assert ("art60.1.p2", "En caso de duda sobre dicha circunstancia, tendrá la preferencia el "
            "vehículo con mayores dificultades de maniobra") in quotes(q)
    assert "no está claro cuál de los dos entró primero" in q.question


@pytest.fixture(scope="module")
def senales():
    return read_guide(SITE_SRC / "content" / "senales.md")


def test_senales_raised_arm_quotes_the_safety_exception(senales):
    assert ("RD-1428/2003#anexoI.1.p2", "obliga a detenerse a todos los usuarios de la vía que se "
            "acerquen al agente, salvo a los conductores que no puedan hacerlo en condiciones de "
            "seguridad suficiente") in {(c.ref, c.quote) for c in senales.citations}


def test_senales_stop_line_lists_every_element(senales):
    assert ("RD-1428/2003#anexoI.5.p203", "un paso para peatones indicado por una marca vial; un "
            "semáforo, una señal de detención efectuada por un agente de la circulación o la "
            "existencia de un paso a nivel o un puente móvil") in {
                (c.ref, c.quote) for c in senales.citations}
    line = next(ln for ln in senales.source.splitlines() if ln.startswith("- **Línea de detención"))
    for element in ("R-2", "marca vial de STOP", "R-200"):
        assert element in line


def test_errata_file_records_the_five_items():
    text = (SITE_SRC / "ERRATA.md").read_text(encoding="utf-8")
    for item in ("autopistas-autovias-008", "normas-generales-024", "prioridad-008",
                 "ANEXO I.1 a)", "ANEXO I §5"):
        assert item in text
