"""qa51 D13: the Catalog's memory column is labelled GiB, as every planner figure is (it read "Memory (GB)" 80 for an
H100 beside the planner's usable 79.18 GiB); its tooltip says the planner's figure is the usable part."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpudesk.catalog.fields import FIELDS_BY_KEY
from gpudesk.ui.catalog.table_model import TABLE_COLUMNS, GpuTableModel, display_value
from helpers.catalog_tab import ctx  # noqa: F401 - fixture


def test_memory_column_reads_gib(ctx):  # noqa: F811
    h100 = ctx.catalog.gpu("h100-sxm5")
    assert h100.memory_bytes == h100.memory_gb * 2**30  # the catalog's figure is binary
    model = GpuTableModel(ctx.catalog.gpus())
    column = TABLE_COLUMNS.index("memory_gb")
    assert model.headerData(column, Qt.Orientation.Horizontal) == "Memory (GiB)"
    tip = model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "usable" in tip and "GiB" in tip
    assert display_value(FIELDS_BY_KEY["memory_gb"], h100.memory_gb).endswith("GiB")
