"""PySide6 creates its types when a module is imported, not on first read (see gpudesk/ui/__init__.py).

Lazy creation is not atomic under the GIL; with pyqtgraph imported on a worker thread at start-up, the self-test
crashed on a loaded CI machine (SIGSEGV) or reported "QGradient has no attribute 'Preset'".
"""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = ("import sys; import gpudesk.ui; assert 'PySide6' not in sys.modules; "
         "import PySide6.QtGui as g; print('QGradient' in vars(g), 'Preset' in vars(g).get('QGradient', object).__dict__)")


def _probe(env_value: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYSIDE6_OPTION_LAZY"}
    if env_value is not None:
        env["PYSIDE6_OPTION_LAZY"] = env_value
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_ui_package_makes_pyside_create_types_at_import():
    assert _probe(None) == "True True"


def test_a_value_the_user_set_is_kept():
    assert _probe("1") == "False False"


def test_this_test_process_runs_with_eager_types_too():
    import PySide6.QtWidgets as widgets

    assert "QSpinBox" in vars(widgets)
