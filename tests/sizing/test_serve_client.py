"""The benchmark client's warm-up request: vLLM's serving benchmark sends the run's first prompt once before it
measures, and vLLM V1's prefix cache then serves all of that prompt but its last block to the measured first
request."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_client import cached_prompt_tokens, warmup_caches_first_prompt
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_sched import Load, simulate
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed
from gpudesk.sizing.speed_serve_cases import predict_serve_case
from gpudesk.sizing.speed_validation import read_rows, speed_cases_dir


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_only_vllm_v1_online_runs_with_a_request_count_get_the_cached_first_prompt():
    assert warmup_caches_first_prompt("vllm", "0.10.1.1", offline=False, num_prompts=1)
    assert warmup_caches_first_prompt("vllm", None, offline=False, num_prompts=10)
    assert not warmup_caches_first_prompt("vllm", "0.6.3", offline=False, num_prompts=1)  # V0: no prefix cache
    assert not warmup_caches_first_prompt("vllm", "0.10.1", offline=True, num_prompts=1)  # benchmark_throughput
    assert not warmup_caches_first_prompt("vllm", "0.10.1", offline=False, num_prompts=None)  # steady state
    assert not warmup_caches_first_prompt("sglang", None, offline=False, num_prompts=1)
    # Only when the user says the client sends it: a deployment's first request finds nothing cached.
    assert not warmup_caches_first_prompt("vllm", "0.10.1", offline=False, num_prompts=1, warmup=False)


def test_a_cached_prompt_recomputes_its_last_block_only():
    assert cached_prompt_tokens(1024) == 1008  # 1023 tokens rounded down to 16-token blocks
    assert cached_prompt_tokens(1025) == 1024
    assert cached_prompt_tokens(1) == 0


def test_a_one_prompt_run_measures_a_cached_prefill(catalog):
    """One 4096-token prompt on an A100: with the warm-up request in the cache the measured TTFT is a step of 16
    tokens, not the prompt's prefill; the decode after it is the same."""
    spec = spec_from_catalog(catalog.model("qwen2.5-7b"))
    gpu = catalog.gpu("a100-80-sxm4")
    load = ServeLoad(engine="vllm", engine_version="0.10.1", input_tokens=4096, output_tokens=256,
                     request_rate_per_s=math.inf, num_prompts=1, benchmark_warmup=True).validated()
    budget = engine_budget(spec, gpu, load)
    steps = step_model(spec, gpu, load, None, budget.kv_dtype)
    base = Load(input_tokens=4096, output_tokens=256, request_rate_per_s=math.inf, num_prompts=1)
    cold = simulate(steps, budget, base)
    warm = simulate(steps, budget, dataclasses.replace(base, first_prompt_cached=True))
    assert warm.ttft_s < 0.3 * cold.ttft_s
    assert warm.tpot_s == pytest.approx(cold.tpot_s, rel=0.02)
    # serve_speed applies it for this run and says so.
    speed = serve_speed(spec, gpu, load)
    assert any(a.name == "warmup_request" for a in speed.assumptions)
    # Without the input the same run is measured cold.
    plain = serve_speed(spec, gpu, dataclasses.replace(load, benchmark_warmup=False))
    assert not any(a.name == "warmup_request" for a in plain.assumptions)
    assert plain.ttft_s > 3 * speed.ttft_s



def test_engines_with_a_default_prefix_cache_and_the_unit_of_a_hit():
    from gpudesk.sizing.serve_client import keeps_prefix_cache, prefix_block_tokens
    assert keeps_prefix_cache("vllm", "0.9.0") and keeps_prefix_cache("vllm", None)
    assert keeps_prefix_cache("sglang", "0.4.9")  # radix cache on by default
    assert not keeps_prefix_cache("vllm", "0.6.3")  # V0: prefix caching off by default
    assert not keeps_prefix_cache("trtllm", "0.19.0")
    assert prefix_block_tokens("vllm", None) == 16 and prefix_block_tokens("vllm", 32) == 32
    assert prefix_block_tokens("sglang", None) == 1
    assert cached_prompt_tokens(1800, 1) == 1799  # SGLang recomputes the last token only


