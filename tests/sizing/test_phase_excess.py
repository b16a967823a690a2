"""The shared "a phase of its own exceeds the run's allocated peak -> add the excess" step
(gpudesk.sizing.estimate.add_phase_excess), used by the fused-q/k/v load, the fp32 load cast and DeepSpeed's
engine start over a model built outside zero.Init."""

from __future__ import annotations

from gpudesk.sizing.estimate import add_phase_excess
from gpudesk.sizing.fused_load import add_fused_qkv_load
from gpudesk.sizing.load_cast import add_fp32_load_cast
from gpudesk.sizing.zero3_outside_init import add_engine_start_model

GIB = 2**30


def test_excess_over_the_allocated_parts_only() -> None:
    # Overheads, the allocator's cache and the stream caches are not tensors of the run: left out of its side.
    parts: dict[str, float] = {"weights": 4 * GIB, "activations": 2 * GIB, "cuda_context": 10 * GIB, "fragmentation": 10 * GIB,
             "zero3_stream_cache": 10 * GIB, "loading_reserve": 10 * GIB}
    assert add_phase_excess(parts, "phase", 9 * GIB) == 3 * GIB
    assert parts["phase"] == 3 * GIB


def test_no_part_when_the_run_is_larger() -> None:
    parts: dict[str, float] = {"weights": 4 * GIB, "activations": 2 * GIB}
    assert add_phase_excess(parts, "phase", 6 * GIB) == 0
    assert "phase" not in parts


def test_beside_parts_leave_both_sides() -> None:
    parts: dict[str, float] = {"weights": 4 * GIB, "activations": 1 * GIB}
    assert add_phase_excess(parts, "phase", 3 * GIB, beside=frozenset({"weights"})) == 2 * GIB


def test_the_three_callers_add_the_same_excess_as_before() -> None:
    # fused q/k/v: copy - transients (weights beside)
    parts: dict[str, float] = {"weights": 8 * GIB, "kv_cache": 1 * GIB, "cuda_context": GIB}
    assert add_fused_qkv_load(parts, 3 * GIB) is not None
    assert parts["fused_load_copy"] == 2 * GIB
    # fp32 cast: fp32 weights + first copy - 16-bit weights - transients
    parts = {"weights": 8 * GIB, "activations": 1 * GIB}
    assert add_fp32_load_cast(parts, "bf16", 0.5 * GIB) is not None
    assert parts["load_cast_copy"] == 16 * GIB + 0.5 * GIB - 8 * GIB - 1 * GIB
    # engine start: whole model - training's allocated
    parts = {"weights": 1 * GIB, "optimizer_states": 2 * GIB, "framework_overhead": 5 * GIB}
    assert add_engine_start_model(parts, 10 * GIB) is not None
    assert parts["zero3_engine_start_model"] == 7 * GIB
    parts = {"weights": 1 * GIB, "optimizer_states": 20 * GIB}
    assert add_engine_start_model(parts, 10 * GIB) is None
    assert "zero3_engine_start_model" not in parts
