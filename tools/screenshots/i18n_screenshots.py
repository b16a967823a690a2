"""Save the main window, the Plan wizard's first page and the Catalog tab with the shipped zh_CN translation
installed: docs/screenshots/main-zh_CN.png, plan-wizard-zh_CN.png and catalog-zh_CN.png (1280x800).

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/i18n_screenshots.py``. Uses the shipped catalog
and a throw-away data folder and settings file. CJK glyphs need a CJK font (Debian: fonts-noto-cjk).
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

from PySide6.QtWidgets import QApplication  # noqa: E402
from zh_cn_app import scratch_main_window, zh_cn_app  # noqa: E402

OUT = REPO / "docs" / "screenshots"


def _settle(app: QApplication, seconds: float = 0.5) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def main() -> int:
    app = zh_cn_app()
    if app is None:
        return 1
    from gpudesk.ui.plan.tab import WIZARD

    OUT.mkdir(parents=True, exist_ok=True)
    window = scratch_main_window()
    _settle(app)
    path = OUT / "main-zh_CN.png"
    window.grab().save(str(path))
    print(path)

    plan = window.tab(0)
    plan.pages.wizard.go_to(0)
    plan.show_view(WIZARD)
    _settle(app)
    path = OUT / "plan-wizard-zh_CN.png"
    window.grab().save(str(path))
    print(path)
    window.tabs.setCurrentIndex(1)
    _settle(app)
    path = OUT / "catalog-zh_CN.png"
    window.grab().save(str(path))
    print(path)
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
