"""A serving row's on/off switches (``rocm_aiter``, tests/fixtures/speed/README.md) and block size."""

from __future__ import annotations

import pytest

from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.speed_serve_cases import load_of_case

ROW = {"engine": "vllm", "input_tokens": 1024, "output_tokens": 256, "concurrency": 16, "tp": 8, "gpus": 8}


@pytest.mark.parametrize(("value", "expected"), [
    (None, None), ("on", True), ("off", False), (" OFF ", False), (True, True), (False, False), (1, True), (0, False),
])
def test_rocm_aiter_switch_reads_on_and_off(value: object, expected: bool | None) -> None:
    row = dict(ROW) if value is None else dict(ROW, rocm_aiter=value)
    assert load_of_case(row).rocm_aiter is expected


@pytest.mark.parametrize("value", ["of", "disabled", "2"])
def test_rocm_aiter_switch_refuses_other_words(value: str) -> None:
    with pytest.raises(SizingError) as err:
        load_of_case(dict(ROW, rocm_aiter=value))
    assert err.value.field == "rocm_aiter"


def test_block_size_is_read() -> None:
    assert load_of_case(dict(ROW, block_size=128)).kv_block_size == 128
    assert load_of_case(ROW).kv_block_size is None


def test_rocm_aiter_is_refused_for_other_engines() -> None:
    # Only vLLM reads VLLM_ROCM_USE_AITER; a switch that would change nothing is refused, not ignored.
    with pytest.raises(SizingError) as err:
        load_of_case(dict(ROW, engine="sglang", rocm_aiter="off")).validated()
    assert err.value.field == "rocm_aiter"
    assert load_of_case(dict(ROW, rocm_aiter="off")).validated().rocm_aiter is False


def test_a_zero_block_size_is_refused_not_read_as_absent() -> None:
    with pytest.raises(SizingError) as err:
        load_of_case(dict(ROW, block_size=0)).validated()
    assert err.value.field == "kv_block_size"
