"""Benchmark: diagnosis of a pasted OOM message (aim: under 50 ms), and the share of public cases matched."""

from __future__ import annotations

import json
from pathlib import Path

from gpudesk.oom import diagnose_text

CASES = [json.loads(line) for line in
         (Path(__file__).resolve().parent.parent / "fixtures" / "oom" / "cases.jsonl").read_text().splitlines()]
LONG_LOG = ("\n".join(f"step {i}: loss=2.{i:04d} lr=3e-4 tokens/s=51234" for i in range(2000)) + "\n"
            + CASES[11]["message"] + "\n" + CASES[0]["message"])


def test_bench_diagnose_nvml_era_message(benchmark):
    d = benchmark(diagnose_text, CASES[9]["message"])
    assert d.causes[0].id == "fragmentation"
    assert d.elapsed_s < 0.5  # sanity bound; the benchmark itself measures the figure (aim < 50 ms)


def test_bench_diagnose_long_log(benchmark):
    d = benchmark(diagnose_text, LONG_LOG)
    assert d.causes[0].id == "cuda_graph_pools"


def test_bench_all_public_cases(benchmark):
    def run():
        return [diagnose_text(c["message"]).causes[0].id for c in CASES]

    tops = benchmark(run)
    assert len(tops) == 26
