"""``gpudesk estimate speed`` serving flags: the answer of serve_speed as text or JSON, bad input as a CliError."""

from __future__ import annotations

import argparse
import json

import pytest

from gpudesk.cli import CliError
from gpudesk.cli.speed_serve import add_serve_arguments, cmd_serve_speed
from gpudesk.sizing.serve_host import front_end


def _parser() -> argparse.ArgumentParser:
    # --gpu / --count / --model / --server / --json come from the common speed parser (not this module).
    p = argparse.ArgumentParser()
    p.add_argument("--gpu")
    p.add_argument("--count", type=int)
    p.add_argument("--model")
    p.add_argument("--server")
    p.add_argument("--json", action="store_true")
    add_serve_arguments(p)
    return p


def test_json_has_the_serve_figures_and_every_assumption(capsys):
    argv = ("--gpu h100-sxm5 --model llama-3.1-70b --count 8 --tp 4 --input-tokens 1000 --output-tokens 200 "
            "--concurrency 32 --engine sglang --json")
    args = _parser().parse_args(argv.split())
    assert cmd_serve_speed(args) == 0
    out = json.loads(capsys.readouterr().out)
    serve = out["serve"]
    assert {"output_tokens_per_s", "requests_per_s", "ttft_s", "tpot_s", "batch"} <= serve.keys()
    assert serve["gpus"] == 8 and serve["requests_per_s"] * 200 == pytest.approx(serve["output_tokens_per_s"])
    names = {a["name"] for a in out["assumptions"]}
    assert {"engine_memory_fraction", "hbm_efficiency", "tp_allreduce", "scheduler"} <= names
    assert all(a["source"] for a in out["assumptions"])


def test_text_answer_names_the_option(capsys):
    argv = "--gpu rtx4090 --model mistral-7b --input-tokens 256 --output-tokens 128 --request-rate 2"
    args = _parser().parse_args(argv.split())
    assert cmd_serve_speed(args) == 0
    text = capsys.readouterr().out
    assert "1 x NVIDIA" in text and "time to first token" in text and "assumptions:" in text


@pytest.mark.parametrize(("argv", "needle"), [
    ("--gpu h100-sxm5 --model llama-3.1-8b --input-tokens 10 --output-tokens 10", "--concurrency"),
    ("--model llama-3.1-8b --input-tokens 10 --output-tokens 10 --batch 1", "--gpu"),
    ("--gpu h100-sxm5 --model llama-3.1-8b --output-tokens 10 --batch 1", "--input-tokens"),
    # No KV cache left at TP 1 and the memory fraction not given: the advice names --tp, the flag the user can raise.
    ("--gpu h100-sxm5 --model llama-3.1-70b --input-tokens 10 --output-tokens 10 --batch 1", "--tp"),
    ("--gpu h100-sxm5 --model llama-3.1-8b --count 3 --tp 2 --input-tokens 10 --output-tokens 10 --batch 1", "--count"),
    ("--gpu h100-sxm5 --model llama-3.1-8b --input-tokens 10 --output-tokens 10 --batch 1 --gpu-memory-utilization 1.5",
     "--gpu-memory-utilization"),
    ("--gpu h100-sxm5 --model llama-3.1-8b --input-tokens 10 --output-tokens 10 --batch 1 --engine-version nightly",
     "--engine-version"),
    ("--gpu h100-sxm5 --model llama-3.1-8b --input-tokens 10 --output-tokens 10 --batch 1 --server no-such-box",
     "--server"),
    ("--gpu h100-sxm5 --model llama-3.1-8b --input-tokens 10 --output-tokens 10 --batch 1 --length-spread 2",
     "--length-spread"),
    ("--gpu h100-sxm5 --model llama-3.1-8b --input-tokens 10 --output-tokens 10 --request-rate 1 --tpot-p99-limit 0",
     "--tpot-p99-limit"),
])
def test_bad_input_is_a_cli_error_naming_the_flag(argv, needle):
    with pytest.raises(CliError) as err:
        cmd_serve_speed(_parser().parse_args(argv.split()))
    assert needle in str(err.value)


def _tpot(argv: str, capsys) -> float:
    assert cmd_serve_speed(_parser().parse_args((argv + " --json").split())) == 0
    return json.loads(capsys.readouterr().out)["serve"]["tpot_s"]


