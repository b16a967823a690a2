"""CSV bill of materials of a configuration sheet, safe to open in a spreadsheet.

Columns: category, item, quantity, unit_price_usd, total_usd, notes, source (units in the names). The file
starts with a UTF-8 byte-order mark so spreadsheet programs read accents correctly, and every text cell that
a spreadsheet would take as a formula (first character ``=``, ``+``, ``-``, ``@``, tab or carriage return;
OWASP "CSV injection") is prefixed with an apostrophe. Numbers are written as plain numbers. Qt-free.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

from gpudesk import __version__
from gpudesk.csv_cells import FORMULA_START, formula_safe
from gpudesk.i18n import _
from gpudesk.planner.prices import price_unknown_text
from gpudesk.planner.document import PlanDocument
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.sheet import SHEET_VERSION, BomLine, ConfigurationSheet, SheetError, build_sheet

BOM_COLUMNS = ("category", "item", "quantity", "unit_price_usd", "total_usd", "notes", "source")
FORMULA_PREFIXES = FORMULA_START


def safe_cell(value: Any) -> str:
    """A CSV cell that cannot start a formula: text starting with = + - @ TAB CR gets a leading apostrophe
    (:mod:`gpudesk.csv_cells`, the one rule for every export).

    None becomes an empty cell ("not known"); numbers keep their digits and stay numbers (a negative number is
    data, not a formula).
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        text = f"{value:.2f}" if abs(value) >= 1 or value == 0 else f"{value:.6g}"
        if text.endswith(".00"):
            text = text[:-3]
    else:
        text = str(value)
    text = text.replace("\r\n", " ").replace("\n", " ")
    if isinstance(value, (int, float)) and math.isfinite(value):
        return text  # a number is data, not a formula (gpudesk.csv_cells)
    return formula_safe(text)


def bom_rows(sheet: ConfigurationSheet) -> list[list[str]]:
    """Header, one row per :class:`BomLine`, the purchase total of the priced lines, the 3-year TCO, and a
    last row naming the gpudesk version, sheet format, time stamp and title."""
    rows = [list(BOM_COLUMNS)]
    for line in sheet.bom:
        rows.append([safe_cell(getattr(line, name)) for name in BOM_COLUMNS])
    priced = [line.total_usd for line in sheet.bom if line.total_usd is not None]
    if priced:
        what = _("Purchase (priced lines above)")
        if sheet.candidate.gpu_price_unknown:
            what = _("Purchase (priced lines above); the GPUs are not included: {price_unknown}").format(
                price_unknown=price_unknown_text())
        rows.append([safe_cell(v) for v in ("Total", what, None, None, float(sum(priced)), "", "")])
    if sheet.tco_total_usd is not None:
        rows.append([safe_cell(v) for v in ("TCO", _("3-year total cost of ownership"), None, None, sheet.tco_total_usd,
                                            _("see the sheet's TCO table"), "")])
    elif sheet.candidate.gpu_price_unknown:
        rows.append([safe_cell(v) for v in ("TCO", _("3-year total cost of ownership"), None, None, None,
                                            _("GPU {price_unknown}").format(price_unknown=price_unknown_text()),
                                            sheet.candidate.rank_reason or "")])
    rows.append([safe_cell(v) for v in ("Generated", _("gpudesk {version}, configuration sheet format {sheet_version}").format(
                                            version=__version__, sheet_version=SHEET_VERSION),
                                        None, None, None, sheet.generated_at, sheet.title)])
    return rows


def sheet_to_csv(sheet: ConfigurationSheet) -> str:
    """The bill of materials as CSV text with a leading BOM (\\ufeff)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerows(bom_rows(sheet))
    return "\ufeff" + buffer.getvalue()


def plan_to_csv(plan: PlanDocument | dict[str, Any], candidate_index: int = 0, title: str | None = None,
                profile: Requirement | dict[str, Any] | None = None, catalog: Any = None) -> str:
    """``sheet_to_csv(build_sheet(...))`` with the same arguments as :func:`build_sheet`."""
    return sheet_to_csv(build_sheet(plan, candidate_index, title, profile=profile, catalog=catalog))


def write_csv(plan: PlanDocument | dict[str, Any], path: str | Path, candidate_index: int = 0, title: str | None = None,
              profile: Requirement | dict[str, Any] | None = None, catalog: Any = None) -> Path:
    """Write the bill of materials to ``path``.

    Raises:
        SheetError: no candidates, or the file cannot be written.
    """
    text = plan_to_csv(plan, candidate_index, title, profile, catalog)
    target = Path(path)
    try:
        target.write_text(text, encoding="utf-8", newline="")
    except OSError as exc:
        raise SheetError(_("Cannot write {path}: {reason}.").format(path=target, reason=exc.strerror or exc)) from exc
    return target


__all__ = ["BOM_COLUMNS", "BomLine", "bom_rows", "plan_to_csv", "safe_cell", "sheet_to_csv", "write_csv"]
