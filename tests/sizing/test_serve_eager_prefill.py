"""Eager prompt steps (gpudesk.sizing.serve_eager_prefill): the CPU's time to issue their kernels bounds them."""

from __future__ import annotations

import dataclasses
import json

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_eager_prefill import (
    DEEPSEEK_V3_SGLANG_FP8_KERNELS,
    LLAMA_2_7B_KERNELS,
    PR12160_EAGER_FORWARD_S,
    PR12160_GRAPH_FORWARD_S,
    VLLM_V0_MAX_SEQ_LEN_TO_CAPTURE,
    engine_has_graphs,
    launch_s_per_kernel,
    prompt_steps_run_eager,
    vllm_v0_graph_max_batch,
    vllm_v0_graph_max_context,
)
from gpudesk.sizing.serve_engine import engine_budget, sglang_cuda_graph_max_bs
from gpudesk.sizing.serve_rates import expert_quant_kernels, kernels_per_step
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import predict_serve_case
from gpudesk.sizing.speed_validation import speed_cases_dir


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _deepseek_v3_sglang(catalog, **extra):
    spec = spec_from_catalog(catalog.model("deepseek-v3"))
    gpu = catalog.gpu("h200-sxm")
    load = ServeLoad(engine="sglang", input_tokens=1000, output_tokens=100, concurrency=1, tp=8,
                     weight_format="fp8", **extra).validated()
    return spec, step_model(spec, gpu, load, catalog.link("nvlink4"), engine_budget(spec, gpu, load).kv_dtype)


def test_one_token_sglang_prefill_of_deepseek_v3_lasts_its_measured_eager_forward(catalog):
    """sgl-project/sglang PR 12160 logs a one-token prefill of DeepSeek-V3 at TP 8: forward cost 82.6 ms eager,
    23.1 ms replayed from a graph. The step model counts the kernels of that forward and the eager prompt step lasts
    the CPU's time to issue them; a decode step (a CUDA graph) stays below the graphed forward."""
    spec, steps = _deepseek_v3_sglang(catalog)
    assert kernels_per_step(spec) + expert_quant_kernels(spec, "sglang", None, "fp8", None) \
        == DEEPSEEK_V3_SGLANG_FP8_KERNELS
    assert steps.gpu_s(0, 0.0, 1) == pytest.approx(PR12160_EAGER_FORWARD_S, rel=0.01)
    assert steps.gpu_s(1, 1000.0) < PR12160_GRAPH_FORWARD_S
    assert any(a.name == "prefill_launch_s" for a in steps.assumptions)
    # Graph-replaying engines (vLLM V1's piecewise graphs) have no such bound.
    gpu = catalog.gpu("h200-sxm")
    v1 = ServeLoad(engine="vllm", engine_version="0.10.0", input_tokens=1000, output_tokens=100, concurrency=1,
                   tp=8, weight_format="fp8").validated()
    v1_steps = step_model(spec, gpu, v1, catalog.link("nvlink4"), engine_budget(spec, gpu, v1).kv_dtype)
    assert v1_steps.prefill_launch_layer_s == 0.0
    assert v1_steps.gpu_s(0, 0.0, 1) < 0.5 * PR12160_EAGER_FORWARD_S
    # Forced eager everywhere (cuda_graphs off) keeps the per-kernel eager floor of every step instead.
    _spec, eager = _deepseek_v3_sglang(catalog, cuda_graphs=False)
    assert eager.prefill_launch_layer_s == 0.0


def test_a_long_prompt_outlasts_the_launch():
    """The bound is a max, not a sum: once the prompt's math outgrows the CPU's launches the step is the GPU's."""
    catalog = open_catalog()
    _spec, steps = _deepseek_v3_sglang(catalog)
    launch = steps.layers * steps.prefill_launch_layer_s
    long = steps.gpu_s(0, 0.0, 16384, 16384 * 16384 / 2)
    assert long > 2 * launch
    graphed = dataclasses.replace(steps, prefill_launch_layer_s=0.0)
    assert long == pytest.approx(graphed.gpu_s(0, 0.0, 16384, 16384 * 16384 / 2))


