"""vLLM before v0.6.0 with multi-step scheduling: the serial output processing is per sampled token, so a block of n
steps does not divide it by n (gpudesk.sizing.serve_host, MultiStepOutputProcessor._process_seq_outputs)."""

from __future__ import annotations

import pytest

from gpudesk.sizing import speed_validation as sv
from gpudesk.sizing.serve_host import HOST_REQUEST_S, HOST_STEP_S, SERIAL_OUTPUT_REQUEST_S, host_overhead
from gpudesk.sizing.speed_serve_cases import predict_serve_case


def _row(case_id: str) -> dict:
    rows = [r for r in sv.read_rows(sv.speed_cases_dir() / "fresh109_serve_runs.jsonl") if r["id"] == case_id]
    assert len(rows) == 1, case_id
    return rows[0]


def test_the_serial_per_token_output_work_is_not_divided_by_the_block():
    one, eight = host_overhead("vllm", "0.5.5", None, 1), host_overhead("vllm", "0.5.5", None, 8)
    assert eight.request_s == pytest.approx(one.request_s) == pytest.approx(SERIAL_OUTPUT_REQUEST_S)
    assert eight.step_s == pytest.approx(HOST_STEP_S / 8) and "multi_step.py" in eight.source
    # From v0.6.0 (asynchronous output processor) the per-request scheduling work is paid once per block.
    assert host_overhead("vllm", "0.6.0", None, 8).request_s == pytest.approx(HOST_REQUEST_S / 8)


def test_pr7743_multi_step_8_on_h100_within_20_percent():
    # vllm-project/vllm PR 7743's baseline '8-multi-step' (v0.5.5 dev line): 27.71 ms TPOT and 3340.97 output tok/s,
    # Llama 3.1 8B, sonnet 1024/512, 10 req/s; before: TPOT 0.60, throughput 1.21 (the block divided the work by 8).
    base = "vllm-pr7743-h100-llama31-8b-multistep8-sonnet-1024-512-rr10-"
    for metric in ("tpot-mean", "output-tokens-per-s"):
        row = _row(base + metric)
        assert 0.8 <= predict_serve_case(row)[0] / row["measured"]["value"] <= 1.2, metric
