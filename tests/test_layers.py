"""The core must import without Qt: everything outside gpudesk/ui (and the GUI launcher) stays Qt-free."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import gpudesk

REPO = Path(gpudesk.__file__).resolve().parent.parent


def _core_modules():
    for info in pkgutil.walk_packages(gpudesk.__path__, "gpudesk."):
        if info.name.startswith("gpudesk.ui") or info.name in {"gpudesk.selftest"}:
            continue
        yield info.name


def test_core_imports_without_qt():
    modules = sorted(_core_modules())
    assert "gpudesk.store.db" in modules
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6')]\n"
        "print(','.join(bad)); sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
