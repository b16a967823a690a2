"""The engine start-up log set: every log predicted or refused, figures compared with tolerances."""

from __future__ import annotations

import json

import pytest

from gpudesk.sizing import SizingError
from gpudesk.sizing.engines.validation import (
    FIGURES, default_cases_path, evaluate, evaluate_case, load_cases, summarize)

REQUIRED = ("id", "url", "engine", "platform", "inputs", "printed")


def test_every_case_has_a_url_inputs_and_known_figures() -> None:
    cases, _ = load_cases()
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert all(k in c for k in REQUIRED), c.get("id")
        assert c["url"].startswith("https://"), c["id"]
        assert set(c["printed"]) <= set(FIGURES), c["id"]
        assert c.get("refused") or c.get("model") or c.get("config"), c["id"]


def test_every_log_is_predicted_or_refused_with_a_reason() -> None:
    results = evaluate()
    for r in results:
        assert not r.error, (r.case_id, r.error)
        assert r.refused or r.figures, r.case_id
    summary = summarize(results)
    assert summary.logs == len(results) and summary.errors == 0
    assert summary.predicted + summary.refused == summary.logs


def test_llama_cpp_kv_and_compute_buffers_match_the_printed_sizes() -> None:
    results = {r.case_id: r for r in evaluate()}
    r = results["llamacpp-11337-qwen25-32b-rocm-7900xtx"]
    assert {f.name: f.within for f in r.figures} == {"kv_buffer_mib": True, "compute_buffer_mib": True}


def test_a_figure_off_by_more_than_its_tolerance_fails(tmp_path) -> None:
    case = json.loads(default_cases_path().read_text(encoding="utf-8").splitlines()[0])
    case["printed"] = {"weights_gib": case["printed"]["weights_gib"] * 1.04}
    r = evaluate_case(case, default_cases_path().parent)
    assert r.passed("weights") is False and r.passed("kv") is None


def test_logs_added_after_the_model_are_scored_on_their_own(tmp_path) -> None:
    lines = default_cases_path().read_text(encoding="utf-8").splitlines()
    first, second = json.loads(lines[0]), json.loads(lines[2])
    first.pop("added_after_model", None)
    second["added_after_model"] = True
    second["printed"] = {"weights_gib": second["printed"]["weights_gib"] * 1.10}
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n", encoding="utf-8")
    summary = summarize(evaluate(path))
    assert summary.categories["weights"].logs == 2 and summary.categories["weights"].within == 1
    assert summary.held_out is not None and summary.held_out.logs == 1
    assert summary.held_out.categories["weights"].within == 0
    assert summary.to_dict()["held_out"]["categories"]["weights"]["logs"] == 1
    first_only = tmp_path / "one.jsonl"
    first_only.write_text(json.dumps(first) + "\n", encoding="utf-8")
    assert summarize(evaluate(first_only)).held_out is None


def test_bad_case_files_are_refused_by_name(tmp_path) -> None:
    bad = tmp_path / "cases.jsonl"
    bad.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(SizingError, match="line 1"):
        evaluate(bad)
    with pytest.raises(SizingError, match="cannot read"):
        evaluate(tmp_path / "none.jsonl")


def test_round_two_held_out_vllm_v1_logs_weights_are_predicted() -> None:
    """The 13 vLLM V1 logs collected after the models were last changed (dennislee22/vLLM-benchmarking,
    brendanmckeag/sglang-vllm-benchmark, llm-d config_explorer): every weights figure within 3 %, scored as held out."""
    results = [r for r in evaluate()
               if r.case_id.startswith(("vllm-dennislee-", "vllm-brendanmckeag-", "vllm-llmd-"))]
    assert len(results) == 13 and all(r.added_after_model and not r.refused for r in results)
    assert all(r.passed("weights") for r in results)
    held = summarize(evaluate()).held_out
    assert held is not None and held.logs >= 13 + 11


