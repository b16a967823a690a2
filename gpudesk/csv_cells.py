"""The one rule for exported CSV cells: no cell can start a spreadsheet formula (CSV injection).

A text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is prefixed with an apostrophe, as
OWASP recommends (https://owasp.org/www-community/attacks/CSV_Injection). A number is data, not a formula: it is
written as a number (negative ones included), so spreadsheets can still compute with it.
"""

from __future__ import annotations

import math

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def formula_safe(text: str) -> str:
    """``text`` that a spreadsheet will not evaluate as a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def csv_cell(value: object) -> object:
    """``value`` ready for a CSV cell: None -> "", bool -> "yes"/"no", a finite number unchanged, anything else as
    formula-safe text (a NaN or infinite float is text: "nan" / "inf")."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return value
    return formula_safe(str(value))
