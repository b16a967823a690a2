"""ALiBi models without a fused attention kernel (gpudesk.sizing.speed_train.uses_alibi, ALIBI_SCORE_BYTES_*):
ModelLink's unfused ALiBi attention computes ``beta * bias + bmm(q, k) * scale`` in eager element-wise kernels over
the N x N scores (modellink/core/transformer/dot_product_attention.py at d4feda7), 14 more bytes per score element
in forward and 4 in backward; the fused (flash) path and RoPE models are unchanged."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.paths import bundle_root
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.speed_common import ASSUMPTION_LABELS
from gpudesk.sizing.speed_train import (
    ALIBI_SCORE_BYTES_BACKWARD,
    ALIBI_SCORE_BYTES_FORWARD,
    TrainSetup,
    train_speed,
    unfused_attention_seconds,
    uses_alibi,
)
from gpudesk.sizing.speed_train_cases import gpu_rates

CONFIGS = "tests/fixtures/sizing/configs/"


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _spec(name: str):
    return spec_from_hf_config(bundle_root() / (CONFIGS + name + ".config.json"))


@pytest.mark.parametrize(("name", "alibi"), [("bloomz-7b1", True), ("bloom-176b", True), ("baichuan-13b", True),
                                             ("baichuan2-13b", True), ("baichuan2-7b", False),
                                             ("llama-2-7b", False)])
def test_which_models_use_alibi(name, alibi):
    assert uses_alibi(_spec(name)) is alibi


def test_alibi_adds_its_passes_to_the_score_traffic():
    s, heads, width = 4096, 5, 640
    plain = unfused_attention_seconds(1, s, heads, width, False, 1e14, 1e12)
    alibi = unfused_attention_seconds(1, s, heads, width, False, 1e14, 1e12, alibi=True)
    assert ALIBI_SCORE_BYTES_FORWARD == 14 and ALIBI_SCORE_BYTES_BACKWARD == 4
    assert alibi - plain == pytest.approx(heads * s * s * 18 / 1e12)
    # A recomputed forward runs the bias passes once more.
    plain_r = unfused_attention_seconds(1, s, heads, width, True, 1e14, 1e12)
    alibi_r = unfused_attention_seconds(1, s, heads, width, True, 1e14, 1e12, alibi=True)
    assert alibi_r - plain_r == pytest.approx(heads * s * s * 32 / 1e12)


def test_only_unfused_alibi_runs_change(catalog):
    gpu = gpu_rates(catalog.find_gpu("ascend-910b"), catalog.gpus())
    setup = TrainSetup(gpus=8, seq_len=4096, global_batch=8, tp=8, framework="megatron", sharding="ddp")
    baichuan13, baichuan7 = _spec("baichuan2-13b"), _spec("baichuan2-7b")
    fused = train_speed(baichuan13, gpu, setup)
    eager = train_speed(baichuan13, gpu, replace(setup, flash_attention=False))
    names = {a.name for a in eager.assumptions}
    assert "alibi_bias_passes" in names and "unfused_attention" in names
    assert "alibi_bias_passes" not in {a.name for a in fused.assumptions}
    assert "alibi_bias_passes" not in {a.name for a in train_speed(
        baichuan7, gpu, replace(setup, flash_attention=False)).assumptions}
    assert "alibi_bias_passes" in ASSUMPTION_LABELS
    # The extra time is the bias traffic of every layer's score matrix.
    without = replace(baichuan13, model_type="llama")
    plain = train_speed(without, gpu, replace(setup, flash_attention=False))
    assert eager.breakdown["attention_s"] > plain.breakdown["attention_s"]
    assert eager.breakdown["gemm_s"] == plain.breakdown["gemm_s"]
