"""Forty-ninth pass (issue 28): what PyTorch's figures say about memory held outside this process.

* The remainder ``total − free − reserved`` less this process's own context is held by other processes. When this
  process's pool is larger than the remainder the job's own need was read first (held_outside's demotion); that stops
  where the others hold a compute job's worth (8 GiB or more), far beyond what a desktop session keeps on a GPU:
  another training run, an inference server or a simulator is then the first cause again.
* PyTorch's NVML-era message cut inside its last clause ("and 2.51 GiB is reserv"): the template puts only the
  reserved-but-unallocated figure after "allocated by PyTorch, and", so the cut figure is still read, and with it the
  cache that could not serve the request (fragmentation).
* TensorRT-LLM's executor table naming "Additional executor resources" (the last component the PyTorch backend
  creates, after the final KV cache took free_gpu_memory_fraction of the free memory): the KV budget left too little
  for the buffers (kv_cache_budget, the fraction and max_num_tokens as the fix); the temporary component of the same
  name, created before the KV cache for the estimation, is not read so.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own evidence."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# vllm-project/vllm#783 (vLLM V0 with opt-125m on a shared 44.56 GiB GPU; about 15 GB held by other processes).
VLLM_V0_SHARED = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.63 GiB (GPU 0; 44.56 GiB total capacity; "
    "27.91 GiB already allocated; 565.31 MiB free; 27.93 GiB reserved in total by PyTorch) If reserved memory is >> "
    "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management "
    "and PYTORCH_CUDA_ALLOC_CONF")
# yezhen17/3DIoUMatch-PVRCNN#3 (a smaller batch fixed it: 4.05 GiB outside PyTorch's 6.71 GiB pool on a 2080 Ti).
POOL_LARGER_SMALL_REMAINDER = (
    "RuntimeError: CUDA out of memory. Tried to allocate 216.00 MiB (GPU 4; 10.91 GiB total capacity; 6.64 GiB "
    "already allocated; 151.38 MiB free; 6.71 GiB reserved in total by PyTorch)")


def test_others_holding_a_compute_job_lead_even_below_the_pool() -> None:
    d = diagnose_text(VLLM_V0_SHARED)
    top = d.causes[0]
    assert top.id == "other_process" and top.confidence == 0.9
    assert top.evidence["deciding_check"] == "other_process"
    assert top.evidence["held_by_others_estimate_bytes"] >= 8 * 2**30
    assert "nvidia-smi" in top.fix
    # The job's own need is still named, second.
    assert d.causes[1].id == "genuine_shortage"


def test_pool_larger_than_a_small_remainder_keeps_the_jobs_need_first() -> None:
    d = diagnose_text(POOL_LARGER_SMALL_REMAINDER)
    assert d.causes[0].id == "genuine_shortage"
    others = next(c for c in d.causes if c.id == "other_process")
    assert others.confidence < d.causes[0].confidence


# meta-llama/llama-cookbook#309 (Llama-2-7b PEFT fine-tuning on a 16 GB GPU; the stored line is cut after "is reserv").
NVML_CUT_IN_UNALLOCATED = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacty of 14.58 "
    "GiB of which 635.56 MiB is free. Process 26469 has 13.96 GiB memory in use. Of the allocated memory 11.23 GiB is "
    "allocated by PyTorch, and 2.51 GiB is reserv")


def test_unallocated_figure_of_a_cut_clause_is_read() -> None:
    d = diagnose_text(NVML_CUT_IN_UNALLOCATED)
    assert d.report.parsed["reserved_unallocated_bytes"] == round(2.51 * 2**30)
    top = d.causes[0]
    assert top.id == "fragmentation"
    assert "expandable_segments" in top.fix


def test_cut_before_the_unallocated_figure_reads_no_figure() -> None:
    # Cut before the figure's unit: nothing is read as the reserved memory, and the job's need stays first.
    d = diagnose_text(NVML_CUT_IN_UNALLOCATED.rsplit(" GiB is reserv", 1)[0])
    assert "reserved_unallocated_bytes" not in d.report.parsed
    assert d.causes[0].id == "genuine_shortage"


# NVIDIA/TensorRT-LLM#5950 (DeepSeek-V3 W4FP8 on 8x H20 96 GB, trtllm-serve 1.0.0rc2; the table is cut as stored).
TRTLLM_EXTRA_AFTER_KV = (
    "RuntimeError: Executor creation failed due to insufficient GPU memory.\n\n"
    "The following component could not be created: Additional executor resources\n"
    "Total GPU memory (GiB): 95.00\n"
    "Free GPU memory before component creation attempt (GiB): 16.95\n\n"
    "Previously created components and free GPU memory before/after creation (GiB):\n"
    "Model: 94.30 / 47.83\n"
    "Sampler: 47.83 / 47.83\n"
    "Initial KV cache (temporary for KV cache size estimation): 47.83 / 45.67\n"
    "Drafter: 45.67 / 45.67\n"
    "Additional ex")


def test_trtllm_extra_resources_after_the_kv_cache_is_the_kv_budget() -> None:
    d = diagnose_text(TRTLLM_EXTRA_AFTER_KV)
    assert d.found_oom
    top = d.causes[0]
    assert top.id == "kv_cache_budget"
    assert top.evidence["trtllm_component"] == "Additional executor resources"
    assert "free_gpu_memory_fraction below 0.9" in top.fix and "max_num_tokens" in top.fix
    assert "16.95 GiB" in top.explanation


def test_trtllm_temporary_extra_resources_are_not_read_as_left_by_the_kv_cache() -> None:
    # The estimation's temporary component comes before the final KV cache: nothing had taken the KV share yet.
    text = TRTLLM_EXTRA_AFTER_KV.replace(
        "could not be created: Additional executor resources",
        "could not be created: Additional executor resources (temporary for KV cache size estimation)")
    d = diagnose_text(text)
    assert all("executor's buffers" not in c.title for c in d.causes)


def test_trtllm_extra_resources_at_a_small_fraction_suggest_a_smaller_positive_one() -> None:
    d = diagnose_text(TRTLLM_EXTRA_AFTER_KV + "\nKvCacheConfig(free_gpu_memory_fraction=0.1)")
    top = d.causes[0]
    assert top.evidence["kv_cache_free_gpu_mem_fraction_ratio"] == 0.1
    assert "below 0.1 (e.g. 0.05)" in top.fix
