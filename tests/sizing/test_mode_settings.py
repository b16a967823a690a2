"""The one table of which settings each mode reads (:mod:`gpudesk.sizing.mode_settings`), through
:func:`estimate_memory` on a real config, as the wizard and the profile loader call it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory
from gpudesk.sizing.shapes import spec_from_hf_config

CONFIG = Path(__file__).parents[1] / "fixtures" / "sizing" / "configs" / "bloomz-7b1.config.json"


def test_every_mode_accepts_a_workload_left_at_its_defaults() -> None:
    spec = spec_from_hf_config(CONFIG)
    for mode in ("train", "lora", "qlora", "inference"):
        assert estimate_memory(spec, MemoryWorkload(mode=mode)).total_bytes > 0


@pytest.mark.parametrize(("mode", "setting", "value"), [
    ("inference", "optimizer", "adam-8bit"), ("inference", "recompute", "full"),
    ("train", "double_quant", False), ("lora", "legacy_bnb_matmul", True), ("train", "kv_cache_impl", "static"),
    ("qlora", "weight_format", "int8"), ("inference", "lora_targets", ("q_proj",)),
])
def test_a_setting_the_mode_does_not_read_names_itself(mode: str, setting: str, value: object) -> None:
    with pytest.raises(SizingError) as info:
        estimate_memory(spec_from_hf_config(CONFIG), MemoryWorkload(mode=mode, **{setting: value}))
    assert info.value.field == setting


def test_a_training_weight_format_that_restates_the_precision_is_not_an_ignored_setting() -> None:
    assert estimate_memory(spec_from_hf_config(CONFIG), MemoryWorkload(mode="train", weight_format="bf16")).total_bytes
