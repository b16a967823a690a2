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


# Test files that sit in a package's folder without driving that package, each with its reason (DESIGN.md, Testing).
PLACED_BY_SUBJECT = {
    "sizing/test_speed_cases_format.py": "the row format of the speed cases that sizing's accuracy report reads",
    "ui/monitor/test_pyqtgraph_internals.py": "the pyqtgraph internals the Monitor's plots reproduce",
}


def test_a_package_folder_holds_the_tests_of_that_package() -> None:
    """``tests/<package>/`` holds tests that drive ``gpudesk.<package>``: directly, through a shared helper of
    ``tests/helpers/`` that does, or through the command line (a package's command may be tested beside it); the
    NVML wrappers are tested through the telemetry sources. DESIGN.md (Testing) states this rule."""
    import re

    package_dirs = {p.name for p in (TESTS.parent / "gpudesk").iterdir() if (p / "__init__.py").is_file()}
    helpers = {p.stem: p.read_text(encoding="utf-8") for p in (TESTS / "helpers").glob("*.py")}
    stray = []
    for path in sorted(TESTS.rglob("test_*.py")):
        rel = path.relative_to(TESTS)
        if len(rel.parts) < 2 or rel.parts[0] not in package_dirs or rel.as_posix() in PLACED_BY_SUBJECT:
            continue
        package = rel.parts[0]
        text = path.read_text(encoding="utf-8")
        used = [text] + [helpers[name] for name in re.findall(r"^(?:from|import) helpers\.(\w+)", text, re.M)
                         if name in helpers]
        subjects = (f"gpudesk.{package}", "gpudesk.nvml") if package == "telemetry" else (f"gpudesk.{package}",)
        drives = any(subject in source for source in used for subject in subjects)
        command_line = "from gpudesk.cli import" in text or '"-m", "gpudesk"' in text
        if not (drives or command_line):
            stray.append(rel.as_posix())
    assert stray == []


def test_top_level_tests_are_those_of_top_level_modules_or_of_the_whole_tree() -> None:
    """``tests/test_*.py`` test the top-level modules (``gpudesk/errors.py``, ``units.py``, ...) or rules that span
    the tree (layers, this layout, start-up without pandas); a file that drives only packages belongs in their
    folders."""
    import ast

    package = TESTS.parent / "gpudesk"
    modules = {p.stem for p in package.glob("*.py")} - {"__init__"}
    packages = {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    stray = []
    for path in sorted(TESTS.glob("test_*.py")):
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "gpudesk":
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gpudesk."):
                imported.add(node.module.split(".")[1])
            elif isinstance(node, ast.Import):
                imported |= {a.name.split(".")[1] for a in node.names if a.name.startswith("gpudesk.")}
        if imported & packages and not imported & modules:
            stray.append(path.name)
    assert stray == []
