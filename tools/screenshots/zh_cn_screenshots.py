"""Save every tab of the main window, the Plan results of the article example and its PDF sheet with the whole
app in Simplified Chinese (window .qm and core gettext catalog), to look for English left over (run by hand):

    QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/zh_cn_screenshots.py

Writes docs/screenshots/zh_CN-plan-wizard.png, zh_CN-plan-results.png, zh_CN-catalog.png,
zh_CN-monitor-findings.png, zh_CN-oom-diagnosis.png and zh_CN-sheet-pdf-1.png / -2.png (1280x800; the PDF pages
rendered by poppler's pdftoppm). Uses a throw-away data folder and settings file; CJK glyphs need a CJK font
(Debian: fonts-noto-cjk).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["GPUDESK_LANG"] = "zh_CN"
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ["GPUDESK_DATA_DIR"] = tempfile.mkdtemp(prefix="gpudesk-shots-")

from monitor_screenshots import wait_until  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QWidget  # noqa: E402
from zh_cn_app import scratch_main_window, zh_cn_app  # noqa: E402

from gpudesk.i18n import set_language  # noqa: E402

OUT = REPO / "docs" / "screenshots"
EXAMPLE = REPO / "resources" / "examples" / "article-13b-finetune.toml"
OOM_CASE = REPO / "tests" / "fixtures" / "oom" / "cases.jsonl"


def _save(widget: QWidget, name: str) -> None:
    QTest.qWait(300)
    path = OUT / f"zh_CN-{name}.png"
    widget.grab().save(str(path))
    print(path)


def _pdf_pages(window: object, plan_tab: object) -> None:
    from gpudesk.planner.sheet_markdown import plan_to_markdown
    from gpudesk.ui.plan.sheet_pdf import markdown_to_pdf

    ctl = plan_tab.ctl  # type: ignore[attr-defined]
    name = ctl.current_plan.name
    text = plan_to_markdown(ctl.current_plan, title=name or None, profile=ctl.current_profile,
                            catalog=window.ctx.catalog)  # type: ignore[attr-defined]
    with tempfile.TemporaryDirectory() as tmp:
        pdf = markdown_to_pdf(text, Path(tmp) / "sheet.pdf", name)
        subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "2", str(pdf), str(Path(tmp) / "page")],
                       check=True, timeout=120)
        for i, page in enumerate(sorted(Path(tmp).glob("page*.png")), start=1):
            target = OUT / f"zh_CN-sheet-pdf-{i}.png"
            target.write_bytes(page.read_bytes())
            print(target)


def main() -> int:
    app = zh_cn_app()
    if app is None:
        return 1
    set_language("zh_CN")
    from gpudesk.ui.monitor import actions
    from gpudesk.ui.plan.tab import RESULTS, WIZARD

    OUT.mkdir(parents=True, exist_ok=True)
    window = scratch_main_window()
    QTest.qWait(300)

    plan = window.tab(0)
    plan.load_example(EXAMPLE)
    plan.show_view(WIZARD)
    _save(window, "plan-wizard")
    plan.pages.wizard.plan_button.click()
    wait_until(lambda: plan.ctl.current_plan is not None, 120)
    plan.show_view(RESULTS)
    _save(window, "plan-results")
    _pdf_pages(window, plan)

    window.tabs.setCurrentIndex(1)
    _save(window, "catalog")

    window.tabs.setCurrentIndex(2)
    monitor = window.tab(2)
    actions.play_demo(monitor)
    wait_until(lambda: monitor.ctl.loaded is not None)
    wait_until(lambda: monitor.findings.tree.topLevelItemCount() > 0)
    monitor.subtabs.setCurrentWidget(monitor.findings)
    monitor.findings.tree.setCurrentItem(monitor.findings.tree.topLevelItem(0))
    _save(window, "monitor-findings")

    window.tabs.setCurrentIndex(3)
    oom = window.tab(3)
    case = json.loads(OOM_CASE.read_text(encoding="utf-8").splitlines()[1])
    oom.picker.text_input.set_text(case["message"])
    oom.picker.text_input.submit()
    wait_until(lambda: oom.results.copy_report_button.isEnabled(), 60)
    _save(window, "oom-diagnosis")
    window.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