def test_engine_version_and_overlap_flags_set_the_host_overhead(capsys):
    """vLLM 0.7 waits for its CPU each step; --overlap-scheduling hides it; the flag wins over the version."""
    base = "--gpu h100-sxm5 --model llama-3.1-8b --input-tokens 100 --output-tokens 100 --concurrency 1"
    current = _tpot(base, capsys)
    # V0 with CUDA graphs (0.6, 0.7) also hands each token over one step late (the first one after a decode step,
    # the last one at once on an idle engine), which shortens the client's TPOT by one step over 99: compare with the
    # same version overlapped.
    old = _tpot(base + " --engine-version 0.7.0", capsys)
    overlapped = _tpot(base + " --engine-version 0.7.0 --overlap-scheduling", capsys)
    assert old == pytest.approx(overlapped + (1.0e-3 + (5.5e-3 - 1.0e-3) / 256) * 98 / 99, rel=2e-3)
    assert overlapped == pytest.approx(current * 98 / 99, rel=2e-3)


def test_a_server_flag_puts_tp_beyond_its_gpus_across_the_network(capsys):
    base = "--gpu h100-sxm5 --model llama-3.1-70b --input-tokens 100 --output-tokens 100 --concurrency 1 --tp 16"
    assert _tpot(base + " --server hgx-h100", capsys) > _tpot(base, capsys)


@pytest.mark.parametrize("extra, flag", [("--tp 0", "--tp"), ("--tp -2", "--tp"), ("--replicas 0 --tp 1", "--replicas"),
                                         ("--replicas -1", "--replicas")])
def test_parallel_degrees_below_one_are_refused_by_name(extra, flag, capsys):
    # QA: --tp 0 with --count 1 raised ZeroDivisionError (count // tp) instead of a usage error; the parser now
    # refuses a degree below 1 by name (usage error, exit 2).
    argv = ("--gpu h100-sxm5 --model llama-3.1-8b --count 1 --input-tokens 1000 --output-tokens 200 "
            "--concurrency 16 --engine vllm " + extra)
    with pytest.raises(SystemExit) as info:
        cmd_serve_speed(_parser().parse_args(argv.split()))
    err = capsys.readouterr().err
    assert info.value.code == 2 and f"argument {flag}:" in err and "at least 1" in err


def _rps(argv: str, capsys) -> float:
    assert cmd_serve_speed(_parser().parse_args((argv + " --json").split())) == 0
    return json.loads(capsys.readouterr().out)["serve"]["requests_per_s"]


def test_api_server_count_lifts_the_front_end_cap(capsys):
    """Short requests sent at once are capped by one vLLM V1 API server; four of them serve more."""
    base = ("--gpu h100-sxm5 --model llama-3.2-1b --input-tokens 128 --output-tokens 4 --request-rate inf "
            "--engine-version 0.11.0")
    one = _rps(base, capsys)
    assert one < 1 / front_end("vllm", "0.11.0", None).request_s  # one server's own rate caps the run
    assert _rps(base + " --api-server-count 4", capsys) > 2 * one
    with pytest.raises(SystemExit):
        cmd_serve_speed(_parser().parse_args((base + " --api-server-count 0").split()))


def test_pp_flag_answers_pipeline_parallel_serving(capsys):
    """--pp N: each replica is tp x pp GPUs (TensorRT-LLM perf overview, Llama 3.3 70B NVFP4 on two RTX PRO 6000
    Server GPUs, TP1 PP2); a --count that is not tp x pp x replicas is refused by name."""
    p = _parser()
    p.add_argument("--pp", type=int, default=1)
    argv = ("--gpu rtx-pro-6000-bw-server --model llama-3.3-70b --count 2 --pp 2 --input-tokens 1024 "
            "--output-tokens 1024 --batch 3000 --engine trtllm --weight-format nvfp4 --kv-dtype fp8 "
            "--gpu-memory-utilization 0.95 --json")
    assert cmd_serve_speed(p.parse_args(argv.split())) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["serve"]["gpus"] == 2
    assert any(a["name"] == "pipeline_parallel" for a in out["assumptions"])
    with pytest.raises(CliError, match="--pp 2"):
        cmd_serve_speed(p.parse_args(argv.replace("--count 2", "--count 3").split()))


