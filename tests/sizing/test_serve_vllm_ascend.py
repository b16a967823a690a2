"""vLLM-Ascend's prefill-first releases: v0.9.1 and v0.10.2rc1-v0.11.0rc3 turn chunked prefill off for non-MLA models
on an Ascend NPU whatever the flag, and raise the step budget to the model's context (vllm_ascend/platform.py
check_and_update_config, vllm-project/vllm-ascend PR 2659 / PR 2894, undone by PR 3967)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_vllm_ascend import (
    ASCEND_EAGER_KERNEL_S,
    eager_kernel_s,
    prefill_first_release,
    runs_eager,
    vllm_ascend_scheduler,
)
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_only_the_releases_that_carry_the_rule_are_prefill_first():
    assert prefill_first_release("0.9.1 (vllm-ascend)")
    assert prefill_first_release("v0.10.2rc1") and prefill_first_release("0.11.0rc3")
    for other in ("0.9.1rc1", "0.9.1rc3", "0.9.2rc1", "0.10.0rc1", "0.10.1rc1", "0.11.0", "0.12.0rc1", None, "main"):
        assert not prefill_first_release(other), other


def test_qwen3_8b_on_a_910b_with_vllm_ascend_091_takes_whole_prompts_up_to_its_context(catalog):
    """GPUStack's Qwen3-8B baseline ('vllm serve Qwen/Qwen3-8B', vLLM-Ascend v0.9.1, one 910B): no chunked prefill,
    budget raised from vLLM's 2048 (a 64 GB device) to the model's 40960-token context; the same release on an H100
    (not the plugin) and a later plugin keep vLLM's chunked scheduler."""
    spec = spec_from_catalog(catalog.model("qwen3-8b"))
    npu = catalog.gpu("ascend-910b")
    sched = vllm_ascend_scheduler(spec, npu, "0.9.1", 2048)
    assert sched is not None and not sched.chunked and sched.token_budget == spec.context_length == 40960
    assert vllm_ascend_scheduler(spec, catalog.gpu("h100-sxm5"), "0.9.1", 2048) is None
    assert vllm_ascend_scheduler(spec, npu, "0.11.0", 2048) is None
    load = ServeLoad(engine="vllm", engine_version="0.9.1", input_tokens=2000, output_tokens=100,
                     request_rate_per_s=4.0, num_prompts=200)
    budget = engine_budget(spec, npu, load.validated())
    assert not budget.mixed_prefill and budget.token_budget == 40960
    # The platform overrides the user's --enable-chunked-prefill.
    forced = ServeLoad(engine="vllm", engine_version="0.9.1", input_tokens=2000, output_tokens=100,
                       request_rate_per_s=4.0, num_prompts=200, mixed_prefill=True)
    assert not engine_budget(spec, npu, forced.validated()).mixed_prefill
    later = ServeLoad(engine="vllm", engine_version="0.11.0", input_tokens=2000, output_tokens=100,
                      request_rate_per_s=4.0, num_prompts=200)
    assert engine_budget(spec, npu, later.validated()).mixed_prefill


def test_prompt_steps_pause_decoding_on_the_prefill_first_release(catalog):
    """Under the same open-loop load the prefill-first release decodes slower per token than the release after it
    (each admitted prompt runs a step of its own while the running requests wait)."""
    spec = spec_from_catalog(catalog.model("qwen3-8b"))
    npu = catalog.gpu("ascend-910b")
    kw = dict(engine="vllm", input_tokens=2000, output_tokens=100, request_rate_per_s=4.0, num_prompts=200)
    first = serve_speed(spec, npu, ServeLoad(engine_version="0.9.1", **kw))
    chunked = serve_speed(spec, npu, ServeLoad(engine_version="0.11.0", **kw))
    assert first.tpot_s > chunked.tpot_s * 1.05


def test_releases_before_090_launch_every_kernel_eagerly_on_an_npu(catalog):
    npu, h100 = catalog.gpu("ascend-910b"), catalog.gpu("h100-sxm5")
    assert runs_eager(npu, "vllm", "0.7.3") and runs_eager(npu, "vllm", "v0.8.5rc1")
    assert not runs_eager(npu, "vllm", "0.9.1") and not runs_eager(npu, "vllm", None)
    assert not runs_eager(h100, "vllm", "0.7.3") and not runs_eager(npu, "sglang", "0.4.3")


def test_the_plugins_own_v073_latency_benchmark_is_reproduced_by_the_eager_npu_kernel_cost(catalog):
    """vLLM-Ascend v0.7.3 release benchmark (vllm-project/vllm-ascend issue 776): Qwen2.5-7B-Instruct, one 910B,
    benchmark_latency batch 8, 32 in / 128 out, eager V0: 4274.96 ms per run. With the CUDA eager floor (10 us) the
    model gives 2.47 s; with the NPU's 60 us per kernel within 1 %. The same server's online run at 1 request/s
    (ShareGPT, 200 prompts) has a median TPOT of 36.5 ms: within 10 %, against 17 ms with graphs (v0.9.2rc1)."""
    spec = spec_from_catalog(catalog.model("qwen2.5-7b"))
    npu = catalog.gpu("ascend-910b")
    run = serve_speed(spec, npu, ServeLoad(engine="vllm", engine_version="0.7.3", input_tokens=32, output_tokens=128,
                                           batch=8))
    assert run.e2e_latency_s == pytest.approx(4.27496, rel=0.01)
    online = dict(engine="vllm", input_tokens=220, output_tokens=221, request_rate_per_s=1.0, num_prompts=200,
                  length_spread=0.9)
    assert serve_speed(spec, npu, ServeLoad(engine_version="0.7.3", **online)).tpot_s == pytest.approx(
        0.0365, rel=0.1)
    assert serve_speed(spec, npu, ServeLoad(engine_version="0.9.2rc1", **online)).tpot_s < 0.025
    # --enforce-eager on a later release costs the same per kernel; a GPU keeps the CUDA eager floor.
    assert eager_kernel_s(npu) == ASCEND_EAGER_KERNEL_S and eager_kernel_s(catalog.gpu("h100-sxm5")) is None
