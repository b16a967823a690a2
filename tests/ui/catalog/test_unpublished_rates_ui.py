"""Catalog tab: the detail pane and the cell tooltip tell an unknown rate (A10G FP16: Ampere has it, no figure
published) from an absent one (A10G FP8). Before the fix both read "no ... support/tensor cores"."""

from __future__ import annotations

from gpudesk.catalog.fields import FIELDS_BY_KEY
from gpudesk.ui.catalog.detail_pane import GpuDetailPane
from gpudesk.ui.catalog.table_model import display_value, none_reason

from helpers.catalog_tab import ctx  # noqa: F401 - fixture


def test_detail_pane_tells_unknown_from_absent(qtbot, ctx):  # noqa: F811
    a10g = ctx.catalog.gpu("a10g")
    pane = GpuDetailPane()
    qtbot.addWidget(pane)
    pane.show_gpu(a10g)
    assert pane.value_text("fp16_dense_tflops") == "N/A (unknown: not published for this GPU)"
    assert pane.value_text("fp8_dense_tflops") == "N/A (no FP8 support)"


def test_table_tooltip_and_compare_text(ctx):  # noqa: F811
    a10g, k80 = ctx.catalog.gpu("a10g"), ctx.catalog.gpu("k80")
    fp16 = FIELDS_BY_KEY["fp16_dense_tflops"]
    assert none_reason(fp16, a10g) == "unknown: not published for this GPU"
    assert none_reason(fp16, k80) == "no FP16 tensor cores"
    assert display_value(fp16, None, gpu=k80) == "N/A (no FP16 tensor cores)"


def test_table_cell_reads_unknown_apart_from_na(ctx):  # noqa: F811
    from PySide6.QtCore import Qt

    from gpudesk.ui.catalog.table_model import GpuTableModel

    model = GpuTableModel(ctx.catalog.gpus())
    column = [f.key for f in model.fields()].index("bf16_dense_tflops")
    shown = {gpu_id: model.data(model.index(model.row_of(gpu_id), column), Qt.ItemDataRole.DisplayRole)
             for gpu_id in ("a10g", "p40")}
    assert shown == {"a10g": "unknown", "p40": "N/A"}


def test_compare_marks_unknown_against_absent_as_differing(qtbot, ctx):  # noqa: F811
    from gpudesk.ui.catalog.compare_view import COMPARE_KEYS, DIFF_BRUSH, CompareView

    view = CompareView()
    qtbot.addWidget(view)
    view.set_gpus([ctx.catalog.gpu("a10g"), ctx.catalog.gpu("t4")])  # BF16: unknown on the A10G, absent on the T4
    assert "bf16_dense_tflops" in view.differing_rows()
    row = COMPARE_KEYS.index("bf16_dense_tflops")
    assert [view.table().item(row, c).text() for c in (0, 1)] == ["unknown", "N/A"]
    assert view.table().item(row, 0).background() == DIFF_BRUSH
    view.set_gpus([ctx.catalog.gpu("t4"), ctx.catalog.gpu("p40")])  # both lack BF16: the same
    assert "bf16_dense_tflops" not in view.differing_rows()


def test_csv_export_writes_unknown_apart_from_absent(qtbot, ctx, tmp_path):  # noqa: F811
    import csv

    from gpudesk.ui.catalog.tab import CatalogTab

    tab = CatalogTab(ctx)
    qtbot.addWidget(tab)
    tab.filters.search.setText("a10g")  # the A10G, and the A10 whose notes name it
    path = tmp_path / "a10g.csv"
    assert tab.export_csv(path) >= 1
    with path.open(newline="", encoding="utf-8") as handle:
        row = next(r for r in csv.DictReader(handle) if r["Id"] == "a10g")
    assert row["BF16 dense (TFLOPS)"] == "unknown"  # Ampere has it; nobody published the A10G's figure
    assert row["FP8 dense (TFLOPS)"] == ""  # Ampere has no FP8
