"""The RTX A6000 carries a measured matmul efficiency (speedfix119) instead of the 0.75 default.

mag-/gpu_benchmark (github.com/mag-/gpu_benchmark README 'Stats' at 93322b7, a MAMF finder after Stas Bekman's, the
median of 100 repeats with the L2 cache cleared) measured 131.2 of the 154.8 TFLOPS dense BF16 peak on the RTX A6000;
its A100 SXM figure (267.9) agrees with Stas Bekman's table (271.2, the catalog's A100 source) within 1.2 %. The
whyNLP/tinyllama rows (fresh111) measured on the card are compute bound and came out too slow with the default.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.speed_train import DEFAULT_MATMUL_EFFICIENCY
from gpudesk.sizing.speed_train_cases import gpu_rates, predict_train_case

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "fresh111_train_runs.jsonl"


def test_a6000_matmul_efficiency_is_the_measured_share():
    gpu = open_catalog().gpu("rtx-a6000")
    assert gpu.matmul_efficiency == pytest.approx(131.2 / 154.8, abs=0.001)
    assert gpu.matmul_efficiency > DEFAULT_MATMUL_EFFICIENCY
    assert "gpu_benchmark" in (gpu.matmul_efficiency_source or "")
    assert gpu_rates(gpu).matmul_efficiency == gpu.matmul_efficiency


def test_tinyllama_ddp_row_on_four_a6000_within_20_percent():
    row = next(json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()
               if '"whynlp-tinyllama-accelerate-tinyllama-4xa6000-bs8"' in line)
    predicted, speed = predict_train_case(row)
    # DDP over PCIe with a 1.1B model: the step is the GEMMs; the measured efficiency shortens them by 0.75/0.848.
    assert speed.breakdown["gemm_s"] > 0.6 * speed.step_time_s
    assert 0.8 < predicted / row["measured"]["value"] < 0.9
