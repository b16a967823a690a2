"""gpudesk.telemetry.core.source: the closed set of source kinds is one str Enum; the window compares members, never
the strings."""

from __future__ import annotations

import ast
from pathlib import Path

import gpudesk
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from gpudesk.telemetry.sources.replay import ReplaySource
from gpudesk.telemetry.core.source import SourceKind

PACKAGE = Path(gpudesk.__file__).resolve().parent
VALUES = {k.value for k in SourceKind}


def test_kinds_read_as_the_text_a_session_stores():
    assert SourceKind("dmon-file") is SourceKind.DMON_FILE and SourceKind.NVML == "nvml"
    assert NvmlSource.kind is SourceKind.NVML and ReplaySource.kind is SourceKind.REPLAY
    assert SourceKind.NVML.live and not SourceKind.REPLAY.live
    assert SourceKind.DEMO.from_log_text and not SourceKind.RECORDING.from_log_text


def _string_comparisons() -> list[str]:
    """``x.kind == "nvml"`` / ``source_kind in ("replay", ...)``: a source kind compared with its text."""
    found = []

    def kind_like(node: ast.expr) -> bool:
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
        return name in ("kind", "source_kind")

    def texts(node: ast.expr) -> list[str]:
        items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]

    for path in sorted((PACKAGE / "ui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and kind_like(node.left):
                if any(t in VALUES for c in node.comparators for t in texts(c)):
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    return found


def test_the_window_compares_members_not_strings():
    assert _string_comparisons() == []