def test_earlier_run_cached_prompts_is_capped_by_the_run_and_the_kv_pool():
    from gpudesk.sizing.serve_client import earlier_run_cached_prompts
    args = dict(offline=False, num_prompts=30, request_tokens=3800, live_requests=30, kv_capacity_tokens=400_000)
    assert earlier_run_cached_prompts("sglang", "0.4.9", cached_prompts=20, **args) == 20
    assert earlier_run_cached_prompts("sglang", "0.4.9", cached_prompts=50, **args) == 30  # at most the run's prompts
    assert earlier_run_cached_prompts("vllm", "0.6.3", cached_prompts=20, **args) == 0  # no prefix cache
    assert earlier_run_cached_prompts("vllm", "0.9.0", cached_prompts=0, **args) == 0
    small = dict(args, kv_capacity_tokens=30 * 3800 + 5 * 3800 + 100)  # room for five more requests only
    # The 20 cached prompts are among the 30 the run sends at once: admitted first, their prompt blocks are the
    # requests' own, so the pool keeps them whatever it holds next to them (module docstring).
    assert earlier_run_cached_prompts("vllm", "0.9.0", cached_prompts=20, **small) == 20
    # 60 prompts through 30 clients, 50 sent before: the first wave's 30 are kept; of the 20 sent later only as many
    # PROMPTS (1800 tokens) as fit next to the 30 in-flight requests' whole footprints: 19100 // 1800 = 10.
    later = dict(small, num_prompts=60)
    assert earlier_run_cached_prompts("vllm", "0.9.0", cached_prompts=50, prompt_tokens=1800, **later) == 40
    assert earlier_run_cached_prompts("vllm", "0.9.0", cached_prompts=50, **later) == 35  # whole requests: 5 more


def test_a_sweep_level_whose_first_prompts_an_earlier_level_sent_has_a_shorter_ttft(catalog):
    """haitwang-cloud blog (2025-07-17, llm-benchmark-en.md at 3173929): Llama-3.1-8B on one H100, SGLang 0.4.9,
    evalscope perf --parallel 5 10 20 30 --number 5 10 20 30 with LongAlpaca prompts (~1800 tokens) and 2000 output
    tokens. The level of 30 sends the 20 prompts the level of 20 sent first (evalscope reads the dataset in order):
    measured mean TTFT 0.236 s, while 30 cold 1800-token prompts at once take over half a second on average to
    prefill one after another on an H100. With the 20 prompts cached the estimate falls to a third or less and the
    decode rate stays."""
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(engine="sglang", engine_version="0.4.9", input_tokens=1800, output_tokens=2000,
                     concurrency=30, num_prompts=30).validated()
    cold = serve_speed(spec, gpu, load)
    warm = serve_speed(spec, gpu, dataclasses.replace(load, cached_prompts=20).validated())
    assert cold.ttft_s > 0.5
    assert warm.ttft_s < 0.4 * cold.ttft_s
    assert warm.output_tokens_per_s == pytest.approx(cold.output_tokens_per_s, rel=0.06)
    assert any(a.name == "cached_prompts" for a in warm.assumptions)
    assert not any(a.name == "cached_prompts" for a in cold.assumptions)
    # vLLM V0 keeps no prefix cache by default: the same input changes nothing there.
    v0 = dataclasses.replace(load, engine="vllm", engine_version="0.6.3")
    assert serve_speed(spec, gpu, dataclasses.replace(v0, cached_prompts=20).validated()).ttft_s == pytest.approx(
        serve_speed(spec, gpu, v0.validated()).ttft_s)


def test_cached_prompts_must_be_a_whole_positive_count():
    from gpudesk.sizing.errors import SizingError
    with pytest.raises(SizingError) as err:
        ServeLoad(engine="sglang", input_tokens=1800, output_tokens=2000, concurrency=30, num_prompts=30,
                  cached_prompts=-3).validated()
    assert err.value.field == "cached_prompts"
    with pytest.raises(SizingError) as err:  # the steady state (no prompt count) holds no earlier prompt
        ServeLoad(engine="sglang", input_tokens=1800, output_tokens=2000, concurrency=30, cached_prompts=20).validated()
    assert err.value.field == "cached_prompts"