def test_trtllm_backend_flag_reaches_the_host_overhead(capsys):
    # 0.20: the PyTorch flow overlaps its host work (PR 4174), the TensorRT-engine flow (the 0.x default) does not
    # (enableTrtOverlap off)
    argv = ("--gpu b200 --model llama-3.3-70b --count 8 --tp 8 --input-tokens 128 --output-tokens 4096 --batch 1500 "
            "--engine trtllm --engine-version 0.20.0 --weight-format fp4 --kv-dtype fp8 --json")
    assert cmd_serve_speed(_parser().parse_args(argv.split())) == 0
    engine_flow = json.loads(capsys.readouterr().out)["serve"]["output_tokens_per_s"]
    assert cmd_serve_speed(_parser().parse_args((argv + " --trtllm-backend pytorch").split())) == 0
    pytorch_flow = json.loads(capsys.readouterr().out)["serve"]["output_tokens_per_s"]
    assert engine_flow < 0.8 * pytorch_flow
    with pytest.raises(CliError, match="--trtllm-backend"):
        cmd_serve_speed(_parser().parse_args((argv.replace("trtllm", "vllm") + " --trtllm-backend pytorch").split()))


def test_dp_attention_flags_raise_the_kv_capacity_and_are_checked(capsys):
    base = ("--gpu h200-sxm --model deepseek-r1 --count 8 --tp 8 --input-tokens 1024 --output-tokens 1024 "
            "--concurrency 256 --engine sglang --json")
    assert cmd_serve_speed(_parser().parse_args(base.split())) == 0
    plain = json.loads(capsys.readouterr().out)["serve"]
    assert cmd_serve_speed(_parser().parse_args((base + " --enable-dp-attention").split())) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["serve"]["kv_capacity_tokens"] > 6 * plain["kv_capacity_tokens"]
    assert any(a["name"] == "attention_dp" for a in out["assumptions"])
    with pytest.raises(CliError, match="--enable-dp-attention"):
        cmd_serve_speed(_parser().parse_args((base + " --attention-dp 2").split()))
    with pytest.raises(CliError, match="--attention-dp"):
        cmd_serve_speed(_parser().parse_args((base + " --enable-dp-attention --attention-dp 3").split()))


def test_rocm_aiter_off_with_large_kv_blocks_slows_amd_decode(capsys):
    base = ("--gpu mi355x --model llama-3.3-70b --count 8 --tp 8 --input-tokens 16384 --output-tokens 2048 "
            "--concurrency 4 --weight-format fp8 --engine vllm --engine-version 0.15.1 --json")

    def run(extra: str) -> dict:
        assert cmd_serve_speed(_parser().parse_args((base + extra).split())) == 0
        return json.loads(capsys.readouterr().out)

    default, off = run(""), run(" --rocm-aiter off --block-size 128")
    assert off["serve"]["tpot_s"] > 1.5 * default["serve"]["tpot_s"]
    assert "rocm_decode_attention" in {a["name"] for a in off["assumptions"]}
    assert run(" --rocm-aiter on --block-size 128")["serve"]["tpot_s"] == pytest.approx(default["serve"]["tpot_s"])


def test_rocm_aiter_takes_only_on_or_off():
    with pytest.raises(SystemExit):
        _parser().parse_args(["--rocm-aiter", "maybe"])


def test_rocm_aiter_with_another_engine_is_a_clear_error():
    base = ("--gpu mi355x --model llama-3.3-70b --count 8 --tp 8 --input-tokens 1024 --output-tokens 128 "
            "--concurrency 4 --engine sglang --rocm-aiter off")
    with pytest.raises(CliError, match="--rocm-aiter"):
        cmd_serve_speed(_parser().parse_args(base.split()))


def test_scheduler_recv_interval_raises_sglang_ttft_and_is_sglang_only(capsys):
    """SGLang --scheduler-recv-interval 30 (InferenceX's B200 / B300 DeepSeek-R1 recipes at concurrency >= 16): a
    request arriving while 15 others decode waits for the next receive (serve_sched). Spread lengths keep the
    clients out of lock step (with equal lengths all 16 finish together and find the engine idle)."""
    base = ("--gpu h100-sxm5 --model llama-3.1-8b --count 1 --input-tokens 1024 --output-tokens 1024 "
            "--concurrency 16 --length-spread 0.1 --engine sglang --json")

    def run(extra: str) -> dict:
        assert cmd_serve_speed(_parser().parse_args((base + extra).split())) == 0
        return json.loads(capsys.readouterr().out)

    every, thirty = run(""), run(" --scheduler-recv-interval 30")
    assert thirty["serve"]["ttft_s"] - every["serve"]["ttft_s"] > 5 * every["serve"]["tpot_s"]
    with pytest.raises(CliError, match="--scheduler-recv-interval"):
        cmd_serve_speed(_parser().parse_args((base.replace("sglang", "vllm") + " --scheduler-recv-interval 30").split()))


