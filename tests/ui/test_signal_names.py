"""One naming scheme for the window's Qt signals (issue 31, item 6): every ``Signal`` declared in a class of
``gpudesk.ui`` is named in Qt's own lowerCamelCase (``clicked``, ``textChanged``, ``planReady``; a leading underscore
marks a private one) and carries a one-line docstring right below it saying when it is emitted and what its
arguments are. Read from the sources (AST), so a new signal is checked without being imported."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import gpudesk.ui

UI = Path(gpudesk.ui.__file__).resolve().parent
CAMEL = re.compile(r"_?[a-z][a-zA-Z0-9]*")


def signal_problems(source: str, filename: str = "<string>") -> list[str]:
    """Signals of ``source`` whose name is not lowerCamelCase or that lack a one-line docstring below them."""
    problems = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.ClassDef):
            continue
        for index, statement in enumerate(node.body):
            value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
            if not (isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] in ("Signal", "pyqtSignal")):
                continue
            target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
            name = ast.unparse(target)
            where = f"{filename}:{statement.lineno} {node.name}.{name}"
            if not CAMEL.fullmatch(name):
                problems.append(f"{where}: not lowerCamelCase")
            following = node.body[index + 1] if index + 1 < len(node.body) else None
            doc = (following.value.value if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                   and isinstance(following.value.value, str) else None)
            if not doc or not doc.strip() or "\n" in doc.strip():
                problems.append(f"{where}: no one-line docstring below it")
    return problems


def test_the_check_flags_a_bad_name_and_a_missing_docstring():
    good = 'class A:\n    planReady = Signal(object)\n    """A plan finished: its PlanDocument."""\n'
    assert signal_problems(good) == []
    assert signal_problems('class A:\n    _relay = Signal(int)\n    """Private: a job id."""\n') == []
    snake = 'class A:\n    plan_ready = Signal(object)\n    """A plan finished: its PlanDocument."""\n'
    assert [p.split(": ")[-1] for p in signal_problems(snake)] == ["not lowerCamelCase"]
    bare = "class A:\n    planReady = Signal(object)  # a comment is not a docstring\n    other = 1\n"
    assert [p.split(": ")[-1] for p in signal_problems(bare)] == ["no one-line docstring below it"]
    last = "class A:\n    planReady = QtCore.Signal(object)\n"
    assert [p.split(": ")[-1] for p in signal_problems(last)] == ["no one-line docstring below it"]


def test_every_window_signal_is_lower_camel_case_with_a_docstring():
    problems, checked = [], 0
    for path in sorted(UI.rglob("*.py")):
        rel = path.relative_to(UI)
        source = path.read_text(encoding="utf-8")
        checked += source.count("Signal(")
        problems += signal_problems(source, f"gpudesk/ui/{rel.as_posix()}")
    assert checked >= 140  # the walk really reached the tabs' modules, the monitor's included
    assert problems == [], "\n".join(problems)

