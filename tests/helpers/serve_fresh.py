"""Shared steps of the serving fresh-batch tests (tests/sizing/test_speed_serve_fresh*.py): each batch's rows with
their predicted / measured ratio, the source URLs of the other fixture files, and the checks that a batch holds only
new published runs. Each test module keeps its own bars (the level its batch's first score reached)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gpudesk.sizing.speed_serve_cases import predict_serve_case

SPEED_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "speed"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def serve_ratios(path: Path) -> dict[str, tuple[dict[str, Any], float]]:
    """``{id: (row, predicted / measured)}`` for every row of a serving batch."""
    return {r["id"]: (r, predict_serve_case(r)[0] / r["measured"]["value"]) for r in read_jsonl(path)}


def source_urls(paths: Iterable[Path]) -> set[str]:
    """The source URLs of the rows of ``paths`` (a missing file has none)."""
    urls: set[str] = set()
    for path in paths:
        if path.exists():
            urls |= {r.get("source_url") for r in read_jsonl(path)}
    return urls


def other_fixture_files(path: Path) -> list[Path]:
    """Every other .jsonl of the speed fixtures."""
    return [p for p in path.parent.glob("*.jsonl") if p.name != path.name]


def assert_new_published_runs(ratios: dict[str, tuple[dict[str, Any], float]], other: set[str], min_rows: int) -> None:
    """At least ``min_rows`` rows, each from an https source in none of ``other``, with notes and one load shape."""
    assert len(ratios) >= min_rows
    for row, _ratio in ratios.values():
        assert row["source_url"].startswith("https://") and row["source_url"] not in other, row["id"]
        assert row["notes"] and sum(k in row for k in ("concurrency", "request_rate", "batch")) == 1


def abs_errors(ratios: dict[str, tuple[dict[str, Any], float]]) -> list[float]:
    return [abs(ratio - 1) for _row, ratio in ratios.values()]