def _fresh31(case_id: str) -> dict:
    for line in (speed_cases_dir() / "fresh31_serve_runs.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["id"] == case_id:
            return json.loads(line)
    raise AssertionError(case_id)


def test_sglang_ttft_is_flat_in_the_prompt_length_while_the_cpu_sets_the_step():
    """SGLang cookbook, MiniMax-M2.5 FP8 on 8 B200 (TP 8, EP 8), one request at a time: mean TTFT 130.6 ms at 609
    prompt tokens and 131.5 ms at 4194 (fresh31 rows): flat over 7x the prompt, the CPU's launches and not the
    prefill's math setting the step (tenstorrent/tt-inference-server issue 356 shows the same on 16 H100). The model
    gives both the same launch-bound TTFT, twice to three times what it gave before (0.17 and 0.36 of the
    measured)."""
    short_row = _fresh31("sglcookbook-minimaxm25-b200-tp8ep8-1k1k-c1-n10-ttft")
    long_row = _fresh31("sglcookbook-minimaxm25-b200-tp8ep8-8k1k-c1-n10-ttft")
    short, _ = predict_serve_case(short_row)
    long, _ = predict_serve_case(long_row)
    assert long / short == pytest.approx(long_row["measured"]["value"] / short_row["measured"]["value"], rel=0.1)
    assert short / short_row["measured"]["value"] > 0.45
    assert long / long_row["measured"]["value"] > 0.45


def test_which_engines_launch_their_prompt_steps_eagerly():
    """SGLang (decode-only graphs), vLLM V0 (decode-only graphs, before 0.8) and TensorRT-LLM's PyTorch flow
    (``can_run_cuda_graph`` without context requests); not vLLM V1 nor TensorRT-LLM's TensorRT-engine flow."""
    assert prompt_steps_run_eager("sglang", (0, 5), "0.5.6")
    assert prompt_steps_run_eager("vllm", (0, 7), "0.7.3")
    assert not prompt_steps_run_eager("vllm", (0, 8), "0.8.5")
    assert not prompt_steps_run_eager("vllm", None, None)  # no version: the current engine, V1
    assert prompt_steps_run_eager("trtllm", (1, 0), "1.0.0")  # PyTorch flow by default from 1.0
    assert not prompt_steps_run_eager("trtllm", (0, 17), "0.17.0")  # TensorRT-engine flow by default in 0.x
    assert prompt_steps_run_eager("trtllm", (0, 21), "0.21.0", "pytorch")
    # ... but only the engines with a measured CPU time per kernel get the launch bound (module docstring).
    assert launch_s_per_kernel("trtllm") == 0.0
    assert launch_s_per_kernel("SGLang") == pytest.approx(82.6e-3 / 1437)
    assert launch_s_per_kernel("vllm") == pytest.approx(1.2 / 100 / 320)
    assert not prompt_steps_run_eager("lmdeploy", (0, 6), "0.6.0")


def test_vllm_figure_counts_the_kernels_of_the_model_it_was_measured_on(catalog):
    """vllm-project/vllm PR 1440 timed Llama 2 7B: the step model's kernel count for it is the divisor."""
    assert kernels_per_step(spec_from_catalog(catalog.model("llama-2-7b"))) == LLAMA_2_7B_KERNELS


def _qwen3_moe_sglang(catalog, gpu_id, version):
    spec = spec_from_catalog(catalog.model("qwen3-30b-a3b-fp8"))
    gpu = catalog.gpu(gpu_id)
    load = ServeLoad(engine="sglang", engine_version=version, input_tokens=302, output_tokens=196,
                     request_rate_per_s=float("inf"), num_prompts=1000, tp=1, weight_format="fp8").validated()
    return step_model(spec, gpu, load, None, engine_budget(spec, gpu, load).kv_dtype)


def test_sglang_decode_batches_above_cuda_graph_max_bs_run_eagerly(catalog):
    """SGLang replays decode batches up to cuda_graph_max_bs only (cuda_graph_runner.py can_run); v0.5.3+ sets it
    from the GPU's memory: 32 at TP 1 on a 48 GB L40S (the server_info of lukaLLM/vLLM_vs_SGLang_benchmarks'
    SGLang 0.5.8 run prints 32), 256 on an 80 GB H100. Qwen3-30B-A3B FP8 on one H100: a decode step of 257 requests
    lasts the CPU's eager launch time, one of 256 requests (a graph) well below it."""
    assert sglang_cuda_graph_max_bs(catalog.gpu("l40s"), 1, "0.5.8") == 32
    assert sglang_cuda_graph_max_bs(catalog.gpu("l40s"), 4, "0.5.8") == 160
    steps = _qwen3_moe_sglang(catalog, "h100-sxm5", "0.5.8")
    assert steps.eager_decode_above_requests == 256
    launch = steps.layers * steps.prefill_launch_layer_s
    assert steps.gpu_s(256, 256 * 400.0) < 0.7 * launch
    assert steps.gpu_s(257, 257 * 400.0) == pytest.approx(launch)
    assert any(a.name == "eager_decode_above" for a in steps.assumptions)
    # Releases before v0.5.3 had other defaults (not modelled): no bound there.
    older = _qwen3_moe_sglang(catalog, "h100-sxm5", "0.5.2")
    assert sglang_cuda_graph_max_bs(catalog.gpu("h100-sxm5"), 1, "0.5.2") is None
    assert older.eager_decode_above_requests == 0
    assert older.gpu_s(257, 257 * 400.0) < 0.7 * launch


def _qwen25_7b_vllm(catalog, version):
    spec = spec_from_catalog(catalog.model("qwen2.5-7b"))
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(engine="vllm", engine_version=version, input_tokens=30720, output_tokens=2048, concurrency=1,
                     tp=1, weight_format="bf16").validated()
    return spec, step_model(spec, gpu, load, None, engine_budget(spec, gpu, load).kv_dtype)


def test_vllm_v0_decode_past_max_seq_len_to_capture_runs_eagerly(catalog):
    """vLLM V0 replays a decode graph only while the batch's longest sequence is at most max_seq_len_to_capture
    (default 8192; model_runner.py _use_captured_graph). Qwen's speed benchmark's long case (Qwen2.5-7B, vLLM
    0.6.3, 30720 prompt tokens, one request) on an H100, whose GPU step is shorter than the CPU's launches: every
    decode step there is eager and lasts at least the CPU's launch time; at 8000 tokens of context the same step
    replays a graph and stays below it. V1 (0.8 on) has no such cap, and
    neither has a model whose whole context fits the cap."""
    spec, steps = _qwen25_7b_vllm(catalog, "0.6.3")
    assert spec.context_length > VLLM_V0_MAX_SEQ_LEN_TO_CAPTURE
    assert steps.eager_decode_above_context_tokens == VLLM_V0_MAX_SEQ_LEN_TO_CAPTURE == 8192
    launch = steps.layers * steps.prefill_launch_layer_s
    assert steps.gpu_s(1, 8000.0) < 0.8 * launch
    assert steps.gpu_s(1, 31000.0) >= launch
    assert steps.gpu_s(2, 2 * 8192.0) < steps.gpu_s(2, 2 * 8193.0)
    assert any(a.name == "eager_long_decode" for a in steps.assumptions)
    _spec, v1 = _qwen25_7b_vllm(catalog, "0.8.5")
    assert v1.eager_decode_above_context_tokens == 0
    assert v1.gpu_s(1, 31000.0) < 0.8 * launch
    assert vllm_v0_graph_max_context("vllm", (0, 6), 4096) == 0  # Llama 2's 4096-token context never passes it
    assert vllm_v0_graph_max_context("sglang", (0, 4), 131072) == 0


def test_vllm_v0_before_0_6_replays_decode_graphs_up_to_256_requests(catalog):
    """vLLM V0 before v0.6.0 captured decode graphs for batches up to 256 only (_BATCH_SIZES_TO_CAPTURE, v0.4.3 and
    v0.5.5); v0.6.0 captures up to max_num_seqs. Llama 3.1 70B FP8 on 8 H100 (TP 8) at vLLM 0.5.5 with 512 short
    requests at once: a decode step of 257 requests lasts the CPU's launch time, one of 256 stays below it; at
    0.6.0 neither does."""
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    gpu = catalog.gpu("h100-sxm5")

    def steps(version):
        load = ServeLoad(engine="vllm", engine_version=version, input_tokens=128, output_tokens=128,
                         concurrency=512, max_num_seqs=512, tp=8, weight_format="fp8").validated()
        return step_model(spec, gpu, load, catalog.link("nvlink4"), engine_budget(spec, gpu, load).kv_dtype)

    old = steps("0.5.5")
    assert old.eager_decode_above_requests == 256
    launch = old.layers * old.prefill_launch_layer_s
    assert old.gpu_s(256, 256 * 200.0) < 0.8 * launch
    assert old.gpu_s(257, 257 * 200.0) >= launch
    assert vllm_v0_graph_max_batch("vllm", (0, 5)) == 256
    new = steps("0.6.0")
    assert new.eager_decode_above_requests == 0
    assert new.gpu_s(257, 257 * 200.0) < 0.8 * launch


def test_vllm_before_0_2_6_has_no_cuda_graphs_and_runs_every_step_eagerly():
    """vLLM replays decode graphs only since v0.2.6 (CUDAGraphRunner first in the v0.2.6 wheel, none in v0.2.5).
    mlc-ai/llm-perf-bench ran vLLM at commit acbed3e (Oct 2023, 0.2.0): Llama 2 70B FP16 on 4 A100 PCIe, batch 1,
    measured 17.64 tokens/s. At 0.2.0 the prediction equals the same row with --enforce-eager and is slower (closer
    to the measured figure) than the same row at 0.2.6, whose decode steps replay graphs."""
    path = speed_cases_dir() / "fresh122_serve_runs.jsonl"
    row = next(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
               if "a100-80-pcie-x4-llama-2-70b-fp16" in line)
    assert row["engine_version"] == "0.2.0" and row["measured"]["value"] == pytest.approx(17.64)
    old = predict_serve_case(row)[0]
    eager = predict_serve_case({**row, "enforce_eager": True})[0]
    graphed = predict_serve_case({**row, "engine_version": "0.2.6"})[0]
    assert old == pytest.approx(eager)
    assert row["measured"]["value"] < old < 0.9 * graphed
    assert not engine_has_graphs("vllm", (0, 2, 5))
    assert engine_has_graphs("vllm", (0, 2, 6)) and engine_has_graphs("vllm", None)
    assert engine_has_graphs("sglang", (0, 1, 0))
