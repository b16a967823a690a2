"""Serving speed: ServeLoad checks, the step model against hand computation, the scheduler, the case mapping."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.capacity import gpu_reported_total_bytes
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_host import FRONTEND_INTAKE_S, FRONTEND_REQUEST_S, front_end
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed
from gpudesk.sizing.speed_serve_cases import predict_serve_case


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _spec(catalog, model_id):
    return spec_from_catalog(catalog.model(model_id))


def test_load_needs_exactly_one_of_concurrency_rate_batch():
    with pytest.raises(SizingError) as err:
        ServeLoad(concurrency=4, batch=2).validated()
    assert err.value.field == "load"
    with pytest.raises(SizingError) as err:
        ServeLoad().validated()
    assert err.value.field == "load"
    with pytest.raises(SizingError) as err:
        ServeLoad(engine="tgi", concurrency=1).validated()
    assert err.value.field == "engine"


def test_batch_one_decode_is_weights_over_bandwidth_plus_layer_latency(catalog):
    """Batch 1, TP 1, short context: TPOT = weights / (bandwidth x efficiency) + layers x per-layer latency +
    the KV read, computed by hand from the cited formulas."""
    from gpudesk.sizing import serve_rates

    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    speed = serve_speed(spec, gpu, ServeLoad(input_tokens=128, output_tokens=128, batch=1))
    bw = gpu.memory_bandwidth_gbps * 1e9 * 2.90 / 3.35  # H100 STREAM copy 2.90 TB/s of 3.35 (Azure guide)
    weights = spec.params * 2
    kv_per_token = 2 * 32 * 8 * 128 * 2
    mean_context = 128 + 1 + 126 / 2  # context grows from 129 to 255 over the decode steps
    # GEMMs (weights, plus their small math at batch 1) and attention (KV) run one after the other; 6 short kernels
    # of 3.4 us per layer (CUDA graphs).
    math_s = 2 * spec.params / (gpu.bf16_dense_tflops * 1e12 * gpu.matmul_efficiency)
    elementwise = (8 * 4096 + 2 * (4096 + 1024) + 4 * 1024 + 3 * 14336) * 2 * 32 / bw  # norms, rotary, KV write, SiLU
    hand = weights / bw + math_s + mean_context * kv_per_token / bw + elementwise + 32 * 10 * 3.4e-6
    assert serve_rates.VENDOR_HBM_EFFICIENCY["NVIDIA"] == pytest.approx(2.90 / 3.35)
    assert speed.tpot_s == pytest.approx(hand, rel=1e-6)
    assert speed.output_tokens_per_s == pytest.approx(128 / speed.e2e_latency_s, rel=0.01)


def test_tensor_parallel_adds_two_allreduces_per_layer(catalog):
    """At batch 1 a TP 8 replica is not 8x faster than TP 1: each layer pays two all-reduce latencies."""
    spec = _spec(catalog, "llama-3.1-70b")
    gpu = catalog.gpu("h100-sxm5")
    link = catalog.link("nvlink4")
    tp8 = serve_speed(spec, gpu, ServeLoad(input_tokens=128, output_tokens=128, batch=1, tp=8, weight_format="fp8"), link)
    tp4 = serve_speed(spec, gpu, ServeLoad(input_tokens=128, output_tokens=128, batch=1, tp=4, weight_format="fp8"), link)
    assert tp8.tpot_s < tp4.tpot_s < 2 * tp8.tpot_s
    with pytest.raises(SizingError) as err:
        serve_speed(spec, gpu, ServeLoad(input_tokens=128, output_tokens=128, batch=1, tp=8))
    assert err.value.field == "link"


def test_tpot_grows_and_ttft_queues_with_load(catalog):
    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    low = serve_speed(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=500, concurrency=1))
    high = serve_speed(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=500, concurrency=128))
    assert high.tpot_s > 1.5 * low.tpot_s
    assert high.output_tokens_per_s > 20 * low.output_tokens_per_s
    under = serve_speed(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=500, request_rate_per_s=2.0))
    over = serve_speed(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=500, request_rate_per_s=math.inf,
                                            num_prompts=1000))
    assert over.ttft_s > 10 * under.ttft_s


def test_weights_that_leave_no_kv_cache_are_an_error(catalog):
    spec = _spec(catalog, "llama-3.1-70b")
    with pytest.raises(SizingError) as err:
        serve_speed(spec, catalog.gpu("h100-sxm5"), ServeLoad(input_tokens=128, output_tokens=128, batch=1))
    assert err.value.field == "tp"  # the user set no memory fraction: the tensor-parallel degree is to raise
    with pytest.raises(SizingError) as err:
        serve_speed(spec, catalog.gpu("h100-sxm5"), ServeLoad(input_tokens=128, output_tokens=128, batch=1,
                                                              gpu_memory_utilization=0.9))
    assert err.value.field == "gpu_memory_utilization"


def test_case_prediction_in_the_rows_unit():
    row = {"kind": "serve", "model": "llama-3.1-8b", "gpu": "h100-sxm5", "engine": "vllm", "tp": 1,
           "input_tokens": 128, "output_tokens": 128, "batch": 1,
           "measured": {"metric": "tpot_s", "value": 7.0, "unit": "ms"}}
    ms, assumptions = predict_serve_case(row)
    seconds, _ = predict_serve_case(dict(row, measured={"metric": "tpot_s", "value": 0.007, "unit": "s"}))
    assert ms == pytest.approx(seconds * 1e3)
    assert any(a.name == "hbm_efficiency" for a in assumptions)
    with pytest.raises(SizingError) as err:
        predict_serve_case(dict(row, measured={"metric": "tpot_s", "value": 7, "unit": "tokens/s"}))
    assert err.value.field == "measured.unit"
    with pytest.raises(SizingError):
        predict_serve_case(dict(row, gpu="no-such-gpu"))
    with pytest.raises(SizingError) as err:
        predict_serve_case(dict(row, input_tokens="1k"))
    assert err.value.field == "case"
    piped, _ = predict_serve_case(dict(row, pp=2))  # pipeline-parallel rows are answered
    assert piped > 0
    with pytest.raises(SizingError) as err:
        predict_serve_case(dict(row, pp=64))  # more stages than Llama 3.1 8B's 32 layers
    assert err.value.field == "pp"
    per_gpu, _ = predict_serve_case(dict(row, tp=1, dp=4, measured={"metric": "output_tokens_per_s_per_gpu",
                                                                    "value": 100, "unit": "tokens/s/gpu"}))
    whole, _ = predict_serve_case(dict(row, tp=1, dp=4, measured={"metric": "output_tokens_per_s", "value": 400,
                                                                  "unit": "tokens/s"}))
    assert whole == pytest.approx(4 * per_gpu)
    # The README spells the unit "tokens/s/GPU": units are read without case or spaces.
    readme_spelling, _ = predict_serve_case(dict(row, tp=1, dp=4, measured={
        "metric": "output_tokens_per_s_per_gpu", "value": 100, "unit": "tokens/s/GPU"}))
    assert readme_spelling == pytest.approx(per_gpu)
    # No dp published: every GPU of the run serves (8 GPUs at TP 2: 4 replicas).
    from gpudesk.sizing.speed_serve_cases import load_of_case
    assert load_of_case(dict(row, tp=2, gpus=8)).replicas == 4
    # A published version with a release number sets the engine's defaults; a commit hash or an image tag is an
    # unknown release (the engine's current defaults), not an error: the row is answered.
    assert load_of_case(dict(row, engine_version="0.4.3.post2")).engine_version == "0.4.3.post2"
    assert load_of_case(dict(row, engine_version="commit b6261862419c33d6ce2313aff1e7116067d6037d")).engine_version \
        is None
    hashed, _ = predict_serve_case(dict(row, engine_version="commit b6261862"))
    assert hashed == pytest.approx(predict_serve_case(dict(row, engine_version=None))[0])


# --- engine memory budget (gpudesk.sizing.serve_engine) ---------------------------------------------------------

def test_vllm_kv_pool_is_its_memory_fraction_less_weights_activations_and_runtime(catalog):
    from gpudesk.sizing.memory_inference import prefill_workspace_bytes
    from gpudesk.sizing.overheads import Overheads
    from gpudesk.sizing.serve_engine import engine_budget

    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    budget = engine_budget(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=1000, concurrency=8))
    o = Overheads()
    runtime = o.inference_runtime_bytes  # context and NCCL predate vLLM's memory snapshot
    hand_kv = gpu_reported_total_bytes(gpu) * 0.9 - spec.params * 2 - prefill_workspace_bytes(spec, 8192) - runtime
    assert budget.kv_bytes == pytest.approx(hand_kv)
    assert budget.kv_capacity_tokens == int(hand_kv // (2 * 32 * 8 * 128 * 2))
    assert (budget.token_budget, budget.max_running) == (8192, 1024)  # >= 70 GiB, not an A100
    fp8 = engine_budget(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=1000, concurrency=8, kv_dtype="fp8"))
    assert fp8.kv_capacity_tokens == int(hand_kv // (2 * 32 * 8 * 128 * 1))
    a100 = engine_budget(spec, catalog.gpu("a100-80-sxm4"), ServeLoad(input_tokens=10, output_tokens=10,
                                                                       concurrency=1))
    assert (a100.token_budget, a100.max_running) == (2048, 256)
    offline = engine_budget(spec, catalog.gpu("a100-80-sxm4"), ServeLoad(input_tokens=10, output_tokens=10, batch=1))
    assert offline.token_budget == 8192  # the offline LLM class's default




def test_vllm_keeps_context_and_nccl_out_of_the_kv_budget_since_its_snapshot_rework(catalog):
    # vLLM >= 0.6.5 measures the non-KV memory from a snapshot taken after the CUDA context and NCCL exist, so a
    # PP2 replica of a 70B AWQ model on two 24 GB cards gets those ~1 GiB back as KV (CloudRift RTX 4090 x2 run:
    # ~20 running requests of ~1500 tokens at FP8 KV, 234 output tok/s at 83 ms TPOT).
    from gpudesk.sizing.overheads import Overheads
    from gpudesk.sizing.serve_engine import engine_budget

    spec = _spec(catalog, "llama-3.3-70b")
    gpu = catalog.gpu("rtx4090")
    load = ServeLoad(input_tokens=1000, output_tokens=1000, concurrency=400, pp=2, weight_format="int4-awq",
                     kv_dtype="fp8", max_num_batched_tokens=2048)
    now = engine_budget(spec, gpu, load)
    old = engine_budget(spec, gpu, dataclasses.replace(load, engine_version="0.6.3"))
    o = Overheads()
    assert now.kv_bytes - old.kv_bytes == pytest.approx(o.cuda_context_bytes + o.nccl_bytes_per_gpu)
    assert now.kv_capacity_tokens >= 2 * old.kv_capacity_tokens
    sglang = dataclasses.replace(load, engine="sglang", gpu_memory_utilization=0.9)
    assert engine_budget(spec, gpu, sglang).kv_bytes == pytest.approx(
        gpu_reported_total_bytes(gpu) * 0.9 - now.weights_bytes)  # other engines unchanged


def test_hbm_efficiency_is_the_gpus_own_measured_stream_copy_where_published(catalog):
    """A100-SXM4-80GB streams 1.61 of 2.039 TB/s, H200 4.01 of 4.8 (Azure AI benchmarking guide), not the H100's
    share; a GPU without a measurement takes its vendor's. On the published row (vLLM 0.6.0, Llama 3.1 8B on one
    A100 80GB at 4 requests/s, sgl-project/sglang benchmark/benchmark_vllm_060/README.md) the measured TPOT of
    14.1 ms was under-predicted by 13 % with the H100's share and is within 6 % with the A100's."""
    import json
    from pathlib import Path

    from gpudesk.sizing.serve_rates import VENDOR_HBM_EFFICIENCY, hbm_efficiency

    assert hbm_efficiency(catalog.gpu("a100-80-sxm4"))[0] == pytest.approx(1610 / 2039)
    assert hbm_efficiency(catalog.gpu("h200-sxm"))[0] == pytest.approx(4010 / 4800)
    assert hbm_efficiency(catalog.gpu("l40s"))[0] == pytest.approx(VENDOR_HBM_EFFICIENCY["NVIDIA"])
    path = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "serve_runs.jsonl"
    row = next(r for r in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
               if r["id"] == "sglang-v030-bench-vllm-llama-3-1-8b-a100-80-sxm4-rps4-tpot")
    assert abs(predict_serve_case(row)[0] / row["measured"]["value"] - 1) < 0.06


def test_hbm_efficiency_source_says_when_another_vendors_share_stands_in(catalog):
    """Ascend 910B has no STREAM measurement: NVIDIA's share is used, and its source says so instead of citing the
    H100 / MI300X tables as if they measured it; an unmeasured AMD part names its vendor's default."""
    from gpudesk.sizing.serve_rates import VENDOR_HBM_EFFICIENCY, hbm_efficiency

    share, source = hbm_efficiency(catalog.gpu("ascend-910b"))
    assert share == pytest.approx(VENDOR_HBM_EFFICIENCY["NVIDIA"])
    assert "NVIDIA's share" in source and "Huawei" in source
    share, source = hbm_efficiency(catalog.gpu("mi325x"))
    assert share == pytest.approx(VENDOR_HBM_EFFICIENCY["AMD"]) and source.startswith("AMD default")


