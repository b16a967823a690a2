"""Forty-eighth pass (issue 28): engine wordings the doctor did not read, each from its engine's own log.

* TensorRT's builder (8.6-9) logging a tactic it skips with its units, "Tactic Device request: N MB Available: M MB.
  Device memory is insufficient to use tactic.", before the unit-less "Skipping tactic ... requested size of N": the
  tactic's scratch in one piece, read in MB (single_allocation_exceeds_capacity, the workspace limit as the fix).

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own evidence."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# NVIDIA/TensorRT-LLM#85 (LLaMA 13B engine for max_batch_size 128 on a 40 GB A100).
TRT_TACTIC_MB = (
    "[10/24/2023-06:48:50] [TRT] [I] Global timing cache in use. Profiling results in this builder pass will be stored.\n"
    "[10/24/2023-06:48:53] [TRT] [W] Tactic Device request: 41472MB Available: 40338MB. Device memory is insufficient "
    "to use tactic.\n"
    "[10/24/2023-06:48:53] [TRT] [W] UNSUPPORTED_STATESkipping tactic 0 due to insufficient memory on requested size "
    "of 41472 detected for tactic 0x0000000000000000.")
# cumulo-autumn/StreamDiffusion#161 (the unit-less line alone, in bytes, on a 16 GB RTX 4080 at batch 4).
TRT_TACTIC_BYTES_ALONE = (
    "[W] UNSUPPORTED_STATESkipping tactic 0 due to insufficient memory on requested size of 11580055552 detected for "
    "tactic 0x0000000000000000.Try decreasing the workspace size with IBuilderConfig::setMemoryPoolLimit().")


def test_trt_tactic_device_request_in_mb_is_one_piece() -> None:
    d = diagnose_text(TRT_TACTIC_MB)
    top = d.causes[0]
    assert top.id == "single_allocation_exceeds_capacity"
    assert top.evidence["tactic_workspace_bytes"] == 41472 * 2**20
    assert "workspace" in top.fix
    assert any(c.id == "genuine_shortage" for c in d.causes[1:])


def test_trt_unitless_tactic_size_alone_is_not_read_as_mb() -> None:
    d = diagnose_text(TRT_TACTIC_BYTES_ALONE)
    assert d.causes[0].id == "genuine_shortage"
    assert all(c.evidence.get("tactic_workspace_bytes") != 11580055552 * 2**20 for c in d.causes)
