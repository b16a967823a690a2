"""LoRA trainable parameters, usable capacity and the safe line, and the time formulas."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import SizingError, fit, lora_memory, lora_trainable_params, reported_total_bytes, spec_from_hf_config
from gpudesk.sizing import time as tm

L2 = spec_from_hf_config(FIXTURES / "plan" / "llama-2-7b-hf.config.json")
GIB = 1024**3


def test_lora_trainable_params_match_peft():
    # PEFT prints "trainable params: 4,194,304" for Llama-2-7B, r=8, q_proj + v_proj.
    assert lora_trainable_params(L2, 8, ["q_proj", "v_proj"]) == 4_194_304
    assert lora_trainable_params(L2, 8, "attention") == 8_388_608
    with pytest.raises(SizingError) as info:
        lora_trainable_params(L2, 8, ["qkv"])
    assert info.value.field == "lora_targets"


def test_qlora_is_smaller_than_lora():
    lora = lora_memory(L2, mode="lora", seq_len_tokens=512)
    qlora = lora_memory(L2, mode="qlora", seq_len_tokens=512)
    assert qlora.component("weights") < lora.component("weights") / 3
    assert lora.component("weights") == L2.params * 2
    assert qlora.total_bytes < 10 * GIB < lora.total_bytes


def test_reported_capacity_fingerprints():
    # compressed-tensors PR 587 (oom-cases line 11): an 80 GB class GPU reports 79.18 GiB.
    assert reported_total_bytes(80 * GIB, "HBM2e") == int(79.18 * GIB)
    assert reported_total_bytes(16 * GIB, "GDDR6", ecc_enabled=True) == int(14.56 * GIB)  # T4 with ECC
    assert reported_total_bytes(141 * GIB, "HBM3e") < 141 * GIB


def test_safe_line_article_rule():
    f = fit(62 * 10**9, 80 * GIB, "HBM2e", 0.20)
    assert f.safe_line_bytes == int(int(79.18 * GIB) * 0.8)
    assert f.fits and f.under_safe_line and f.headroom_bytes > 0
    over = fit(70 * GIB, 80 * GIB, "HBM2e")
    assert over.fits and not over.under_safe_line and over.headroom_bytes < 0
    with pytest.raises(SizingError):
        fit(1, 80 * GIB, "HBM2e", 1.0)


def test_time_formulas():
    assert tm.training_flops(10**9, 10**6) == 6e15
    assert tm.training_flops(10**9, 10**6, full_recompute=True) == 8e15
    assert tm.ring_allreduce_bytes(100.0, 4) == 150.0
    assert tm.ring_allgather_bytes(100.0, 4) == 75.0
    assert tm.gradient_sync_bytes_per_gpu(10, "zero3", 2) == 1.5 * tm.gradient_sync_bytes_per_gpu(10, "ddp", 2)
    assert tm.collective_time_s(1e9, 300, 1) == 0.0
    st = tm.step_time(1.0, 0.8, overlap=0.5)
    assert st.exposed_comm_s == pytest.approx(0.3) and st.comm_share == pytest.approx(0.3 / 1.3)
    # A100 SXM: 312 dense BF16 x 0.869 MAMF efficiency x 0.66 = about 179 TFLOPS (Stas: "180+").
    assert tm.achievable_flops_per_gpu(312, 0.869) / 1e12 == pytest.approx(179, abs=1)
    # Decode of an 8B bf16 model at batch 1 on 3350 GB/s is memory-bound: about 7 ms per token.
    step = tm.decode_step_s(16e9, 0, 1, 3350, 16e9, 989e12)
    assert step == pytest.approx(16e9 / (3350e9 * 0.8))
    assert tm.qps_per_gpu(0.01, 0.02, 10, 100) == pytest.approx(1 / (0.01 + 0.2))
    with pytest.raises(SizingError):
        tm.achievable_flops_per_gpu(-1)


def test_decode_tokens_per_s():
    assert tm.decode_tokens_per_s(32, 0.04) == pytest.approx(800)
    with pytest.raises(SizingError):
        tm.decode_tokens_per_s(0, 0.04)
