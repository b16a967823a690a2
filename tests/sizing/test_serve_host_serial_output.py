"""vLLM before v0.6.0 processes every running request's output between two GPU steps (gpudesk.sizing.serve_host:
RFC 6913's _process_model_outputs timing); from v0.6.0 the asynchronous output processor hides it."""

from __future__ import annotations

import pytest

from gpudesk.sizing import speed_validation as sv
from gpudesk.sizing.serve_host import HOST_REQUEST_S, SERIAL_OUTPUT_REQUEST_S, host_overhead
from gpudesk.sizing.speed_serve_cases import predict_serve_case


def _row(name: str, case_id: str) -> dict:
    rows = [r for r in sv.read_rows(sv.speed_cases_dir() / name) if r["id"] == case_id]
    assert len(rows) == 1, case_id
    return rows[0]


def test_vllm_before_0_6_pays_rfc_6913s_output_processing_per_running_request():
    assert 0.1031e-3 < SERIAL_OUTPUT_REQUEST_S < 0.1033e-3  # (3.4 - 0.2) ms / 31
    for version in ("0.4.3", "0.5.3.post1", "0.2.7"):
        host = host_overhead("vllm", version, None, 1)
        assert host.request_s == pytest.approx(SERIAL_OUTPUT_REQUEST_S) and "6913" in host.source
        assert host.overlap is False
    # The asynchronous output processor (v0.6.0, PR 7049) and later engines; other engines; no version (current).
    for engine, version in (("vllm", "0.6.0"), ("vllm", "0.7.3"), ("vllm", None), ("sglang", "0.2.0")):
        assert host_overhead(engine, version, None, 1).request_s == pytest.approx(HOST_REQUEST_S)


def test_france_travail_llama3_8b_at_14_users_on_vllm_0_4_3_within_20_percent():
    # France-Travail results_benchmark_llm_serving vllm_043 folder (fresh102): measured 20.44 ms TPOT and 523.0
    # output tokens/s at 14 closed-loop users; 15.6 % / 24 % too fast without the per-request output work.
    base = "ft102-a100-80-llama3-8b-v043-in1024-out128-c14-"
    tpot = _row("fresh102_serve_runs.jsonl", base + "tpot")
    tput = _row("fresh102_serve_runs.jsonl", base + "out-tps")
    tpot_s, assumptions = predict_serve_case(tpot)
    assert 0.8 <= tpot_s / tpot["measured"]["value"] <= 1.2
    tokens_per_s, _ = predict_serve_case(tput)
    assert 0.8 <= tokens_per_s / tput["measured"]["value"] <= 1.2
    host = next(a for a in assumptions if a.name == "host_overhead_s")
    assert "6913" in host.source
    # At one user the same work is one request's: the c1 TPOT moves by about 0.1 ms.
    c1 = _row("fresh102_serve_runs.jsonl", "ft102-a100-80-llama3-8b-v043-in1024-out128-c1-tpot")
    assert 0.8 <= predict_serve_case(c1)[0] / c1["measured"]["value"] <= 1.2
