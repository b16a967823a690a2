"""Save screenshots of the Plan tab into docs/screenshots/plan-*.png (1280x800): quick mode, each wizard page
(the article's worked case loaded), the results page with each chart, saved plans and the comparison.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/plan_screenshots.py``. Uses the shipped catalog
and examples and a throw-away data folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["GPUDESK_DATA_DIR"] = tempfile.mkdtemp(prefix="gpudesk-shots-")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

OUT = REPO / "docs" / "screenshots"
SIZE = (1280, 800)


def _settle(app: QApplication, seconds: float = 0.3) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    from gpudesk import paths
    from gpudesk.catalog import open_catalog
    from gpudesk.store import open_store
    from gpudesk.ui.context import AppContext
    from gpudesk.ui.plan.tab import COMPARE, PLANS, QUICK, PlanTab

    OUT.mkdir(parents=True, exist_ok=True)
    ctx = AppContext(catalog=open_catalog(), store=open_store(), notify=lambda text, level="info": None)
    tab = PlanTab(ctx)
    tab.resize(*SIZE)
    tab.show()

    def shot(name: str) -> None:
        _settle(app)
        path = OUT / f"plan-{name}.png"
        tab.grab().save(str(path))
        print(path)

    tab.show_view(QUICK)
    quick = tab.pages.quick
    quick.editors["model.model"].set_value("llama-3-8b")
    quick.editors["model.mode"].set_value("qlora")
    quick.set_field_text("model.seq_len_tokens", "4096")
    quick.set_field_text("model.micro_batch_size", "4")
    quick.preview.set_card("rtx4090", 1)
    quick.update_preview()
    shot("quick")

    tab.load_example(paths.examples_dir() / "article-13b-finetune.toml")
    tab.pages.wizard.preview.set_card("a100-80-sxm4", 8)
    for index, name in enumerate(["1-data", "2-model", "3-workload", "4-software", "5-operations"]):
        tab.pages.wizard.go_to(index)
        shot(f"wizard-{name}")
    tab.pages.wizard.go_to(0)
    tab.pages.wizard.set_field_text("data.sample_count", "twenty")
    tab.pages.wizard.next_page()
    shot("wizard-validation")
    tab.pages.wizard.set_field_text("data.sample_count", "20000000")

    done = []
    tab.planReady.connect(done.append)
    tab.pages.wizard.request_plan()
    end = time.monotonic() + 60
    while not done and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)
    if not done:
        print("planning did not finish", file=sys.stderr)
        return 1
    shot("results")
    tab.pages.results.charts.setCurrentIndex(1)
    shot("results-tco")
    tab.pages.results.charts.setCurrentIndex(2)
    shot("results-cost-time")
    tab.pages.results.charts.setCurrentIndex(0)
    candidates = tab.pages.results.plan.candidates
    for row in range(tab.pages.results.table.rowCount()):
        c = candidates[tab.pages.results.table.item(row, 0).data(Qt.ItemDataRole.UserRole)]
        if (c.gpu_id, c.count) == ("a100-80-sxm4", 8):  # price unknown: the price strip asks for a quote
            tab.pages.results.table.selectRow(row)
            tab.pages.results.table.scrollToItem(tab.pages.results.table.item(row, 0))
            break
    shot("results-price-unknown")
    tab.pages.results.table.selectRow(0)
    first = tab.save_current()

    tab.load_example(paths.examples_dir() / "startup-mvp-7b.toml")
    done.clear()
    tab.pages.wizard.request_plan()
    while not done and time.monotonic() < end + 60:
        app.processEvents()
        time.sleep(0.01)
    second = tab.save_current()
    tab.show_view(PLANS)
    tab.pages.plans.select_ids([first, second])
    shot("saved-plans")
    tab.pages.plans.compare_selected()
    tab.show_view(COMPARE)
    shot("compare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
