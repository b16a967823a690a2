"""The benchmark client's warm-up request: vLLM's serving benchmark sends the run's first prompt once before it
measures, and vLLM V1's prefix cache then serves all of that prompt but its last block to the measured first
request."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_client import cached_prompt_tokens, warmup_caches_first_prompt
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_sched import Load, simulate
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_only_vllm_v1_online_runs_with_a_request_count_get_the_cached_first_prompt():
    assert warmup_caches_first_prompt("vllm", "0.10.1.1", offline=False, num_prompts=1)
    assert warmup_caches_first_prompt("vllm", None, offline=False, num_prompts=10)
    assert not warmup_caches_first_prompt("vllm", "0.6.3", offline=False, num_prompts=1)  # V0: no prefix cache
    assert not warmup_caches_first_prompt("vllm", "0.10.1", offline=True, num_prompts=1)  # benchmark_throughput
    assert not warmup_caches_first_prompt("vllm", "0.10.1", offline=False, num_prompts=None)  # steady state
    assert not warmup_caches_first_prompt("sglang", None, offline=False, num_prompts=1)
    # Only when the user says the client sends it: a deployment's first request finds nothing cached.
    assert not warmup_caches_first_prompt("vllm", "0.10.1", offline=False, num_prompts=1, warmup=False)


def test_a_cached_prompt_recomputes_its_last_block_only():
    assert cached_prompt_tokens(1024) == 1008  # 1023 tokens rounded down to 16-token blocks
    assert cached_prompt_tokens(1025) == 1024
    assert cached_prompt_tokens(1) == 0


def test_a_one_prompt_run_measures_a_cached_prefill(catalog):
    """One 4096-token prompt on an A100: with the warm-up request in the cache the measured TTFT is a step of 16
    tokens, not the prompt's prefill; the decode after it is the same."""
    spec = spec_from_catalog(catalog.model("qwen2.5-7b"))
    gpu = catalog.gpu("a100-80-sxm4")
    load = ServeLoad(engine="vllm", engine_version="0.10.1", input_tokens=4096, output_tokens=256,
                     request_rate_per_s=math.inf, num_prompts=1, benchmark_warmup=True).validated()
    budget = engine_budget(spec, gpu, load)
    steps = step_model(spec, gpu, load, None, budget.kv_dtype)
    base = Load(input_tokens=4096, output_tokens=256, request_rate_per_s=math.inf, num_prompts=1)
    cold = simulate(steps, budget, base)
    warm = simulate(steps, budget, dataclasses.replace(base, first_prompt_cached=True))
    assert warm.ttft_s < 0.3 * cold.ttft_s
    assert warm.tpot_s == pytest.approx(cold.tpot_s, rel=0.02)
    # serve_speed applies it for this run and says so.
    speed = serve_speed(spec, gpu, load)
    assert any(a.name == "warmup_request" for a in speed.assumptions)
    # Without the input the same run is measured cold.
    plain = serve_speed(spec, gpu, dataclasses.replace(load, benchmark_warmup=False))
    assert not any(a.name == "warmup_request" for a in plain.assumptions)
    assert plain.ttft_s > 3 * speed.ttft_s

