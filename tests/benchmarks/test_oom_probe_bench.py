"""Benchmark: the probe's run time inside a (CPU) target with torch imported (aim: under 200 ms), and the
agent's round trip from gpudesk."""

from __future__ import annotations

import importlib.util
import os

import pytest

from gpudesk.oom import agent, probe_script
from gpudesk.oom.probe_result import report_from_probe


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not importable here")
def test_bench_probe_collect_in_torch_process(benchmark):
    import torch  # noqa: F401  (the target has torch imported; the probe itself never imports it)

    doc = benchmark(probe_script.collect)
    assert doc["torch_imported"] is True
    assert doc["probe_duration_s"] < 0.2


def test_bench_agent_round_trip(benchmark):
    agent.install(use_signal=False)
    try:
        raw = benchmark(agent.query_agent, os.getpid())
        assert report_from_probe(raw).pid == os.getpid()
    finally:
        agent.uninstall()
