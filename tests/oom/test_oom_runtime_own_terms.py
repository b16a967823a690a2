"""Fixes and labels in the terms of the runtime the text shows (qa16): CUDA.jl's pool and knobs, no training fixes
for an inference program, /dev/shm's check worded for any user of it."""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.signatures import DEV_SHM_CHECK

# CUDA.jl's OutOfGPUMemoryError with its status printout (src/pool.jl memory_status), written for this test.
CUDA_JL = (
    "ERROR: LoadError: Out of GPU memory trying to allocate 8.016 MiB\n"
    "Effective GPU memory usage: 91.54% (14.446 GiB/15.782 GiB)\n"
    "Memory pool usage: 13.984 GiB (14.000 GiB reserved)\n"
)
# A C++ inference SDK refusing to load its model (no framework, no training), written for this test.
INFERENCE_SDK = ("[Camera SDK][Error] Required memory for the detection model is too high for the current free memory "
                 "(630MB vs 562MB)\n")


def _shown(cause) -> str:
    return "\n".join([cause.fix, *cause.more_fixes, *cause.checks])


def test_cuda_jl_labels_name_its_pool_not_pytorch() -> None:
    d = diagnose_text(CUDA_JL)
    assert d.report.runtime == "cudajl"
    labels = " ".join(label for c in d.causes for label in c.evidence_labels.values())
    assert "CUDA.jl's pool" in labels
    assert "PyTorch" not in labels


def test_cuda_jl_fixes_use_its_own_knobs() -> None:
    d = diagnose_text(CUDA_JL)
    text = "\n".join(_shown(c) for c in d.causes)
    assert "CUDA.reclaim()" in text and "JULIA_CUDA_MEMORY_POOL" in text and "JULIA_CUDA_HARD_MEMORY_LIMIT" in text
    for pytorch_only in ("PYTORCH_ALLOC_CONF", "torch.", "empty_cache", "memory_reserved()", "FSDP"):
        assert pytorch_only not in text, pytorch_only


def test_inference_sdk_gets_no_training_fixes() -> None:
    d = diagnose_text(INFERENCE_SDK)
    shortage = next(c for c in d.causes if c.id == "genuine_shortage")
    text = _shown(shortage)
    for training in ("micro-batch", "checkpointing", "FSDP", "LoRA", "master weights", "no_grad"):
        assert training not in text, training
    assert "smaller batch or input" in shortage.fix
    assert not shortage.sizing  # no training-sizing effects either


def test_training_job_keeps_training_fixes() -> None:
    d = diagnose_text("epoch 3 step 120: " + INFERENCE_SDK.replace("detection model", "network"))
    shortage = next(c for c in d.causes if c.id == "genuine_shortage")
    assert "micro-batch" in shortage.fix


def test_dev_shm_check_names_more_than_dataloader_workers() -> None:
    meaning = DEV_SHM_CHECK.meaning
    assert "Ray's object store" in meaning and "DataLoader workers" in meaning
    assert "the DataLoader workers ran out" not in meaning
