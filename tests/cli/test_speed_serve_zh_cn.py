"""`gpudesk --lang zh_CN estimate speed` (serving): every assumption reads in Chinese, its label as well as its value;
only bare numbers with their units stay ASCII (QA report, helper qa6 item 1; issue 24: labels and units)."""

from __future__ import annotations

import re

import pytest

from gpudesk import i18n
from gpudesk.cli import main
from gpudesk.sizing.speed_common import ASSUMPTION_LABELS

_CJK = re.compile(r"[\u4e00-\u9fff]")
_BARE_VALUE = re.compile(r"^[0-9.,]+(?: %| GB/s)?$")


@pytest.fixture(autouse=True)
def language_restored():
    before = i18n.current_language()
    yield
    i18n.set_language(before)


def _assumption_values(out: str) -> dict[str, str]:
    """Assumption name -> its value as printed, found by its translated label ("标签：值  [来源]")."""
    i18n.set_language("zh_CN")  # the labels as the command printed them (the fixture restores the language)
    names = {i18n.marked(label): name for name, label in ASSUMPTION_LABELS.items()}
    block = out.split("假设：", 1)[1]
    values = {}
    for line in block.splitlines():
        if line.startswith("  ") and "：" in line:
            label, rest = line.strip().split("：", 1)
            assert label in names, f"{label!r} is not a translated assumption label"
            values[names[label]] = rest.split("  [", 1)[0]
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
    assert values["hbm_efficiency"].startswith("3,350 GB/s 的 ") and values["hbm_efficiency"].endswith(" %")
    assert values["kernel_floor_s"] == "每步 320 个内核，每个 3.4 微秒"
    assert values["host_overhead_s"].startswith("每步 1 毫秒 + 每个运行中请求 17.6 微秒")
    assert re.fullmatch(r"\d{3},\d{3} 个 token（\d+\.\d GiB，bf16）", values["kv_capacity_tokens"])
    assert "e-0" not in "".join(values.values())
