"""The measured figures shown on the "Por qué" page, read from this build and from the committed
evaluation reports (golden/reports/*.json). A report that does not exist shows no figure: we never
print a number that was not measured.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from citavial.build.errors import BuildError


@dataclass(frozen=True)
class Figure:
    what: str
    value: str
    n: str
    source: str

    def __repr__(self) -> str:
        return f"Figure({self.what}: {self.value}, n={self.n})"


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def count_figure(what: str, k: int, n: int, source: str, bad: bool = False) -> Figure:
    """``k`` of ``n``; for a zero count of failures, the rule-of-three 95% upper bound."""
    if bad and k == 0:
        value = f"0 de {n} (95 %: ≤ {3 / n:.3f})" if n else "0"
    else:
        lo, hi = wilson(k, n)
        value = f"{k} de {n} ({k / n:.1%}; IC 95 % {lo:.1%}–{hi:.1%})" if n else "—"
    return Figure(what, value.replace(".", ","), str(n), source)


def _load(path: Path) -> dict | None:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BuildError(str(path), f"is not valid JSON ({exc})",
                         "regenerate the report with the command named in docs/evaluation.md") from None


def collect_figures(gate: dict, reports_dir: Path) -> list[Figure]:
    """Figures from this build's gate statistics and from whichever reports exist."""
    figs = _exam_figures(_load(reports_dir / "exam.json"))
    figs += [
        count_figure("Citas de guías y práctica comprobadas sobre la página generada que no "
                     "superan la verificación", gate["failed"], gate["checked"],
                     "esta construcción", bad=True),
        Figure("Pasajes citables con enlace profundo", str(gate["passages"]), str(gate["passages"]),
               "esta construcción"),
    ]
    if "prose" in gate:
        figs.append(count_figure(
            "Frases de guías y explicaciones de la práctica con un número, una edad o una unidad "
            "que no está en el pasaje citado, un absoluto («siempre», «nunca», «solo», "
            "«prohibido»…) sin respaldo ni excepción citada, o un punto de una lista sin su "
            "encabezado (no se comprueba que el sentido de la frase sea el del pasaje)",
            gate["prose"]["findings"], gate["prose"]["items"], "esta construcción", bad=True))
    links = _load(reports_dir / "browser-links.json")
    if links:
        figs.append(count_figure("Enlaces abiertos en Chromium que no llegan al pasaje",
                                 links["failed"], links["checked"],
                                 f"prueba en navegador, {links['date']}", bad=True))
    retrieval = _load(reports_dir / "retrieval.json")
    if retrieval:
        figs.extend(_retrieval_figures(retrieval))
    answers = _load(reports_dir / "answers.json")
    if answers:
        figs.extend(_answer_figures(answers))
    return figs


def _exam_figures(report: dict | None) -> list[Figure]:
    """Real DGT exam questions, pasted with their options (tests/bench/bench_exam.py --split
    test --json golden/reports/exam.json): the yardstick, shown first."""
    if not report:
        return []
    r = report["reglamento"]
    src = (f"preguntas reales de examen de la DGT (parte {report['split']}, solo texto, "
           "temas que regula el Reglamento); respuestas extractivas, sin modelo de lenguaje")
    return [count_figure("Preguntas reales de examen en las que el asistente señala una opción "
                         "equivocada", r["wrong"]["count"], r["n"], src, bad=True),
            count_figure("Preguntas reales de examen en las que señala la opción correcta",
                         r["right"]["count"], r["n"], src),
            count_figure("Preguntas reales en las que dice «No puedo elegir» y muestra las "
                         "palabras del Reglamento que lo deciden", r["undecided"]["count"],
                         r["n"], src)]


def _retrieval_figures(report: dict) -> list[Figure]:
    """Article-level recall@5 of the default (fused) search, and the same figure without the
    golden questions that have a near-duplicate question hook (the decontaminated one)."""
    fused = report["channels"]["default"]
    split = {"test": "parte sellada de prueba (test)", "dev": "parte de desarrollo (dev, dentro de "
             "la muestra)"}.get(report["golden"].get("split", ""), "todo el conjunto")
    source = (f"conjunto de evaluación {report['golden']['file']}, {split}, índice "
              f"{report['index']['version']}")
    out = []
    for level, what in (("article", "el artículo correcto"), ("apartado", "el apartado correcto")):
        r = fused[level]
        lo, hi = r["ci95"]["recall@5"]
        out.append(Figure(f"Búsqueda: {what} entre los 5 primeros resultados",
                          f"{r['recall@5']:.3f} (IC 95 % {lo:.3f}–{hi:.3f})".replace(".", ","),
                          str(report["golden"]["positives"]), source))
    clean = report.get("leakage", {}).get("jaccard<0.8")
    if clean:
        out.append(Figure("Búsqueda sin las preguntas de evaluación parecidas a las preguntas de "
                          "apoyo del índice: artículo / apartado entre los 5 primeros",
                          f"{clean['article_recall@5']:.3f} / {clean['apartado_recall@5']:.3f}"
                          .replace(".", ","), str(clean["n"]), source))
    return out


def _rate(what: str, m: dict, source: str) -> Figure:
    lo, hi = m["ci95"]
    value = f"{m['rate']:.1%} (IC 95 % {lo:.1%}–{hi:.1%})".replace(".", ",")
    return Figure(what, value, str(m["n"]), source)


def _answer_figures(report: dict) -> list[Figure]:
    """The assistant on the golden set's sealed test split
    (tests/bench/bench_answers.py --split test --json golden/reports/answers.json)."""
    s = report["all"]
    src = ("asistente sobre la parte sellada de prueba (test) del conjunto de evaluación; "
           "respuestas extractivas, sin modelo de lenguaje")
    return [
        Figure("Citas del asistente con una referencia que no está en la lista verificada",
               str(s["invented_refs"]), str(s["questions"]), src),
        _rate("Preguntas con respuesta en el reglamento en las que el asistente no respondió",
              s["false_abstention"], src),
        _rate("Preguntas sin respuesta en el reglamento que el asistente respondió",
              s["false_answer"], src),
        _rate("Respuestas cuya primera cita está en el artículo esperado",
              s["first_citation_article"], src),
        _rate("Respuestas que contienen lo esencial de la respuesta de referencia",
              s["covers_reference"], src),
    ]
