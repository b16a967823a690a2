"""The Monitor reproduces pyqtgraph 0.14 internals (issue 15, for speed): ``gpudesk/ui/monitor/axis_specs.py``
(AxisItem.generateDrawSpecs), ``view_range.py`` (ViewBox.setRange / updateViewRange state) and ``plot_items.py``
(GraphicsWidget.boundingRect / shape). These tests make that assumption explicit (issue 31) and fail loudly, with
the remedy in the message, when the installed pyqtgraph is not the one the reproduced code was checked against.

- the installed release lies in the pin of pyproject.toml (``pyqtgraph>=0.14,<0.15``);
- every pyqtgraph function the Monitor reproduces or relies on has the code it had in pyqtgraph 0.14.0 (a
  fingerprint of its source, comments and blank lines left out, so a reformat passes and a code change fails);
- the private attributes the reproduced code reads or writes still exist.

The behaviour itself (ticks, labels, transforms, pixels equal to pyqtgraph's own) is compared on the installed
version by test_axis_specs.py, test_view_range.py and test_plot_items.py.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import sys
import textwrap
import tokenize
from pathlib import Path

import pyqtgraph as pg
import pytest
from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"
CHECKED_RELEASE = "0.14.0"  # the release the fingerprints below were taken from

# (pyqtgraph class, method, the gpudesk module that reproduces or relies on it, fingerprint in CHECKED_RELEASE)
REPRODUCED = [
    (pg.AxisItem, "generateDrawSpecs", "axis_specs.py", "0ed2a2db4b80952b"),
    (pg.AxisItem, "_updateMaxTextSize", "axis_specs.py", "c4147e57ab00e1c9"),
    (pg.ViewBox, "setRange", "view_range.py", "8cf858c559b2a433"),
    (pg.ViewBox, "updateViewRange", "view_range.py", "c9b9272d62e434a7"),
    (pg.ViewBox, "updateMatrix", "view_range.py", "06fa5215ecbd38ae"),
    (pg.ViewBox, "prepareForPaint", "view_range.py", "ab2cd4d0316ede2d"),
    (pg.ViewBox, "viewPixelSize", "view_range.py", "8ada142c8bf5f573"),
    (pg.GraphicsWidget, "boundingRect", "plot_items.py", "f0b58770a4cca7a1"),
    (pg.GraphicsWidget, "shape", "plot_items.py", "819e0ee4f592ea9d"),
    (pg.ViewBox, "boundingRect", "plot_items.py", "7ca0b7eaa57bfa1a"),
]

REMEDY = ("The Monitor reproduces pyqtgraph {checked} internals in gpudesk/ui/monitor/{module}. Run "
          "tests/ui/monitor/test_axis_specs.py, test_view_range.py and test_plot_items.py on this pyqtgraph; "
          "when they pass (or after porting the change to {module}), update the fingerprint in this file and the "
          "pyqtgraph pin in pyproject.toml.")


def _pin() -> Requirement:
    deps = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    return next(r for r in map(Requirement, deps) if r.name == "pyqtgraph")


def fingerprint(function: object) -> str:
    """sha256 (16 hex digits) of a function's source without comments, trailing spaces and blank lines."""
    return source_fingerprint(inspect.getsource(function))  # type: ignore[arg-type]


def source_fingerprint(source: str) -> str:
    source = textwrap.dedent(source)
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    code = "\n".join(line.rstrip() for line in lines if line.strip())
    return hashlib.sha256(code.encode()).hexdigest()[:16]


def test_installed_pyqtgraph_is_in_the_tested_range():
    pin = _pin()
    installed = Version(pg.__version__)
    assert installed in pin.specifier, (
        f"pyqtgraph {installed} is installed but pyproject.toml pins {pin}: " + REMEDY.format(
            checked=CHECKED_RELEASE, module="axis_specs.py, view_range.py and plot_items.py"))
    assert Version(CHECKED_RELEASE) in pin.specifier, f"the pin {pin} no longer includes {CHECKED_RELEASE}"


@pytest.mark.parametrize(("cls", "method", "module", "expected"), REPRODUCED,
                         ids=[f"{c.__name__}.{m}" for c, m, _, _ in REPRODUCED])
def test_reproduced_pyqtgraph_code_is_unchanged(cls, method, module, expected):
    got = fingerprint(getattr(cls, method))
    assert got == expected, (
        f"pyqtgraph {pg.__version__} changed {cls.__name__}.{method} (fingerprint {got}, was {expected} in "
        f"{CHECKED_RELEASE}). " + REMEDY.format(checked=CHECKED_RELEASE, module=module))


def test_fingerprint_ignores_comments_and_blank_lines_and_sees_code():
    plain = "def f(x):\n    return x + 1\n"
    assert source_fingerprint("    def f(x):  # indented\n\n        return x + 1  # one\n") == source_fingerprint(plain)
    assert source_fingerprint("def f(x):\n    return x + 2\n") != source_fingerprint(plain)
    assert source_fingerprint("def f(x):\n    return '#' + x\n") != source_fingerprint("def f(x):\n    return x\n")


def test_private_state_the_monitor_reads_and_writes_exists(qtbot):
    axis = pg.AxisItem("bottom")
    for key in ("stopAxisAtTick", "tickAlpha", "tickFont", "tickLength", "tickTextOffset", "showValues",
                "maxTextLevel", "textFillLimits"):
        assert key in axis.style, f"AxisItem.style has no {key!r}: " + REMEDY.format(
            checked=CHECKED_RELEASE, module="axis_specs.py")
    assert hasattr(axis, "_tickLevels") and callable(getattr(axis, "_updateMaxTextSize", None)), (
        "AxisItem lost _tickLevels or _updateMaxTextSize: " + REMEDY.format(checked=CHECKED_RELEASE,
                                                                          module="axis_specs.py"))
    view = pg.ViewBox()
    for key in ("limits", "autoRange", "aspectLocked", "logMode", "viewRange", "targetRange"):
        assert key in view.state, f"ViewBox.state has no {key!r}: " + REMEDY.format(
            checked=CHECKED_RELEASE, module="view_range.py")
    for key in ("xLimits", "xRange"):
        assert key in view.state["limits"], f"ViewBox.state['limits'] has no {key!r}: " + REMEDY.format(
            checked=CHECKED_RELEASE, module="view_range.py")
    assert hasattr(view, "_viewPixelSizeCache") and hasattr(view, "_matrixNeedsUpdate"), (
        "ViewBox lost _viewPixelSizeCache or _matrixNeedsUpdate: " + REMEDY.format(
            checked=CHECKED_RELEASE, module="view_range.py"))