def test_vllm_before_v1_runs_at_most_256_requests(catalog):
    """vLLM V0 (before v0.8) defaulted max_num_seqs to 256 on every GPU; the published row (vLLM 0.6.0, Llama 3.1
    70B on 4x H100, 5000 ShareGPT prompts offline, sgl-project/sglang benchmark/benchmark_vllm_060/README.md)
    measured 3,701 tokens/s: the V1 cap of 1024 over-predicted it 1.68x, the V0 cap brings it within 35 %."""
    import json
    from pathlib import Path

    from gpudesk.sizing.serve_engine import engine_budget

    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(input_tokens=100, output_tokens=100, batch=4000)
    assert engine_budget(spec, gpu, dataclasses.replace(load, engine_version="0.6.0")).max_running == 256
    assert engine_budget(spec, gpu, dataclasses.replace(load, engine_version="0.10.1")).max_running == 1024
    assert engine_budget(spec, gpu, load).max_running == 1024
    path = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "serve_runs.jsonl"
    row = next(r for r in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
               if r["id"] == "sglang-v030-bench-vllm-llama-3-1-70b-h100-sxm5-offline")
    assert row["engine_version"] == "0.6.0" and "max_num_seqs" not in row
    assert 1.0 < predict_serve_case(row)[0] / row["measured"]["value"] < 1.35

def test_vllm_08_gives_the_large_batch_defaults_by_device_name_then_by_memory(catalog):
    """vLLM V1 0.8.x gave 8192 serving / 16384 offline tokens only to H100/H200 (PR 12369) and ran at most 256
    requests; from 0.9 every GPU of at least 70 GiB other than the A100 gets them with 1024 requests (PRs 17073,
    17885)."""
    from gpudesk.sizing.serve_engine import engine_budget

    spec = _spec(catalog, "llama-3.1-8b")
    serve = ServeLoad(input_tokens=100, output_tokens=100, concurrency=8)
    offline = ServeLoad(input_tokens=100, output_tokens=100, batch=8)

    def limits(gpu_id: str, load: ServeLoad, version: str | None) -> tuple[int, int]:
        b = engine_budget(spec, catalog.gpu(gpu_id), dataclasses.replace(load, engine_version=version))
        return b.token_budget, b.max_running

    assert limits("h100-sxm5", serve, "0.8.4") == (8192, 256)
    assert limits("h200-sxm", offline, "0.8.2")[0] == 16384
    assert limits("b200", serve, "0.8.4") == (2048, 256)
    assert limits("mi300x", offline, "0.8.3")[0] == 8192
    assert limits("b200", serve, "0.9.0") == (8192, 1024)
    assert limits("mi300x", serve, None) == (8192, 1024)
    assert limits("a100-80-sxm4", serve, "0.10.1") == (2048, 256)


def test_sglang_static_fraction_holds_weights_and_pool_and_shrinks_with_tp(catalog):
    from gpudesk.sizing.serve_engine import engine_budget

    spec = _spec(catalog, "llama-3.1-70b")
    gpu = catalog.gpu("h100-sxm5")
    # SGLang v0.4 - v0.5.2: a table by TP degree.
    tp4 = engine_budget(spec, gpu, ServeLoad(engine="sglang", input_tokens=100, output_tokens=100, batch=1, tp=4,
                                             engine_version="0.4.1"))
    assert tp4.memory_fraction == 0.85 and not tp4.mixed_prefill and tp4.token_budget == 8192
    assert tp4.kv_bytes == pytest.approx(gpu_reported_total_bytes(gpu) * 0.85 - spec.params * 2 / 4)
    mine = engine_budget(spec, gpu, ServeLoad(engine="sglang", input_tokens=100, output_tokens=100, batch=1, tp=4,
                                              gpu_memory_utilization=0.88))
    assert mine.kv_bytes - tp4.kv_bytes == pytest.approx(gpu_reported_total_bytes(gpu) * 0.03)
    # v0.5.3+ (and no version: the current release): (memory - reserved) / memory, reserved = 512 MiB + 1.5 MiB x
    # chunk 8192 + 2 MiB x CUDA-graph cap 512 (TP 4) + TP/8 GiB on an 80 GiB GPU; chunk 16384 from 160 GiB.
    now = engine_budget(spec, gpu, ServeLoad(engine="sglang", input_tokens=100, output_tokens=100, batch=1, tp=4))
    reserved = 512 + 1.5 * 8192 + 2 * 512 + 4 / 8 * 1024
    assert now.memory_fraction == round((80 * 1024 - reserved) / (80 * 1024), 3)
    mi300x = engine_budget(spec, catalog.gpu("mi300x"), ServeLoad(engine="sglang", input_tokens=100,
                                                                  output_tokens=100, batch=1, tp=1))
    assert mi300x.token_budget == 16384
    assert mi300x.memory_fraction == round((192 * 1024 - (512 + 1.5 * 16384 + 2 * 512 + 1024 / 8)) / (192 * 1024), 3)


def test_sglang_default_running_cap_scales_with_the_pool_over_the_context_length(catalog):
    """SGLang's default --max-running-requests: min(max(tokens / context_len x 512, 2048), 4096), at most half the
    pool's tokens (model_runner.py init_memory / _resolve_max_num_reqs). gpt-oss-20b on an H100 (1.17 M tokens, 128K
    context) reaches the 4096 ceiling; Gemma 4 31B on an MI300X (127 K tokens of 880 KiB, 256K context) and Llama 3.1
    8B on an H100 (420 K tokens, 128K context) stay at the 2048 floor."""
    from gpudesk.sizing.serve_engine import engine_budget

    def running(model: str, gpu_id: str) -> tuple[int, int]:
        b = engine_budget(_spec(catalog, model), catalog.gpu(gpu_id), ServeLoad(
            engine="sglang", input_tokens=500, output_tokens=500, concurrency=64, engine_version="0.5.13"))
        return b.kv_capacity_tokens, b.max_running

    tokens, cap = running("gpt-oss-20b", "h100-sxm5")
    assert tokens / 131072 * 512 > 4096 and cap == 4096
    tokens, cap = running("gemma-4-31b", "mi300x")
    assert tokens / 262144 * 512 < 2048 and cap == 2048
    assert running("llama-3.1-8b", "h100-sxm5")[1] == 2048


def test_trtllm_fraction_is_of_the_memory_left_free(catalog):
    from gpudesk.sizing.memory_inference import prefill_workspace_bytes, weight_bytes
    from gpudesk.sizing.overheads import Overheads
    from gpudesk.sizing.serve_engine import engine_budget

    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h200-sxm")
    b = engine_budget(spec, gpu, ServeLoad(engine="trtllm", input_tokens=100, output_tokens=100, batch=1,
                                           weight_format="fp8"))
    o = Overheads()
    # weight-only fp8 keeps the embeddings and LM head in 16-bit (memory_inference.weight_bytes)
    free = gpu_reported_total_bytes(gpu) - weight_bytes(spec, "fp8") - prefill_workspace_bytes(spec, 8192) - o.cuda_context_bytes - \
        o.inference_runtime_bytes
    assert b.kv_bytes == pytest.approx(0.9 * free)
    assert b.mixed_prefill and b.max_running == 2048


# --- step model (gpudesk.sizing.serve_step) --------------------------------------------------------------------

def test_large_batch_step_adds_gemm_compute_and_kv_read(catalog):
    """At 512 decoding requests the GEMMs are compute bound and the KV read still adds its own time."""
    from gpudesk.sizing.serve_step import step_model

    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    steps = step_model(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=1000, batch=512), None, "bf16")
    context = 512 * 1500
    bw = gpu.memory_bandwidth_gbps * 1e9 * 2.90 / 3.35
    gemm = 512 * 2 * spec.active_params / (gpu.bf16_dense_tflops * 1e12 * gpu.matmul_efficiency)
    assert gemm > spec.params * 2 / bw  # compute bound
    kv = context * 2 * 32 * 8 * 128 * 2 / bw
    attention_flops = context * 4 * 32 * 32 * 128 / (gpu.bf16_dense_tflops * 1e12 * gpu.matmul_efficiency)
    assert kv > attention_flops  # memory bound
    elementwise = 512 * (8 * 4096 + 2 * (4096 + 1024) + 4 * 1024 + 3 * 14336) * 2 * 32 / bw
    # The GEMMs stream the weights and do the math one after the other (serve_step docstring).
    hand = spec.params * 2 / bw + gemm + kv + elementwise + 32 * 10 * 3.4e-6
    assert steps.step_s(512, context) == pytest.approx(hand, rel=1e-6)


def test_kernel_floor_counts_the_kernels_of_each_architecture(catalog):
    """Llama: 6 attention + 4 MLP kernels per layer; Mixtral: 6 + 8 (router, top-k, align, two grouped GEMMs,
    activation, sum, norm); DeepSeek-V3: 11 MLA kernels per layer, 8 + 3 shared-expert kernels on its 58 MoE layers
    and a dense MLP on the first 3 (vLLM model code)."""
    from gpudesk.sizing.serve_rates import kernels_per_step
    from gpudesk.sizing.serve_step import step_model

    assert kernels_per_step(_spec(catalog, "llama-3.1-8b")) == 32 * 10
    assert kernels_per_step(_spec(catalog, "mixtral-8x7b")) == 32 * 14
    deepseek = _spec(catalog, "deepseek-v3")
    assert kernels_per_step(deepseek) == 61 * 11 + 58 * 11 + 3 * 4
    gpu = catalog.gpu("h200-sxm")
    steps = step_model(deepseek, gpu, ServeLoad(tp=8, batch=1, weight_format="fp8"), catalog.link("nvlink4"), "bf16")
    # FP8 experts: the fused MoE also quantizes both grouped GEMMs' inputs, 2 kernels on each of the 58 MoE layers
    # (serve_rates.expert_quant_kernels).
    assert steps.layers * steps.layer_latency_s == pytest.approx((61 * 11 + 58 * 11 + 12 + 58 * 2) * 3.4e-6)
    eager = step_model(deepseek, gpu, ServeLoad(tp=8, batch=1, weight_format="fp8", cuda_graphs=False),
                       catalog.link("nvlink4"), "bf16")
    assert eager.layer_latency_s > steps.layer_latency_s


def test_moe_step_reads_only_the_experts_its_tokens_touch(catalog):
    from gpudesk.sizing.serve_step import step_model

    spec = _spec(catalog, "mixtral-8x7b")
    steps = step_model(spec, catalog.gpu("h100-sxm5"), ServeLoad(input_tokens=10, output_tokens=10, batch=1, tp=1),
                       None, "bf16")
    experts = steps.moe_layers * steps.experts * steps.expert_bytes
    # One token routes to 2 of 8 experts per layer: 1 - (1 - 2/8)^1 = 1/4 of the expert weights.
    assert steps.weight_bytes_read(1) == pytest.approx(steps.dense_weight_bytes + experts / 4)
    # Four tokens: 1 - (3/4)^4 = 68.4 %.
    assert steps.weight_bytes_read(4) == pytest.approx(steps.dense_weight_bytes + experts * (1 - 0.75 ** 4))
    assert steps.weight_bytes_read(4096) == pytest.approx(steps.dense_weight_bytes + experts)


