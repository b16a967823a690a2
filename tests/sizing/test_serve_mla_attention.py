"""MLA attention FLOPs by form: absorbed at decode and at SGLang <= 0.4.5 prompt steps
(gpudesk/sizing/serve_mla_attention.py)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_mla_attention import (
    absorbed_flops_per_head,
    mla_attention,
    multi_head_flops_per_head,
    prefill_runs_absorbed,
)
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_deepseek_r1_widths_absorbed_2176_multi_head_640_per_head(catalog):
    """DeepSeek-R1 config.json: kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128.
    Absorbed: QK over 576, PV over 512 -> 2 x 576 + 2 x 512. Multi-head: QK over 192, PV over 128."""
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    assert absorbed_flops_per_head(spec) == 2176
    assert multi_head_flops_per_head(spec) == 640
    assert mla_attention(spec_from_catalog(catalog.model("llama-3.1-70b")), "sglang", "0.4.5") is None


@pytest.mark.parametrize("engine, version, absorbed", [
    ("sglang", "0.4.5", True),         # no_absorb: MHA only for extend batches without a cached prefix
    ("sglang", "0.4.4.post3", True),
    ("sglang", "v0.4.1", True),
    ("sglang", "0.4.5.post3", False),  # fa3: MHA over chunks of the cached KV (MHA_CHUNKED_KV)
    ("sglang", "0.4.6", False),
    ("sglang", "0.5.7", False),
    ("sglang", None, False),
    ("vllm", "0.8.4", False),          # vLLM: MHA prefill, prefix up-projected
    ("trtllm", "0.21.0rc2", False),
])
def test_which_engines_attend_absorbed_at_prompt_steps(engine, version, absorbed):
    assert prefill_runs_absorbed(engine, version) is absorbed


def test_sglang_045_prompt_steps_of_r1_on_8_h200_cost_the_absorbed_attention(catalog):
    """The R1-Benchmark set-up (DeepSeek-R1 FP8, TP8 EP8 on 8 H200): SGLang 0.4.5's prompt step attends absorbed,
    16 heads x 61 layers x 2176 FLOPs per context token per GPU; decode counts the same in every engine. A second
    8192-token chunk of a 30k prompt (8192 cached tokens ahead of it) takes longer under 0.4.5 than under 0.4.5.post1 (fa3: multi-head
    over chunks of the cached KV)."""
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    gpu, link = catalog.gpu("h200-sxm"), catalog.link("nvlink4")

    def model(engine, version):
        load = ServeLoad(tp=8, expert_parallel=8, batch=1, weight_format="fp8", engine=engine,
                         engine_version=version)
        return step_model(spec, gpu, load, link, "bf16")

    old, new, vllm = model("sglang", "0.4.5"), model("sglang", "0.4.5.post1"), model("vllm", "0.8.4")
    per_gpu = 16 * 61 * 2176
    assert old.attention_flops_per_context_token == pytest.approx(per_gpu)
    assert old.prefill_attention_flops_per_context_token == pytest.approx(per_gpu)
    assert vllm.attention_flops_per_context_token == pytest.approx(per_gpu)
    # other prompt steps attend in the multi-head form: 2 x (128 + 64) + 2 x 128 = 640 per head
    assert vllm.prefill_attention_flops_per_context_token == pytest.approx(16 * 61 * 640)
    assert new.prefill_attention_flops_per_context_token == pytest.approx(16 * 61 * 640)
    chunk, prefix = 8192, 8192
    attended = chunk * (prefix + chunk / 2)
    extra = old.gpu_s(0, 0, chunk, attended) - new.gpu_s(0, 0, chunk, attended)
    assert extra == pytest.approx(attended * 16 * 61 * (2176 - 640) / old.attention_flops_per_s, rel=1e-6)
    assert 0.15 < extra < 0.45
    assert "mla_attention_flops" in {a.name for a in old.assumptions}
