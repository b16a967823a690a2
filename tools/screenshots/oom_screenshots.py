"""Save screenshots of the OOM doctor tab into docs/screenshots/oom-*.png (about 1280x800).

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/oom_screenshots.py``. Uses a throw-away data
folder, real OOM messages from tests/fixtures/oom_ui/cases.jsonl and the fake pynvml for the process list.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["GPUDESK_DATA_DIR"] = tempfile.mkdtemp(prefix="gpudesk-shots-")

from PySide6.QtWidgets import QApplication  # noqa: E402

OUT = REPO / "docs" / "screenshots"
CASES = {
    c["case"]: c
    for c in (json.loads(line) for line in (REPO / "tests/fixtures/oom_ui/cases.jsonl").read_text().splitlines() if line)
}


def wait(app: QApplication, condition, timeout_s: float = 10.0) -> None:
    end = time.monotonic() + timeout_s
    while not condition():
        app.processEvents()
        if time.monotonic() > end:
            raise TimeoutError("screenshot state not reached")
        time.sleep(0.01)
    for _ in range(5):
        app.processEvents()


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    from helpers.fake_pynvml import GiB, FakeDevice, FakeProcess, make_fake_pynvml

    from gpudesk.store import open_store
    from gpudesk.ui.context import AppContext
    from gpudesk.ui.oom.tab import OomTab

    OUT.mkdir(parents=True, exist_ok=True)
    tab = OomTab(AppContext(store=open_store()))
    tab.resize(1280, 800)
    tab.show()

    def diagnose(number: int) -> None:
        before = tab.results.diagnosis
        tab.picker.text_input.set_text(CASES[number]["message"])
        tab.picker.text_input.submit()
        wait(app, lambda: tab.results.diagnosis is not None and tab.results.diagnosis is not before)

    for number in (2, 26, 12, 6):
        diagnose(number)
    diagnose(10)
    tab.picker.show_text_page()
    tab.pages.setCurrentWidget(tab.results)
    wait(app, lambda: True)
    tab.grab().save(str(OUT / "oom-diagnosis.png"))

    # The smallest window the app allows (784x600): the cause cards must wrap, not clip (tester's defect 16).
    tab.resize(784, 600)
    diagnose(8)
    wait(app, lambda: True)
    tab.grab().save(str(OUT / "oom-diagnosis-784x600.png"))
    diagnose(1)  # a memory_summary table: a bar without the GPU's total
    wait(app, lambda: True)
    tab.grab().save(str(OUT / "oom-memory-summary-784x600.png"))
    tab.resize(1280, 800)

    fake = make_fake_pynvml(
        [
            FakeDevice(0, name="NVIDIA H100 80GB HBM3", memory_total=80 * GiB,
                       compute_processes=[FakeProcess(os.getpid(), int(71.4 * GiB)), FakeProcess(4_000_101, int(1.19 * GiB))]),
            FakeDevice(1, name="NVIDIA H100 80GB HBM3", memory_total=80 * GiB,
                       compute_processes=[FakeProcess(os.getppid(), int(12.5 * GiB))]),
        ]
    )
    tab.picker.nvml = fake
    tab.picker.pages.setCurrentIndex(0)
    tab.picker.refresh()
    wait(app, lambda: tab.picker.tree.topLevelItemCount() == 2 and tab.picker.refresh_button.isEnabled())
    tab.picker.tree.setCurrentItem(tab.picker.tree.topLevelItem(0).child(0))
    wait(app, lambda: bool(tab.picker.methods.statuses) or "cannot" in tab.picker.methods.target_label.text())
    before = tab.results.diagnosis
    tab.picker.methods.evidence_button.click()
    wait(app, lambda: tab.results.diagnosis is not before, 20)
    tab.grab().save(str(OUT / "oom-targets.png"))

    tab.pages.setCurrentWidget(tab.history)
    tab.history.select_row(0)
    wait(app, lambda: True)
    tab.grab().save(str(OUT / "oom-history.png"))

    tab.picker.pages.setCurrentWidget(tab.picker.launch_panel)
    work = Path(tempfile.mkdtemp(prefix="gpudesk-shots-job-"))
    (work / "train_cpu.py").write_text(
        "import sys, time\n"
        "try:\n"
        "    import torch\n"
        "except ImportError:\n"
        "    torch = None\n"
        "keep = []\n"
        "for step in range(12):\n"
        "    keep.append(torch.ones(4_000_000) if torch else bytearray(16_000_000))\n"
        "    print('step', step, 'holding', len(keep) * 16, 'MB on the CPU', flush=True)\n"
        "    time.sleep(0.25)\n",
        encoding="utf-8",
    )
    tab.picker.launch_panel.command.setText("python train_cpu.py")
    tab.picker.launch_panel.folder.setText(str(work))
    tab.launch([sys.executable, "train_cpu.py"], str(work), 0.25)
    wait(app, lambda: not tab.runner.running, 60)
    tab.grab().save(str(OUT / "oom-launch.png"))
    tab.shutdown()
    print("\n".join(str(p) for p in sorted(OUT.glob("oom-*.png"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