def test_tp_allreduce_is_alpha_beta_on_the_link(catalog):
    """Two all-reduces per layer: latency + ring volume 2 (n-1)/n x tokens x hidden x 2 bytes over the link."""
    from gpudesk.sizing import serve_rates
    from gpudesk.sizing.serve_nvlink_allreduce import rank_skew_s
    from gpudesk.sizing.serve_step import step_model

    spec = _spec(catalog, "llama-3.1-70b")
    nvlink = catalog.link("nvlink4")
    h100 = catalog.gpu("h100-sxm5")
    # SGLang: no measured curve of its own kernel on NVLink (vLLM's: tests/sizing/test_serve_nvlink_allreduce.py).
    steps = step_model(spec, h100, ServeLoad(engine="sglang", input_tokens=10, output_tokens=10, batch=1, tp=8),
                       nvlink, "bf16")
    message = 64 * 8192 * 2
    one = 10.1e-6 + rank_skew_s(8) + 2 * 7 / 8 * message / (450e9 * 0.8)
    assert steps.allreduce_s(64) == pytest.approx(2 * 80 * one)
    # MI300X over Infinity Fabric, an engine without a measured ROCm curve (SGLang): the one-shot kernel (6.3 us)
    # and 48 of 64 GB/s per xGMI link.
    mi = step_model(spec, catalog.gpu("mi300x"), ServeLoad(engine="sglang", input_tokens=10, output_tokens=10,
                                                           batch=1, tp=8), catalog.link("amd-if-mi300x"), "bf16")
    # One token's 16 KiB is below the 256 KiB one-shot limit at TP 8: every rank reads its 7 peers' buffers.
    assert mi.allreduce_s(1) == pytest.approx(2 * 80 * (6.3e-6 + 7 * 8192 * 2 / (448e9 * 0.75)))
    # vLLM there takes its kernel's measured time (gpudesk/sizing/serve_rocm_allreduce.py): 6.3 us at 16 KiB.
    vllm_mi = step_model(spec, catalog.gpu("mi300x"), ServeLoad(engine="vllm", input_tokens=10, output_tokens=10,
                                                                batch=1, tp=8), catalog.link("amd-if-mi300x"), "bf16")
    assert vllm_mi.allreduce_s(1) == pytest.approx(2 * 80 * 6.3e-6)
    # Over PCIe no one-shot kernel: the library ring, 2 (n-1) hops of the measured NCCL hop (25.6 us / 14).
    pcie = step_model(spec, catalog.gpu("l40s"), ServeLoad(input_tokens=10, output_tokens=10, batch=1, tp=4,
                                                           weight_format="fp8"), catalog.link("pcie4-x16"), "bf16")
    hop = serve_rates.RING_HOP_S["nvidia"]
    assert hop == pytest.approx(1024 * 2 * 7 / 8 / 0.07e9 / 14)
    assert pcie.allreduce_s(1) == pytest.approx(2 * 80 * (6 * hop + 2 * 3 / 4 * 8192 * 2 / (31.5e9 * 0.8)))
    # TP 16 over two 8-GPU nodes: no one-shot kernel across nodes; the library tree: 14 ring hops inside the node
    # plus one network level (19.9 us, nccl-tests 2-node 8-byte all-reduce), the bytes at the 50 GB/s NIC.
    two_nodes = step_model(spec, h100, ServeLoad(input_tokens=10, output_tokens=10, batch=1, tp=16, gpus_per_node=8),
                           nvlink, "bf16")
    assert two_nodes.allreduce_s(1) == pytest.approx(
        2 * 80 * (14 * hop + 19.9e-6 + 2 * 15 / 16 * 8192 * 2 / (50e9 * 0.8)))
    one_node = step_model(spec, h100, ServeLoad(engine="sglang", input_tokens=10, output_tokens=10, batch=1, tp=8,
                                                gpus_per_node=8), nvlink, "bf16")
    assert one_node.allreduce_s(64) == pytest.approx(steps.allreduce_s(64))
    with pytest.raises(SizingError):
        ServeLoad(batch=1, gpus_per_node=0).validated()



def test_custom_allreduce_reads_every_peer_below_its_one_shot_limit_and_the_ring_volume_above(catalog):
    """vLLM's custom all-reduce (csrc/custom_all_reduce.cuh) runs one-shot, each rank reading (n - 1) x the message,
    below 256 KiB at TP 8 and 512 KiB at TP 4 (always at TP 2), and two-shot (the ring's 2 (n - 1) / n) above; the
    library ring over PCIe is unchanged. SGLang's copy of the kernel (vLLM's own takes its measured time per message
    size: tests/sizing/test_serve_nvlink_allreduce.py)."""
    from gpudesk.sizing.serve_nvlink_allreduce import rank_skew_s
    from gpudesk.sizing.serve_step import step_model

    spec = _spec(catalog, "llama-3.1-70b")
    nvlink = catalog.link("nvlink4")
    h100 = catalog.gpu("h100-sxm5")
    bw = 450e9 * 0.8
    tp8 = step_model(spec, h100, ServeLoad(engine="sglang", input_tokens=10, output_tokens=10, batch=1, tp=8),
                     nvlink, "bf16")
    assert tp8.one_shot_max_bytes == 256 * 1024
    assert tp8.allreduce_s(15) == pytest.approx(2 * 80 * (10.1e-6 + rank_skew_s(8) + 7 * 15 * 8192 * 2 / bw))
    assert tp8.allreduce_s(16) == pytest.approx(2 * 80 * (10.1e-6 + rank_skew_s(8) + 2 * 7 / 8 * 16 * 8192 * 2 / bw))
    # One-shot moves four times the ring's bytes at TP 8, so 15 tokens cost more than 16.
    assert tp8.allreduce_s(15) > tp8.allreduce_s(16)
    tp4 = step_model(spec, h100, ServeLoad(engine="sglang", input_tokens=10, output_tokens=10, batch=1, tp=4),
                     nvlink, "bf16")
    assert tp4.allreduce_s(31) == pytest.approx(2 * 80 * (9.1e-6 + rank_skew_s(4) + 3 * 31 * 8192 * 2 / bw))
    assert tp4.allreduce_s(32) == pytest.approx(2 * 80 * (9.1e-6 + rank_skew_s(4) + 2 * 3 / 4 * 32 * 8192 * 2 / bw))
    tp2 = step_model(spec, h100, ServeLoad(engine="sglang", input_tokens=10, output_tokens=10, batch=1, tp=2),
                     nvlink, "bf16")
    assert tp2.allreduce_s(256) == pytest.approx(2 * 80 * (9.5e-6 + rank_skew_s(2) + 256 * 8192 * 2 / bw))
    pcie = step_model(spec, catalog.gpu("l40s"), ServeLoad(input_tokens=10, output_tokens=10, batch=1, tp=4,
                                                           weight_format="fp8"), catalog.link("pcie4-x16"), "bf16")
    assert pcie.one_shot_max_bytes == 0


def test_allreduce_over_the_engine_kernel_limit_runs_at_the_librarys_measured_bandwidth(catalog):
    """Above 8 MiB (vLLM / SGLang custom all-reduce limit) the step's all-reduce runs at the bus bandwidth
    rccl-tests / nccl-tests measured for that message size (Azure AI benchmarking guide): 52 MB on MI300X
    interpolates between 230.35 GB/s at 2^25 and 266.34 at 2^26 bytes; below the limit the alpha-beta kernel model
    is unchanged."""
    from gpudesk.sizing import serve_rates
    from gpudesk.sizing.serve_step import step_model

    spec = _spec(catalog, "llama-3.1-70b")
    xgmi = catalog.link("amd-if-mi300x")
    mi = step_model(spec, catalog.gpu("mi300x"), ServeLoad(input_tokens=10, output_tokens=10, batch=1, tp=8),
                    xgmi, "bf16")
    tokens = 3200
    message = tokens * 8192 * 2
    share = math.log2(message / 2**25)
    busbw = 1e9 * math.exp((1 - share) * math.log(230.35) + share * math.log(266.34))
    assert serve_rates.measured_allreduce_busbw(xgmi, message) == pytest.approx(busbw)
    assert mi.allreduce_s(tokens) == pytest.approx(2 * 80 * 2 * 7 / 8 * message / busbw)
    kernel_model = 2 * 80 * (6.3e-6 + 2 * 7 / 8 * message / (448e9 * 0.75))
    assert mi.allreduce_s(tokens) > 1.2 * kernel_model
    small = 256  # 4 MiB: the engine's one-shot / two-shot kernel (SGLang: alpha-beta; vLLM: its measured curve,
    # gpudesk/sizing/serve_rocm_allreduce.py, 24.2 us at 1.5 MiB + 8.2 us per further 768 KiB)
    sglang = step_model(spec, catalog.gpu("mi300x"), ServeLoad(engine="sglang", input_tokens=10, output_tokens=10,
                                                               batch=1, tp=8), xgmi, "bf16")
    assert sglang.allreduce_s(small) == pytest.approx(
        2 * 80 * (6.3e-6 + 2 * 7 / 8 * small * 8192 * 2 / (448e9 * 0.75)))
    assert mi.allreduce_s(small) == pytest.approx(2 * 80 * (24.2e-6 + 8.2e-6 * (4096 - 1536) / 768))
    assert serve_rates.measured_allreduce_busbw(catalog.link("pcie4-x16"), message) is None


