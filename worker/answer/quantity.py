"""Quantities with their units, as the law and the exam options write them.

"0,15 miligramos por litro", "100 metros", "45 km/h", "135 centímetros", "3.500 kg": a figure is
compared with another only as a value (``Decimal``: "1,50" equals "1,5"; "3.500" is three
thousand five hundred) **and** a unit, spelt out or abbreviated ("mg" is "miligramos", "m" is
"metros"). A bare number ("3") is no quantity here: without its unit it could be anything the
passage counts (an apartado, a year, a number of wheels).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from citavial.build.normalize import normalize, normalize_with_map
from citavial.build.text import canonical_number

# Unit spellings in the gate's comparison form (build/normalize.py: lower case, no accents), longest first so that "km/h" is not read as
# "km", nor "centimetros cubicos" as "centimetros". Each maps to one canonical unit.
_UNITS: tuple[tuple[str, str], ...] = (
    ("kilometros por hora", "km/h"), ("kilometros/hora", "km/h"), ("km/h", "km/h"),
    ("km/hora", "km/h"), ("centimetros cubicos", "cm3"), ("cm3", "cm3"), ("cc", "cm3"),
    ("kilometros", "km"), ("km", "km"), ("centimetros", "cm"), ("cm", "cm"),
    ("milimetros", "mm"), ("mm", "mm"), ("metros", "m"), ("metro", "m"), ("m", "m"),
    ("miligramos", "mg"), ("mg/l", "mg"), ("mg", "mg"), ("kilogramos", "kg"), ("kilos", "kg"), ("kg", "kg"),
    ("gramos", "g"), ("g/l", "g"), ("gr", "g"), ("g", "g"), ("toneladas", "t"),
    ("por ciento", "%"), ("%", "%"), ("anos", "year"), ("ano", "year"), ("meses", "month"),
    ("mes", "month"), ("dias", "day"), ("dia", "day"), ("horas", "hour"), ("hora", "hour"),
    ("minutos", "minute"), ("minuto", "minute"), ("segundos", "second"), ("segundo", "second"),
    ("puntos", "point"), ("punto", "point"), ("euros", "euro"), ("euro", "euro"),
    ("plazas", "seat"), ("plaza", "seat"), ("personas", "person"), ("persona", "person"),
    ("kilovatios", "kw"), ("kw", "kw"), ("grados", "degree"),
)
_NUMBER = r"(?<![\w.,])(\d{1,3}(?:\.\d{3})+|\d+(?:,\d+)?)"
_UNIT = "|".join(re.escape(spelt) for spelt, _ in _UNITS)
# A figure, then its unit as a whole word ("100 metros", "60km/h", "20 %"); "de" may stand
# between a number and a unit only for large round amounts ("3 millones de euros" is not read).
_QUANTITY = re.compile(_NUMBER + r"\s?(" + _UNIT + r")(?![\w/])")
_CANONICAL = dict(_UNITS)


@dataclass(frozen=True, order=True)
class Quantity:
    value: Decimal
    unit: str

    def __repr__(self) -> str:
        return f"{self.value:f} {self.unit}"


def _value(raw: str) -> Decimal:
    return Decimal(canonical_number(raw)).normalize()   # the pattern's digits always parse


def quantities(text: str) -> frozenset[Quantity]:
    """Every figure of ``text`` that carries a unit."""
    return frozenset(q for q, _ in _found(normalize(text)))


def _found(norm: str) -> list[tuple[Quantity, tuple[int, int]]]:
    out = []
    for m in _QUANTITY.finditer(norm):
        out.append((Quantity(_value(m.group(1)), _CANONICAL[m.group(2)]), m.span()))
    return out


def clause_stating(wanted: frozenset[Quantity], text: str) -> str | None:
    """The clause of ``text`` (between ". ", "; " or ": " and the next such stop) holding the
    first figure of ``wanted``, exactly as ``text`` writes it; None when none stands there."""
    norm, offsets = normalize_with_map(text)
    for q, (start, end) in _found(norm):
        if q in wanted:
            lo, hi = offsets[start], offsets[end]
            left = max(text.rfind(stop, 0, lo) for stop in (". ", "; ", ": "))
            stops = [i for stop in (". ", "; ", ": ") if (i := text.find(stop, hi)) >= 0]
            begin = 0 if left < 0 else left + 2
            finish = min(stops) + 1 if stops else len(text)
            return text[begin:finish].strip()
    return None