def test_admit_interval_steps_raises_vllm_ttft_and_needs_its_interval(capsys):
    """--admit-interval-steps 11 --admit-min-running 128 (AMD's MLPerf vLLM build, serve_sched): with 256 clients a
    request waits for the next admitting step; the threshold alone does nothing and is refused, as is another engine."""
    base = ("--gpu h100-sxm5 --model llama-3.1-8b --count 1 --input-tokens 1024 --output-tokens 1024 "
            "--concurrency 256 --length-spread 0.1 --engine vllm --json")

    def run(extra: str) -> dict:
        assert cmd_serve_speed(_parser().parse_args((base + extra).split())) == 0
        return json.loads(capsys.readouterr().out)

    every, gated = run(""), run(" --admit-interval-steps 11 --admit-min-running 128")
    assert gated["serve"]["ttft_s"] > 1.5 * every["serve"]["ttft_s"]
    with pytest.raises(CliError, match="--admit-min-running applies with --admit-interval-steps"):
        cmd_serve_speed(_parser().parse_args((base + " --admit-min-running 128").split()))
    with pytest.raises(CliError, match="--admit-interval-steps"):
        cmd_serve_speed(_parser().parse_args((base.replace("vllm", "sglang") + " --admit-interval-steps 11").split()))


def test_sharegpt_length_distribution_lowers_the_throughput_of_a_short_request_rate_run(capsys):
    """ShareGPT-like requests at 16 req/s on one RTX 4090 (IOG's vLLM 0.8.5 runs), more than the engine takes: with
    ShareGPT's long-tailed lengths the run waits for its longest requests after the last arrival (serve_lengths)."""
    base = ("--gpu rtx4090 --model qwen2.5-7b --count 1 --input-tokens 208 --output-tokens 218 --request-rate 16 "
            "--engine vllm --engine-version 0.8.5 --json")

    def run(extra: str) -> dict:
        assert cmd_serve_speed(_parser().parse_args((base + extra).split())) == 0
        return json.loads(capsys.readouterr().out)

    fixed, sharegpt = run(""), run(" --length-distribution sharegpt")
    assert sharegpt["serve"]["output_tokens_per_s"] < 0.85 * fixed["serve"]["output_tokens_per_s"]
    with pytest.raises(SystemExit):
        _parser().parse_args((base + " --length-distribution lmsys").split())


def test_warmup_prompt_and_prefix_cache_flags_reach_the_estimate(capsys):
    # pegainfer docs/benchmarks/gemma4-31b-gh200.md @f8862b1 (fresh30): vLLM on one GH200, random 1024/256, 4 clients,
    # 16 prompts, vllm bench serve's warm-up prompt. With vLLM V1's prefix cache on (its default) the warm-up prompt
    # is cached and the first request runs a step ahead, which shortens the median TTFT; with the cache off (as that
    # run was) the four clients stay in lock step. Without --num-prompts the warm-up has no run to shorten.
    base = ("--gpu gh200-96 --model gemma-4-31b --count 1 --input-tokens 1024 --output-tokens 256 --concurrency 4 "
            "--weight-format bf16 --kv-dtype bf16 --engine vllm --gpu-memory-utilization 0.9 --json")

    def ttft(extra: str) -> float:
        assert cmd_serve_speed(_parser().parse_args((base + extra).split())) == 0
        return json.loads(capsys.readouterr().out)["serve"]["ttft_s"]

    warm = ttft(" --num-prompts 16 --benchmark-warmup")
    off = ttft(" --num-prompts 16 --benchmark-warmup --prefix-caching off")
    assert warm < 0.8 * off
    assert ttft(" --num-prompts 16 --benchmark-warmup --prefix-caching on") == warm
    assert ttft(" --num-prompts 16") == off
    with pytest.raises(SystemExit):
        _parser().parse_args(["--prefix-caching", "maybe"])
