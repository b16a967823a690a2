"""Attention kernel rate against the head dimension (gpudesk.sizing.speed_train.attention_head_dim_factor): the
FlashAttention-3 paper's measured points, and the effect on a training step of the same attention FLOPs split into
narrower heads."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.paths import bundle_root
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import spec_from_catalog, spec_from_hf_config
from gpudesk.sizing.speed_train import TrainSetup, attention_head_dim_factor, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_head_dim_factor_reads_the_flashattention3_benchmark_points():
    # arXiv 2407.08608 figure 5 (BF16 forward, H100, 16k): cuDNN 413 / 595 / 509, FlashAttention-2 324 / 370 / 298
    # TFLOPS at head dimension 64 / 128 / 256.
    assert attention_head_dim_factor("cudnn", 128) == 1.0
    assert attention_head_dim_factor("cudnn", 64) == pytest.approx(413 / 595)
    assert attention_head_dim_factor("fa2", 64) == pytest.approx(324 / 370)
    assert attention_head_dim_factor("fa2", 256) == pytest.approx(298 / 370)
    # Between the points on log2(d): 96 lies 0.585 of the way from 64 to 128; flat outside the measured range.
    assert attention_head_dim_factor("cudnn", 96) == pytest.approx((413 + (595 - 413) * 0.5850) / 595, rel=1e-3)
    assert attention_head_dim_factor("cudnn", 32) == attention_head_dim_factor("cudnn", 64)
    assert attention_head_dim_factor("cudnn", 512) == attention_head_dim_factor("cudnn", 256)
    with pytest.raises(SizingError):
        attention_head_dim_factor("cudnn", 0)


@pytest.mark.parametrize(("framework", "ratio"), [("megatron", 595 / 413), ("torchtitan-compile", 370 / 324)])
def test_same_attention_flops_in_narrower_heads_take_longer(catalog, framework, ratio):
    # Llama 3 8B's 32 heads of 128 against the same query width in 64 heads of 64 (gpt-oss's head width): the same
    # attention FLOPs, a larger share of fixed softmax work per FLOP; GEMMs untouched.
    wide = spec_from_catalog(catalog.find_model("llama-3-8b"))
    narrow = replace(wide, num_attention_heads=64, head_dim=64)
    rates = gpu_rates(catalog.find_gpu("h100-sxm5"))
    setup = TrainSetup(gpus=8, seq_len=8192, global_batch=16, micro_batch=2, sharding="fsdp", framework=framework)
    a, b = train_speed(wide, rates, setup).breakdown, train_speed(narrow, rates, setup).breakdown
    assert b["attention_s"] / a["attention_s"] == pytest.approx(ratio)
    assert b["gemm_s"] == pytest.approx(a["gemm_s"])


def test_flash_attn_package_kernels_stay_near_their_hopper_rate_on_blackwell(catalog):
    # prime-rl (transformers attn_implementation "flash_attention_2", the flash-attn package) runs FlashAttention-2's
    # sm80 mma.sync kernels on a B200: ~345 TFLOPS forward + backward (Dao-AILab/flash-attention#1589,
    # meta-pytorch/tritonbench#171), against cuDNN's tcgen05 kernel at 0.55 of 2250. Published run: prime-rl
    # 8x B200 Qwen3-4B SFT, 16k, FSDP2, full AC, flash_attention_2 (benchmarks/baselines at 8718eb1): 68,356 tok/s,
    # 8,544.5 per GPU.
    model = spec_from_hf_config(bundle_root() / "tests/fixtures/sizing/configs/qwen3-4b.config.json")
    b200, h100 = gpu_rates(catalog.find_gpu("b200")), gpu_rates(catalog.find_gpu("h100-sxm5"))
    setup = TrainSetup(gpus=8, seq_len=16384, global_batch=16, sharding="fsdp", recompute="full",
                       framework="prime-rl")
    fa2_b200 = train_speed(model, b200, setup).breakdown["attention_s"]
    fa2_h100 = train_speed(model, h100, setup).breakdown["attention_s"]
    cudnn_b200 = train_speed(model, b200, replace(setup, framework="megatron")).breakdown["attention_s"]
    # The same FLOPs at ~345 TFLOPS on the B200 and ~334 on the H100 (FlashAttention-3 paper figures 5-6: 370
    # forward, 322 backward), where cuDNN runs 0.55 x 2250.
    assert fa2_b200 / fa2_h100 == pytest.approx(3.5 / (1 / 370 + 2.5 / 322) / 345, rel=1e-3)
    assert fa2_b200 / cudnn_b200 == pytest.approx(0.55 * 2250 / 345, rel=1e-3)
    # Whole step within 20 % of the published 8,544.5 tokens/s/GPU (it was 2.05x too fast with cuDNN's rate).
    tps = train_speed(model, b200, setup).tokens_per_s_per_gpu
    assert 8544.5 * 0.8 < tps < 8544.5 * 1.2


def test_prime_rl_fp32_eager_loss_moves_fifty_bytes_per_logit(catalog):
    # prime-rl casts the logits to FP32 and runs torch's eager CrossEntropyLoss outside the compiled blocks
    # (sft/train.py, model.py forward at 8718eb1): 50 bytes per vocabulary entry and token against the fused 8.
    # Qwen3-0.6B (151,936-entry vocabulary, tied head) on one H100 at 8k, as prime-rl's nightly baseline ran it.
    model = spec_from_hf_config(bundle_root() / "tests/fixtures/sizing/configs/qwen3-0.6b.config.json")
    h100 = gpu_rates(catalog.find_gpu("h100-sxm5"))
    setup = TrainSetup(gpus=1, seq_len=8192, global_batch=2, sharding="fsdp", recompute="full", framework="prime-rl")
    fused = replace(setup, framework="torchtitan-compile")
    extra = (train_speed(model, h100, setup).breakdown["other_kernels_s"]
             - train_speed(model, h100, fused).breakdown["other_kernels_s"])
    vocab = 151936
    # 2 micro-batches of 8192 tokens, (50 - 8) bytes per entry, at 80 % of the H100's 3350 GB/s.
    assert extra == pytest.approx(2 * 8192 * vocab * 42 / (3350e9 * 0.8), rel=1e-6)