def test_vllm_v1_sampler_path_sets_the_activation_peak_on_real_logs() -> None:
    """vLLM V1's profiled activation peak is its dummy sampler run: the PyTorch sort (38 bytes a logit) where the log
    has no FlashInfer, FlashInfer's kernels (14) where it prints "Using FlashInfer for top-p & top-k sampling."."""
    results = {r.case_id: r for r in evaluate()}
    # llm-d config_explorer, vLLM 0.11 on H100, 1024 sampler rows, PyTorch sampler: activation within 2 %.
    for case_id in ("vllm-llmd-llama31-8b-h100", "vllm-llmd-qwen3-32b-h100", "vllm-llmd-gpt-oss-20b-h100",
                    "vllm-llmd-llama33-70b-fp8-h100-tp2"):
        act = {f.name: f for f in results[case_id].figures}["activation_gib"]
        assert act.error is not None and abs(act.error) < 0.02, (case_id, act)
        assert results[case_id].passed("kv"), case_id
    # The same vLLM 0.10.1 and Qwen2-7B, one run without FlashInfer ("FlashInfer is not available"), others with it.
    for case_id in ("vllm-dennislee-qwen2-7b-2xa100-40-tp2-2nodes", "vllm-dennislee-qwen2-7b-a100-80-u025",
                    "vllm-dennislee-qwen2-7b-a100-80-u05", "vllm-brendanmckeag-r1-distill-qwen7b-80g"):
        assert results[case_id].passed("kv"), case_id


ROUND_THREE_IDS = (
    "sglang-pr4826-gemma3-4b-it-h200", "sglang-maxuhl98-thesis-llama31-8b-24gb",
    "sglang-mi300testing-llama3-8b-mi300x-bench-latency", "llamacpp-securetag-llama31-8b-q4km-4090-par4",
    "ollama-securetag-llama31-8b-q4km-4090-par4", "llamacpp-ggmlci-d199ca79-openllama7b-f16-v100-ppl",
    "llamacpp-ggmlci-d199ca79-openllama7b-q8-v100-main", "llamacpp-ggmlci-d199ca79-openllama7b-q5_1-v100-main",
    "llamacpp-ggmlci-d199ca79-openllama7b-q4km-v100-main", "llamacpp-ggmlci-d199ca79-openllama7b-q5km-v100-main")


def test_round_three_unseen_logs_are_held_out_and_meet_their_floor() -> None:
    """Logs collected after the models were frozen (SGLang 0.3-0.4 on H200, a 24 GB card and MI300X; llama.cpp and
    Ollama on a 4090 and a V100), each mapped before it was scored once: every one predicted, none refused, all
    counted as held out; llama.cpp and Ollama figures within tolerance, SGLang KV on at least one of three."""
    results = {r.case_id: r for r in evaluate() if r.case_id in ROUND_THREE_IDS}
    assert set(results) == set(ROUND_THREE_IDS)
    assert all(r.added_after_model and not r.refused and not r.error and r.figures for r in results.values())
    for case_id in ROUND_THREE_IDS[3:]:
        assert all(f.within for f in results[case_id].figures), case_id
    sglang = [results[i] for i in ROUND_THREE_IDS[:3]]
    assert sum(1 for r in sglang if r.passed("kv")) >= 1
    assert results["sglang-maxuhl98-thesis-llama31-8b-24gb"].passed("concurrency")
    held = summarize(evaluate()).held_out
    assert held is not None and held.logs >= 24 + len(ROUND_THREE_IDS)


def test_vllm_019_tensor_parallel_logs_count_the_collective_buffers() -> None:
    """vLLM 0.19 at TP 2/4 on H100 (llm-d-planner accuracy logs): with the ~1.85 GiB of non-torch memory the profile
    run creates per rank (all-reduce fusion workspace, NCCL connections), the KV cache is within 5 % on the dense
    and MoE text models; without it Llama-3.1-8B was 3 % over and Qwen2.5-72B 67 % over."""
    results = {r.case_id: r for r in evaluate()}
    for case_id in ("vllm-llmdplanner-llama31-8b-h100-tp2", "vllm-llmdplanner-llama31-8b-h100-tp4",
                    "vllm-llmdplanner-mixtral-8x7b-h100-tp2", "vllm-llmdplanner-llama33-70b-fp8-h100-tp2"):
        assert results[case_id].passed("kv"), case_id
    fp32 = {f.name: f for f in results["vllm-llmdplanner-llama31-8b-h100-fp32"].figures}
    assert fp32["kv_cache_tokens"].within and fp32["max_concurrency"].within


def test_round_four_held_out_logs_are_flagged_and_predicted() -> None:
    """The six logs collected after the model froze at engA2 31dba72 (llm-d-planner version sweep 0.15-0.18,
    llm-d config_explorer Qwen3-32B TP 2 and Mistral-Small-3.2): scored as held out, every weights figure within
    3 %."""
    results = [r for r in evaluate() if r.case_id.startswith(("vllm-llmdplanner-sweep-", "vllm-configexplorer-"))]
    assert len(results) == 6 and all(r.added_after_model and not r.refused for r in results)
    assert all(r.passed("weights") for r in results)
