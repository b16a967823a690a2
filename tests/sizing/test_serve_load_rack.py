"""A GB200/GB300 NVL72 rack is one NVLink domain of 72 GPUs: a serving option placed on it says so with
``gpus_per_node=72`` (MLPerf Inference v5.1 GB200/GB300 NVL72 systems run nine 8-GPU DeepSeek-R1 replicas)."""
from __future__ import annotations

import pytest

from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_load import MAX_GPUS_PER_NODE, ServeLoad


def _rack_load(gpus_per_node: int) -> ServeLoad:
    return ServeLoad(engine="trtllm", input_tokens=804, output_tokens=3880, concurrency=512, tp=8, replicas=9,
                     gpus_per_node=gpus_per_node)


def test_an_nvl72_rack_is_a_node_of_72_gpus() -> None:
    assert _rack_load(72).validated().gpus_per_node == 72


def test_a_scale_up_domain_beyond_any_rack_is_refused() -> None:
    with pytest.raises(SizingError) as err:
        _rack_load(MAX_GPUS_PER_NODE + 1).validated()
    assert err.value.field == "gpus_per_node"
