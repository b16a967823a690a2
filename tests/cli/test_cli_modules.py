"""gpudesk/cli/__init__.py: a command line imports only the command module it names (start-up time, issue 15),
``--lang`` read before the parser is built still works, and help without a command lists every command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gpudesk.cli import COMMAND_MODULES, _modules_for

REPO = Path(__file__).resolve().parents[2]
PROFILE = "resources/examples/article-13b-finetune.toml"


def test_a_command_needs_only_its_module():
    assert _modules_for(["plan", "--profile", PROFILE]) == ["plan"]
    assert _modules_for(["estimate", "memory", "--params", "7e9"]) == ["plan"]
    assert _modules_for(["monitor", "analyze", "--list"]) == ["monitor"]
    assert _modules_for(["store", "check"]) == ["store"]


def test_the_language_option_before_a_command_is_skipped_with_its_value():
    assert _modules_for(["--lang", "zh_CN", "plan", "--profile", PROFILE]) == ["plan"]
    assert _modules_for(["--lang=zh_CN", "oom", "explain"]) == ["oom"]


def test_version_needs_no_module_and_help_or_no_command_needs_all():
    assert _modules_for(["--version"]) == []
    assert _modules_for([]) == COMMAND_MODULES
    assert _modules_for(["--help"]) == COMMAND_MODULES
    assert _modules_for(["--lang", "zh_CN", "-h", "plan"]) == COMMAND_MODULES  # top-level help lists them all
    assert _modules_for(["no-such-command"]) == COMMAND_MODULES  # the error lists the valid choices


def _imported_after(args: list[str], tmp_path: Path) -> tuple[dict, set[str]]:
    script = (
        "import contextlib, io, json, sys\n"
        "from gpudesk.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    status = main({args!r})\n"
        "print(json.dumps({'status': status, 'out': out.getvalue(), 'modules': sorted(sys.modules)}))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO), GPUDESK_DATA_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    return result, set(result["modules"])


def test_plan_in_chinese_imports_neither_other_commands_nor_sqlite_utils(tmp_path):
    result, modules = _imported_after(["--lang", "zh_CN", "plan", "--profile", PROFILE, "--format", "json"],
                                      tmp_path)
    assert result["status"] == 0 and json.loads(result["out"])["candidates"]
    assert "gpudesk.cli.plan" in modules
    assert not modules & {"gpudesk.cli.monitor", "gpudesk.cli.oom", "gpudesk.cli.catalog", "sqlite_utils",
                          "pandas", "PySide6"}
    # Imported where they are used: suggestions for an unknown name, the default data folder (GPUDESK_DATA_DIR here)
    assert not modules & {"difflib", "platformdirs"}