def test_measured_allreduce_bandwidth_moves_amd_tp8_offline_rows_toward_the_measurement():
    """Published row (AMD ROCm docs, vLLM, Llama 3.1 70B FP8, 8x MI300X TP8, 128 in / 4096 out, 1500 prompts,
    https://www.amd.com/fr/developer/resources/rocm-hub/dev-ai/performance-results.html):
    measured 11,612 tokens/s; the kernel-only all-reduce over-predicted it by 30 %, the measured RCCL
    bandwidth at the step's message size brings it within 20 %."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "serve_runs.jsonl"
    rows = {r["id"]: r for r in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                                 if line.strip())}
    row = rows["amd-mi300x-vllm-llama31-70b-fp8-tp8-128-4096"]
    ratio = predict_serve_case(row)[0] / row["measured"]["value"]
    assert 0.8 <= ratio <= 1.2

# --- scheduler (gpudesk.sizing.serve_sched) --------------------------------------------------------------------

def test_one_request_alone_is_prefill_then_decode_steps(catalog):
    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    s = serve_speed(spec, gpu, ServeLoad(input_tokens=512, output_tokens=64, concurrency=1, num_prompts=3))
    assert s.e2e_latency_s == pytest.approx(s.ttft_s + 63 * s.tpot_s, rel=1e-9)
    assert s.requests_per_s == pytest.approx(1 / s.e2e_latency_s, rel=1e-6)
    # The engine idles while the API server takes the next request in (vLLM V1 front end, serve_host.front_end).
    assert s.batch == pytest.approx(1.0 - front_end("vllm", None, None).intake_s / s.e2e_latency_s, rel=1e-6)


def test_multi_step_blocks_delay_new_requests(catalog):
    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("a100-80-sxm4")
    base = dict(input_tokens=220, output_tokens=194, request_rate_per_s=4.0, num_prompts=300)
    one = serve_speed(spec, gpu, ServeLoad(**base))
    ten = serve_speed(spec, gpu, ServeLoad(**base, num_scheduler_steps=10))
    # A request arriving inside a 10-step block waits for it: about 4.5 more steps of ~10 ms on average.
    assert ten.ttft_s - one.ttft_s == pytest.approx(4.5 * one.tpot_s, rel=0.5)


def test_multi_step_chunked_prefill_admits_whole_prompts_once_per_block(catalog):
    """vLLM V0 multi-step + chunked prefill does not chunk prompts: a 15-step block's first step takes whole prompts
    while they fit in the 512-token budget, so at most two 215-token prompts join per block (the dstack 8x H100
    405B sweep's --num-scheduler-steps 15 --enable-chunked-prefill --max-num-batched-tokens 512 setting)."""
    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    base = dict(input_tokens=215, output_tokens=117, request_rate_per_s=math.inf, num_prompts=300,
                mixed_prefill=True, max_num_batched_tokens=512, max_num_seqs=512, engine_version="0.6.3")
    one = serve_speed(spec, gpu, ServeLoad(**base))
    many = serve_speed(spec, gpu, ServeLoad(**base, num_scheduler_steps=15))
    # Two requests per block of 15 steps (one with the prompts, 14 decode-only), each step about one TPOT.
    assert many.requests_per_s * 15 * many.tpot_s == pytest.approx(2.0, rel=0.15)
    assert many.batch == pytest.approx(2 * 117 / 15, rel=0.2)
    assert one.requests_per_s > 3 * many.requests_per_s


def test_prefill_in_its_own_steps_pauses_decoding(catalog):
    """Without mixing (SGLang's default) every prompt stops the running requests for a step: TPOT rises."""
    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    base = dict(input_tokens=2000, output_tokens=200, request_rate_per_s=8.0, num_prompts=200)
    mixed = serve_speed(spec, gpu, ServeLoad(**base, mixed_prefill=True))
    apart = serve_speed(spec, gpu, ServeLoad(**base, mixed_prefill=False))
    assert apart.tpot_s > 1.1 * mixed.tpot_s
    assert apart.output_tokens_per_s == pytest.approx(mixed.output_tokens_per_s, rel=0.05)  # both keep up


def test_vllm_admits_prompts_on_demand_and_preempts_when_decoding_fills_the_kv_pool(catalog):
    """vLLM allocates KV blocks as tokens are computed (the shape of dennislee22/vLLM-benchmarking Test 4: Qwen2-7B
    on an A100 80GB at --gpu-memory-utilization 0.25, 50 prompts of 1024 tokens at once, 1024 output tokens each):
    the pool holds every prompt but not 50 whole requests, so all 50 start at once (the same TTFT as with a roomy
    pool), and decoding later overflows the pool: the newest requests are preempted and recomputed, which costs
    TPOT and throughput. Reserving prompt and output whole would have left 11 prompts waiting for a whole request."""
    from gpudesk.sizing.serve_engine import engine_budget

    spec = _spec(catalog, "qwen2.5-7b")
    gpu = catalog.gpu("a100-80-sxm4")
    load = ServeLoad(input_tokens=1024, output_tokens=1024, request_rate_per_s=math.inf, num_prompts=50,
                     gpu_memory_utilization=0.25, engine_version="0.10.1")
    capacity = engine_budget(spec, gpu, load).kv_capacity_tokens
    assert capacity // 2048 < 50 <= capacity // 1024
    tight = serve_speed(spec, gpu, load)
    roomy = serve_speed(spec, gpu, dataclasses.replace(load, gpu_memory_utilization=0.5))
    assert tight.ttft_s == pytest.approx(roomy.ttft_s, rel=0.05)
    assert tight.tpot_s > 1.03 * roomy.tpot_s  # 44 whole requests fit in the pool, 50 run
    assert tight.output_tokens_per_s < 0.9 * roomy.output_tokens_per_s


def test_sglang_requeues_a_retracted_request_behind_the_waiting_ones(catalog):
    """SGLang appends a retracted request to the tail of its FCFS waiting queue (scheduler.py
    update_running_batch -> _extend_requests_to_queue; schedule_policy.py: FCFS does not sort), so its later tokens
    wait for every request queued before it: with a KV pool that forces retractions (Qwen2.5-7B on an A100 80GB at
    --mem-fraction-static 0.25, 1024 + 1024 tokens, all prompts at once), four times the prompts -- a longer
    queue -- makes the mean TPOT grow by far more than the batch does, while vLLM's preempted request goes back to
    the head of its queue."""
    spec = _spec(catalog, "qwen2.5-7b")
    gpu = catalog.gpu("a100-80-sxm4")

    def tpot(engine: str, prompts: int, version: str) -> float:
        return serve_speed(spec, gpu, ServeLoad(input_tokens=1024, output_tokens=1024, request_rate_per_s=math.inf,
                                                num_prompts=prompts, engine=engine, gpu_memory_utilization=0.25,
                                                engine_version=version)).tpot_s

    assert tpot("sglang", 800, "0.5.2") > 2 * tpot("sglang", 200, "0.5.2")
    assert tpot("vllm", 800, "0.10.1") < 1.5 * tpot("vllm", 200, "0.10.1")


def test_open_loop_below_capacity_delivers_the_rate_and_above_it_queues(catalog):
    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    light = serve_speed(spec, gpu, ServeLoad(input_tokens=500, output_tokens=200, request_rate_per_s=2.0,
                                             num_prompts=400))
    assert light.requests_per_s == pytest.approx(2.0, rel=0.1)
    flood_small = serve_speed(spec, gpu, ServeLoad(input_tokens=500, output_tokens=200, request_rate_per_s=math.inf,
                                                   num_prompts=2000, max_num_seqs=64))
    flood_large = serve_speed(spec, gpu, ServeLoad(input_tokens=500, output_tokens=200, request_rate_per_s=math.inf,
                                                   num_prompts=4000, max_num_seqs=64))
    # All at once with 64 slots: the mean wait grows with the queue (twice the prompts, about twice the wait).
    assert flood_large.ttft_s == pytest.approx(2 * flood_small.ttft_s, rel=0.1)
    assert flood_small.batch == pytest.approx(64, rel=0.05)


def test_published_weight_format_names_map_to_their_bytes(catalog):
    """AWQ / GPTQ are int4 in groups of 128 (4.25 bits); NVFP4 is 4.5 bits and runs on FP4 tensor cores."""
    from gpudesk.sizing.memory_inference import weight_bytes
    from gpudesk.sizing.serve_engine import engine_budget
    from gpudesk.sizing.serve_step import step_model

    spec = _spec(catalog, "llama-3.1-70b")
    gpu = catalog.gpu("b200")
    awq = engine_budget(spec, gpu, ServeLoad(input_tokens=10, output_tokens=10, batch=1, weight_format="int4-awq"))
    assert awq.weights_bytes == pytest.approx(weight_bytes(spec, "int4-g128"))
    nvfp4 = step_model(spec, gpu, ServeLoad(input_tokens=10, output_tokens=10, batch=1, weight_format="nvfp4"), None,
                       "fp8")
    assert nvfp4.dense_weight_bytes == pytest.approx(weight_bytes(spec, "int4-g64"))
    # The FP8 GEMM share measured on H100, scaled by B200's measured BF16 MAMF over H100's (0.776 / 0.803).
    assert nvfp4.flops_per_s == pytest.approx(
        gpu.fp4_dense_tflops * 1e12 * 1382.2 / 1978.9 * gpu.matmul_efficiency / (794.5 / 989))
    with pytest.raises(SizingError) as err:
        engine_budget(spec, gpu, ServeLoad(input_tokens=10, output_tokens=10, batch=1, weight_format="int3-magic"))
    assert err.value.field == "weight_format"


def test_a_benchmark_of_over_a_million_requests_is_a_valid_load():
    """MLPerf Offline runs send over a million requests (1.2 M on 8 x H200); num_prompts is not a batch size."""
    assert ServeLoad(batch=2048, num_prompts=1_216_510).validated().num_prompts == 1_216_510
    with pytest.raises(SizingError):
        ServeLoad(batch=1, num_prompts=10**9).validated()


def test_host_overhead_adds_to_the_step_unless_the_engine_overlaps_it(catalog):
    """vLLM before v0.12 and SGLang before v0.4 wait for their CPU work each step (1.0 ms + 17.6 us per running
    request); later versions and TensorRT-LLM overlap it (the step lasts the longer of the two); vLLM V0 multi-step
    pays it once per block."""
    from gpudesk.sizing.serve_host import default_overlap, engine_version_tuple, host_overhead
    from gpudesk.sizing.serve_step import step_model

    assert engine_version_tuple("vLLM 0.9.0.2.dev108+g71faa1880 (ROCm 6.4.1)") == (0, 9)
    assert engine_version_tuple(None) is None
    with pytest.raises(SizingError):
        engine_version_tuple("nightly")
    assert not default_overlap("vllm", "0.6.0") and not default_overlap("vllm", "0.11.2")
    assert default_overlap("vllm", "0.12.0") and default_overlap("vllm", None)
    assert not default_overlap("sglang", "0.3.0") and default_overlap("sglang", "0.5.7")
    assert default_overlap("trtllm", "0.17.0")
    assert host_overhead("vllm", "0.6.0", None, 8).step_s == pytest.approx(1.0e-3 / 8)

    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    serial = step_model(spec, gpu, ServeLoad(batch=64, engine_version="0.6.0"), None, "bf16")
    overlapped = step_model(spec, gpu, ServeLoad(batch=64, overlap_scheduling=True), None, "bf16")
    host = 1.0e-3 + 64 * (5.5e-3 - 1.0e-3) / 256
    assert serial.step_s(64, 64 * 500) == pytest.approx(overlapped.step_s(64, 64 * 500) + host)
    # Overlapped and host-bound: a tiny model at a large batch waits for the CPU, not the GPU.
    tiny = step_model(_spec(catalog, "llama-3.2-1b"), gpu, ServeLoad(batch=512, overlap_scheduling=True), None,
                      "bf16")
    assert tiny.step_s(512, 512 * 10) == pytest.approx(1.0e-3 + 512 * (5.5e-3 - 1.0e-3) / 256)
    with pytest.raises(SizingError):
        ServeLoad(batch=1, engine_version="latest").validated()


def test_spread_lengths_let_closed_loop_clients_drift_out_of_lock_step(catalog):
    """Identical lengths: 8 closed-loop clients finish together and prefill their next prompts in one step; with
    vLLM's random-range spread they drift apart and a prompt shares its step with decodes instead. The mean
    lengths, hence the throughput, stay; the answer is the same on every call (seeded)."""
    spec = _spec(catalog, "mistral-7b")
    gpu = catalog.gpu("rtx4090")
    same = serve_speed(spec, gpu, ServeLoad(input_tokens=256, output_tokens=128, concurrency=8, num_prompts=300))
    load = ServeLoad(input_tokens=256, output_tokens=128, concurrency=8, num_prompts=300, length_spread=0.1)
    spread = serve_speed(spec, gpu, load)
    assert spread.ttft_s < 0.6 * same.ttft_s  # 0.54 with the 4090 at its measured matmul rate (speedfix53)
    assert spread.output_tokens_per_s == pytest.approx(same.output_tokens_per_s, rel=0.05)
    assert serve_speed(spec, gpu, load).ttft_s == spread.ttft_s
    with pytest.raises(SizingError):
        ServeLoad(batch=1, length_spread=1.5).validated()
    # 1: lengths uniform over (0, 2 x the mean], SGLang's --random-range-ratio 0 (uniform in [1, len]).
    assert ServeLoad(batch=1, length_spread=1.0).validated().length_spread == 1.0


def test_a_full_length_spread_is_sglangs_range_ratio_zero(catalog):
    """SGLang's ``--random-range-ratio 0`` draws each length uniformly from 1 to the given one: the format's spread
    1.0 around the run's mean (half the given length). It is accepted, and spreading the lengths over the whole
    range keeps the mean output, hence the throughput of an open-loop run that keeps up with its arrivals."""
    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    base = ServeLoad(engine="sglang", input_tokens=512, output_tokens=512, request_rate_per_s=2.0, num_prompts=200)
    full = serve_speed(spec, gpu, dataclasses.replace(base, length_spread=1.0))
    fixed = serve_speed(spec, gpu, base)
    assert full.output_tokens_per_s == pytest.approx(fixed.output_tokens_per_s, rel=0.1)
    assert full.ttft_s != fixed.ttft_s


def test_mxfp4_without_fp4_units_pays_the_dequantisation_on_the_vector_alus(catalog):
    """gpt-oss-120b MXFP4: on MI300X and H100 (no FP4 matrix units) every weight a step reads is unpacked on the
    vector ALUs at 57/8 instructions per weight (FlagGems PR 4908); MI300X's 163.4 TFLOPS FP32 headline counts packed
    FP32, so its lanes issue 163.4e12 / 4 instructions/s, H100's 67e12 / 2. MI355X computes MXFP4 on its FP4 units:
    no dequantisation. FP8 weights never dequantise."""
    from gpudesk.sizing.serve_step import step_model

    spec = _spec(catalog, "gpt-oss-120b")
    load = ServeLoad(input_tokens=1024, output_tokens=1024, concurrency=64, tp=1, weight_format="mxfp4")
    mi300x = step_model(spec, catalog.gpu("mi300x"), load, None, "bf16")
    assert mi300x.dequant_weights_per_s == pytest.approx(163.4e12 / 4 / (57 / 8))
    assert step_model(spec, catalog.gpu("h100-sxm5"), load, None, "bf16").dequant_weights_per_s == pytest.approx(
        67e12 / 2 / (57 / 8))
    assert step_model(spec, catalog.gpu("mi355x"), load, None, "bf16").dequant_weights_per_s == 0.0
    fp8 = ServeLoad(input_tokens=1024, output_tokens=1024, concurrency=64, tp=1, weight_format="fp8")
    assert step_model(_spec(catalog, "llama-3.1-8b"), catalog.gpu("mi300x"), fp8, None, "bf16"
                      ).dequant_weights_per_s == 0.0
    # One decode step of 64 requests: the dequantisation adds (weights read / bytes per weight) / rate, the weights
    # being MXFP4 experts (4.25 bits) and a few 16-bit dense layers.
    weights = mi300x.weight_bytes_read(64)
    native = dataclasses.replace(mi300x, dequant_weights_per_s=0.0)
    assert mi300x.step_s(64, 64 * 1024.0) - native.step_s(64, 64 * 1024.0) == pytest.approx(
        weights / (4.25 / 8) / (163.4e12 / 4 / (57 / 8)), rel=0.1)


def test_vllm_mxfp4_on_ampere_runs_marlin_which_overlaps_the_unpacking_with_the_weight_loads(catalog):
    """vLLM's MXFP4 MoE runs Marlin below compute capability 9 (mxfp4.py get_mxfp4_backend): the unpacking hides
    behind the asynchronous weight loads, so a decode step's weight time is max(stream, unpack), not their sum.
    Hopper (Triton matmul_ogs), MI300X (Triton) and SGLang keep the sum."""
    from gpudesk.sizing.serve_rates import dequant_overlaps_weight_stream
    from gpudesk.sizing.serve_step import step_model

    spec = _spec(catalog, "gpt-oss-120b")
    a100 = catalog.gpu("a100-80-sxm4")
    assert dequant_overlaps_weight_stream("vllm", a100, "mxfp4")[0]
    assert not dequant_overlaps_weight_stream("vllm", catalog.gpu("h100-sxm5"), "mxfp4")[0]
    assert not dequant_overlaps_weight_stream("vllm", catalog.gpu("mi300x"), "mxfp4")[0]
    assert not dequant_overlaps_weight_stream("sglang", a100, "mxfp4")[0]
    assert not dequant_overlaps_weight_stream("vllm", a100, "awq")[0]
    load = ServeLoad(input_tokens=1024, output_tokens=1024, concurrency=4, tp=1, weight_format="mxfp4")
    model = step_model(spec, a100, load, None, "bf16")
    assert model.dequant_overlapped and model.dequant_weights_per_s > 0
    weights = model.weight_bytes_read(4)
    stream = weights / model.bytes_per_s
    unpack = weights / model.weight_bytes_per_element / model.dequant_weights_per_s
    serial = dataclasses.replace(model, dequant_overlapped=False)
    assert serial.step_s(4, 4 * 1024.0) - model.step_s(4, 4 * 1024.0) == pytest.approx(min(stream, unpack), rel=1e-6)
    sglang = step_model(spec, a100, dataclasses.replace(load, engine="sglang"), None, "bf16")
    assert not sglang.dequant_overlapped


def test_routed_moe_rows_move_top_k_hidden_rows_per_token_on_every_tp_rank(catalog):
    """Qwen3-235B-A22B (94 MoE layers, top-8, hidden 4096): each token's hidden row goes through the grouped GEMM
    input, the per-expert output and the top-k sum once per routed expert (vLLM fused_moe intermediate_cache3 +
    moe_sum): 3 x 8 x 4096 x 2 bytes per layer on every rank, so TP 8 divides the rest of the traffic but not this.
    A dense model has no such term."""
    from gpudesk.sizing.serve_step import elementwise_bytes_per_token

    spec = _spec(catalog, "qwen3-235b-a22b")
    routed = 94 * 3 * 8 * 4096 * 2
    dims = spec.transformer_dims
    assert elementwise_bytes_per_token(spec, 8) > routed
    dense_part_tp1 = elementwise_bytes_per_token(spec, 1) - routed
    dense_part_tp8 = elementwise_bytes_per_token(spec, 8) - routed
    assert dense_part_tp8 < dense_part_tp1  # the sharded widths shrink with TP, the routed rows do not
    assert dense_part_tp8 >= 8 * dims.hidden_size * 2 * dims.layers
    llama = _spec(catalog, "llama-3.1-8b")
    d = llama.transformer_dims
    q = d.num_attention_heads * llama.head_dim_resolved
    kv = llama.kv_heads_resolved * llama.head_dim_resolved
    assert elementwise_bytes_per_token(llama, 1) == pytest.approx(
        (8 * d.hidden_size + 2 * (q + kv) + 4 * kv + 3 * llama.ffn_size) * 2 * d.layers)


def test_fp8_matmul_efficiency_follows_the_gpus_measured_bf16_mamf(catalog):
    """The FP8 GEMM figure measured on MI300X (1159.5 of 2614.9 TFLOPS) scales to MI325X, the same die at a higher
    power limit, by their measured BF16 MAMF (784.9 against 668.4 of 1300 TFLOPS); H100 SXM keeps its own figure;
    a GPU without a measured MAMF (H200) keeps its vendor's."""
    from gpudesk.sizing.serve_rates import matmul_efficiency

    assert matmul_efficiency(catalog.gpu("mi300x"), "fp8")[0] == pytest.approx(1159.5 / 2614.9, rel=1e-3)
    assert matmul_efficiency(catalog.gpu("mi325x"), "fp8")[0] == pytest.approx(
        1159.5 / 2614.9 * 784.9 / 668.4, rel=0.01)
    assert matmul_efficiency(catalog.gpu("h100-sxm5"), "fp8")[0] == pytest.approx(1382.2 / 1978.9, rel=0.01)
    assert matmul_efficiency(catalog.gpu("h200-sxm"), "fp8")[0] == pytest.approx(1382.2 / 1978.9)


def test_vllm_v0_hands_the_first_token_over_after_the_next_step(catalog):
    """vLLM 0.6-0.7 (V0 asynchronous output processor) streams a step's tokens after the following step: at
    concurrency 1 the TTFT grows by one decode step; V1 (0.8) and --enforce-eager (no async output processor) do
    not lag."""
    from gpudesk.sizing.serve_host import output_lag_steps

    assert output_lag_steps("vllm", "0.6.3.post1", True) == 1
    assert output_lag_steps("vllm", "0.8.0", True) == 0
    assert output_lag_steps("vllm", "0.5.4", True) == 0
    assert output_lag_steps("vllm", "0.6.3", False) == 0
    assert output_lag_steps("vllm", None, True) == 0
    assert output_lag_steps("sglang", "0.6.0", True) == 0
    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    shape = dict(input_tokens=512, output_tokens=200, concurrency=1, overlap_scheduling=True)
    v0 = serve_speed(spec, gpu, ServeLoad(engine_version="0.6.0", **shape))
    v1 = serve_speed(spec, gpu, ServeLoad(engine_version="0.8.0", **shape))
    # V1 pays its API-server stage instead (serve_host.front_end); V0 has none here. V0 also runs its prompt step
    # without CUDA graphs: it lasts at least the CPU's launches (serve_eager_prefill), V1 replays piecewise graphs.
    from gpudesk.sizing.serve_engine import engine_budget
    from gpudesk.sizing.serve_step import step_model
    v0_load = ServeLoad(engine_version="0.6.0", **shape).validated()
    v0_steps = step_model(spec, gpu, v0_load, None, engine_budget(spec, gpu, v0_load).kv_dtype)
    graphed = dataclasses.replace(v0_steps, prefill_launch_layer_s=0.0)
    eager_prompt = v0_steps.gpu_s(0, 0.0, 512, 512 * 512 / 2) - graphed.gpu_s(0, 0.0, 512, 512 * 512 / 2)
    assert eager_prompt >= 0
    assert v0.ttft_s - eager_prompt - (v1.ttft_s - FRONTEND_INTAKE_S) == pytest.approx(v1.tpot_s, rel=0.05)
    assert any(a.name == "output_lag_steps" for a in v0.assumptions)
    assert not any(a.name == "output_lag_steps" for a in v1.assumptions)
    eager = dict(shape, cuda_graphs=False)
    assert serve_speed(spec, gpu, ServeLoad(engine_version="0.6.0", **eager)).ttft_s == pytest.approx(
        serve_speed(spec, gpu, ServeLoad(engine_version="0.8.0", **eager)).ttft_s - FRONTEND_INTAKE_S)


# --- front end (gpudesk.sizing.serve_host.front_end) ------------------------------------------------------------

def _pr12287(catalog, **extra):
    """vllm-project/vllm PR 12287's run: Llama-3.2-1B on one A100, ShareGPT (225 / 202 tokens), concurrency 400."""
    shape = dict(engine="vllm", input_tokens=225, output_tokens=202, concurrency=400, num_prompts=6000,
                 length_spread=0.9, max_num_batched_tokens=8192, engine_version="0.8.0")
    shape.update(extra)
    return serve_speed(_spec(catalog, "llama-3.2-1b"), catalog.gpu("a100-80-sxm4"), ServeLoad(**shape))


def test_front_end_reproduces_its_source_and_scales_with_api_servers(catalog):
    """One V1 API server caps the run the figure came from at its measured 63.62 requests/s; more API servers lift
    the cap up to the engine's own rate; V0 and offline batches have no front-end stage."""
    one = _pr12287(catalog)
    assert one.requests_per_s == pytest.approx(63.62, rel=0.05)
    four = _pr12287(catalog, api_server_count=4)
    assert four.requests_per_s > 1.25 * one.requests_per_s
    # The engine's own rate: as many API servers as the front end never binds (V0's engine differs: its prompt
    # steps run without CUDA graphs, serve_eager_prefill).
    assert four.requests_per_s == pytest.approx(_pr12287(catalog, api_server_count=64).requests_per_s, rel=0.02)
    assert front_end("vllm", "0.7.3", None) is None
    assert front_end("sglang", None, None) is None
    assert front_end("vllm", None, 3).servers == 3
    assert any(a.name == "front_end" for a in one.assumptions)
    with pytest.raises(SizingError, match="api_server_count"):
        ServeLoad(api_server_count=0, concurrency=1).validated()


def test_front_end_cost_follows_the_release(catalog):
    """From v0.9 one API server costs what PR 17546's single server in front of two engines delivered (10000
    ShareGPT requests in 130.74 s = 76.49/s, May 2025), not PR 12287's 63.62/s of January 2025: PR 12287's run at
    v0.9 is capped there, at v0.8 still at 63.62/s; with no version, the current figure; the engine alone runs
    faster, so the cap is the front end's."""
    from gpudesk.sizing.serve_host import FRONTEND_FIGURES, frontend_figure

    assert [f.since for f in FRONTEND_FIGURES] == sorted(f.since for f in FRONTEND_FIGURES)
    assert frontend_figure((0, 9)).busy_s == pytest.approx(1 / 76.49, rel=1e-3)
    assert frontend_figure((0, 8)).busy_s == pytest.approx(1 / 63.62, rel=1e-9)
    assert front_end("vllm", None, None) == front_end("vllm", "0.17.0", None)
    assert front_end("vllm", "0.9.0", None).intake_s < FRONTEND_INTAKE_S
    assert "PR 17546" in front_end("vllm", "0.10.1", None).source
    v09 = _pr12287(catalog, engine_version="0.9.0")
    assert v09.requests_per_s == pytest.approx(76.49, rel=0.05)
    assert _pr12287(catalog, engine_version="0.8.5").requests_per_s == pytest.approx(63.62, rel=0.05)
    assert _pr12287(catalog, engine_version="0.9.0", api_server_count=64).requests_per_s > 1.05 * v09.requests_per_s


def test_front_end_latency_is_the_share_of_its_work_ahead_of_the_first_token():
    """PR 8092's serving-vs-offline table (every token streamed: 14.9 vs 34.8 req/s; one in eight: 33.3 vs 42.9)
    puts 5.7 % of the API server's work on the request whatever it streams; that share of PR 12287's 1 / 63.62 s is
    the 0.90 ms a request spends in an idle front end, while the process stays busy the whole 15.7 ms."""
    from gpudesk.sizing.serve_host import FRONTEND_INTAKE_SHARE, FRONTEND_TOKEN_S

    every = 1 / 14.9 - 1 / 34.8  # API-server seconds per request, every token streamed
    eighth = 1 / 33.3 - 1 / 42.9  # one token in eight streamed
    tokens_share = (every - eighth) * 8 / 7 / every
    assert math.isclose(FRONTEND_INTAKE_SHARE, 1 - tokens_share, rel_tol=1e-9)
    assert abs(FRONTEND_INTAKE_SHARE - 0.057) < 0.001
    assert abs(FRONTEND_INTAKE_S - 0.90e-3) < 0.01e-3
    assert math.isclose(FRONTEND_REQUEST_S + 202 * FRONTEND_TOKEN_S, 1 / 63.62, rel_tol=1e-9)


def test_an_idle_front_end_delays_a_request_by_its_intake_only(catalog):
    """One request at a time through vLLM V1: its TTFT exceeds the engine's own by the 0.9 ms intake, not by the
    12.2 ms the process spends on the request; and a loaded front end still caps PR 12287's run at 63.62/s."""
    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    shape = dict(engine="vllm", engine_version="0.8.5", input_tokens=200, output_tokens=200, concurrency=1,
                 num_prompts=4)
    v1 = serve_speed(spec, gpu, ServeLoad(**shape))
    offline = serve_speed(spec, gpu, ServeLoad(**dict(shape, concurrency=None, num_prompts=None, batch=1)))
    assert v1.ttft_s - offline.ttft_s == pytest.approx(FRONTEND_INTAKE_S, abs=0.2e-3)
    front = next(a for a in v1.assumptions if a.name == "front_end")
    assert dict(front.quantities)["intake_s"] == pytest.approx(FRONTEND_INTAKE_S)
    assert "900 µs lie ahead of the request's first token" in front.value
    assert "PR 8092" in front.source
    assert _pr12287(catalog).requests_per_s == pytest.approx(63.62, rel=0.05)


def test_block_fp8_checkpoint_streams_its_dense_weights_slowly(catalog):
    """DeepSeek-R1's own block-FP8 weights: the dense GEMMs read at the measured 0.133 of the bandwidth
    (vllm PR 23280), so a small-batch decode step is slower than the same bytes at the HBM rate; a BF16 model is
    untouched."""
    from gpudesk.sizing.serve_engine import engine_budget
    from gpudesk.sizing.serve_rates import BLOCK_FP8_WEIGHT_STREAM_SHARE
    from gpudesk.sizing.serve_step import step_model
    from gpudesk.sizing.speed_serve_cases import intra_link

    assert round(BLOCK_FP8_WEIGHT_STREAM_SHARE, 4) == 0.1333
    gpu = catalog.gpu("h200-sxm")
    link = intra_link(gpu, "nvlink")
    load = ServeLoad(engine="vllm", input_tokens=200, output_tokens=200, concurrency=4, tp=8).validated()
    spec = _spec(catalog, "deepseek-r1")
    steps = step_model(spec, gpu, load, link, engine_budget(spec, gpu, load).kv_dtype)
    dense = steps.dense_weight_bytes - spec.embedding_params * 2 / 8
    # each linear at that share x its 128-wide output tiles over the measured GEMM's 17 (serve_block_fp8_tiles):
    # MLA's up-projections and output at TP8 are 24-56 tiles, the shared experts and dense MLPs keep the share
    stream = next(a for a in steps.assumptions if a.name == "block_fp8_weight_stream")
    rate = dict(stream.quantities)["bytes_per_s"]
    share = rate / (gpu.memory_bandwidth_gbps * 1e9)
    assert BLOCK_FP8_WEIGHT_STREAM_SHARE < share < 2 * BLOCK_FP8_WEIGHT_STREAM_SHARE
    assert steps.dense_stream_extra_s == pytest.approx(dense / rate - dense / steps.bytes_per_s, rel=1e-9)
    assert 1.5e-3 < steps.dense_stream_extra_s < 6e-3
    bf16 = _spec(catalog, "llama-3.1-8b")
    one = ServeLoad(input_tokens=200, output_tokens=200, concurrency=1).validated()
    assert step_model(bf16, catalog.gpu("h100-sxm5"), one, None, "bf16").dense_stream_extra_s == 0.0


def test_vllm_on_cdna3_and_cdna4_pays_the_gemm_library_above_the_skinny_kernels_token_limit(catalog):
    """vLLM on MI300X and MI355X runs its skinny kernels for BF16 steps of at most 4 tokens and FP8 steps of 1 token, hipBLASLt
    above, which costs the PR 15830 figure per dense GEMM: Llama 3.1 70B at TP 8 has 80 x 4 + 1 of them. NVIDIA
    GPUs, other engines and formats with their own kernels (AWQ) pay nothing."""
    from gpudesk.sizing.serve_rates import HIPBLASLT_EXTRA_GEMM_S, dense_gemms_per_step
    from gpudesk.sizing.serve_step import step_model

    spec = _spec(catalog, "llama-3.1-70b")
    assert dense_gemms_per_step(spec) == 80 * 4 + 1
    assert round(HIPBLASLT_EXTRA_GEMM_S * 1e6, 2) == 2.76
    link = catalog.link("amd-if-mi300x")

    def steps(gpu, fmt, engine="vllm"):
        load = ServeLoad(engine=engine, input_tokens=10, output_tokens=10, batch=1, tp=8, weight_format=fmt)
        return step_model(spec, catalog.gpu(gpu), load.validated(), link, "bf16")

    fp8 = steps("mi300x", "fp8")
    assert fp8.library_gemm_s == pytest.approx(321 * HIPBLASLT_EXTRA_GEMM_S)
    assert fp8.step_s(2, 200) - fp8.step_s(1, 100) > 0.8e-3  # the second token moves every GEMM to hipBLASLt
    bf16 = steps("mi300x", "bf16")
    assert bf16.skinny_max_tokens == 4 and fp8.skinny_max_tokens == 1
    assert bf16.step_s(5, 500) - bf16.step_s(4, 400) > 0.8e-3
    assert any(a.name == "library_gemm_s" for a in fp8.assumptions)
    assert steps("mi300x", "int4-awq").library_gemm_s == 0.0
    assert steps("mi300x", "fp8", engine="sglang").library_gemm_s == 0.0
    # CDNA 4 (gfx950) is on_mi3xx / on_gfx9 in vllm/platforms/rocm.py: the same skinny-or-hipBLASLt dispatch.
    mi355x = step_model(spec, catalog.gpu("mi355x"), ServeLoad(input_tokens=10, output_tokens=10, batch=1, tp=8,
                                                                weight_format="fp8").validated(),
                        catalog.link("amd-if-mi355x"), "bf16")
    assert mi355x.library_gemm_s == pytest.approx(321 * HIPBLASLT_EXTRA_GEMM_S)
    assert mi355x.skinny_max_tokens == 1
    assert mi355x.step_s(2, 200) - mi355x.step_s(1, 100) > 0.8e-3
    h100 = step_model(spec, catalog.gpu("h100-sxm5"), ServeLoad(input_tokens=10, output_tokens=10, batch=1, tp=8,
                                                                weight_format="fp8").validated(),
                      catalog.link("nvlink4"), "bf16")
    assert h100.library_gemm_s == 0.0


def test_fp8_linears_run_op_by_op_pay_an_activation_quantization_kernel_each(catalog):
    """SGLang and vLLM V0 quantize each FP8 linear's input in a kernel of its own (vLLM w8a8_utils.py
    apply_fp8_linear: ops.scaled_fp8_quant, then the scaled GEMM): 2 per attention block + 2 per MLP = 320 kernels
    for Llama 3.1 70B, at the 3.4 us graph floor; compiled vLLM V1, TensorRT-LLM, 16-bit and block-FP8 weights are
    not charged."""
    from gpudesk.sizing.serve_rates import activation_quant_kernels
    from gpudesk.sizing.serve_step import step_model

    spec = _spec(catalog, "llama-3.1-70b")
    assert activation_quant_kernels(spec, "sglang", None, "fp8") == 320
    assert activation_quant_kernels(spec, "vllm", (0, 6), "fp8") == 320
    assert activation_quant_kernels(spec, "vllm", (0, 8), "fp8") == 0
    assert activation_quant_kernels(spec, "vllm", None, "fp8") == 0
    assert activation_quant_kernels(spec, "trtllm", (0, 16), "fp8") == 0
    assert activation_quant_kernels(spec, "sglang", None, "bf16") == 0
    assert activation_quant_kernels(spec, "sglang", None, None) == 0
    mi300x, link = catalog.gpu("mi300x"), catalog.link("amd-if-mi300x")

    def floor(version):
        load = ServeLoad(input_tokens=128, output_tokens=128, batch=1, tp=8, weight_format="fp8", engine="vllm",
                         engine_version=version)
        return step_model(spec, mi300x, load, link, "fp8")

    v0, v1 = floor("0.6.6"), floor("0.10.1")
    assert (v0.layer_latency_s - v1.layer_latency_s) * 80 == pytest.approx(320 * 3.4e-6)
    assert any(a.name == "activation_quant_kernels" for a in v0.assumptions)
    assert not any(a.name == "activation_quant_kernels" for a in v1.assumptions)


def test_a_small_decode_step_pays_the_tensor_core_tile_where_the_matrix_units_are_slow(catalog):
    """A GEMM computes whole tiles of token rows (64 on Hopper's wgmma, 16 on Ampere's mma.sync, AMD's MFMA and
    Marlin's 4-bit kernels). On H20 (148 BF16 TFLOPS against 4.0 TB/s) the 64-row math of a batch-1 step outlasts
    the weight stream; on H100 it hides under it and the step is unchanged."""
    from gpudesk.sizing.serve_rates import gemm_tile_tokens
    from gpudesk.sizing.serve_step import step_model

    assert gemm_tile_tokens(catalog.gpu("h20"), "bf16") == 64
    assert gemm_tile_tokens(catalog.gpu("h100-sxm5"), "fp8") == 64
    assert gemm_tile_tokens(catalog.gpu("h100-sxm5"), "int4-g128") == 16
    assert gemm_tile_tokens(catalog.gpu("a100-80-sxm4"), "bf16") == 16
    assert gemm_tile_tokens(catalog.gpu("mi300x"), "bf16") == 16
    spec = _spec(catalog, "qwen3-8b")
    load = ServeLoad(input_tokens=1, output_tokens=2048, batch=1, engine="sglang")
    h20 = step_model(spec, catalog.gpu("h20"), load, None, "bf16")
    untiled = dataclasses.replace(h20, gemm_tile_tokens=0)
    assert h20.step_s(1, 1024) > 1.4 * untiled.step_s(1, 1024)
    assert h20.step_s(1, 1024) >= 64 * h20.flops_per_token / h20.flops_per_s
    assert h20.step_s(64, 64 * 1024) == pytest.approx(untiled.step_s(64, 64 * 1024))
    assert any(a.name == "gemm_tile_tokens" for a in h20.assumptions)
    h100 = step_model(spec, catalog.gpu("h100-sxm5"), load, None, "bf16")
    assert h100.step_s(1, 1024) == pytest.approx(dataclasses.replace(h100, gemm_tile_tokens=0).step_s(1, 1024))


def test_fp4_gemm_efficiency_on_blackwell_rises_from_decode_to_large_steps():
    """NVFP4 GEMMs on B200 measured at 3370 TFLOPS for M 1024 (flashinfer PR 1979) and 5239 for 8192^3 (DeepGEMM
    PR 348) of 9000: a step's matmul share follows the step's tokens between the two, on compute capability 10.x
    only (the RTX PRO 6000 Blackwell, 12.0, has no measured FP4 GEMM and keeps the FP8 share)."""
    from gpudesk.sizing.serve_rates import fp4_matmul_efficiency, gemm_rate_share

    catalog = open_catalog()
    decode, large = fp4_matmul_efficiency(catalog.gpu("b200"))  # type: ignore[misc]
    assert decode == pytest.approx(3370 / 9000) and large == pytest.approx(5239 / 9000)
    assert fp4_matmul_efficiency(catalog.gpu("gb200")) == (decode, large)
    assert fp4_matmul_efficiency(catalog.gpu("rtx-pro-6000-bw-server")) is None
    assert fp4_matmul_efficiency(catalog.gpu("h100-sxm5")) is None
    assert gemm_rate_share(1, decode, large) == decode
    assert gemm_rate_share(1024, decode, large) == decode
    assert gemm_rate_share(8192, decode, large) == large
    assert gemm_rate_share(100_000, decode, large) == large
    assert gemm_rate_share(2896, decode, large) == pytest.approx((decode + large) / 2, rel=1e-3)  # 2^11.5


def test_fp4_gemm_efficiency_falls_with_the_models_hidden_size():
    """vLLM's CUTLASS NVFP4 GEMM at a Llama-3-8B shape (K 4096) measured 2895 / 3779 TFLOPS at M 1024 / 8192
    (vllm PR 20646) against 3370 / 5239 at the larger shapes: a hidden size of 4096 gets the K-4096 figures, 8192
    and above the larger-shape ones, log2-linear between; an 8B model's FP4 step on B200 is therefore slower."""
    from gpudesk.sizing.serve_rates import fp4_matmul_efficiency

    b200 = open_catalog().gpu("b200")
    assert fp4_matmul_efficiency(b200, 4096) == pytest.approx((2895 / 9000, 3779 / 9000))
    assert fp4_matmul_efficiency(b200, 2048) == fp4_matmul_efficiency(b200, 4096)
    assert fp4_matmul_efficiency(b200, 8192) == pytest.approx((3370 / 9000, 5239 / 9000))
    assert fp4_matmul_efficiency(b200, 16384) == fp4_matmul_efficiency(b200, 8192)
    middle = fp4_matmul_efficiency(b200, 5793)  # 2^12.5
    assert middle is not None and middle[1] == pytest.approx((3779 + 5239) / 2 / 9000, rel=1e-3)


def test_llama33_70b_fp4_on_b200_decodes_at_the_measured_fp4_gemm_rate():
    """TensorRT-LLM perf overview v1.0, Llama 3.3 70B FP4 on one B200, 1000/1000, 3000 requests at once: 7007
    output tokens/s measured. At the FP8-derived share (0.67 of the FP4 peak) the model predicted 1.30x; the decode
    steps (a few hundred tokens) now run at the measured M-1024 FP4 rate and the prediction is within 15 %."""
    from gpudesk.sizing.serve_step import step_model

    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("llama-3.3-70b"))
    gpu = catalog.gpu("b200")
    load = ServeLoad(engine="trtllm", engine_version="1.0", input_tokens=1000, output_tokens=1000, batch=3000,
                     num_prompts=3000, weight_format="fp4", kv_dtype="fp8", gpu_memory_utilization=0.95)
    steps = step_model(spec, gpu, load.validated(), None, "fp8")
    assert steps.gemm_flops_per_s(400) == pytest.approx(9000e12 * 3370 / 9000)
    assert steps.gemm_flops_per_s(8192) == pytest.approx(9000e12 * 5239 / 9000)
    assert any(a.name == "matmul_efficiency" and "FP4" in a.value for a in steps.assumptions)
    speed = serve_speed(spec, gpu, load)
    assert speed.output_tokens_per_s / 7007 == pytest.approx(1.0, abs=0.15)


