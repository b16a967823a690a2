"""Twenty-ninth pass (issue 28, fresh batches 31 and 32): who holds the memory by PyTorch's own process clauses, a
request no spill could serve, and the kernel OOM killer's older words.

* PyTorch's NVML form names the raising process as "this process" and every other PID as "Process P"
  (c10/cuda/CUDACachingAllocator.cpp): with the "this process" clause present, a listed Process is another process,
  never this one under its host PID (gpudesk.oom.parsers.pytorch_oom).
* A request over twice the GPU and over all that the job had placed so far: the request's shape first, the Windows
  spill beside it (gpudesk.oom.rules.sysmem_fallback).
* The Linux OOM killer as kernels before 5.0 word it ("Out of memory: Kill process N (x) score S or sacrifice child",
  "Killed process N (x) total-vm:..., anon-rss:...", mm/oom_kill.c): host RAM (gpudesk.oom.signatures).

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words or figures."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text


# ultralytics/ultralytics#9189 (two predictors in two processes on one card).
TWO_PREDICTORS = (
    "CUDA out of memory. Tried to allocate 2.75 GiB. GPU 0 has a total capacity of 15.73 GiB of which 2.36 GiB is free. "
    "Process 1551 has 6.69 GiB memory in use. Including non-PyTorch memory, this process has 6.67 GiB memory in use. "
    "Of the allocated memory 5.31 GiB is allocated by PyTorch, and 19.78 MiB is reserved by PyTorch but unallocated. "
    "If reserved but unallocated memory is large try setting PITCH_CUDA_MALLOC_CONF=expandable_segments:True to avoid "
    "fragmentation.")


def test_a_listed_process_beside_this_process_clause_is_another_process() -> None:
    d = diagnose_text(TWO_PREDICTORS)
    assert _top(TWO_PREDICTORS, host_os="linux")[0] == "other_process"
    proc = d.report.devices[0].other_processes[0]
    assert proc.pid == 1551 and not proc.is_target
    # This process's own figure stays the one PyTorch gave (6.67 GiB), not the other PID's 6.69 GiB.
    assert d.report.devices[0].process_used_bytes == round(6.67 * 1024**3)
    assert "nvidia-smi" in d.causes[0].fix or "CUDA_VISIBLE_DEVICES" in d.causes[0].fix


def test_without_this_process_clause_the_covering_process_is_still_this_one() -> None:
    # The same message as NVML gives it inside a container (no PID match, so no "this process" clause): the one listed
    # process covering PyTorch's reserved memory is this process under its host PID, not another holder.
    text = TWO_PREDICTORS.replace("Including non-PyTorch memory, this process has 6.67 GiB memory in use. ", "")
    d = diagnose_text(text)
    assert d.report.devices[0].other_processes[0].is_target
    assert d.causes[0].id != "other_process"


# xinntao/Real-ESRGAN#861 (whole image at once on an 8 GB card under Windows).
WHOLE_IMAGE = (
    "Error CUDA out of memory. Tried to allocate 110.72 GiB (GPU 0; 8.00 GiB total capacity; 28.49 GiB already "
    "allocated; 0 bytes free; 29.31 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try "
    "setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
    "PYTORCH_CUDA_ALLOC_CONF\nIf you encounter CUDA out of memory, try to set --tile with a smaller number.")
# microsoft/WSL#11050 (the second 30 GiB tensor on a 16 GB GPU, the first already in shared memory).
SECOND_TENSOR = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 30.00 GiB. GPU 0 has a total capacty of 15.99 "
    "GiB of which 0 bytes is free. Including non-PyTorch memory, this process has 17179869184.00 GiB memory in use. Of "
    "the allocated memory 30.00 GiB is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.")


def test_a_request_beyond_any_spill_is_the_request_first() -> None:
    d = diagnose_text(WHOLE_IMAGE)
    assert d.causes[0].id == "single_allocation_exceeds_capacity"
    assert "shapes" in d.causes[0].fix
    spill = next(c for c in d.causes if c.id == "sysmem_fallback")
    assert spill.confidence < d.causes[0].confidence


def test_a_request_the_spill_could_serve_stays_the_spill() -> None:
    # 30 GiB asked with 30 GiB already placed: the same size the fallback served once, under twice the GPU.
    assert _top(SECOND_TENSOR, host_os="wsl")[0] == "sysmem_fallback"


# NervanaSystems/deepspeech#48 (dmesg after training was "killed", 24 GB of RAM).
KILL_PROCESS = (
    "[3017506.733819] Out of memory: Kill process 25635 (python) score 974 or sacrifice child\n"
    "[3017506.736861] Killed process 25635 (python) total-vm:55518724kB, anon-rss:23902876kB, file-rss:154436kB")


def test_the_older_oom_killer_words_are_host_ram() -> None:
    assert _top(KILL_PROCESS) == ("not_capacity", True, "host_ram")
    assert "RAM" in diagnose_text(KILL_PROCESS).causes[0].fix
    # Each of the two lines alone says it too.
    for line in KILL_PROCESS.splitlines():
        assert _top(line) == ("not_capacity", True, "host_ram"), line


def test_a_kill_without_the_kernels_words_is_not_host_ram() -> None:
    # A GPU out-of-memory that mentions killing a process in prose is not the kernel's OOM killer.
    text = ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 7.79 GiB total capacity; 5.10 GiB "
            "already allocated; 1.02 GiB free; 5.20 GiB reserved in total by PyTorch). I had to kill process 4411 "
            "first.")
    assert _top(text)[2] != "host_ram"
