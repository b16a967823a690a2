"""``estimate speed --engine lmdeploy``: LMDeploy's flags reach the model (lmdeploy serve api_server
--backend / --cache-max-entry-count / --max-batch-size / --max-prefill-token-num), and are refused with another engine
rather than dropped unseen."""

from __future__ import annotations

import json

import pytest

from gpudesk.cli import main

SERVE = ["estimate", "speed", "--model", "llama-2-7b", "--gpu", "a100-80-sxm4", "--engine", "lmdeploy",
         "--input-tokens", "1024", "--output-tokens", "256", "--concurrency", "64"]


def _assumptions(capsys, extra: list[str]) -> dict[str, str]:
    assert main(SERVE + extra + ["--json"]) == 0
    return {a["name"]: a["value"] for a in json.loads(capsys.readouterr().out)["assumptions"]}


def test_lmdeploy_is_an_engine_with_its_release_defaults(capsys):
    """v0.6.0 on an A100: max_batch_size 256 (utils.get_max_batch_size), cache 0.8 of the free memory, 8192."""
    seen = _assumptions(capsys, ["--engine-version", "0.6.0"])
    assert seen["max_running_requests"] == "256 requests"
    assert seen["token_budget_per_step"] == "8,192 tokens"
    assert seen["engine_memory_fraction"].startswith("80")
    assert main(SERVE) == 0
    assert "lmdeploy TurboMind" in capsys.readouterr().out.splitlines()[0]


def test_lmdeploy_flags_reach_the_model(capsys):
    seen = _assumptions(capsys, ["--max-batch-size", "32", "--max-prefill-token-num", "2048",
                                 "--cache-max-entry-count", "0.5", "--lmdeploy-backend", "pytorch"])
    assert seen["max_running_requests"] == "32 requests"
    assert seen["token_budget_per_step"] == "2,048 tokens"
    assert seen["engine_memory_fraction"].startswith("50")
    assert seen["mixed_prefill"] == "no"  # the PyTorch engine's prefill steps of their own


def test_lmdeploy_flags_are_refused_elsewhere(capsys):
    vllm = [a if a != "lmdeploy" else "vllm" for a in SERVE]
    assert main(vllm + ["--max-batch-size", "32"]) != 0
    assert "--max-batch-size is an LMDeploy setting" in capsys.readouterr().err
    assert main(SERVE + ["--cache-max-entry-count", "0.5", "--gpu-memory-utilization", "0.6"]) != 0
    assert "give one" in capsys.readouterr().err
    assert main(SERVE + ["--trtllm-backend", "pytorch"]) != 0
    assert "--lmdeploy-backend" in capsys.readouterr().err


def test_quant_policy_is_the_kv_cache_dtype(capsys):
    """--quant-policy 8 / 4 (lmdeploy/cli/utils.py, choices [0, 4, 8] from v0.4.0): an int8 KV cache holds twice
    the tokens of bf16 and an int4 one four times; int4 is refused before 0.4.0 and with another engine."""
    tokens = {}
    for policy in ("0", "8", "4"):
        value = _assumptions(capsys, ["--quant-policy", policy])["kv_capacity_tokens"]
        tokens[policy] = int(value.split(" ")[0].replace(",", ""))
    assert tokens["8"] == pytest.approx(2 * tokens["0"], rel=0.01)
    assert tokens["4"] == pytest.approx(4 * tokens["0"], rel=0.01)
    assert main(SERVE + ["--quant-policy", "4", "--engine-version", "0.3.0"]) != 0
    assert "no int4 KV cache" in capsys.readouterr().err
    vllm = [a if a != "lmdeploy" else "vllm" for a in SERVE]
    assert main(vllm + ["--kv-dtype", "int8"]) != 0
    assert "LMDeploy's quant_policy" in capsys.readouterr().err
