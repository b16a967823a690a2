"""gpudesk.units: the one module that formats bytes (binary), rates (decimal), durations, percentages, counts and
money; None/NaN is N/A; and no second formatter or second ``GIB =`` anywhere in the package."""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest

import gpudesk
from gpudesk import i18n
from gpudesk.units import (
    format_bytes,
    format_count,
    format_duration,
    format_duration_range,
    format_flops,
    format_gib,
    format_percent,
    format_rate,
    format_usd,
)

PACKAGE = Path(gpudesk.__file__).resolve().parent
UNITS = PACKAGE / "units.py"


def test_bytes_are_binary_and_unknown_is_na():
    assert format_bytes(512) == "512 B"
    assert format_bytes(1.5 * 1024**2) == "1.50 MiB"
    assert format_bytes(80 * 1024**3) == "80.00 GiB"
    assert format_bytes(14377562849) == "13.39 GiB"  # as PyTorch's OOM message prints it
    assert format_bytes(None) == "N/A" and format_bytes(math.nan) == "N/A"
    assert format_gib(79.25 * 1024**3) == "79.25 GiB"
    assert format_gib(79.25 * 1024**3, with_unit=False, digits=1) == "79.2"


def test_rates_are_decimal_as_datasheets_state_them():
    assert format_rate(31.504e9) == "31.5 GB/s"  # PCIe Gen4 x16, per direction
    assert format_rate(850e6) == "850 MB/s"
    assert format_rate(None) == "N/A"


def test_durations_read_naturally():
    assert format_duration(0.61) == "610 ms"
    assert format_duration(1.234) == "1.23 s"
    assert format_duration(45) == "45 s"
    assert format_duration(2.5) == "2.5 s"
    assert format_duration(59.7) == "1 min"
    assert format_duration(600) == "10 min"
    assert format_duration(3 * 3600 + 20 * 60) == "3 h 20 min"
    assert format_duration(52 * 3600) == "2 d 4 h"
    assert format_duration(-1) == "N/A" and format_duration(None) == "N/A" and format_duration(math.inf) == "N/A"
    assert format_duration_range(6, 6.2) == "6 s to 6.2 s" and format_duration_range(30, 30.2) == "30 s"


def test_short_durations_read_in_microseconds_with_three_figures():
    assert format_duration(3.4e-6) == "3.4 µs" and format_duration(1.7578125e-05) == "17.6 µs"
    assert format_duration(0.000899958) == "900 µs" and format_duration(0.0009996) == "1 ms"
    assert format_duration(0.0121675) == "12.2 ms" and format_duration(5e-10) == "0.5 ns"


def test_datasheet_rates_keep_their_figures_with_separators():
    assert format_rate(3350e9, digits=None) == "3,350 GB/s" and format_rate(450e9, digits=None) == "450 GB/s"
    assert format_rate(31.504e9, digits=None) == "31.5 GB/s" and format_rate(850e6, digits=None) == "850 MB/s"
    assert format_flops(989.4e12) == "989 TFLOPS" and format_flops(1979e12) == "1,979 TFLOPS"
    assert format_flops(None) == "N/A"
    assert format_percent(0.865672, digits=None) == "86.6 %" and format_percent(0.9, digits=None) == "90 %"


def test_twelve_thousand_seconds_read_the_same_in_both_languages_everywhere():
    assert format_duration(12_000) == "3 h 20 min"
    i18n.set_language("zh_CN")
    try:
        assert format_duration(12_000) == "3 小时 20 分钟"
    finally:
        i18n.set_language("en")


def test_percent_count_and_money():
    assert format_percent(0.854) == "85 %" and format_percent(0.854, digits=1) == "85.4 %"
    assert format_count(1234567) == "1,234,567"
    assert format_usd(1234567.4) == "$1,234,567" and format_usd(-50) == "−$50" and format_usd(None) == "N/A"


# A function that turns a quantity into text, by the names the package used for its copies before they were
# merged here (format_bytes x3, format_gib x3, six duration formatters, fmt_share, gib, usd).
_FORMATTER = re.compile(r"^_?(fmt|format)_(bytes|gib|mib|duration|seconds|step_time|rate|percent|share|count|usd|limit)$"
                        r"|^_?(duration|duration_range|gib|usd|rate|percent)$")
_UNIT_CONSTANT = re.compile(r"^_?(K|M|G|T)i?B$", re.IGNORECASE)
_BINARY_POWERS = {1024**2, 1024**3, 1024**4}


def _binary_power(node: ast.expr) -> bool:
    try:
        value = ast.literal_eval(node) if isinstance(node, ast.Constant) else eval(  # noqa: S307 - constant folding
            compile(ast.Expression(node), "<constant>", "eval"), {"__builtins__": {}})
    except Exception:
        return False
    return isinstance(value, (int, float)) and value in _BINARY_POWERS


def _returns_text(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A formatter returns text; a parser of the same name (``_duration(text) -> float``) is not one."""
    return node.returns is None or ast.unparse(node.returns) == "str"


def _second_definitions() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == UNITS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(PACKAGE.parent)
        for node in ast.walk(tree):
            if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _FORMATTER.match(node.name)
                    and _returns_text(node)):
                found.append(f"{where}:{node.lineno} def {node.name}")
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if (isinstance(target, ast.Name) and _UNIT_CONSTANT.match(target.id)
                            and _binary_power(node.value)):
                        found.append(f"{where}:{node.lineno} {target.id} =")
    return found


def test_the_package_has_one_formatter_per_quantity_and_one_gib():
    assert _second_definitions() == [], "use gpudesk.units instead of a second definition"


@pytest.mark.parametrize("source", [
    "def format_bytes(n):\n    return str(n)\n",
    "def fmt_duration(s):\n    return str(s)\n",
    "def _gib(x: float) -> str:\n    return str(x)\n",
    "GIB = 1024**3\n",
    "GiB = 2**30\n",
    "MIB = 1024.0 * 1024.0\n",
])
def test_the_scan_catches_a_second_definition(tmp_path, monkeypatch, source):
    fake = tmp_path / "gpudesk"
    fake.mkdir()
    (fake / "units.py").write_text("GIB = 1024**3\n")
    (fake / "other.py").write_text(source)
    monkeypatch.setitem(globals(), "PACKAGE", fake)
    monkeypatch.setitem(globals(), "UNITS", fake / "units.py")
    assert len(_second_definitions()) == 1


def test_the_units_docstring_examples_run():
    import doctest

    import gpudesk.units
    from gpudesk import i18n

    i18n.set_language("en")
    try:
        result = doctest.testmod(gpudesk.units)
    finally:
        i18n.set_language(None)
    assert result.attempted >= 5 and result.failed == 0, result
