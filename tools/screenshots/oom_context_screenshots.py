"""Screenshots of the OOM doctor's text page with the operating-system and other-processes inputs set, in English
and in Chinese: docs/screenshots/oom-context-inputs-en.png and oom-context-inputs-zh_CN.png (1280x800).

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/oom_context_screenshots.py [en|zh_CN]`` (both
when no language is named; each language runs in its own process, as a Qt translator is installed once).
A PyTorch OOM message with its figures, the job's OS set to WSL2 and 9 GiB given for other processes: the memory
account shows that figure as given by the user.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["GPUDESK_DATA_DIR"] = tempfile.mkdtemp(prefix="gpudesk-shots-")

from PySide6.QtWidgets import QApplication  # noqa: E402

OUT = REPO / "docs" / "screenshots"
MESSAGE = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
           "23.65 GiB of which 1.20 GiB is free. Of the allocated memory 12.10 GiB is allocated by PyTorch, and "
           "0.50 GiB is reserved by PyTorch but unallocated.")


def shoot(language: str) -> Path:
    if language == "zh_CN":
        from zh_cn_app import zh_cn_app

        from gpudesk.i18n import set_language

        app = zh_cn_app()
        if app is None:
            raise SystemExit(1)
        set_language("zh_CN")
    else:
        app = QApplication.instance() or QApplication(sys.argv)
    from gpudesk.store import open_store
    from gpudesk.ui.context import AppContext
    from gpudesk.ui.oom.tab import OomTab

    tab = OomTab(AppContext(store=open_store()))
    tab.resize(1280, 800)
    tab.show()
    text_input = tab.picker.text_input
    text_input.set_text(MESSAGE)
    text_input.context_inputs.set_context("wsl", 9.0)
    text_input.context_inputs.others_spin.setFocus()
    text_input.submit()
    end = time.monotonic() + 10
    while tab.results.diagnosis is None:
        app.processEvents()
        if time.monotonic() > end:
            raise TimeoutError("no diagnosis")
        time.sleep(0.01)
    for _ in range(10):
        app.processEvents()
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"oom-context-inputs-{language}.png"
    tab.grab().save(str(path))
    tab.shutdown()
    return path


def main(argv: list[str]) -> int:
    if argv:
        print(shoot(argv[0]))
        return 0
    for language in ("en", "zh_CN"):
        subprocess.run([sys.executable, __file__, language], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
