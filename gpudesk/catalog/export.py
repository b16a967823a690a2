"""CSV export that spreadsheets cannot execute: a cell starting with = + - @ (or tab/CR) gets a leading '.

OWASP "CSV injection": prefixing the cell with a single quote makes Excel/LibreOffice show it as text.
Numbers are written as numbers (a negative number is data, not a formula, so it is left alone).

An empty catalog value is written two ways (:func:`catalog_cell`): :data:`UNKNOWN_CELL` ("unknown") for a rate the
GPU's architecture has but nobody published (``GPU.unpublished_rates``), an empty cell for a value the GPU does not
have or the catalog does not record (README "Catalog").
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from gpudesk.catalog.records import GPU
from gpudesk.csv_cells import csv_cell
from gpudesk.errors import GpudeskError
from gpudesk.i18n import _


class ExportError(GpudeskError):
    """The file could not be written; the message names the file and the reason."""


#: The cell written for an unpublished rate: a fixed token (not translated) so that a spreadsheet or script can
#: tell it from an empty cell (absent: the GPU lacks the feature).
UNKNOWN_CELL = "unknown"


def catalog_cell(gpu: GPU, key: str, value: object) -> object:
    """The export value of ``gpu``'s field ``key`` (``value``, the user's price where one is set): None becomes
    :data:`UNKNOWN_CELL` for an unpublished rate and stays None (an empty cell) otherwise."""
    if value is None and key in gpu.unpublished_rates:
        return UNKNOWN_CELL
    return value


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
