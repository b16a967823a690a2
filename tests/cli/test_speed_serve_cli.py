"""``gpudesk estimate speed`` serving flags: the answer of serve_speed as text or JSON, bad input as a CliError."""

from __future__ import annotations

import argparse
import json

import pytest

from gpudesk.cli import CliError
from gpudesk.cli.speed_serve import add_serve_arguments, cmd_serve_speed


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
    ("--gpu h100-sxm5 --model llama-3.1-70b --input-tokens 10 --output-tokens 10 --batch 1", "--gpu-memory-utilization"),
    ("--gpu h100-sxm5 --model llama-3.1-8b --count 3 --tp 2 --input-tokens 10 --output-tokens 10 --batch 1", "--count"),
    ("--gpu h100-sxm5 --model llama-3.1-8b --input-tokens 10 --output-tokens 10 --batch 1 --gpu-memory-utilization 1.5",
     "--gpu-memory-utilization"),
])
def test_bad_input_is_a_cli_error_naming_the_flag(argv, needle):
    with pytest.raises(CliError) as err:
        cmd_serve_speed(_parser().parse_args(argv.split()))
    assert needle in str(err.value)
