"""The refusal for GPUs the expert-parallel layout does not divide (qa51 D9): worded with settings a user types,
singular for 1 GPU, and listing the counts that would divide."""

import pytest

from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.train_expert_parallel import check_expert_parallel


@pytest.fixture(scope="module")
def qwen_moe():
    from gpudesk.catalog import open_catalog

    return spec_from_catalog(open_catalog().model("qwen3-30b-a3b"))


@pytest.mark.parametrize("gpus, tp, want", [
    (12, 1, "12 GPUs do not divide into expert parallel 8; use a multiple of 8 GPUs (8, 16, 24, ...)."),
    (1, 1, "1 GPU does not divide into expert parallel 8;"),
    (12, 2, "expert parallel 8 x tensor parallel 2 x pipeline stages 1 = 16; use a multiple of 16 GPUs (16, 32, 48"),
])
def test_not_divisible_names_typed_settings_and_valid_counts(qwen_moe, gpus, tp, want):
    with pytest.raises(SizingError) as info:
        check_expert_parallel(qwen_moe, 8, gpus=gpus, expert_tensor_parallel=tp)
    assert want in info.value.reason
    assert "expert-tensor-parallel" not in info.value.reason
