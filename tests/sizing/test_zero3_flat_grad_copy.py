"""DeepSpeed ZeRO-3's step casts a flat 16-bit copy of the sub-group's gradients to fp32 (memfix43)."""

from __future__ import annotations

import pytest

from gpudesk.sizing.optimizers import (
    ZERO3_SUB_GROUP_ELEMENTS,
    ZERO3_SUB_GROUP_FP32_GRAD_BYTES,
    step_temporary_bytes_per_param,
    zero3_sub_group_step_bytes,
)


def test_fused_adam_16bit_grads_count_the_flat_copy() -> None:
    # fused AdamW keeps no step temporaries, so the 16-bit flat copy (2 B) is the larger transient.
    assert step_temporary_bytes_per_param("adamw", "bf16", "fused") == 0
    n = 1e8
    assert zero3_sub_group_step_bytes(n, "adamw", "bf16", "fused", grad_bytes=2.0) == pytest.approx(
        n * (ZERO3_SUB_GROUP_FP32_GRAD_BYTES + 2.0))


def test_fp32_grads_make_no_second_copy() -> None:
    # ``.to(fp32)`` of an fp32 flat tensor returns it: the flat copy is the fp32 gradient itself.
    n = 1e8
    assert zero3_sub_group_step_bytes(n, "adamw", "fp32", "fused", grad_bytes=4.0) == pytest.approx(
        n * ZERO3_SUB_GROUP_FP32_GRAD_BYTES)


def test_flat_copy_and_step_temporaries_do_not_add() -> None:
    # The flat copy is dropped before ``_optimizer_step`` makes its temporaries: the larger of the two counts.
    n = 1e8
    temp = step_temporary_bytes_per_param("adamw", "bf16", "foreach")
    got = zero3_sub_group_step_bytes(n, "adamw", "bf16", "foreach", grad_bytes=2.0)
    assert got == pytest.approx(n * (ZERO3_SUB_GROUP_FP32_GRAD_BYTES + max(2.0, temp)))


def test_sub_group_cap_applies_to_the_copy() -> None:
    got = zero3_sub_group_step_bytes(5e9, "adamw", "bf16", "fused", grad_bytes=2.0)
    assert got == pytest.approx(ZERO3_SUB_GROUP_ELEMENTS * (ZERO3_SUB_GROUP_FP32_GRAD_BYTES + 2.0))


def test_closed_accounting_adds_nothing() -> None:
    assert zero3_sub_group_step_bytes(1e8, "adam-16", "bf16", "fused", grad_bytes=2.0) == 0.0


def test_no_always_true_switch_guards_the_copy() -> None:
    # qafix4: ZERO3_FLAT_GRAD_COPY was a constant fixed to True that no user input could change; the copy is now
    # counted unconditionally (the tests above pin the same bytes as before).
    from gpudesk.sizing import optimizers

    assert not hasattr(optimizers, "ZERO3_FLAT_GRAD_COPY")
