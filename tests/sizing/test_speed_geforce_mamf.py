"""GeForce boards' measured matmul rate (RTX 5090 GB202 / sm_120, RTX 4090 AD102) and why it stays on GeForce boards.

The catalog's RTX 5090 BF16 peak (209.5 TFLOPS) is the FP32-accumulate rate computed at the rated 2.41 GHz boost clock;
torch.matmul BF16 measures 236-240 TFLOPS on the card (zzc0721/torch-performance-test-data PR 15, issues 96 / 124):
GPU Boost holds about 2.7 GHz under a GEMM. The speed model takes the measured share (capped at the catalog's 1.0)
instead of the NVIDIA default 0.75, which had every compute-bound RTX 5090 prefill about 1.33x too slow."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog.catalog import open_catalog
from gpudesk.sizing.serve_rates import matmul_efficiency
from gpudesk.sizing.speed_serve_cases import predict_serve_case
from gpudesk.sizing.speed_train_cases import gpu_rates, same_silicon_efficiency
from gpudesk.sizing.speed_validation import read_rows, speed_cases_dir


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _row(file: str, row_id: str) -> dict:
    return next(r for r in read_rows(speed_cases_dir() / file) if r["id"] == row_id)


def test_rtx5090_prefill_runs_at_its_measured_matmul_rate(catalog):
    gpu = catalog.find_gpu("rtx5090")
    assert gpu.matmul_efficiency == 1.0 and "torch-performance-test-data" in (gpu.matmul_efficiency_source or "")
    # pegainfer docs (vLLM 0.22.1, Qwen3-4B BF16, one RTX 5090): one cold 4096-token prompt, TTFT 197.9 ms; 16384
    # tokens 1.30x too slow before. Both compute-bound prefills now land within 10 %.
    for row_id in ("pegainfer-5090-qwen3-4b-vllm0221-cold-ttft-4096", "pegainfer-5090-qwen3-4b-vllm0221-cold-ttft-16384"):
        row = _row("fresh30_serve_runs.jsonl", row_id)
        ratio = predict_serve_case(row)[0] / row["measured"]["value"]
        assert ratio == pytest.approx(1.0, abs=0.1), row_id
    # Without the measurement the card falls back to the NVIDIA default share (the miss this measurement closes).
    assert matmul_efficiency(replace(gpu, matmul_efficiency=None))[0] == pytest.approx(0.75)
    assert matmul_efficiency(gpu)[0] == 1.0


def test_a_geforce_measurement_does_not_carry_to_a_professional_board_on_the_same_die(catalog):
    # RTX PRO 6000 Blackwell (GB202, 500 TFLOPS BF16 at full-rate FP32 accumulate, 600 W) and the RTX 5090 (GB202,
    # 209.5 at half rate, 575 W): a share of one peak is not a share of the other, so nothing is borrowed.
    gpus = catalog.gpus()
    for gpu_id in ("rtx-pro-6000-bw", "rtx-pro-6000-bw-server", "rtx-pro-5000-bw"):
        assert same_silicon_efficiency(catalog.find_gpu(gpu_id), gpus) is None, gpu_id
    pro = catalog.find_gpu("rtx-pro-6000-bw")
    assert gpu_rates(pro).matmul_efficiency is None
    # A professional sibling with a measurement of its own would still carry (same accumulate rate per clock).
    measured_pro = replace(catalog.find_gpu("rtx-pro-6000-bw-server"), id="pro-measured", matmul_efficiency=0.8)
    carried = same_silicon_efficiency(pro, [measured_pro])
    assert carried is not None and carried[0] == pytest.approx(0.8)


def test_rtx4090_prefill_runs_at_its_measured_matmul_rate(catalog):
    # Ada GeForce too: torch.matmul BF16 reaches 164.8 of the 165.2 TFLOPS computed at the rated boost (issue 78 of
    # zzc0721/torch-performance-test-data). tenstorrent/tt-inference-server issue 394 (vLLM GPU reference on one RTX
    # 4090): Qwen3-4B, 1024-token prompts at concurrency 1, mean TTFT 62.1 ms; 1.38x too slow at the NVIDIA default.
    gpu = catalog.find_gpu("rtx4090")
    assert gpu.matmul_efficiency == pytest.approx(0.998) and "issue 78" in (gpu.matmul_efficiency_source or "")
    row = _row("later_runs.jsonl", "tt-394-rtx4090-qwen3-4b-isl1024-c1-ttft-s")
    assert predict_serve_case(row)[0] / row["measured"]["value"] == pytest.approx(1.0, abs=0.2)
