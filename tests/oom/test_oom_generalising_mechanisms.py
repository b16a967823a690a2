"""Mechanisms read from the wording rather than from one case (issue 28, fresh-set misses)."""

from __future__ import annotations

from gpudesk.oom.diagnose import diagnose_text


def _ids(text: str) -> list[str]:
    return [c.id for c in diagnose_text(text).causes]


def test_xla_autotuner_failure_reads_as_preallocation_before_a_library_mismatch():
    # jax#8506 / elixir-nx/nx#1000: the handle was created; the autotuner's scratch memory was not there.
    for text in ("RuntimeError: UNKNOWN: Failed to determine best cudnn convolution algorithm",
                 "Failed to determine best cudnn convolution algorithm"):
        ids = _ids(text)
        assert ids[0] == "preallocation", ids
        assert "not_capacity" in ids[1:]
    # A handle that could not be created at all keeps the library reading first under JAX.
    init = _ids("jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed.")
    assert init[0] == "not_capacity"


def test_cache_smaller_than_the_request_on_a_full_device_is_the_jobs_need():
    # OPIXray#5: 264 MiB refused on a 2 GiB GPU with 256 MiB cached: no cached block could have served it.
    text = ("CUDA out of memory. Tried to allocate 264.00 MiB (GPU 0; 2.00 GiB total capacity; 788.51 MiB already "
            "allocated; 145.93 MiB free; 1.02 GiB reserved in total by PyTorch)")
    assert _ids(text)[0] == "genuine_shortage"
    # The same shape with the cache covering the request stays fragmentation (Vad-R1#11-like figures).
    frag = ("CUDA out of memory. Tried to allocate 14.06 GiB (GPU 0; 79.15 GiB total capacity; 57.00 GiB already "
            "allocated; 6.96 GiB free; 71.15 GiB reserved in total by PyTorch)")
    assert _ids(frag)[0] == "fragmentation"


def test_single_listed_process_holding_all_used_memory_is_this_process():
    # vllm#1949, cut before the allocator figures: Process 2722 holds every used byte, none is left for the
    # process that raised the error, so it is that process under its host PID, not another one.
    text = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 0 has a total capacty "
            "of 23.64 GiB of which 1.42 GiB is free. Process 2722 has 22.22 GiB memory in use. Of the allocate")
    d = diagnose_text(text)
    assert d.report.device is not None and d.report.device.other_processes[0].is_target
    assert d.top is not None and d.top.id != "other_process"
    # Another process that leaves room for this one's context stays another process.
    other = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 0 has a total capacty "
             "of 23.64 GiB of which 1.42 GiB is free. Process 2722 has 18.00 GiB memory in use. Of the allocate")
    assert not diagnose_text(other).report.device.other_processes[0].is_target
