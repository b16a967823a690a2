"""`gpudesk --lang zh_CN estimate speed` (serving): every assumption sentence reads in Chinese; only bare numbers and
on/off values stay ASCII (QA report, helper qa6 item 1)."""

from __future__ import annotations

import re

import pytest

from gpudesk import i18n
from gpudesk.cli import main

_CJK = re.compile(r"[\u4e00-\u9fff]")
_BARE_VALUE = re.compile(r"^(?:[-+0-9.e]+|true|false)$")


@pytest.fixture(autouse=True)
def language_restored():
    before = i18n.current_language()
    yield
    i18n.set_language(before)


def _assumption_values(out: str) -> dict[str, str]:
    block = out.split("假设：", 1)[1]
    values = {}
    for line in block.splitlines():
        if line.startswith("  ") and ": " in line:
            name, rest = line.strip().split(": ", 1)
            values[name] = rest.split("  [", 1)[0]
    return values


@pytest.mark.parametrize("setup", [
    ["--engine", "vllm", "--model", "llama-3-8b", "--gpu", "h100-sxm5"],
    ["--engine", "vllm", "--model", "llama-3-70b", "--gpu", "h100-sxm5", "--count", "8", "--tp", "8"],
    ["--engine", "sglang", "--model", "deepseek-v3", "--gpu", "h200-sxm", "--count", "8", "--tp", "8"],
    ["--engine", "vllm", "--model", "qwen2.5-72b", "--gpu", "mi300x", "--count", "2", "--tp", "2"],
])
def test_no_serving_assumption_is_left_as_an_english_sentence(capsys, setup):
    assert main(["--lang", "zh_CN", "estimate", "speed", *setup, "--input-tokens", "1000", "--output-tokens", "200",
                 "--concurrency", "8"]) == 0
    values = _assumption_values(capsys.readouterr().out)
    assert {"kv_capacity_tokens", "hbm_efficiency", "matmul_efficiency", "kernel_floor_s"} <= set(values)
    english = {name: value for name, value in values.items()
               if not _CJK.search(value) and not _BARE_VALUE.match(value)}
    assert english == {}


def test_the_rates_read_as_shares_of_the_peak_in_chinese(capsys):
    assert main(["--lang", "zh_CN", "estimate", "speed", "--engine", "vllm", "--model", "llama-3-8b", "--gpu",
                 "h100-sxm5", "--input-tokens", "1000", "--output-tokens", "200", "--concurrency", "8"]) == 0
    values = _assumption_values(capsys.readouterr().out)
    assert values["hbm_efficiency"].startswith("3350 GB/s 的 ")
    assert values["kernel_floor_s"] == "每步 320 个内核，每个 3.4e-06 秒"
    assert re.fullmatch(r"\d+ 个 token（\d+\.\d GiB，bf16）", values["kv_capacity_tokens"])
