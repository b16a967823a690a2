"""Start-up does not import pandas (issue 31): sqlite-utils imports pandas whenever it is installed (319 ms and
70 MB on an ML engineer's machine), so gpudesk imports sqlite-utils through gpudesk.store.sqlite_lib, which keeps
pandas out. Each case runs in a fresh interpreter with a fake ``pandas`` package first on sys.path; the fake writes
a line to a file when it is imported (then raises ImportError, as a broken install would, so nothing uses it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FAKE_PANDAS = (
    "import os, traceback\n"
    "with open(os.environ['FAKE_PANDAS_LOG'], 'a', encoding='utf-8') as log:\n"
    "    log.write('pandas imported from:\\n' + ''.join(traceback.format_stack()))\n"
    "raise ImportError('the fake pandas of tests/test_startup_without_pandas.py')\n"
)
# The window as gpudesk.ui.app starts it, on a settings file and data folder of the test, left running until the
# deferred start-up work (catalog, store, tabs) has opened the user's store with sqlite-utils.
OPEN_WINDOW = (
    "import sys, time\n"
    "from PySide6.QtCore import QSettings\n"
    "from PySide6.QtWidgets import QApplication\n"
    "app = QApplication([])\n"
    "from gpudesk.ui.main_window import MainWindow\n"
    "window = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat))\n"
    "window.show()\n"
    "deadline = time.monotonic() + 60\n"
    "while 'sqlite_utils' not in sys.modules and time.monotonic() < deadline:\n"
    "    app.processEvents()\n"
    "    time.sleep(0.02)\n"
    "for _ in range(20):\n"
    "    app.processEvents()\n"
    "print('sqlite_utils' in sys.modules)\n"
)


def _run(tmp_path: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    fake = tmp_path / "fake" / "pandas"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(FAKE_PANDAS, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "fake"), str(REPO)]),
               FAKE_PANDAS_LOG=str(tmp_path / "pandas.log"), GPUDESK_DATA_DIR=str(tmp_path / "data"),
               QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=REPO, env=env, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _pandas_log(tmp_path: Path) -> str:
    log = tmp_path / "pandas.log"
    return log.read_text(encoding="utf-8") if log.exists() else ""


def test_the_fake_pandas_is_seen_by_a_plain_import(tmp_path):
    _run(tmp_path, ["-c", "import sqlite_utils"])  # sqlite-utils imported directly: the path this test guards
    assert "pandas imported from" in _pandas_log(tmp_path)


@pytest.mark.parametrize("args", [["--version"], ["plan", "--help"]], ids=["version", "plan-help"])
def test_cli_start_up_does_not_import_pandas(tmp_path, args):
    done = _run(tmp_path, ["-m", "gpudesk", *args])
    assert done.stdout.strip()
    assert _pandas_log(tmp_path) == ""


def test_the_window_starts_and_opens_its_store_without_importing_pandas(tmp_path):
    done = _run(tmp_path, ["-c", OPEN_WINDOW, str(tmp_path / "settings.ini")])
    assert done.stdout.strip().splitlines()[-1] == "True"  # the store was opened: sqlite-utils was imported
    assert _pandas_log(tmp_path) == ""


def test_pandas_imports_as_usual_after_the_store_library(tmp_path):
    done = _run(tmp_path, ["-c", "import gpudesk.store.sqlite_lib, sys\n"
                                 "try:\n    import pandas\nexcept ImportError as exc:\n    print(exc)\n"])
    assert "the fake pandas" in done.stdout
    assert "pandas imported from" in _pandas_log(tmp_path)