def test_a_server_with_its_prefix_cache_off_finds_neither_the_warmup_nor_an_earlier_runs_prompts_cached():
    from gpudesk.sizing.serve_client import earlier_run_cached_prompts, keeps_prefix_cache

    # vLLM --no-enable-prefix-caching / SGLang --disable-radix-cache; True where the flag turns it on (vLLM V0).
    assert not warmup_caches_first_prompt("vllm", "0.22.1", offline=False, num_prompts=8, prefix_caching=False)
    assert warmup_caches_first_prompt("vllm", "0.22.1", offline=False, num_prompts=8, prefix_caching=None)
    assert warmup_caches_first_prompt("vllm", "0.6.3", offline=False, num_prompts=8, prefix_caching=True)
    assert not keeps_prefix_cache("sglang", "0.5.12", False) and keeps_prefix_cache("sglang", "0.5.12")
    assert not keeps_prefix_cache("tensorrt-llm", None, True)
    assert earlier_run_cached_prompts("sglang", "0.5.12", False, 64, 128, 2048, 16, 10**6, prefix_caching=False) == 0
    assert earlier_run_cached_prompts("sglang", "0.5.12", False, 64, 128, 2048, 16, 10**6) == 64


def test_with_the_prefix_cache_off_closed_loop_clients_stay_in_lock_step():
    # pegainfer docs/benchmarks/gemma4-31b-gh200.md @f8862b1: Gemma 4 31B BF16 on one GH200, vLLM with prefix caching
    # off, vllm bench serve (one warm-up prompt) random 1024/256 --ignore-eos, 4 clients, 16 prompts: p50 TTFT 461 ms,
    # one prefill step of the four prompts sent together. With the warm-up prompt cached (the V1 default) the first
    # request runs a step ahead of the other three and the waves drift apart (about half the TTFT).
    from gpudesk.sizing.speed_serve_cases import predict_serve_case
    from gpudesk.sizing.speed_validation import read_rows, speed_cases_dir

    row = next(r for r in read_rows(speed_cases_dir() / "fresh30_serve_runs.jsonl")
               if r["id"] == "pegainfer-gh200-gemma4-31b-vllm-c4-ttft-p50")
    measured = row["measured"]["value"]
    # The row types the cache as its notes state (speedmap4's mapping correction); the default is the row without it.
    assert "prefix caching off" in row["notes"] and row["prefix_caching"] is False
    off = predict_serve_case(row)[0]
    default = predict_serve_case({k: v for k, v in row.items() if k != "prefix_caching"})[0]
    assert off / measured == pytest.approx(1.0, abs=0.2)
    assert default < 0.6 * off
    assert predict_serve_case(dict(row, prefix_caching="on"))[0] == default


def test_a_sweep_level_keeps_the_prompts_its_first_wave_was_sent_before_whatever_the_pool():
    """Tim Wang blog (2025-07-17, section V): Llama-3.1-8B on one H100, SGLang 0.4.9, evalscope --parallel 100
    --number 100 after the level of 90 (LongAlpaca, ~1800-token prompts, 2000 output tokens): 100 requests at once
    whose first 90 the server saw before. 100 x 3800 tokens nearly fill the ~450k-token pool, which left room for
    only 17 cached prompts when each had to fit next to the run's whole footprint; but the 90 are admitted first and
    their cached prompt blocks become their own (module docstring): all 90 hit, and the mean TTFT (measured 0.254 s)
    is a fraction of what 90 cold 1800-token prompts take to prefill."""
    row = next(r for r in read_rows(speed_cases_dir() / "fresh33_serve_runs.jsonl")
               if r["id"] == "timwang-h100-llama31-8b-sglang049-longalpaca-c100-ttft-s")
    assert row["cached_prompts"] == 90 and row["concurrency"] == row["num_prompts"] == 100
    cached = predict_serve_case(row)[0]
    cold = predict_serve_case(dict(row, cached_prompts=0))[0]
    assert cached < 0.2 * cold
    assert cached / row["measured"]["value"] == pytest.approx(1.0, abs=0.3)
