"""The test tree itself: modules are imported by basename (no packages under tests/), so two test files with one
name break collection on a clean checkout (pytest's "import file mismatch"), though a warm one may hide it."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_every_test_module_has_its_own_name() -> None:
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        by_name[path.name].append(str(path.relative_to(TESTS)))
    assert {name: paths for name, paths in by_name.items() if len(paths) > 1} == {}


def test_screenshot_scripts_live_in_tools_and_use_only_public_members() -> None:
    """Screenshot scripts render docs/screenshots by hand; they are not tests (DESIGN.md, Testing), and they drive the
    window as a user or a script of gpudesk would: through public methods, attributes and signals only."""
    import ast

    assert sorted(p.name for p in TESTS.rglob("*_screenshots.py")) == []
    scripts = sorted((TESTS.parent / "tools" / "screenshots").glob("*.py"))
    assert len(scripts) >= 10
    private = []
    for script in scripts:
        for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                private.append(f"{script.name}:{node.lineno} .{node.attr}")
    assert private == []
