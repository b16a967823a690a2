"""One name per memory part (issue 29): the window's legend, the configuration sheet and the CLI's ``estimate
memory`` table print each part of the per-GPU breakdown with the same words, in English and in Chinese."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gpudesk import i18n
from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.planner import plan, plan_to_dict
from gpudesk.planner.memory_parts import memory_part_label
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.sheet import build_sheet
from gpudesk.planner.sheet_markdown import sheet_to_markdown
from gpudesk.sizing.estimate import COMPONENT_ORDER
from gpudesk.ui.plan.live_preview import part_names
from gpudesk.ui.plan.memory_chart import MemoryBarSpec, MemoryBreakdownChart


@pytest.fixture(params=["en", "zh_CN"])
def language(request) -> Iterator[str]:
    before = i18n.current_language()
    i18n.set_language(request.param)
    try:
        yield request.param
    finally:
        i18n.set_language(before)


def _lora_8b() -> Requirement:
    req = Requirement()
    req.model.model = "meta-llama/Llama-3.1-8B"
    req.model.mode = "lora"
    req.model.seq_len_tokens = 4096
    req.data.sample_count = 200_000
    req.workload.deadline_s = 7 * 86400
    return req


def test_every_part_has_one_name_and_the_legend_uses_it(language):
    names = part_names()
    assert list(names) == list(COMPONENT_ORDER)
    for key in COMPONENT_ORDER:
        assert names[key] == memory_part_label(key)
        assert names[key] != key.replace("_", " ")  # a named part, not the fallback of an unknown key
    assert len(set(names.values())) == len(names)
    if language == "zh_CN":
        assert (names["kv_cache"], names["framework_overhead"], names["fragmentation"]) == (
            "KV 缓存", "NCCL / 运行时", "碎片余量")
    else:
        assert (names["kv_cache"], names["cuda_context"], names["framework_overhead"]) == (
            "KV cache", "CUDA context", "NCCL / runtime")


def test_window_legend_and_sheet_name_the_parts_of_a_plan_alike(qtbot, language):
    catalog = open_catalog()
    result = plan(_lora_8b(), catalog)
    data = plan_to_dict(result)
    sheet = build_sheet(data, catalog=catalog)
    markdown = sheet_to_markdown(sheet)
    top = result.candidates[0]

    chart = MemoryBreakdownChart(None, part_names())
    qtbot.addWidget(chart)
    breakdown = top.memory.breakdown
    chart.set_bars([MemoryBarSpec("top", list(breakdown.items()), None, None)])
    legend = dict(zip(breakdown, chart.legend.entries))
    assert sheet.memory_parts and {name for name, _size in sheet.memory_parts} <= set(legend)
    for name, _size in sheet.memory_parts:
        assert f"| {legend[name]} |" in markdown, (name, legend[name])
    assert "| " + memory_part_label("weights") + " |" in markdown


def test_cli_estimate_memory_names_the_parts_as_the_window_does(capsys, language):
    assert main(["--lang", language, "estimate", "memory", "--model", "llama-3.1-8b", "--mode", "inference"]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = [line.split("  ")[0] for line in lines]
    for key in ("weights", "kv_cache", "cuda_context", "framework_overhead"):
        assert memory_part_label(key) in first and key not in first
