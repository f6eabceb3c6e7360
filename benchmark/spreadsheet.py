"""CSV cells that a spreadsheet opens as text, never as a formula.

A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as a
formula by Excel, LibreOffice and Google Sheets (CSV injection). Every CSV the site writes
from users' strings passes its rows through :func:`safe_row`: such a text cell gets a
leading apostrophe, which spreadsheets show as text; numbers are left as they are (so
-0.49 stays a number).
"""

from __future__ import annotations

from collections.abc import Mapping

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_row(row: Mapping) -> dict:
    return {key: safe_cell(value) for key, value in row.items()}
