"""Block-FP8 dense GEMMs on CDNA 3 stream at the measured Triton rate (gpudesk/sizing/serve_rocm_block_fp8.py)."""

from __future__ import annotations

import json

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_rates import BLOCK_FP8_WEIGHT_STREAM_SHARE
from gpudesk.sizing.serve_rocm_block_fp8 import block_fp8_dense_stream_bytes_per_s
from gpudesk.sizing.speed_serve_cases import predict_serve_case
from gpudesk.sizing.speed_validation import speed_cases_dir


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _row(file_name: str, case_id: str) -> dict:
    for line in (speed_cases_dir() / file_name).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if row["id"] == case_id:
                return row
    raise AssertionError(case_id)


@pytest.mark.parametrize("gpu_id", ["mi300x", "mi325x"])
def test_cdna3_streams_block_fp8_dense_weights_at_the_measured_triton_rate_whatever_its_bandwidth(catalog, gpu_id):
    """AITER's Triton gemm_a8w8_blockscale, N 2112 K 7168 at M 64: 128.8 us, 123.6 GB/s as ROCm/aiter PR 1232
    reports it: a latency-bound rate, the same on MI300X (5.3 TB/s) and MI325X (6 TB/s)."""
    rate, source = block_fp8_dense_stream_bytes_per_s(catalog.gpu(gpu_id))
    assert rate == pytest.approx(123.6e9)
    assert "aiter/pull/1232" in source


@pytest.mark.parametrize("gpu_id", ["h100-sxm5", "mi355x"])
def test_other_architectures_keep_the_share_of_their_bandwidth(catalog, gpu_id):
    gpu = catalog.gpu(gpu_id)
    rate, _source = block_fp8_dense_stream_bytes_per_s(gpu)
    assert rate == pytest.approx(gpu.memory_bandwidth_gbps * 1e9 * BLOCK_FP8_WEIGHT_STREAM_SHARE)


@pytest.mark.parametrize("case_id, low, high", [
    # measured 23.84 ms at concurrency 1; 2.6x too fast (0.40) at the vendor-neutral share
    ("sglcook-mi300x-deepseek-v31-tp8-1k1k-c1-tpot-s", 0.8, 1.2),
    # measured 35.5 ms at concurrency 16 (0.53 before)
    ("sglcook-mi300x-deepseek-v31-tp8-1k1k-c16-tpot-s", 0.8, 1.2),
])
def test_sglang_deepseek_v31_decode_on_8_mi300x_matches_the_cookbook(case_id, low, high):
    """SGLang cookbook, DeepSeek-V3.1 FP8 at TP8 on 8 x MI300X, SGLang 0.5.7 (fresh12 set)."""
    row = _row("fresh12_serve_runs.jsonl", case_id)
    predicted, assumptions = predict_serve_case(row)
    assert low < predicted / row["measured"]["value"] < high
    stream = next(a for a in assumptions if a.name == "block_fp8_weight_stream")
    assert "CDNA 3" in stream.source


def test_dp_attention_throughput_on_8_mi300x_is_no_longer_three_times_too_high():
    """TP8 + EP8 + DP-attention 8, ShareGPT, concurrency 100: measured 463.8 tokens/s (fresh13 set; 2.99x before):
    every GPU reads all 128 heads' block-FP8 attention projections per step."""
    row = _row("fresh13_serve_runs.jsonl", "sglcook-mi300x-deepseek-v3-tp8-ep8-dpattn8-sharegpt-c100-output-tokens-per-s")
    predicted, _assumptions = predict_serve_case(row)
    assert 0.75 < predicted / row["measured"]["value"] < 1.35
