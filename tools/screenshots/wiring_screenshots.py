"""Screenshots of the views wired into the tabs, inside the full main window (run by hand, offscreen):

    QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/wiring_screenshots.py

- monitor-findings-wired.png: issue 13's 4-GPU log (35 s of H2D stall, A100 80GB PCIe) on the Findings page.
- monitor-thresholds-dialog.png: Findings > Rule thresholds… (a dialog of its own).
- monitor-burnin-wired.png: Findings > Burn-in report… of that log saved as a recording (window of its own).
- monitor-fleet-wired.png: the Fleet sub-tab over a synthetic 8-node x 8-GPU fleet (the fleet tests' shape).
- oom-snapshot-wired.png: a fragmentation snapshot dropped on the OOM doctor, on its Memory snapshot page.
- plan-results-wired.png, plan-accuracy-dialog.png, plan-nofit-binding.png: the article plan's results with
  "How accurate is this?" and the rent-vs-buy line; the accuracy dialog; a plan bound by the GPU-count limit.
- catalog-prices-wired.png: the Catalog's "Prices, rent vs buy" page for the H100 SXM5.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "tests" / "oom")]
os.environ.setdefault("GPUDESK_DATA_DIR", tempfile.mkdtemp(prefix="gpudesk-shots-"))

import snapshot_builder as sb  # noqa: E402
from PySide6.QtCore import QSettings, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

OUT = REPO / "docs" / "screenshots"
SIZE = (1280, 800)


def wait_until(predicate, timeout_s: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError("screenshot state not reached")
        QTest.qWait(50)


def shoot(widget, name: str) -> None:  # type: ignore[no-untyped-def]
    QTest.qWait(300)
    widget.grab().save(str(OUT / name))
    print(OUT / name)


def fleet_builder():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("fleet_tests", REPO / "tests/ui/monitor/test_monitor_fleet.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.fleet


def monitor(window, messages: list[str]) -> None:  # type: ignore[no-untyped-def]
    from gpudesk.telemetry.fleet.fleet_secrets import ConnectionSettings
    from gpudesk.ui.monitor import actions
    from gpudesk.ui.monitor.burnin_window import BurnInDialog, BurnInWindow
    from gpudesk.ui.monitor.import_dialog import ImportChoice
    from gpudesk.ui.monitor.thresholds_editor import ThresholdsDialog

    window.tabs.setCurrentIndex(2)
    tab = window.tab(2)
    gpu = window.ctx.catalog.find_gpu("a100 80gb pcie")
    log = REPO / "tests/fixtures/monitor_rules/issue13_4gpu_h2d_stall.txt"
    actions.import_dmon(tab, ImportChoice("file", str(log), None, gpu, gpu.pcie_gen, gpu.pcie_lanes, 1.0))
    wait_until(lambda: tab.ctl.loaded is not None and bool(tab.findings.findings)
               and tab.findings.analyze_button.isEnabled())
    tab.subtabs.setCurrentWidget(tab.findings)
    shoot(window, "monitor-findings-wired.png")
    tab.findings.thresholds_button.click()
    dialog = tab.findChild(ThresholdsDialog)
    shoot(dialog, "monitor-thresholds-dialog.png")
    dialog.close()
    tab.toolbar.save_button.click()
    wait_until(lambda: any("Saved as recording" in m for m in messages))
    session_id = int(re.search(r"#(\d+)", next(m for m in messages if "Saved as recording" in m)).group(1))
    actions.open_recording(tab, session_id)
    wait_until(lambda: tab.ctl.loaded is not None and tab.ctl.loaded.session_id == session_id)
    QTimer.singleShot(100, lambda: isinstance(QApplication.activeModalWidget(), BurnInDialog)
                      and QApplication.activeModalWidget().accept())
    tab.findings.burnin_button.click()
    wait_until(lambda: tab.findChild(BurnInWindow) is not None)
    report_window = tab.findChild(BurnInWindow)
    report_window.resize(1200, 900)
    shoot(report_window, "monitor-burnin-wired.png")
    report_window.close()

    fleet = fleet_builder()

    class Source:
        def history(self, window_s: float):  # type: ignore[no-untyped-def]
            return fleet()

        def window_means(self, window_s: float):  # type: ignore[no-untyped-def]
            return fleet()

    tab.ctl.fleet.source_factory = lambda settings: Source()
    tab.ctl.start_fleet(ConnectionSettings("http://prometheus.lab:9090"))
    wait_until(lambda: tab.fleet.grid.cell_count() == 64 and bool(tab.ctl.fleet.findings))
    shoot(window, "monitor-fleet-wired.png")
    tab.ctl.stop_source()


def oom(window, tmp: Path) -> None:  # type: ignore[no-untyped-def]
    window.tabs.setCurrentIndex(3)
    tab = window.tab(3)
    path = tmp / "oom-step-412.pickle"
    path.write_bytes(pickle.dumps(sb.fragmentation_oom("2.5")))
    tab.ctl.open_file(str(path))
    wait_until(lambda: tab.snapshot.analysis is not None and not tab.snapshot.is_loading())
    tab.snapshot.tabs.setCurrentWidget(tab.snapshot.segments)
    shoot(window, "oom-snapshot-wired.png")


def plan(window, tmp: Path) -> None:  # type: ignore[no-untyped-def]
    from gpudesk import paths

    window.tabs.setCurrentIndex(0)
    tab = window.tab(0)
    done: list[dict] = []
    tab.planReady.connect(done.append)
    tab.load_example(paths.examples_dir() / "article-13b-finetune.toml")
    tab.pages.wizard.request_plan()
    wait_until(lambda: bool(done))
    shoot(window, "plan-results-wired.png")
    view = tab.pages.results
    view.accuracy.click()
    wait_until(lambda: view.accuracy.dialog is not None and view.accuracy.dialog.view.table.rowCount() > 0)
    shoot(view.accuracy.dialog, "plan-accuracy-dialog.png")
    view.accuracy.dialog.close()
    bound = tmp / "bound.toml"
    bound.write_text((REPO / "tests/ui/plan/test_plan_results_wiring.py").read_text().split('"""')[3],
                     encoding="utf-8")
    tab.load_example(bound)
    tab.pages.wizard.request_plan()
    wait_until(lambda: len(done) == 2)
    shoot(window, "plan-nofit-binding.png")


def catalog(window) -> None:  # type: ignore[no-untyped-def]
    window.tabs.setCurrentIndex(1)
    tab = window.tab(1)
    tab.select_gpu("h100-sxm5")
    tab.side.setCurrentWidget(tab.price_sources)
    shoot(window, "catalog-prices-wired.png")


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    from gpudesk.ui.main_window import MainWindow

    OUT.mkdir(parents=True, exist_ok=True)
    settings = QSettings(str(Path(os.environ["GPUDESK_DATA_DIR"]) / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    messages: list[str] = []
    show = window.ctx.notify
    window.ctx.notify = lambda text, level="info": (messages.append(text), show(text, level))
    window.resize(*SIZE)
    window.show()
    window.startup.finish_now()
    QTest.qWait(300)
    with tempfile.TemporaryDirectory() as tmp:
        plan(window, Path(tmp))
        catalog(window)
        oom(window, Path(tmp))
        monitor(window, messages)
    window.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
