"""Save the Language menu (docs/screenshots/language-menu.png) and page 1 of a Chinese PDF sheet rendered by
poppler (docs/screenshots/sheet-pdf-zh_CN.png), to look at the CJK glyphs.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/language_screenshots.py`` (needs fonts-noto-cjk and
poppler-utils' pdftoppm). Uses a throw-away data folder and settings file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["GPUDESK_DATA_DIR"] = tempfile.mkdtemp(prefix="gpudesk-shots-")
sys.path.insert(0, str(REPO))

from PySide6.QtCore import QPoint, QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from gpudesk.ui.language_menu import LanguageMenu  # noqa: E402
from gpudesk.ui.plan.sheet_pdf import markdown_to_pdf  # noqa: E402

OUT = REPO / "docs" / "screenshots"
SHEET_ZH = """# 配置单：Llama-3-8B 全参数微调

| GPU | 显存 | 显存带宽 | 算力 (BF16 dense) |
|---|---|---|---|
| H100 SXM5 | 80 GiB | 3.35 TB/s | 989 TFLOPS |

使用混合精度（bf16）与梯度检查点；张量并行 2 路，每 GPU 峰值显存 71.4 GiB。
"""


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="gpudesk-shots-"))
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("ui/language", "zh_CN")
    menu = LanguageMenu(settings, lambda *_: None)
    menu.popup(QPoint(0, 0))
    app.processEvents()
    menu.grab().save(str(OUT / "language-menu.png"))
    pdf = markdown_to_pdf(SHEET_ZH, scratch / "sheet.pdf", "配置单")
    subprocess.run(["pdftoppm", "-r", "90", "-png", "-singlefile", "-f", "1", "-l", "1", str(pdf),
                    str(OUT / "sheet-pdf-zh_CN")], check=True, timeout=60)
    menu.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
