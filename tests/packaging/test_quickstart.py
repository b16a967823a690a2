"""packaging/linux/quickstart.sh, the README's `make run`: system check first, then a runtime-only venv, then gpudesk.

The stop test replaces dpkg-query and apt-get on PATH (nothing installed, apt-get failing) and checks that the
script stops with the check's status before it creates any venv. The full run (``--run-packaging``: pip resolves
the runtime dependencies) starts from a copy of the project files, creates the venv outside the repository and
passes ``--self-test`` through to gpudesk.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gpudesk import selftest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "packaging" / "linux" / "quickstart.sh"
PROJECT_FILES = ("gpudesk", "resources", "packaging", "setup.py", "pyproject.toml", "README.md", "LICENSE",
                 "NOTICE", "Makefile")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


def script_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDESK_") and k != "PYTHONPATH"}
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "xdg"), QT_QPA_PLATFORM="offscreen")
    env.update(extra)
    return env


def test_missing_system_packages_stop_it_before_any_venv_is_made(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "dpkg-query").write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")  # nothing is installed
    (fake / "apt-get").write_text("#!/bin/sh\necho 'E: Unable to locate package' >&2\nexit 100\n", encoding="utf-8")
    for tool in fake.iterdir():
        tool.chmod(0o755)
    venv = tmp_path / "venv"
    env = script_env(tmp_path, PATH=f"{fake}:{os.environ['PATH']}", VENV=str(venv))
    result = subprocess.run(["sh", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode != 0
    out = result.stdout + result.stderr
    assert ("libxcb-cursor0" in out) and ("E: Unable to locate package" in out or "sudo apt-get install" in out)
    assert not venv.exists()


@pytest.mark.packaging
def test_a_fresh_copy_gets_a_runtime_only_venv_and_a_working_app(tmp_path):
    copy = tmp_path / "gpudesk"
    copy.mkdir()
    for name in PROJECT_FILES:
        source = REPO / name
        (shutil.copytree(source, copy / name, ignore=IGNORE) if source.is_dir() else shutil.copy2(source, copy / name))
    venv = tmp_path / "venv"
    env = script_env(tmp_path, VENV=str(venv))
    cmd = ["sh", "packaging/linux/quickstart.sh", "--self-test"]
    first = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=1200, check=False)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert f"self-test: {len(selftest.CHECKS)} passed, 0 failed" in first.stdout
    assert "installing gpudesk and its runtime dependencies" in first.stdout
    probe = "import importlib.util as u; print([m for m in ('pytest', 'torch', 'pytestqt') if u.find_spec(m)])"
    found = subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, timeout=60,
                           check=False)
    assert found.stdout.strip() == "[]"  # no test extra
    again = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0 and "installing" not in again.stdout  # the venv is reused
