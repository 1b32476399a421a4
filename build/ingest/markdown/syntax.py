"""The Markdown copies' structural headings and designators (kept apart from build/patterns.py,
which holds the BOE XML's forms, because the forms differ: number and title joined by ". ")."""

from __future__ import annotations

import re

ARTICLE = re.compile(r"^Art[íi]culo\s+(?P<n>\d+|[úu]nico)(?:\s+(?P<suffix>bis|ter|quater))?\.?\s*"
                     r"(?P<title>.*)$")
DISPOSITION = re.compile(r"^Disposici[óo]n\s+(?P<kind>adicional|transitoria|derogatoria|final)\s+"
                         r"(?P<ordinal>\w+)(?:\s+(?P<suffix>bis|ter|quater))?\.?\s*(?P<title>.*)$")
ANNEX = re.compile(r"^ANEXO\s+(?P<n>[IVXL]+|[ÚU]NICO)\b\.?\s*(?P<title>.*)$")
TITULO = re.compile(r"^(?P<label>T[ÍI]TULO\s+(?:[IVXL]+|PRELIMINAR))\.?\s*(?P<title>.*)$")
CAPITULO = re.compile(r"^(?P<label>CAP[ÍI]TULO\s+(?:[IVXL]+|[ÚU]NICO))\.?\s*(?P<title>.*)$")
SECCION = re.compile(r"^(?P<label>Secci[óo]n\s+\d+\.ª)\s*(?P<title>.*)$")
SUBSECCION = re.compile(r"^(?P<label>Subsecci[óo]n\s+\d+\.ª)\s*(?P<title>.*)$")
# The heading (or plain paragraph) where the approving decree ends and the approved text begins.
MAIN_TEXT = re.compile(r"^(?:TEXTO REFUNDIDO DE LA LEY|REGLAMENTO GENERAL DE (?:VEH[ÍI]CULOS|"
                       r"CONDUCTORES))")
SIGNATURE = re.compile(r"^Dado en ")
# A row of the Ley's anexo II (points): "10. Incumplir …" opens infraction 10.
POINTS_ROW = re.compile(r"^(\d{1,2})\.\s")

ORDINALS = {"única": 1, "primera": 1, "segunda": 2, "tercera": 3, "cuarta": 4, "quinta": 5,
            "sexta": 6, "séptima": 7, "octava": 8, "novena": 9, "décima": 10, "undécima": 11,
            "duodécima": 12, "decimotercera": 13, "decimocuarta": 14, "decimoquinta": 15,
            "decimosexta": 16, "decimoséptima": 17, "decimoctava": 18, "decimonovena": 19,
            "vigésima": 20}
DISPOSITION_CODES = {"adicional": "da", "transitoria": "dt", "derogatoria": "dd", "final": "df"}