def test_llama31_8b_nvfp4_on_b200_runs_at_the_k4096_fp4_gemm_rate():
    """MLPerf Inference v5.1 Offline, Llama-3.1-8B NVFP4 on B200, one TensorRT-LLM engine per GPU (Dell XE9680L,
    closed/Dell/results/XE9680L_B200_SXM_180GBx8_TRT/llama3.1-8b/Offline): 143309 output tokens/s for 8 GPUs,
    gpu_batch_size 6000, max_num_tokens 12000, 871 / 129 tokens. At the larger-shape FP4 shares the model predicted
    1.38x; the hidden size 4096 takes vLLM's K-4096 NVFP4 GEMM figures and the prediction is within 20 %."""
    from gpudesk.sizing.serve_step import step_model

    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("b200")
    load = ServeLoad(engine="trtllm", input_tokens=871, output_tokens=129, batch=6000, num_prompts=90750,
                     weight_format="nvfp4", kv_dtype="fp8", gpu_memory_utilization=0.9, max_num_seqs=6000,
                     max_num_batched_tokens=12000, mixed_prefill=True)
    steps = step_model(spec, gpu, load.validated(), None, "fp8")
    assert steps.gemm_flops_per_s(12000) == pytest.approx(9000e12 * 3779 / 9000)
    speed = serve_speed(spec, gpu, load)
    assert 8 * speed.output_tokens_per_s / 143309 == pytest.approx(1.0, abs=0.2)


