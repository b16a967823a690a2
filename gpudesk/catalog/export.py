"""CSV export that spreadsheets cannot execute: a cell starting with = + - @ (or tab/CR) gets a leading '.

OWASP "CSV injection": prefixing the cell with a single quote makes Excel/LibreOffice show it as text.
Numbers are written as numbers (a negative number is data, not a formula, so it is left alone).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from gpudesk.csv_cells import csv_cell
from gpudesk.errors import GpudeskError
from gpudesk.i18n import _


class ExportError(GpudeskError):
    """The file could not be written; the message names the file and the reason."""


def safe_cell(value: object) -> object:
    """``value`` ready for a CSV cell (:func:`gpudesk.csv_cells.csv_cell`)."""
    return csv_cell(value)


def write_csv(path: str | Path, headers: Sequence[str], rows: Iterable[Sequence[object]]) -> int:
    """Write ``headers`` and ``rows`` to ``path`` (UTF-8, comma separated); returns the number of rows.

    Raises:
        ExportError: the folder does not exist or the file cannot be written.
    """
    target = Path(path)
    count = 0
    try:
        with target.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow([safe_cell(h) for h in headers])
            for row in rows:
                writer.writerow([safe_cell(v) for v in row])
                count += 1
    except OSError as exc:
        raise ExportError(_("Cannot write {path}: {reason}. Choose another folder.").format(
            path=target, reason=exc.strerror or exc)) from exc
    return count
