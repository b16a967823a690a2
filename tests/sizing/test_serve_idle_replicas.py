"""qa16: fewer requests in flight than replicas leave replicas idle. ``--concurrency 1`` on 8 replicas was read as one
client per replica (8 in flight), so the system's throughput came out 8x the one client's."""

from __future__ import annotations

import pytest

from gpudesk.cli import main
from gpudesk.sizing.serve_load import ServeLoad
from gpudesk.sizing.speed_serve import busy_replicas

BASE = ["estimate", "speed", "--model", "llama-3-8b", "--gpu", "h100-sxm5-80gb", "--engine", "vllm",
        "--input-tokens", "1000", "--output-tokens", "100", "--json"]


def _requests_per_s(capsys, *args: str) -> float:
    import json

    assert main([*BASE, *args]) == 0
    return float(json.loads(capsys.readouterr().out)["serve"]["requests_per_s"])


def test_one_client_keeps_one_replica_busy(capsys):
    one_gpu = _requests_per_s(capsys, "--count", "1", "--concurrency", "1")
    eight_replicas = _requests_per_s(capsys, "--count", "8", "--concurrency", "1")
    assert eight_replicas == pytest.approx(one_gpu, rel=1e-6)  # the other 7 replicas have nothing to do


@pytest.mark.parametrize(("concurrency", "batch", "busy"), [(1, None, 1), (3, None, 3), (64, None, 8), (None, 2, 2),
                                                             (None, 100, 8)])
def test_busy_replicas(concurrency, batch, busy):
    load = ServeLoad(input_tokens=100, output_tokens=10, concurrency=concurrency, batch=batch, replicas=8)
    assert busy_replicas(load) == busy
