"""The open loop's steady state (gpudesk.sizing.serve_steady) and the simulation that starts in it."""

from __future__ import annotations

import dataclasses
import json

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_steady import running_limit, steady_state
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed
from gpudesk.sizing.speed_serve_cases import load_of_case, predict_serve_case
from gpudesk.sizing.speed_validation import speed_cases_dir

GOOGLE_B200 = "mlperf-i51-google-b200-llama2-70b-server-"


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


# The MLPerf rows carry the benchmark's p99 limits (ttft_p99_limit_s / tpot_p99_limit_s, mapped 2026-12-06), with
# which the latencies are those at the highest rate meeting them (serve_slo). These tests are of the run at the
# published arrival rate itself, so they read the rows without the limits.
LIMIT_FIELDS = ("ttft_p99_limit_s", "tpot_p99_limit_s")


def _at_published_rate(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in LIMIT_FIELDS}


def _row(case_id: str) -> dict:
    for line in (speed_cases_dir() / "fresh14_serve_runs.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["id"] == case_id:
            return _at_published_rate(json.loads(line))
    raise AssertionError(case_id)


def test_steady_tpot_is_the_step_of_the_batch_littles_law_gives(catalog):
    """Llama 3.1 8B FP8 on one H100, vLLM, 20 requests/s of 1000 / 200 tokens: the batch decoding is rate x
    (output - 1) x TPOT and the TPOT is the step of that batch with the prompt tokens of one TPOT of arrivals."""
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(input_tokens=1000, output_tokens=200, request_rate_per_s=20.0, weight_format="fp8").validated()
    budget = engine_budget(spec, gpu, load)
    steps = step_model(spec, gpu, load, None, budget.kv_dtype)
    state = steady_state(steps, budget, 20.0, 1000, 200)
    assert state is not None
    assert state.decode_requests == pytest.approx(20.0 * 199 * state.tpot_s)
    d = state.decode_requests
    step = steps.step_s(round(d), d * (1000 + 100), round(state.prefill_tokens_per_step),
                        state.prefill_tokens_per_step * 500)
    assert step == pytest.approx(state.tpot_s, rel=1e-3)
    # A lone request's step is far shorter: the steady batch is what sets the TPOT.
    assert state.tpot_s > 1.5 * steps.step_s(1, 1100)


def test_arrivals_faster_than_the_engine_have_no_steady_state(catalog):
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(input_tokens=1000, output_tokens=200, request_rate_per_s=500.0).validated()
    budget = engine_budget(spec, gpu, load)
    steps = step_model(spec, gpu, load, None, budget.kv_dtype)
    assert steady_state(steps, budget, 500.0, 1000, 200) is None
    # The run is then simulated as it is: the engine delivers less than what arrives.
    speed = serve_speed(spec, gpu, load)
    assert speed.requests_per_s < 0.9 * 500.0


def test_unmixed_prefill_steps_lengthen_the_steady_tpot(catalog):
    """SGLang runs prompts in steps of their own (no --enable-mixed-chunk): the steady TPOT is longer than the
    decode step of the same batch by the share of time spent in prefill steps."""
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(engine="sglang", input_tokens=2000, output_tokens=200, request_rate_per_s=10.0).validated()
    budget = engine_budget(spec, gpu, load)
    assert not budget.mixed_prefill
    steps = step_model(spec, gpu, load, None, budget.kv_dtype)
    state = steady_state(steps, budget, 10.0, 2000, 200)
    assert state is not None and state.prefill_tokens_per_step == 0.0
    d = state.decode_requests
    assert state.tpot_s > 1.1 * steps.step_s(round(d), d * 2100)


def test_mlperf_server_run_starts_in_its_steady_state():
    """MLPerf Inference v5.1 Server, Llama 2 70B NVFP4 on 8 B200 (TensorRT-LLM, Google's submission: 364 queries/s,
    measured 99,170 output tokens/s and a mean TTFT of 0.249 s). LoadGen runs the Server scenario for at least 600 s,
    so the figures are the steady state: the served rate is the arrival rate, and a new prompt waits for the step
    of the full steady batch (~1,500 requests per GPU) in progress and then its own step."""
    throughput, assumptions = predict_serve_case(_row(GOOGLE_B200 + "output-tokens-per-s"))
    assert throughput == pytest.approx(99_169.78, rel=0.05)
    assert any(a.name == "steady_state" for a in assumptions)
    ttft, _ = predict_serve_case(_row(GOOGLE_B200 + "ttft-s"))
    assert ttft == pytest.approx(0.248789, rel=0.3)
    # Started from an empty engine, a thousand arrivals per GPU (22 s) never see the steady batch: the TTFT of
    # those short steps is about half of the steady one and 40 % under the measured one.
    cold, _ = predict_serve_case(dict(_row(GOOGLE_B200 + "ttft-s"), num_prompts=8000))
    assert cold < 0.6 * ttft and cold < 0.65 * 0.248789


def test_an_overlapped_scheduler_admits_new_prompts_one_step_later():
    """MLPerf Inference v5.1 Server, Llama 2 70B FP8 on 8 H200 (Dell XE9680L, TensorRT-LLM, 114.24 queries/s, mean
    TTFT 0.406 s, mean TPOT 0.170 s in the same summary). TensorRT-LLM's overlap scheduler launches step n+1 before
    step n's CPU work is done (docs "Overlap Scheduler": "introduces one extra decoding step"), so a prompt arriving
    during step n is scheduled into step n+2: the steady TTFT is about 2.5 steps instead of 1.5."""
    row = _row("mlperf-i51-dell-xe9680l-h200-llama2-70b-server-ttft-s")
    overlapped, _ = predict_serve_case(row)
    assert overlapped == pytest.approx(0.40584, rel=0.3)
    serial, _ = predict_serve_case(dict(row, overlap_scheduling=False))
    tpot, _ = predict_serve_case(dict(row, measured={"metric": "tpot_s", "value": 0.170, "unit": "s"}))
    assert overlapped - serial > 0.7 * tpot


def test_arrivals_faster_than_the_api_server_have_no_steady_state(catalog):
    """vLLM V1's one API-server process takes ~12 ms per request (serve_host.front_end): at 150 requests/s of a
    small model the engine could keep up but the front end cannot, so the run is simulated as it is and serves
    less than what arrives."""
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(input_tokens=100, output_tokens=20, request_rate_per_s=150.0)
    speed = serve_speed(spec, gpu, load)
    assert not any(a.name == "steady_state" for a in speed.assumptions)
    assert speed.requests_per_s < 0.9 * 150.0
    four = serve_speed(spec, gpu, dataclasses.replace(load, api_server_count=4))
    assert any(a.name == "steady_state" for a in four.assumptions)
    assert four.requests_per_s == pytest.approx(150.0)


def test_only_a_scheduler_loop_that_runs_a_batch_ahead_delays_admission():
    from gpudesk.sizing.serve_host import schedules_ahead
    assert schedules_ahead("sglang", "0.5.6", None, True)
    assert schedules_ahead("vllm", "0.12.0", None, True)
    assert not schedules_ahead("vllm", "0.11.0", None, False)
    assert schedules_ahead("trtllm", "1.2.0rc1", None, True)  # PyTorch flow, overlap scheduler
    assert not schedules_ahead("trtllm", "0.14.0", None, True)  # TensorRT-engine flow (C++ executor)
    assert not schedules_ahead("trtllm", "1.0.0", "tensorrt", True)


def test_trtllm_014_engine_flow_ttft_at_32_qps_has_no_lookahead_step():
    """TensorRT-LLM v0.14 online serving (Triton backend, TensorRT engines), Llama 3.1 8B BF16 on one H100, 467 / 256
    tokens at 32 requests/s: mean TTFT 50 ms (perf-overview.md, v0.14 online table). The engine flow keeps
    admitting prompts into the next step."""
    for line in (speed_cases_dir() / "fresh_serve_runs.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["id"] == "trtllm-v014-online-llama-3-1-8b-h100-tp1-467-256-qps32-ttft":
            row = json.loads(line)
    ttft, _ = predict_serve_case(row)
    assert ttft == pytest.approx(0.05, rel=0.2)
    ahead, _ = predict_serve_case(dict(row, engine_version="1.0.0"))  # the PyTorch flow's overlap scheduler
    # (the engine flow's steps carry their host work since speedfix79: enableTrtOverlap off, serve_host)
    assert ahead > 1.1 * ttft


def test_sglang_prefill_steps_launch_their_kernels_eagerly():
    """SGLang replays CUDA graphs for decode batches only (cuda_graph_runner.py can_run): a step with prompt tokens
    lasts at least the CPU's time to issue its kernels one by one (serve_eager_prefill), a decode step pays the graph
    floor. SGLang v0.3.0's own benchmark, Llama
    3.1 70B on 4 H100 (TP 4), 8 requests/s: measured mean TTFT 58 ms (dev row; 0.77 of it before)."""
    row = None
    for line in (speed_cases_dir() / "serve_runs.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["id"] == "sglang-v030-bench-sglang-llama-3-1-70b-h100-sxm5-rps8-ttft":
            row = json.loads(line)
    assert row is not None
    ttft, _ = predict_serve_case(row)
    # 1.08 of it with fixed lengths; 1.15 since speedmap1 mapped the client's ShareGPT lengths
    # (length_distribution sharegpt, tests/fixtures/speed/speedmap1_decisions.md): the current value, within 20 %.
    assert ttft == pytest.approx(row["measured"]["value"], rel=0.2)
    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("h100-sxm5")
    sglang = ServeLoad(engine="sglang", input_tokens=1000, output_tokens=100, concurrency=1).validated()
    budget = engine_budget(spec, gpu, sglang)
    steps = step_model(spec, gpu, sglang, None, budget.kv_dtype)
    assert steps.prefill_launch_layer_s > 10 * steps.layer_latency_s
    assert steps.gpu_s(0, 0.0, 1) == pytest.approx(steps.layers * steps.prefill_launch_layer_s)
    assert steps.gpu_s(1, 0.0) < 0.5 * steps.gpu_s(0, 0.0, 1)
    vllm_v1 = ServeLoad(engine="vllm", input_tokens=1000, output_tokens=100, concurrency=1).validated()
    assert step_model(spec, gpu, vllm_v1, None, budget.kv_dtype).prefill_launch_layer_s == 0.0


def _serve_row(set_name: str, case_id: str) -> dict:
    """The row ``case_id`` of the bundled ``<set_name>_serve_runs.jsonl``, at its published rate (no p99 limits)."""
    for line in (speed_cases_dir() / f"{set_name}_serve_runs.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["id"] == case_id:
            return _at_published_rate(json.loads(line))
    raise AssertionError(case_id)


def test_trtllm_without_chunked_context_mixes_whole_prompts_into_generation_steps(catalog):
    """MLPerf Inference v5.1 Server, Mixtral 8x7B FP8 on 8 RTX PRO 6000 (HPE DL380a, TensorRT-LLM, 208 queries/s,
    enable_chunked_context False, max_num_tokens 8192: mean TTFT 0.286 s, mean TPOT 0.146 s). TensorRT-LLM's
    micro-batch scheduler (microBatchScheduler.cpp) still runs context requests in the same iteration as the
    generation requests; without chunking each context goes whole or waits. Prompt-only steps that pause decoding
    (the SGLang / vLLM V0 schedule) gave 2.3x the TPOT and 9x the TTFT."""
    spec = spec_from_catalog(catalog.model("mixtral-8x7b"))
    gpu = catalog.gpu("rtx-pro-6000-bw-server")
    load = ServeLoad(engine="trtllm", input_tokens=427, output_tokens=145, request_rate_per_s=26.0,
                     weight_format="fp8", kv_dtype="fp8", mixed_prefill=False).validated()
    budget = engine_budget(spec, gpu, load)
    assert budget.mixed_prefill and not budget.chunked_prompts
    vllm_v0 = engine_budget(spec, gpu, dataclasses.replace(load, engine="vllm", engine_version="0.6.3"))
    assert not vllm_v0.mixed_prefill  # vLLM V0 without chunked prefill does run prompt-only steps
    prefix = "mlperf-i51-hpe-dl380a-rtxpro6000-mixtral-8x7b-server-"
    tpot, _ = predict_serve_case(_serve_row("fresh20", prefix + "tpot-s"))
    assert tpot == pytest.approx(0.146301, rel=0.3)
    ttft, _ = predict_serve_case(_serve_row("fresh20", prefix + "ttft-s"))
    assert ttft == pytest.approx(0.286138, rel=0.5)


def test_sglang_admits_on_the_kv_in_use_not_on_every_whole_output(catalog):
    """DataCrunch, Llama 3.3 70B BF16 on 4 H200 (TP4), SGLang, random 1024/1024 (range ratio 0), 3200 prompts at 16
    requests/s, more than the engine serves: the published median TTFT is 0.614 s and the median ITL 179 ms, i.e.
    new prompts are admitted at once and the running batch grows. SGLang's PrefillAdder holds back only the new-token
    ratio (0.7 decaying to 0.098) times the running requests' remaining output; reserving every request's prompt and
    whole output capped the batch at 1,184 requests and queued the rest (median TTFT 9.8 s, 16x)."""
    row = _serve_row("fresh22", "dc22-h200-llama33-70b-sglang-random-rr16-ttft")
    ttft, _ = predict_serve_case(row)
    assert 0.4 * 0.61425 < ttft < 1.5 * 0.61425
    spec = spec_from_catalog(catalog.model("llama-3.3-70b"))
    gpu = catalog.gpu("h200-sxm")
    load = load_of_case(row).validated()
    budget = engine_budget(spec, gpu, load)
    assert running_limit(budget, 509, 513) == budget.max_running > budget.kv_capacity_tokens // (509 + 513)
    # TensorRT-LLM's GUARANTEED_NO_EVICT does reserve each request's prompt and whole output.
    trt = engine_budget(spec, gpu, dataclasses.replace(load, engine="trtllm", engine_version=None))
    assert running_limit(trt, 509, 513) == trt.kv_capacity_tokens // (509 + 513)
