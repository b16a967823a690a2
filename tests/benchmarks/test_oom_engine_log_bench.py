"""OOM doctor on serving-engine logs: diagnosis time for a 2,000-line vLLM server log ending in a start-up
error (issue 11 aims under 50 ms), and for 100 kB of crafted input per parser shape (issue 14).

Measure: ``.venv/bin/python -m pytest tests/benchmarks/test_oom_engine_log_bench.py --benchmark-enable -q``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.oom import diagnose_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "oom"
CASES = [json.loads(line) for line in (FIXTURES / "engine_cases.jsonl").read_text(encoding="utf-8").splitlines() if line]


def _server_log(lines: int) -> str:
    """A vLLM start-up log: request and metrics lines, then the V1 KV-cache error (vllm#34076) at the end."""
    body = [f"INFO 02-08 10:{i // 60 % 60:02d}:{i % 60:02d} [metrics.py:489] Avg prompt throughput: {i % 97}.0 tokens/s, "
            f"Running: {i % 7} reqs, GPU KV cache usage: {i % 100}.{i % 10}%" for i in range(lines - 1)]
    error = next(c["message"] for c in CASES if c["url"].endswith("vllm/issues/34076"))
    return "\n".join(body + [error])


def test_diagnose_2000_line_server_log(benchmark):
    text = _server_log(2000)
    diagnosis = benchmark(diagnose_text, text)
    assert diagnosis.top.id == "kv_cache_budget" and "--max-model-len 34736" in diagnosis.top.fix


@pytest.mark.parametrize("name, text", [
    ("digits", "CUDA out of memory. " + "1" * 100_000),
    ("capacity", "CUDA out of memory. GPU 0 has a total capacity of " + "9" * 100_000),
    ("nccl", "NCCL " * 20_000),
    ("mps", "MPS backend out of memory (MPS allocated: " * 2_400),
    ("ggml", "allocating 1" + "1" * 100_000 + " MiB on device 0: cudaMalloc failed: out of memory"),
])
def test_crafted_100kb(benchmark, name, text):
    benchmark(diagnose_text, text)
