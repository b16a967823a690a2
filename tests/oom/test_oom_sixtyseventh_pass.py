"""Sixty-seventh pass of the OOM doctor (issue 28): held-out messages whose failing call or log line names the
mechanism. Every positive text is the real message quoted from its public thread in its comment; the negatives keep
the neighbouring words of an ordinary log and must not be read so."""

from __future__ import annotations

import pytest

from gpudesk.oom import diagnose_text
from gpudesk.oom.rules import kv_manager_shortfall

# LMCache/LMCache-Ascend#5: mlock(2) of the registered host buffer refused (RLIMIT_MEMLOCK in a container).
PIN_HOST = "RuntimeError: Unable to pin host memory with error code: -1"
# YoshitakaMo/localcolabfold#44: cudaErrorUnsupportedPtxVersion, a driver older than the toolkit.
PTX_TOOLCHAIN = ("jax._src.traceback_util.UnfilteredStackTrace: RuntimeError: INTERNAL: CustomCall failed: "
                 "jaxlib/cuda_prng_kernels.cc:30: operation cudaGetLastError() failed: the provided PTX was compiled "
                 "with an unsupported toolchain.")
# ollama/ollama#2029: a CUDA error, then a service no SIGTERM could stop (a faulty NVLink board).
UNKILLABLE_AFTER_CUDA_ERROR = ('1. ggml-cuda.cu: "8792: !" CUDA error\n'
                               "2. ollama.service: State 'stop-sigterm' timed out. Killing.")
# ovg-project/kvcached#191: the KV-cache manager's own comparison before the engine core's fatal error.
KV_MANAGER = (
    "(EngineCore_DP0 pid=10311) [kvcached][WARNING][2025-10-25 11:17:27][kv_cache_manager.py:164] available_size()=9.0 "
    "< need_size=30 10.80 toks/s]\n"
    "(EngineCore_DP0 pid=10311) ERROR 10-25 11:17:27 [core.py:720] EngineCore encountered a fatal error.\n"
    "(EngineCore_DP0 pid=10311) ERROR 10-25 11:17:27 [core.py:720] Traceback (most recent call last):")
# ggml-org/llama.cpp#22107: two gfx906 cards without VMM, the legacy pool bloating until HSA's allocation fails.
GGML_NO_VMM_BLOAT = (
    "ggml_cuda_init: found 2 ROCm devices (Total VRAM: 32736 MiB):\n"
    "  Device 0: AMD Radeon Pro VII, gfx906:sramecc+:xnack- (0x906), VMM: no, Wave Size: 64, VRAM: 16368 MiB\n"
    "  Device 1: AMD Radeon Pro VII, gfx906:sramecc+:xnack- (0x906), VMM: no, Wave Size: 64, VRAM: 16368 MiB\n"
    "version: 8840 (9e5647aff)\n"
    "llama-server -m '/data/models/gemma-4-31B-it-IQ4_NL.gguf' -ngl 999 -ctk q8_0 -ctv q8_0 -np 1 -b 4096 -ub 256 "
    "-fa on -cram 32768 -c 131072\n"
    "- Issue: Severe VRAM bloating leading to OOM (`HSA exception: MemoryRegion::BlockAllocator::alloc failed`)")


def _top(text: str):
    diagnosis = diagnose_text(text)
    assert diagnosis.found_oom, text
    return diagnosis.causes[0]


@pytest.mark.parametrize(("text", "check"), [(PIN_HOST, "pin_memory"), (PTX_TOOLCHAIN, "driver_version"),
                                             (UNKILLABLE_AFTER_CUDA_ERROR, "xid")])
def test_call_names_a_not_capacity_check(text, check):
    top = _top(text)
    assert top.id == "not_capacity"
    assert top.evidence.get("deciding_check") == check


def test_nvlink_error_line_beside_an_oom_is_hardware():
    top = _top("RuntimeError: CUDA error: out of memory\n"
               "NVLink: fatal error detected on link 3 of GPU 1")
    assert top.id == "not_capacity" and top.evidence.get("deciding_check") == "xid"


def test_kv_manager_comparison_is_the_kv_budget():
    top = _top(KV_MANAGER)
    assert top.id == "kv_cache_budget"
    assert top.evidence["kv_blocks_available"] == 9.0 and top.evidence["kv_blocks_needed"] == 30.0


def test_ggml_legacy_pool_growth_is_fragmentation():
    assert _top(GGML_NO_VMM_BLOAT).id == "fragmentation"


