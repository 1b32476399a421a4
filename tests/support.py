"""Paths and the reference date shared by the test modules (importable from any test dir)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SITE_SRC = ROOT / "site_src"
AS_OF = date(2026, 11, 29)
