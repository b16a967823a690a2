"""FP8 on Hopper promotes partial sums only in the backward GEMMs: Transformer Engine sets ``_2X_ACC_FPROP = False``,
``_2X_ACC_DGRAD = True``, ``_2X_ACC_WGRAD = True`` (transformer_engine/pytorch/module/base.py) and torchao's
``Float8LinearConfig`` fast-accumulates the output GEMM only (torchao/float8/config.py). Checked on a published
layout: Llama 3.1 70B FP8 on 256 H100, TP 4 PP 8 VP 5, GBS 512, seq 8192 (NVIDIA dgxc-benchmarking llama3.1 README,
release v25.04, commit 741c886: step time 10.0 s)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_train import TrainSetup, fp8_gemm_share, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates


def test_forward_gemms_keep_the_full_share_on_hopper() -> None:
    # 2 forward FLOPs at 1.0, 4 backward at 0.8: the time-weighted share is 6 / (2 + 5) = 0.857.
    assert fp8_gemm_share("Hopper", 6) == pytest.approx(6 / 7)
    # Full recompute runs the forward GEMMs twice (both fast-accumulated): 8 / (4 + 5).
    assert fp8_gemm_share("Hopper", 6, "full") == pytest.approx(8 / 9)
    # LoRA (frozen base): forward 2 and data gradient 2.
    assert fp8_gemm_share("Hopper", 4) == pytest.approx(4 / (2 + 2 / 0.8))
    # No promotion where the tensor cores accumulate FP8 products in FP32.
    assert fp8_gemm_share("Blackwell", 6) == 1.0
    assert fp8_gemm_share("CDNA 3", 6, "full") == 1.0


def test_published_h100_fp8_layout_gemm_time() -> None:
    catalog = open_catalog()
    spec = spec_from_catalog(catalog.find_model("llama-3.1-70b"))
    gpu = gpu_rates(catalog.find_gpu("h100-sxm5"))
    setup = TrainSetup(gpus=256, seq_len=8192, global_batch=512, tp=4, pp=8, vp=5, precision="fp8",
                       fp8_recipe="delayed", framework="nemo")
    speed = train_speed(spec, gpu, setup)
    bf16 = train_speed(spec, gpu, TrainSetup(**{**setup.__dict__, "precision": "bf16"}))
    # The FP8 GEMMs (all but the 16-bit LM head) take bf16 / fp8 peak / 0.857 of the BF16 GEMM time, not / 0.8.
    assert spec.vocab_size and spec.hidden_size and spec.params and gpu.fp8_tflops
    head = spec.vocab_size * spec.hidden_size
    head_share = head / (spec.params - head)
    expected = bf16.breakdown["gemm_s"] * (head_share + (1 - head_share) * gpu.bf16_tflops / gpu.fp8_tflops * 7 / 6)
    assert speed.breakdown["gemm_s"] == pytest.approx(expected, rel=2e-3)
    # The step lands within 20 % of the published 10.0 s (it read 1.21x with every GEMM at 0.8).
    assert speed.step_time_s / 10.0 == pytest.approx(1.0, abs=0.2)
