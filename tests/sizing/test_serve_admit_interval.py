"""Admitting waiting requests in only one step of every n once m requests run (AMD's vLLM build for MLPerf
Inference v6.0 gpt-oss-120b: VLLM_SUBSEQUENT_DECODE_STEPS 10, VLLM_MIN_REQUEST_DECODE_STEP 128 in its Server
yaml; gpudesk/sizing/serve_sched.py module docstring). The load is that run's: Poisson arrivals at 61.2 queries/s
over 8 MI355X replicas, 5,011 prompt and 1,372 output tokens."""

from __future__ import annotations

import dataclasses

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed


@pytest.fixture(scope="module")
def runs():
    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("gpt-oss-120b"))
    gpu = catalog.gpu("mi355x")
    base = ServeLoad(engine="vllm", input_tokens=5011, output_tokens=1372, request_rate_per_s=61.2, replicas=8,
                     weight_format="mxfp4", max_num_seqs=1024, max_num_batched_tokens=65536,
                     gpu_memory_utilization=0.95, kv_block_size=64, rocm_aiter=True, mixed_prefill=True)
    gated = dataclasses.replace(base, admit_interval_steps=11, admit_min_running=128)
    return serve_speed(spec, gpu, base), serve_speed(spec, gpu, gated)


def test_a_request_waits_for_the_next_admitting_step(runs):
    every_step, gated = runs
    # about (n - 1) / 2 = 5 steps of waiting, and the admitting step carries the prompts of the steps before it
    extra_steps = (gated.ttft_s - every_step.ttft_s) / every_step.tpot_s
    assert 4 <= extra_steps <= 11
    assert gated.tpot_s == pytest.approx(every_step.tpot_s, rel=0.1)  # the same prefill work, gathered
    assert gated.output_tokens_per_s == pytest.approx(every_step.output_tokens_per_s, rel=0.01)
    assert any(a.name == "admit_interval" for a in gated.assumptions)
    assert not any(a.name == "admit_interval" for a in every_step.assumptions)


def test_only_vllm_takes_an_admission_interval():
    with pytest.raises(SizingError) as err:
        ServeLoad(engine="sglang", concurrency=8, admit_interval_steps=11).validated()
    assert err.value.field == "admit_interval_steps"
