"""The Ascend 910B's 16-bit Cube peak in the catalog is the one Huawei's own training stack divides by (speedfix90).

MindSpeed-LLM (github.com/Ascend/MindSpeed-LLM c77308a, mindspeed_llm/fsdp2/utils/flops/flops_base.py
get_device_flops) reports MFU against 354e12 FLOPS for every device whose name holds "910B"; verl's
utils/flops_counter.py carries the same figure. It is 24 Cube cores (the 910B2) x 4096 FP16 MACs per cycle x 2 at
1.8 GHz. The earlier 320 TFLOPS was a third-party figure, and the ModelLink (MindSpeed) pre-training rows measured on
Atlas 900 A2 PODc came out too slow with it wherever the step is compute-bound (tensor parallelism 1).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.speed_train_cases import gpu_rates, predict_train_case

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "fresh55_train_runs.jsonl"


def test_910b_peak_is_huaweis_mfu_denominator():
    gpu = open_catalog().gpu("ascend-910b")
    assert gpu.bf16_dense_tflops == gpu.fp16_dense_tflops == 354
    assert gpu.int8_dense_tops == 2 * 354  # INT8 at twice the FP16 Cube rate, as before
    cube_cores, macs_per_cycle, clock_hz = 24, 4096, 1.8e9  # 910B2; the clock is inferred
    assert cube_cores * macs_per_cycle * 2 * clock_hz / 1e12 == pytest.approx(354, abs=0.5)
    assert gpu_rates(gpu).bf16_tflops == 354


def test_tp1_modellink_row_is_compute_bound_and_closer():
    row = next(json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()
               if '"modellink-d4feda7-atlas900a2-llama2-7b-4k-1x8"' in line)
    predicted, speed = predict_train_case(row)
    # No tensor parallelism: the step is GEMMs and attention; the 10.6 % higher peak reaches it in full.
    assert speed.breakdown["gemm_s"] > 0.75 * speed.step_time_s
    assert 0.72 < predicted / row["measured"]["value"] < 0.85
