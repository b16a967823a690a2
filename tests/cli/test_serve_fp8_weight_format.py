"""``gpudesk estimate serve --weight-format fp8`` on a 16-bit checkpoint prints the command that loads FP8 weights
(``--quantization fp8``), the same text in JSON; the FP8 change names the CLI's own flag."""

from __future__ import annotations

import json

from gpudesk.cli import main

ARGS = ["estimate", "serve", "--engine", "vllm", "--model", "llama-3.1-8b", "--gpu", "h100-sxm5",
        "--weight-format", "fp8"]


def test_fp8_weight_format_command_carries_quantization_fp8_in_text_and_json(capsys) -> None:
    assert main([*ARGS, "--json"]) == 0
    command = json.loads(capsys.readouterr().out)["command"]
    assert "--quantization fp8" in command
    assert main(ARGS) == 0
    assert f"  {command}\n" in capsys.readouterr().out


def test_fp8_change_names_the_weight_format_flag(capsys) -> None:
    assert main(["estimate", "serve", "--engine", "vllm", "--model", "qwen3-32b", "--gpu", "l40s", "--json"]) == 0
    change = next(c for c in json.loads(capsys.readouterr().out)["changes"] if c["weight_format"] == "fp8")
    assert main(["estimate", "serve", "--engine", "vllm", "--model", "qwen3-32b", "--gpu", "l40s"]) == 0
    assert f"  - {change['change']} (for the weights, --weight-format fp8 does the same)\n" in capsys.readouterr().out
    assert "gpudesk:" not in change["change"]