def _pp_load(**kw):
    base = dict(engine="trtllm", engine_version="1.2", weight_format="nvfp4", kv_dtype="fp8",
                gpu_memory_utilization=0.95, gpus_per_node=2)
    base.update(kw)
    return ServeLoad(**base)


def test_pipeline_parallel_serving_matches_the_published_trtllm_pp2_rows():
    """TensorRT-LLM perf overview (docs/source/developer-guide/perf-overview.md at 585c756), Llama 3.3 70B NVFP4
    on two RTX PRO 6000 Blackwell Server GPUs, TP1 PP2, trtllm-bench throughput: 1887 output tokens/s per GPU at
    1024/1024 (3000 requests), 327 at 8192/1024 (1500 requests)."""
    from gpudesk.sizing.speed_serve_cases import intra_link

    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("llama-3.3-70b"))
    gpu = catalog.gpu("rtx-pro-6000-bw-server")
    link = intra_link(gpu, "pcie")
    for isl, requests, measured in ((1024, 3000, 1887.0), (8192, 1500, 327.0)):
        speed = serve_speed(spec, gpu, _pp_load(input_tokens=isl, output_tokens=1024, batch=requests,
                                                 num_prompts=requests, pp=2), link)
        assert speed.gpus == 2
        assert speed.output_tokens_per_s / speed.gpus / measured == pytest.approx(1.0, abs=0.2)
        assert any(a.name == "pipeline_parallel" for a in speed.assumptions)


