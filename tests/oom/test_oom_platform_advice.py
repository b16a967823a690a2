"""Fixes in the user's runtime and platform terms (issue 28): TPU HBM never gets GPU advice, MIG slices have
their own capacity, Windows sysmem fallback, JAX names by version and process count, inference runtimes get their
own knobs (not training advice), and never a fix the pasted text says is unsupported."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

GiB = 1024**3

TPU = ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory "
       "in memory space hbm. Used 21.90G of 7.48G hbm. Exceeded hbm capacity by 14.42G.")


def _all_fixes(d):
    return " ".join(c.fix + " " + " ".join(c.more_fixes) for c in d.causes)


def test_tpu_gets_tpu_advice_never_gpu_preallocation():
    d = diagnose_text(TPU)
    assert d.report.platform == "tpu" and d.top.id == "genuine_shortage"
    fixes = _all_fixes(d)
    assert "TPU" in d.top.fix and "XLA_PYTHON_CLIENT" not in fixes and "PYTORCH_" not in fixes
    assert "preallocation" not in [c.id for c in d.causes]


def test_mig_profile_gives_the_slice_capacity():
    d = diagnose_text("MIG 3g.20gb     Device  0: (UUID: MIG-7ec5b605)\nRequested amount of GPU memory "
                      "(22649242112 bytes) could not be allocated. There may not be enough free memory")
    assert d.report.device.total_bytes == 20 * GiB
    assert d.top.id == "single_allocation_exceeds_capacity" and "3g.20gb" in d.top.more_fixes[0]


def test_allocated_beyond_capacity_is_the_windows_spill():
    d = diagnose_text("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 30.00 GiB. GPU 0 has a "
                      "total capacty of 15.99 GiB of which 0 bytes is free. Of the allocated memory 30.00 GiB is "
                      "allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.")
    assert d.top.id == "sysmem_fallback" and d.top.evidence["allocated_bytes"] == 30 * GiB


def test_jax_fraction_follows_version_and_processes():
    new = diagnose_text("jax 0.4.30, 3 processes share the GPU\nRESOURCE_EXHAUSTED: Out of memory while trying to "
                        "allocate 6291456 bytes.")
    pre = next(c for c in new.causes if c.id == "preallocation")
    assert "XLA_CLIENT_MEM_FRACTION=0.30" in pre.fix and "3 processes" in pre.fix
    old = diagnose_text("jaxlib 0.3.25\nRESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.")
    assert "XLA_PYTHON_CLIENT_MEM_FRACTION=0.45" in next(c for c in old.causes if c.id == "preallocation").fix


def test_comfyui_vae_decode_gets_inference_knobs_not_training_advice():
    d = diagnose_text("# ComfyUI Error Report\n- **Node Type:** VAEDecodeTiled\n- **Exception Type:** "
                      "torch.OutOfMemoryError\n- **Exception Message:** Allocation on device ")
    fixes = _all_fixes(d)
    assert d.top.id == "genuine_shortage" and "--lowvram" in d.top.fix and "VAE Decode (Tiled)" in d.top.fix
    assert "micro-batch" not in fixes and "FSDP" not in fixes and "checkpointing" not in fixes


def test_llama_cpp_and_ollama_get_their_own_knobs():
    vulkan = diagnose_text("ggml_vulkan: Device memory allocation of size 118497280 failed.\n"
                           "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory").top
    assert "-ngl" in vulkan.fix and "--cache-type-k" in vulkan.fix
    ollama = diagnose_text("ollama | CUDA error: out of memory\n  current device: 0, in function "
                           "ggml_cuda_pool_malloc_vmm\n  cuMemCreate(&handle, reserve_size, &prop, 0)").top
    assert ollama.id == "genuine_shortage" and "num_ctx" in ollama.fix and "num_gpu" in ollama.fix


def test_trtllm_names_build_and_runtime_knobs():
    d = diagnose_text("[TensorRT-LLM][ERROR] Requested amount of GPU memory (33555480576 bytes) could not be "
                      "allocated. There may not be enough free memory for allocation to succeed.")
    fixes = _all_fixes(d)
    assert "--gpu-memory-utilization" not in fixes and "--mem-fraction-static" not in fixes


def test_never_a_fix_the_text_says_is_unsupported():
    text = ("UserWarning: expandable_segments not supported on this platform\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "23.99 GiB of which 1.20 GiB is free. Of the allocated memory 12.00 GiB is allocated by PyTorch, and "
            "9.50 GiB is reserved by PyTorch but unallocated.")
    d = diagnose_text(text)
    assert d.top.id == "fragmentation"
    assert "expandable_segments" not in _all_fixes(d)


def test_a_pytorch_vae_decode_gets_tiled_decoding_not_training_advice():
    d = diagnose_text('  File "/app/modules/sd_vae_approx.py", line 40, in vae_decode\n    x = vae.decode(z)\n'
                      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 9.00 GiB. GPU 0 has a total "
                      "capacity of 11.99 GiB of which 2.10 GiB is free. Of the allocated memory 8.50 GiB is allocated "
                      "by PyTorch, and 0.20 GiB is reserved by PyTorch but unallocated.")
    fixes = _all_fixes(d)
    assert "enable_tiling" in d.top.fix and "micro-batch" not in fixes and d.top.sizing == []
