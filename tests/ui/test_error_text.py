"""gpudesk.ui.error_text: the window shows an error's message, detail and remedy; no view falls back to str(exc),
which drops the remedy."""

from __future__ import annotations

import ast
from pathlib import Path

import gpudesk.ui
from gpudesk.errors import GpudeskError
from gpudesk.telemetry.formats.dmon import DmonError
from gpudesk.ui.error_text import error_text

UI = Path(gpudesk.ui.__file__).resolve().parent


def test_a_gpudesk_error_reads_with_its_remedy():
    err = DmonError("run.txt: no samples could be read.", field="run.txt", detail="header only",
                    remedy="Open the output of 'nvidia-smi dmon'.")
    assert str(err) == "run.txt: no samples could be read."  # what str(exc) showed
    assert error_text(err) == "run.txt: no samples could be read. (header only) Open the output of 'nvidia-smi dmon'."


def test_system_and_other_errors():
    assert error_text(FileNotFoundError(2, "No such file or directory", "/tmp/x.toml")) == (
        "/tmp/x.toml: No such file or directory")
    assert error_text(ValueError("bad")) == "bad" and error_text(KeyError()) == "KeyError"
    assert error_text(GpudeskError("plain")) == "plain"


def _str_of_caught_exceptions() -> list[str]:
    """``str(exc)`` / ``"...".format(exc)`` / ``f"{exc}"`` on a name bound by ``except ... as exc`` in gpudesk/ui."""
    found = []
    for path in sorted(UI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        caught = {h.name for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler) and h.name}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            args = [a for a in node.args if isinstance(a, ast.Name) and a.id in caught]
            is_str = isinstance(node.func, ast.Name) and node.func.id == "str"
            is_format = isinstance(node.func, ast.Attribute) and node.func.attr == "format"
            if args and (is_str or is_format):
                found.append(f"{path.relative_to(UI.parent)}:{node.lineno}")
    return found


def test_no_view_shows_str_of_an_exception():
    assert _str_of_caught_exceptions() == []