def test_pipeline_stages_hold_half_the_weights_and_a_lone_request_waits_through_every_stage():
    """PP2 halves the weights per GPU, so the KV pool more than doubles; at concurrency 1 there is one micro-batch
    (the bubble): a token takes the whole model's pass, as on the same TP without PP, and longer than at TP x 2."""
    from gpudesk.sizing.serve_engine import engine_budget
    from gpudesk.sizing.speed_serve_cases import intra_link

    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("llama-3.3-70b"))
    gpu = catalog.gpu("h100-sxm5")
    link = intra_link(gpu, "nvlink")
    one = dict(engine="vllm", input_tokens=1024, output_tokens=256, concurrency=1)
    tp2 = serve_speed(spec, gpu, ServeLoad(**one, tp=2), link)
    pp2 = serve_speed(spec, gpu, ServeLoad(**one, tp=2, pp=2), link)
    tp4 = serve_speed(spec, gpu, ServeLoad(**one, tp=4), link)
    assert pp2.tpot_s == pytest.approx(tp2.tpot_s, rel=0.02)
    assert pp2.tpot_s > 1.5 * tp4.tpot_s
    cap1 = engine_budget(spec, gpu, ServeLoad(**one, tp=2).validated()).kv_capacity_tokens
    cap2 = engine_budget(spec, gpu, ServeLoad(**one, tp=2, pp=2).validated()).kv_capacity_tokens
    assert cap2 > 2 * cap1
    # Many requests fill both stages: the pipeline's throughput rises well above the single-stage replica's.
    many = dict(one, concurrency=64)
    assert serve_speed(spec, gpu, ServeLoad(**many, tp=2, pp=2), link).output_tokens_per_s > 1.5 * serve_speed(
        spec, gpu, ServeLoad(**many, tp=2), link).output_tokens_per_s


def test_pipeline_stages_beyond_the_layers_or_without_a_link_are_refused():
    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("h100-sxm5")
    with pytest.raises(SizingError) as info:
        serve_speed(spec, gpu, ServeLoad(concurrency=1, pp=33), None)
    assert info.value.field == "pp"
    with pytest.raises(SizingError) as info:
        serve_speed(spec, gpu, ServeLoad(concurrency=1, pp=2), None)
    assert info.value.field == "link"
    with pytest.raises(SizingError) as info:
        ServeLoad(concurrency=1, pp=0).validated()
    assert info.value.field == "pp"


def test_trtllm_pytorch_backend_before_0_20_adds_its_host_work_to_the_step():
    """TensorRT-LLM's PyTorch flow overlaps its host work only since PR 4174 (release 0.20); the 0.x trtllm-bench
    runs the TensorRT-engine flow unless --backend pytorch, 1.x the PyTorch flow. The 0.19 perf overview (run with
    the PyTorch backend): Llama 3.3 70B FP4 on 8 B200, TP8, 128/4096, 1500 requests: 24,947 output tokens/s."""
    from gpudesk.sizing.serve_host import host_overhead, trtllm_backend
    from gpudesk.sizing.speed_serve_cases import intra_link

    assert trtllm_backend("0.19.0", None) == "tensorrt"
    assert trtllm_backend("1.0", None) == "pytorch" and trtllm_backend(None, None) == "pytorch"
    assert host_overhead("trtllm", "0.19.0", None, 1, "pytorch").overlap is False
    assert host_overhead("trtllm", "0.20.0", None, 1, "pytorch").overlap is True
    assert host_overhead("trtllm", "0.19.0", None, 1, "tensorrt").overlap is False  # enableTrtOverlap off
    assert host_overhead("trtllm", "0.19.0", True, 1, "pytorch").overlap is True  # the user's choice wins
    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("llama-3.3-70b"))
    gpu = catalog.gpu("b200")
    load = ServeLoad(engine="trtllm", engine_version="0.19.0", backend="pytorch", input_tokens=128,
                     output_tokens=4096, batch=1500, num_prompts=1500, weight_format="fp4", kv_dtype="fp8",
                     gpu_memory_utilization=0.95, tp=8)
    speed = serve_speed(spec, gpu, load, intra_link(gpu, "nvlink"))
    assert speed.output_tokens_per_s / 24947.05 == pytest.approx(1.0, abs=0.2)
    # the 0.19 default (TensorRT-engine flow) adds its host work to every step as well (enableTrtOverlap off);
    # overlapping it, as typed, is what makes the step faster
    engine_flow = serve_speed(spec, gpu, dataclasses.replace(load, backend=None), intra_link(gpu, "nvlink"))
    assert engine_flow.output_tokens_per_s == pytest.approx(speed.output_tokens_per_s, rel=0.01)
    overlapped = serve_speed(spec, gpu, dataclasses.replace(load, backend=None, overlap_scheduling=True),
                             intra_link(gpu, "nvlink"))
    assert overlapped.output_tokens_per_s > 1.3 * speed.output_tokens_per_s
    with pytest.raises(SizingError) as info:
        ServeLoad(engine="vllm", backend="pytorch", concurrency=1).validated()
    assert info.value.field == "backend"
    with pytest.raises(SizingError) as info:
        ServeLoad(engine="trtllm", backend="onnx", concurrency=1).validated()
    assert info.value.field == "backend"


def test_tensorrt_engine_flow_adds_its_host_work_to_every_step():
    """TensorRT-LLM's C++ executor overlaps two micro-batches only with enableTrtOverlap, off by default (MLPerf
    Inference v4.1 NVIDIA harness main_llm.cc ``enable_trt_overlap`` false, inference_results_v4.1 @198fc46). Dell
    XE8640 (4x H100 SXM), Llama 2 70B FP8 at TP 2, two engines, gpu_batch_size 896, MLPerf v4.1 Offline: 10,699.6
    output tokens/s. With the host work hidden the modelled engine runs 10 % and more too fast; added to each step of
    896 requests it lands within 10 %."""
    from gpudesk.sizing.serve_host import host_overhead

    assert host_overhead("trtllm", "0.16.0", None, 1, None).overlap is False  # the 0.x default: TensorRT-engine flow
    assert host_overhead("trtllm", None, None, 1, "tensorrt").overlap is False
    assert host_overhead("trtllm", None, True, 1, "tensorrt").overlap is True  # typed enable_trt_overlap wins
    row = {"kind": "serve", "model": "llama-2-70b", "gpu": "h100-sxm5", "gpus": 4, "gpus_per_node": 4,
           "interconnect": "nvlink", "engine": "trtllm", "engine_version": "TensorRT 9.3.0, CUDA 12.2",
           "backend": "tensorrt", "tp": 2, "pp": 1, "dp": 2, "ep": 1, "weight_format": "fp8", "kv_dtype": "fp8",
           "input_tokens": 222, "output_tokens": 291, "gpu_memory_utilization": 0.9, "max_num_seqs": 896,
           "max_num_batched_tokens": 4096, "enable_chunked_prefill": False, "batch": 896,
           "measured": {"metric": "output_tokens_per_s", "value": 10699.6, "unit": "tokens/s"}}
    in_line = predict_serve_case(row)[0] / 10699.6
    hidden = predict_serve_case(dict(row, overlap_scheduling=True))[0] / 10699.6
    assert in_line == pytest.approx(1.0, abs=0.1)
    assert hidden > 1.1


def test_vllm_with_async_scheduling_keeps_two_pipeline_batches_in_flight():
    """vLLM V1 runs pp batches at once, 2 with asynchronous scheduling (multiproc_executor.max_concurrent_batches):
    at PP 4 and many requests, async scheduling leaves half the stages idle, so the pipeline advances slower."""
    from gpudesk.sizing.serve_engine import engine_budget
    from gpudesk.sizing.serve_step import step_model
    from gpudesk.sizing.speed_serve_cases import intra_link

    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("llama-3.3-70b"))
    gpu = catalog.gpu("h100-sxm5")
    link = intra_link(gpu, "nvlink")
    base = dict(engine="vllm", input_tokens=1024, output_tokens=256, concurrency=256, pp=4)
    sync = ServeLoad(**base, overlap_scheduling=False).validated()
    async_ = ServeLoad(**base, overlap_scheduling=True).validated()
    kv = engine_budget(spec, gpu, sync).kv_dtype
    assert step_model(spec, gpu, sync, link, kv).pp_micro_batches == 4
    steps = step_model(spec, gpu, async_, link, kv)
    assert steps.pp_micro_batches == 2
    assert any("2 micro-batches" in a.value for a in steps.assumptions if a.name == "pipeline_parallel")
    trt = ServeLoad(**dict(base, engine="trtllm")).validated()
    assert step_model(spec, gpu, trt, link, kv).pp_micro_batches == 4


def test_vllm_before_v1_serves_an_mla_model_without_chunked_prefill(catalog):
    """vLLM v0.7.x forced chunked prefill off for multi-head latent attention ("MLA is enabled; forcing chunked
    prefill and prefix caching to be disabled.", vllm/config.py); V1 (0.8) mixes prompt chunks into decode steps
    again. DeepSeek-R1 on 8x H200 at TP 8: no mixing at 0.7.3, mixing at 0.8.0 or with no version; a GQA model
    (Llama 3.1 70B) keeps mixing at 0.7.3; a published --enable-chunked-prefill wins."""
    from gpudesk.sizing.serve_engine import engine_budget

    r1 = _spec(catalog, "deepseek-r1")
    assert r1.attention_kind == "mla"
    gpu = catalog.gpu("h200-sxm")
    load = ServeLoad(input_tokens=3200, output_tokens=800, concurrency=32, tp=8, weight_format="fp8")
    assert engine_budget(r1, gpu, dataclasses.replace(load, engine_version="0.7.3")).mixed_prefill is False
    assert engine_budget(r1, gpu, dataclasses.replace(load, engine_version="0.8.0")).mixed_prefill is True
    assert engine_budget(r1, gpu, load).mixed_prefill is True
    assert engine_budget(r1, gpu, dataclasses.replace(load, engine_version="0.7.3",
                                                     mixed_prefill=True)).mixed_prefill is True
    llama = _spec(catalog, "llama-3.1-70b")
    assert engine_budget(llama, gpu, dataclasses.replace(load, engine_version="0.7.3", weight_format="bf16")
                         ).mixed_prefill is True


