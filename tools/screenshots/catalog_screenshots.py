"""Save screenshots of the Catalog tab and the About dialog into docs/screenshots/catalog-*.png (1280x800).

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/catalog_screenshots.py``. Uses the shipped
catalog and a throw-away data folder (one user price override, to show how it looks).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["GPUDESK_DATA_DIR"] = tempfile.mkdtemp(prefix="gpudesk-shots-")

from PySide6.QtCore import QItemSelectionModel, QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

OUT = REPO / "docs" / "screenshots"
SIZE = (1280, 800)


def _settle(app: QApplication) -> None:
    for _ in range(5):
        app.processEvents()


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    from gpudesk.ui.about import AboutDialog
    from gpudesk.ui.catalog.tab import CatalogTab
    from gpudesk.ui.main_window import MainWindow

    OUT.mkdir(parents=True, exist_ok=True)
    settings = QSettings(str(Path(os.environ["GPUDESK_DATA_DIR"]) / "shots.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(*SIZE)
    window.show()
    index = next(i for i in range(window.tabs.count()) if isinstance(window.tab(i), CatalogTab))
    window.tabs.setCurrentIndex(index)  # the page is the LazyTab holding the tab
    tab = window.tab(index)
    window.startup.finish_now()  # the deferred start-up (store, charts) done, as a moment after opening
    tab.prices.set_user_price("rtx4090", 1799.0)
    window.message_bar.hide()

    tab.table.sortByColumn(tab.model.fields().index(next(f for f in tab.model.fields() if f.key == "memory_bandwidth_gbps")),
                           Qt.SortOrder.DescendingOrder)
    tab.select_gpu("h100-sxm5")
    tab.side.setCurrentWidget(tab.detail)
    _settle(app)
    window.grab().save(str(OUT / "catalog-table.png"))

    selection = tab.table.selectionModel()
    selection.clearSelection()
    for gpu_id in ("a100-80-sxm4", "h100-sxm5", "h200-sxm", "mi300x"):
        index = tab.proxy.mapFromSource(tab.model.index(tab.model.row_of(gpu_id), 0))
        selection.select(index, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
    tab.compare_selected()
    _settle(app)
    window.grab().save(str(OUT / "catalog-compare.png"))
    tab.splitter.setSizes([700, 560])

    tab.filters.form_factor.setCurrentIndex(tab.filters.form_factor.findData("PCIe"))
    tab.show_chart()
    tab.chart.set_axes("memory_gb", "price_usd")
    tab.select_gpu("rtx-6000-ada")
    _settle(app)
    window.grab().save(str(OUT / "catalog-chart.png"))

    tab.filters.reset()
    tab.chart.set_axes("bf16_dense_tflops", "memory_bandwidth_gbps")
    _settle(app)
    window.grab().save(str(OUT / "catalog-chart-bandwidth.png"))

    dialog = AboutDialog(window.ctx, window)
    dialog.pages.setCurrentIndex(1)
    dialog.show()
    _settle(app)
    dialog.grab().save(str(OUT / "catalog-about.png"))
    dialog.close()
    window.close()
    print("saved", ", ".join(p.name for p in sorted(OUT.glob("catalog-*.png"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