@pytest.mark.parametrize("text", [
    # A comparison with room, and one outside a KV cache.
    "[kv_cache_manager.py:164] available_size()=90.0 < need_size=30",
    "[block_manager.py:80] available_size()=9.0 < need_size=30",
])
def test_kv_manager_comparison_needs_a_kv_line_and_a_shortfall(text):
    assert kv_manager_shortfall.shortfall(text) is None


@pytest.mark.parametrize("text", [
    # The same device lines with VMM, and without growth words.
    GGML_NO_VMM_BLOAT.replace("VMM: no", "VMM: yes"),
    GGML_NO_VMM_BLOAT.replace("Severe VRAM bloating leading to OOM", "OOM at load"),
])
def test_ggml_pool_growth_needs_no_vmm_and_growth(text):
    assert diagnose_text(text).causes[0].id != "fragmentation"


@pytest.mark.parametrize("text", [
    # A slow service stop with no GPU error, and an NVLink status line with nothing wrong.
    "nginx.service: State 'stop-sigterm' timed out. Killing.",
    "NVLink bandwidth test: 4 links active, 25.781 GB/s each",
    "RuntimeError: CUDA error: out of memory\nNVLink status: 4 links active, 0 errors",
    # PTX compiled fine; a page-locked buffer allocated fine.
    "ptxas info: compiled with toolchain 12.4, 0 bytes stack frame",
    "Pinned host memory: 2.00 GiB allocated for staging",
])
def test_ordinary_lines_are_not_these_checks(text):
    diagnosis = diagnose_text(text)
    checks = {c.evidence.get("deciding_check") for c in diagnosis.causes[:1]}
    assert not diagnosis.found_oom or not checks & {"xid", "driver_version", "pin_memory"}, text


# vllm-project/vllm#51080: the CPU KV offload region registered (page-locked) in one call; the pending error reported
# as a bare CUDA out of memory on a later call.
OFFLOAD_REGION = (
    "--kv-transfer-config '{\"kv_connector\":\"OffloadingConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\""
    ":{\"block_size\":256,\"cpu_bytes_to_use\":600000000000}}'\n"
    "AcceleratorError: CUDA error: out of memory\n"
    "| 549.7e9 (511.96 GiB) | success, 55.4 s |\n"
    "| 549.9e9 (512.15 GiB) | **fails, code=2** |")


def test_bare_oom_beside_a_host_offload_buffer_is_pinned_memory():
    top = _top(OFFLOAD_REGION)
    assert top.id == "not_capacity" and top.evidence.get("deciding_check") == "pin_memory"


@pytest.mark.parametrize("text", [
    # No host buffer configured (size 0), and the caching allocator's own failure with its request.
    "vllm serve m --cpu-offload-gb 0\nRuntimeError: CUDA error: out of memory",
    "vllm serve m --cpu-offload-gb 8\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has "
    "a total capacity of 23.64 GiB of which 1.10 GiB is free.",
])
def test_host_offload_needs_a_bare_error_and_a_buffer(text):
    checks = {c.evidence.get("deciding_check") for c in diagnose_text(text).causes[:1]}
    assert "pin_memory" not in checks, text


# openmm/openmm#5252: a checkpoint of 8.3.1 restored by 8.5.0; a 12 MB checkpoint of 81,700 atoms.
CHECKPOINT = (
    "Traceback (most recent call last):\n"
    'File "run_resume.py", line 55, in <module>\n'
    "sim.loadCheckpoint(chk_file)\n"
    'File ".conda/envs/openmm/lib/python3.11/site-packages/openmm/app/simulation.py", line 317, in loadCheckpoint\n'
    "self.context.loadCheckpoint(f.read())\n"
    'File ".conda/envs/openmm/lib/python3.11/site-packages/openmm/openmm.py", line 6196, in loadCheckpoint\n'
    "return _openmm.Context_loadCheckpoint(self, checkpoint)\n"
    "openmm.OpenMMException: Error creating array random: CUDA_ERROR_OUT_OF_MEMORY (2)")


def test_oom_while_restoring_a_binary_checkpoint_is_its_sizes():
    top = _top(CHECKPOINT)
    assert top.id == "not_capacity" and top.evidence.get("deciding_check") == "absurd_size"


@pytest.mark.parametrize("text", [
    # The same failure outside a checkpoint restore, and a restore that failed for something else.
    "openmm.OpenMMException: Error creating array random: CUDA_ERROR_OUT_OF_MEMORY (2)",
    "sim.loadCheckpoint(chk_file)\nopenmm.OpenMMException: Checkpoint was created with a different version",
])
def test_checkpoint_reading_needs_the_restore_and_an_oom(text):
    checks = {c.evidence.get("deciding_check") for c in diagnose_text(text).causes[:1]}
    assert "absurd_size" not in checks, text