def test_unmixed_prefill_of_vllm_07_lengthens_deepseek_ttft_under_load():
    """dstack's DeepSeek-R1 run on 8x MI300X (vLLM 0.7.3 ROCm, 3200 in / 800 out, concurrency 32, mean TTFT 7.11 s;
    https://github.com/dstackai/benchmarks Deepseek-R1/raw_data/online_results.csv): with prompts run as steps of
    their own the predicted TTFT is over three times the mixed schedule's."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "fresh9_serve_runs.jsonl"
    row = next(r for r in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
               if r["id"] == "dstack-deepseek-r1-mi300x-vllm-3200-800-c32-ttft-s")
    assert row["engine_version"].startswith("0.7.3") and "enable_chunked_prefill" not in row
    unmixed = predict_serve_case(row)[0]
    mixed = predict_serve_case(dict(row, enable_chunked_prefill=True))[0]
    assert unmixed > 3 * mixed
    assert unmixed < row["measured"]["value"]


def test_block_fp8_gemms_of_vllm_and_sglang_run_at_the_triton_block_kernel_rate(catalog):
    """DeepSeek-R1 ships 128x128 block-scaled FP8 weights. The routed experts go through the Triton fused-MoE kernel
    in vLLM and SGLang (54 % of the active matmul FLOPs: 58 MoE layers x 8 experts x 44.0 M params of 37.6 B active);
    vLLM's dense linears use its Triton/CUTLASS block-FP8 kernels too, SGLang's only before DeepGEMM became the
    default (0.4.6, sgl-project/sglang PR 5628); TensorRT-LLM has its own kernels. Those FLOPs run at 406.5 of
    1979 TFLOPS (vllm-project/vllm PR 23280, H100), so a prefill chunk of 8192 tokens on 8x H200 at TP 8 takes
    longer at SGLang 0.4.3 than at 0.5.7, and a BF16 model is not affected."""
    from gpudesk.sizing.serve_rates import (
        BLOCK_FP8_TRITON_PEAK_SHARE,
        block_fp8_triton_flops_share,
        block_fp8_triton_peak_share,
    )
    from gpudesk.sizing.serve_step import step_model
    from gpudesk.sizing.speed_serve_cases import intra_link

    r1 = _spec(catalog, "deepseek-r1")
    routed = 58 * 8 * r1.expert_params / r1.active_params
    assert routed == pytest.approx(0.544, abs=0.01)
    assert block_fp8_triton_flops_share(r1, "sglang", "0.5.7")[:2] == pytest.approx((routed, routed))
    assert block_fp8_triton_flops_share(r1, "sglang", "0.4.3.post2")[:2] == pytest.approx((1.0, routed))
    assert block_fp8_triton_flops_share(r1, "vllm", "0.11.0")[0] == 1.0
    assert block_fp8_triton_flops_share(r1, "trtllm", "1.0")[:2] == (0.0, 0.0)
    assert abs(BLOCK_FP8_TRITON_PEAK_SHARE - 0.2054) < 1e-3
    # The kernel's rate by rows (PR 23280 Triton column): 219.3 TFLOPS at 256 rows, 406.5 from 8192.
    assert block_fp8_triton_peak_share(16) == block_fp8_triton_peak_share(256) == pytest.approx(219.3 / 1978.9)
    assert block_fp8_triton_peak_share(1024) == pytest.approx(366.8 / 1978.9)
    assert 305.2 / 1978.9 < block_fp8_triton_peak_share(700) < 366.8 / 1978.9
    assert block_fp8_triton_peak_share(65536) == pytest.approx(BLOCK_FP8_TRITON_PEAK_SHARE)
    gpu = catalog.gpu("h200-sxm")
    link = intra_link(gpu, "nvlink")
    load = ServeLoad(engine="sglang", input_tokens=3200, output_tokens=800, concurrency=8, tp=8, weight_format="fp8")
    old = step_model(r1, gpu, dataclasses.replace(load, engine_version="0.4.3.post2"), link, "bf16")
    new = step_model(r1, gpu, dataclasses.replace(load, engine_version="0.5.7"), link, "bf16")
    trt = step_model(r1, gpu, dataclasses.replace(load, engine="trtllm", engine_version="1.0"), link, "bf16")
    chunk = 8192
    # an 8192-token chunk gives each routed expert 8192 x 8 / 256 = 256 rows: the experts' math at the 256-row rate
    math_old = chunk * r1.active_params * 2 / 8 / (gpu.fp8_dense_tflops * 1e12) * (
        (1 - routed) / BLOCK_FP8_TRITON_PEAK_SHARE + routed / block_fp8_triton_peak_share(256))
    assert old.gpu_s(0, 0, chunk, chunk * chunk / 2) > new.gpu_s(0, 0, chunk, chunk * chunk / 2) > trt.gpu_s(
        0, 0, chunk, chunk * chunk / 2)
    assert old.gpu_s(0, 0, chunk, chunk * chunk / 2) > math_old
    # Decode: weight bound, apart from 0.4.3's 64-row fused-MoE tiles (gpudesk.sizing.serve_moe_tiles); compared
    # with 0.5.6, the last release before the fused all-reduce + RMSNorm on SM90 (serve_allreduce_fusion), which
    # 0.5.7 adds on top.
    mid = step_model(r1, gpu, dataclasses.replace(load, engine_version="0.5.6"), link, "bf16")
    assert new.moe_tile_padding_s(8) == mid.moe_tile_padding_s(8) == 0.0 < old.moe_tile_padding_s(8)
    assert old.gpu_s(8, 8 * 3600) - old.moe_tile_padding_s(8) == pytest.approx(mid.gpu_s(8, 8 * 3600), rel=0.02)
    assert new.gpu_s(8, 8 * 3600) < mid.gpu_s(8, 8 * 3600)
    llama = _spec(catalog, "llama-3.1-70b")
    assert step_model(llama, gpu, dataclasses.replace(load, weight_format="fp8", engine_version="0.4.3"), link,
                      "bf16").slow_flops_per_token == 0.0


def test_sglang_runs_deepgemm_only_on_nvidia_hopper_and_newer(catalog):
    """SGLang enables DeepGEMM only on CUDA devices of compute capability 9.0 or newer (deep_gemm_wrapper/
    configurer.py ``_compute_enable_deep_gemm``); on AMD Instinct its block-FP8 dense linears go to AITER's Triton
    ``gemm_a8w8_blockscale`` (fp8_utils.py ``dispatch_w8a8_block_fp8_linear``). So DeepSeek-R1's dense 46 % of the
    matmul FLOPs run at the Triton block-FP8 rate on MI325X at SGLang 0.5.19 (InferenceX PR 3318's recipe), not on
    H200 at 0.5.12, and an 8192-token prefill chunk on 8x MI325X takes longer than with DeepGEMM's rate."""
    from gpudesk.sizing.serve_rates import block_fp8_triton_flops_share, runs_deepgemm
    from gpudesk.sizing.serve_step import step_model
    from gpudesk.sizing.speed_serve_cases import intra_link

    r1 = _spec(catalog, "deepseek-r1")
    h200, b300, mi325x, a100 = (catalog.gpu(g) for g in ("h200-sxm", "b300", "mi325x", "a100-80-sxm4"))
    assert runs_deepgemm(h200) and runs_deepgemm(b300) and runs_deepgemm(None)
    assert not runs_deepgemm(mi325x) and not runs_deepgemm(a100)
    routed = block_fp8_triton_flops_share(r1, "sglang", "0.5.12", h200)[1]
    assert block_fp8_triton_flops_share(r1, "sglang", "0.5.12", h200)[0] == pytest.approx(routed)
    share, routed_amd, source = block_fp8_triton_flops_share(r1, "sglang", "0.5.19", mi325x)
    assert (share, routed_amd) == pytest.approx((1.0, routed))
    assert "_compute_enable_deep_gemm" in source
    # vLLM's dense linears run its block-FP8 kernels everywhere: unchanged by the GPU
    assert block_fp8_triton_flops_share(r1, "vllm", "0.11.0", h200)[0] == 1.0
    link = intra_link(mi325x, "infinity-fabric")
    load = ServeLoad(engine="sglang", engine_version="0.5.19", input_tokens=7373, output_tokens=922, concurrency=4,
                     tp=8, weight_format="fp8", kv_dtype="fp8")
    amd = step_model(r1, mi325x, load, link, "fp8")
    assert amd.slow_flops_per_token == pytest.approx(2.0 * r1.active_params / 8)
    chunk = 8192
    deepgemm_like = dataclasses.replace(amd, slow_flops_per_token=amd.slow_expert_flops_per_token)
    assert amd.gpu_s(0, 0, chunk, chunk * chunk / 2) > 1.05 * deepgemm_like.gpu_s(0, 0, chunk, chunk * chunk / 2)
    # a decode step is weight bound: the dense math rate hardly moves it
    assert amd.gpu_s(4, 4 * 8000) == pytest.approx(deepgemm_like.gpu_s(4, 4 * 8000), rel=0.02)


def test_deepseek_r1_prefill_heavy_vllm_run_within_a_tenth_with_block_fp8_kernel_rates():
    """GPUStack's DeepSeek-R1-0528 on 8x H200 TP 8, vLLM 0.11.0, random 1997 in / 100 out, no rate limit: 17,691
    total tokens/s (gpustack/gpustack docs/performance-lab/deepseek-r1/h200.md). At the per-tensor FP8 GEMM rate
    the prediction was 1.72x; with the block-FP8 kernels' rate by rows it is within 10 % (11 % since its decode steps
    pay vLLM 0.11's 64-row fused-MoE tiles, gpudesk.sizing.serve_moe_tiles)."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "fresh2_serve_runs.jsonl"
    row = next(r for r in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
               if r["id"] == "gpustack-dsr1-h200-tp8-random-2k-vllm-total-tokens-per-s")
    assert abs(predict_serve_case(row)[0] / row["measured"]["value"] - 1) < 0.11


def test_a_steady_state_estimate_leaves_the_closed_loops_first_wave_out(catalog):
    """25 clients sending 5000-token prompts all start together: that first wave queues behind 125k prompt tokens.
    With a published request count every request counts (vLLM benchmark_serving averages over all); without one the
    estimate is the steady state, whose TTFT is a fraction of it; the throughput is the same run's."""
    spec = _spec(catalog, "llama-3.1-70b")
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(engine="trtllm", input_tokens=5000, output_tokens=500, concurrency=25, tp=2, weight_format="fp8",
                     kv_dtype="fp8")
    link = catalog.link("nvlink4")
    steady = serve_speed(spec, gpu, load, link)
    counted = serve_speed(spec, gpu, dataclasses.replace(load, num_prompts=125), link)
    assert steady.ttft_s < 0.8 * counted.ttft_s
    assert steady.output_tokens_per_s == pytest.approx(counted.output_tokens_per_s, rel=1e-9)


def _b300_r1_row(concurrency: int, metric: str) -> dict:
    """InferenceX's DeepSeek-R1-0528 FP8 TP8 run on 8x B300, SGLang 0.5.12, random 1k/1k (range ratio 0.8)
    (SemiAnalysisAI/InferenceX PR 3175's baseline table, recipe benchmarks/single_node/dsr1_fp8_b300.sh at ed5867f:
    --scheduler-recv-interval 10 below concurrency 16, else 30)."""
    return {"kind": "serve", "model": "deepseek-r1", "gpu": "b300", "gpus": 8, "gpus_per_node": 8,
            "interconnect": "nvlink", "engine": "sglang", "engine_version": "0.5.12", "tp": 8, "ep": 1,
            "weight_format": "fp8", "kv_dtype": "fp8", "input_tokens": 922, "output_tokens": 922,
            "length_spread": 0.111, "concurrency": concurrency, "num_prompts": 10 * concurrency,
            "gpu_memory_utilization": 0.82, "max_num_batched_tokens": 32768, "max_num_seqs": 128,
            "benchmark_warmup": True, "measured": {"metric": metric, "value": 1.0, "unit": "s"}}


def test_sglang_recv_interval_delays_requests_that_arrive_while_decoding():
    """SGLang's SchedulerRecvSkipper (python/sglang/srt/managers/scheduler_recv_skipper.py) takes new requests every
    n decode steps: at concurrency 16 with n = 30 a request arriving mid-decode waits about (n - 1) / 2 steps. The
    published TTFT rises from 146 ms (c8, n = 10) to 312 ms (c16, n = 30) while TPOT goes from 10.1 to 12.3 ms."""
    row = _b300_r1_row(16, "ttft_s")
    every, _a = predict_serve_case(row)
    thirty, _a = predict_serve_case(dict(row, scheduler_recv_interval=30))
    tpot, _a = predict_serve_case(dict(row, scheduler_recv_interval=30, measured={
        "metric": "tpot_s", "value": 1.0, "unit": "s"}))
    assert thirty - every == pytest.approx(14.5 * tpot, rel=0.35)
    # An idle engine takes an arriving request at once: one client at a time waits for no receive.
    one = _b300_r1_row(1, "ttft_s")
    assert predict_serve_case(dict(one, scheduler_recv_interval=10))[0] == pytest.approx(
        predict_serve_case(one)[0], rel=1e-9)


def test_recv_interval_is_sglang_only():
    with pytest.raises(SizingError) as err:
        ServeLoad(engine="vllm", concurrency=4, scheduler_recv_interval=10).validated()
    assert err.value.field == "scheduler_recv_interval"
