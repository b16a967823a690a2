"""LMDeploy's PyTorch engine (v0.4.0 to v0.7.1) prefills waiting requests only between decode loops of up to
prefill_interval - 1 steps that end early by the running share (gpudesk.sizing.serve_lmdeploy, _check_finish)."""

from __future__ import annotations

from gpudesk.sizing import speed_validation as sv
from gpudesk.sizing.serve_lmdeploy import PYTORCH_PREFILL_INTERVAL, pytorch_prefill_interval
from gpudesk.sizing.speed_serve_cases import predict_serve_case


def _row(case_id: str) -> dict:
    rows = [r for r in sv.read_rows(sv.speed_cases_dir() / "fresh110_serve_runs.jsonl") if r["id"] == case_id]
    assert len(rows) == 1, case_id
    return rows[0]


def test_the_decode_loop_by_release_and_backend():
    assert PYTORCH_PREFILL_INTERVAL == 16
    for version in ("0.6.0", "0.6.1", "0.7.1"):
        assert pytorch_prefill_interval(version, "pytorch") == (16, True)
    for version in ("0.4.0", "0.5.3"):  # a fixed loop: no _check_finish before v0.6.0
        assert pytorch_prefill_interval(version, "pytorch") == (16, False)
    for version, backend in (("0.3.0", "pytorch"), ("0.7.2", "pytorch"), (None, "pytorch"), ("0.6.1", None),
                             ("0.6.1", "turbomind")):
        assert pytorch_prefill_interval(version, backend) == (1, False)


def test_issue_2567_a100_llama3_8b_concurrency_256_ttft_and_throughput_within_20_percent():
    # InternLM/lmdeploy issue 2567 (PyTorch engine, 3000 ShareGPT requests, 256 clients): mean first-token latency
    # 0.664 s (fp16) and 0.625 s (w8a8); 0.33x before the decode loop was modelled.
    for fmt in ("fp16", "w8a8"):
        base = f"lmdeploy-issue2567-a100-llama3-8b-{fmt}-pytorch-c256-sharegpt-"
        ttft = _row(base + "ttft")
        value, assumptions = predict_serve_case(ttft)
        assert 0.8 <= value / ttft["measured"]["value"] <= 1.2, fmt
        assert any(a.name == "decode_loop" for a in assumptions)
        tput = _row(base + "output-tokens-per-s")
        assert 0.8 <= predict_serve_case(tput)[0] / tput["measured"]["value"] <= 1.2, fmt
