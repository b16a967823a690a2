"""Long GPU names in the Catalog table keep both ends: the column takes the width most names need (up to
NAME_COLUMN_MAX_WIDTH) and elides in the middle, so "Workstation Edition 96GB" and "Server Edition 96GB" stay apart;
hovering a name shows it whole."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpudesk.ui.catalog.tab import NAME_COLUMN_MAX_WIDTH, build_table
from gpudesk.ui.catalog.filter_proxy import GpuFilterProxy
from gpudesk.ui.catalog.table_model import TABLE_COLUMNS, GpuTableModel
from helpers.catalog_tab import ctx  # noqa: F401 - fixture


def test_long_names_keep_both_ends_and_show_whole_on_hover(qtbot, ctx):  # noqa: F811
    gpus = ctx.catalog.gpus()
    model = GpuTableModel(gpus)
    proxy = GpuFilterProxy(lambda text: [g.id for g in ctx.catalog.search_gpus(text)])
    proxy.setSourceModel(model)
    table = build_table(proxy, None)
    qtbot.addWidget(table)
    column = TABLE_COLUMNS.index("name")
    assert table.textElideMode() == Qt.TextElideMode.ElideMiddle and not table.wordWrap()
    width = table.columnWidth(column)
    assert 230 < width <= NAME_COLUMN_MAX_WIDTH
    names = [g.name for g in gpus]
    editions = [n for n in names if "Blackwell" in n and "Edition" in n]
    assert len(editions) >= 2  # the pair a right-elided column showed as the same "NVIDIA RTX PRO 6000 Blackwell ..."
    for row, gpu in enumerate(gpus):
        if gpu.name in editions:
            assert model.data(model.index(row, column), Qt.ItemDataRole.ToolTipRole) == gpu.name
    fitting = sum(table.fontMetrics().horizontalAdvance(n) + 12 <= width for n in names)
    assert fitting >= 0.9 * len(names)  # most names are shown whole
