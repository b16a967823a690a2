"""Impossible readings become N/A with a reason (tryout of issue 13: fb = 1e32 MB printed "memory peaked at
1.2e29 % of capacity"). Input: a real A100 dmon log with one fb cell corrupted."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gpudesk.telemetry import model as m
from gpudesk.telemetry.analysis import analyze
from gpudesk.telemetry.dmon import parse_dmon
from gpudesk.telemetry.dmon_import import devices_for_model, resolve_gpu_model
from gpudesk.telemetry.plausibility import MAX_GPU_MEMORY_BYTES, screen

# a real A100 dmon -s um log (source URL in tests/fixtures/monitor_rules/SOURCES.md), 17 rounds of GPU 0
LOG = Path(__file__).resolve().parent.parent / "fixtures" / "monitor_rules" / "real_a100_um_healthy.txt"


def corrupted() -> str:
    lines = LOG.read_text().splitlines()
    cells = lines[5].split()
    cells[7] = "100000000000000000000000000000000"  # fb of one round: 1e32 MB
    lines[5] = "  ".join(cells)
    return "\n".join(lines) + "\n"


def test_memory_above_the_capacity_is_na_with_its_reason():
    frame = parse_dmon(corrupted()).frame
    gpu = resolve_gpu_model("a100-80-pcie")
    devs = devices_for_model(frame.gpus, gpu)
    result = analyze(frame, devs)
    assert result.stats[0][m.MEM_USED].n == 16 and result.stats[0][m.MEM_USED].p95 < 16 * 2**30
    assert not [f for f in result.findings if f.rule == "memory-safe-line" and f.judged and not f.evidence.get("checked")]
    assert any("GPU 0: 1 memory-used reading(s)" in n and "80.00 GiB capacity" in n for n in result.notes)


def test_without_a_capacity_the_physical_bound_applies():
    frame = parse_dmon(corrupted()).frame
    clean = screen(frame)
    used = clean.metrics[m.MEM_USED]
    assert np.nanmax(used) <= MAX_GPU_MEMORY_BYTES
    assert "implausible" in (clean.reason(0, m.MEM_USED) or "")
    untouched = parse_dmon(LOG.read_text()).frame
    assert screen(untouched) is untouched
