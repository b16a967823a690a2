"""The training estimate's assumption lines under zh_CN (``gpudesk estimate speed`` prints them): every value and
source that is prose reads in Chinese, numbers and stable names are kept. A published layout with every optional
line: Llama 3.1 405B FP8 on 512 H100, TP 8 PP 8 VP 8 CP 2 (NVIDIA dgxc-benchmarking llama3.1 README, v25.04)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from gpudesk import i18n
from gpudesk.catalog import open_catalog
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_train import TrainSetup, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates

CJK = re.compile(r"[\u4e00-\u9fff]")
# Values that are numbers (or a number and a unit) by design.
NUMERIC = {"matmul_efficiency", "in_situ_share_of_mamf", "hbm_efficiency", "link_efficiency", "pipeline_bubble"}


def _language(language: str) -> Iterator[None]:
    before = i18n.current_language()
    i18n.set_language(language)
    try:
        yield
    finally:
        i18n.set_language(before)


@pytest.fixture
def zh_cn() -> Iterator[None]:
    yield from _language("zh_CN")


@pytest.fixture
def english() -> Iterator[None]:
    yield from _language("en")


def _speed():
    catalog = open_catalog()
    spec = spec_from_catalog(catalog.find_model("llama-3.1-70b"))
    setup = TrainSetup(gpus=512, seq_len=8192, global_batch=256, tp=8, pp=8, vp=5, cp=2, precision="fp8",
                       mtp_layers=1, recompute_modules=("core_attn",), ep_comm_overlap=False)
    return train_speed(spec, gpu_rates(catalog.find_gpu("h100-sxm5")), setup)


def test_every_prose_line_reads_in_chinese(zh_cn) -> None:
    speed = _speed()
    names = {a.name for a in speed.assumptions}
    assert {"pipeline_last_stage", "ring_attention", "cp_kv_exchange", "fp8", "mtp_layers",
            "recompute_modules"} <= names
    for a in speed.assumptions:
        if a.name not in NUMERIC:
            assert CJK.search(a.value), (a.name, a.value)
        if a.name != "matmul_efficiency":  # the catalog's own source text (data, not a message)
            assert CJK.search(a.source) or re.fullmatch(r"[\x20-\x7e]*", a.source) is None, (a.name, a.source)


def test_english_lines_are_unchanged(english) -> None:
    speed = _speed()
    lines = {a.name: a.value for a in speed.assumptions}
    assert lines["pipeline_last_stage"].startswith("the last stage runs the output head")
    assert not any(CJK.search(a.value + a.source) for a in speed.assumptions)
