"""The routed experts' BF16 torch._grouped_mm rate on compute capability 10.0 (speedfix114): PyTorch's CUTLASS grouped
kernel reaches 0.45 of cuBLAS's MAMF on a B200 (torchao microbenchmark), checked on published torchtitan B200 runs."""

from __future__ import annotations

from dataclasses import replace

from gpudesk.catalog import open_catalog
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_train import GROUPED_MM_BF16_SHARE_OF_MAMF, TrainSetup, grouped_mm_share, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates, predict_train_case
from gpudesk.sizing.speed_validation import read_rows, speed_cases_dir


def _row(file: str, row_id: str) -> dict:
    return next(r for r in read_rows(speed_cases_dir() / file) if r["id"] == row_id)


def test_share_applies_to_bf16_grouped_launches_on_sm100_only() -> None:
    assert GROUPED_MM_BF16_SHARE_OF_MAMF["10.0"] == 0.45
    assert grouped_mm_share("10.0", grouped=True, fp8=False) == 0.45
    # One launch per expert (Transformer Engine GroupedLinear) is cuBLAS: the dense rate.
    assert grouped_mm_share("10.0", grouped=False, fp8=False) == 1.0
    # The MXFP8 / FP8 grouped kernel reached 74.6 % of its peak in the same table: unchanged.
    assert grouped_mm_share("10.0", grouped=True, fp8=True) == 1.0
    # Hopper (sm90 CUTLASS kernel) and Blackwell Ultra (10.3, no published measurement) keep the dense rate.
    assert grouped_mm_share("9.0", grouped=True, fp8=False) == 1.0
    assert grouped_mm_share("10.3", grouped=True, fp8=False) == 1.0
    assert grouped_mm_share("", grouped=True, fp8=False) == 1.0


def test_torchtitan_b200_qwen3_moe_rows_come_within_20_percent() -> None:
    # Lambda's torchtitan batch sweep, Qwen3-30B-A3B on 8 B200, FSDP8, full AC, compiled (fresh32): predicted
    # 1.46-1.48x the measured tokens/s with the experts at the dense GEMM rate, 1.14-1.16x now.
    for row_id, measured in (("lambda-tt-bsweep-qwen3-30b-a3b-b200x8-bs8", 11865.0),
                             ("lambda-tt-bsweep-qwen3-30b-a3b-b200x8-bs12", 12120.0)):
        row = _row("fresh32_train_runs.jsonl", row_id)
        assert row["measured"]["value"] == measured
        ratio = predict_train_case(row)[0] / measured
        assert 0.8 < ratio < 1.2, (row_id, ratio)
    # Nous Research's DeepEP fork, EP 8 inside one B200 node (fresh40): 1.44x before, 1.11x now.
    row = _row("fresh40_train_runs.jsonl", "nous-tt-deepep-qwen3-30b-a3b-b200-8gpu-lbs8-tps")
    assert 0.8 < predict_train_case(row)[0] / row["measured"]["value"] < 1.2


def test_the_expert_time_grows_by_the_share_and_is_named() -> None:
    catalog = open_catalog()
    moe = spec_from_catalog(catalog.find_model("qwen3-30b-a3b"))
    setup = TrainSetup(gpus=8, seq_len=8192, global_batch=64, micro_batch=8, framework="torchtitan-compile",
                       sharding="fsdp")
    b200 = gpu_rates(catalog.find_gpu("b200"))
    titan = train_speed(moe, b200, setup)
    names = {a.name: dict(a.quantities) for a in titan.assumptions}
    assert names["expert_grouped_mm_rate"] == {"share": 0.45}
    # The same run with one launch per expert: no grouped-kernel term, a shorter step on the B200.
    per_expert = train_speed(moe, b200, replace(setup, grouped_expert_gemm=False))
    assert "expert_grouped_mm_rate" not in {a.name for a in per_expert.assumptions}
    assert titan.step_time_s > per_expert.step_time_s
    # On an H100 the grouped launch is not slowed: nothing named.
    h100 = train_speed(moe, gpu_rates(catalog.find_gpu("h100-sxm5")), setup)
    assert "expert_grouped_mm_rate" not in {a.name for a in h100.assumptions}
    # FP8 on the B200 keeps the dense FP8 rate.
    fp8 = train_speed(moe, b200, replace(setup, precision="fp8"))
    assert "expert_grouped_mm_rate" not in {a.name for a in fp8.assumptions}
