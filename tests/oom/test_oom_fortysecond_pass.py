"""Forty-second pass (issue 28, fresh-42's texts the doctor did not find, and the groups their text decides).

Each reading is the runtime's own wording or figures, read from its source:

* A need and what there was, side by side in one sentence about memory (gpudesk.oom.need_have), in any wording: the
  ZED SDK's "(630MB vs 562MB)" pair after "required ... free memory", Ray's plasma store "The request is for N bytes,
  and the amount available is M bytes" (src/ray/object_manager/plasma/store_runner.cc), vLLM's "N out of the M total
  CPU memory" refused as too large (vllm/config.py, CacheConfig.verify_with_parallel_config). Where the sentence places
  the memory (/dev/shm, CPU/system memory) it is not the device's.
* A process ended by SIGBUS as a launcher reports it (Python's return code -7: DeepSpeed's "exits with return code =
  -7"): the shared-memory filesystem, as the shell's bare "Bus error".
* zsh's job line "[1] N killed  python ..." glued to a progress bar: the OOM killer, as without the bar.
* A runtime's memory status printout (CUDA.jl's memory_status, src/pool.jl): "memory usage: P% (U/T)" is the device's
  used and total memory, "pool usage: A (R reserved)" the pool's live and held memory, "usage: U (capped at C)" the
  cap the runtime was started with; an allocator at its cap with the device free is the cap's refusal.
* A garbage collection at the failed allocation that freed a quarter of the device or more (CUDA.jl's retry_reclaim,
  "running a quick GC (freed N)"): arrays no longer used held the device until collected (``leak``).
* Taichi's driver malloc (cuMemAlloc) failing with no Python traceback of the program: its up-front pool at start.
* The driver API's page-locked host allocation (cuMemAllocHost) failing: pinned host memory, not the GPU.
* "内存OOM" (RAM, with the English abbreviation) with no device word: host RAM, as "内存不足".
* CUDA memory calls failing with "unknown error" and never with out-of-memory (cudaMemGetInfo allocates nothing): the
  runtime cannot use the driver, the installation's check.

Every text is a real message quoted from the public thread named in its comment.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.parsers.generic import extract

# https://github.com/stereolabs/zed-sdk/issues/359 (body tracking on a 2 GB GeForce MX130)
ZED_359 = ("[ZED][Object Detection] Please wait while the AI model is being optimized for your graphics card\n"
           " This operation will be run only once and may take a few minutes  |[ZED][Object Detection] Required memory "
           "for Object detection optimization is too high for the current free memory (630MB vs 562MB)\n"
           "[ZED][Object Detection] Required memory for Object detection optimization is too high for the current free "
           "memory (630MB vs 562MB)\n Done[ZED] [Object Detection] MODEL_NOT_FOUND")

# https://github.com/gpustack/gpustack/issues/5014 (vLLM with Ray on Ascend NPUs inside GPUStack's container)
GPUSTACK_5014 = (
    "[2026-03-25 05:44:29,435 W 39 39] (raylet) store_runner.cc:83: System memory request exceeds memory available in "
    "/dev/shm. The request is for 10200547328 bytes, and the amount available is 9663676416 bytes.\nYou may be able to "
    "free up space by deleting files in /dev/shm. If you are inside a Docker container, you may need to pass an "
    "argument with the flag '--shm-size' to 'docker run'.")

# https://github.com/Ksuriuri/index-tts-vllm/issues/99 (vLLM's default 4 GiB swap space on a 4.3 GiB host)
INDEX_TTS_99 = ("ValueError: Too large swap space. 4.00 GiB out of the 4.30 GiB total CPU memory is allocated for the "
                "swap space.")

# https://github.com/deepspeedai/DeepSpeed/issues/4002 (the issue title; 64 MB of /dev/shm in Docker)
DEEPSPEED_4002 = '[BUG] Have "exits with return code = -7" without any error message'

# https://github.com/zai-org/VisualGLM-6B/issues/295 (the post's sentence)
VISUALGLM_295 = "使用命令bash finetune/finetune_visualglm.sh进行微调，最后程序直接exits with return code=-7退出了，没法进行错误溯源，求大佬解答"

# https://github.com/baichuan-inc/Baichuan2/issues/138 (the loader killed at 0 of 3 shards)
BAICHUAN2_138 = ("pip install xformers.\nLoading checkpoint shards:   0%|                                        "
                 "| 0/3 [00:00<?, ?it/s][1]    26478 killed     python test.py")


def test_need_and_free_pair_is_an_oom_with_its_figures() -> None:
    d = diagnose_text(ZED_359)
    assert d.found_oom
    assert d.report.requested_bytes == 630 * 1024**2
    assert d.report.device is not None and d.report.device.free_bytes == 562 * 1024**2
    assert d.causes[0].id == "genuine_shortage"
    assert d.causes[0].fix


def test_need_below_free_is_not_a_refusal() -> None:
    # The same sentence with the need the smaller: nothing was refused.
    assert not diagnose_text("Required memory for optimization is lower than the current free memory (530MB vs 562MB)"
                             ).found_oom


def test_request_above_dev_shm_is_shared_memory_not_the_device() -> None:
    d = diagnose_text(GPUSTACK_5014)
    top = d.causes[0]
    assert d.found_oom and top.id == "not_capacity"
    assert top.evidence["not_capacity_kind"] == "dev_shm"
    assert "--shm-size" in top.fix or "shm-size" in " ".join(top.checks)
    # Not a device figure: /dev/shm's free space is not the GPU's.
    assert d.report.device is None or d.report.device.free_bytes is None


def test_request_within_what_is_available_is_not_a_refusal() -> None:
    text = GPUSTACK_5014.replace("10200547328 bytes, and", "1020054732 bytes, and")
    assert not diagnose_text(text).found_oom


def test_part_of_host_memory_refused_as_too_large_is_host_ram() -> None:
    d = diagnose_text(INDEX_TTS_99)
    top = d.causes[0]
    assert d.found_oom and top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "host_ram"


def test_part_of_total_without_a_refusal_is_not_an_oom() -> None:
    # A report of a share with no word that refuses it: nothing failed.
    assert not diagnose_text("4.00 GiB out of the 16.00 GiB total CPU memory is allocated for the swap space.").found_oom


def test_launcher_return_code_minus_seven_is_a_bus_error_in_shared_memory() -> None:
    for text in (DEEPSPEED_4002, VISUALGLM_295):
        d = diagnose_text(text)
        top = d.causes[0]
        assert d.found_oom and top.id == "not_capacity", text
        assert top.evidence["not_capacity_kind"] == "dev_shm"
        assert top.checks[0].startswith("df -h /dev/shm")


def test_other_negative_return_codes_are_not_sigbus() -> None:
    assert diagnose_text('exits with return code = -11').causes[0].evidence.get("not_capacity_kind") != "dev_shm"
    assert diagnose_text('exits with return code = -70').causes[0].evidence.get("not_capacity_kind") != "dev_shm"


def test_zsh_job_killed_after_a_progress_bar_is_the_oom_killer() -> None:
    d = diagnose_text(BAICHUAN2_138)
    top = d.causes[0]
    assert d.found_oom and top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "host_ram"


def test_progress_bar_then_a_job_done_line_is_not_a_kill() -> None:
    text = BAICHUAN2_138.replace("killed     python", "done     python")
    assert not diagnose_text(text).found_oom


# https://github.com/JuliaGPU/CUDA.jl/issues/579 (a maintainer quoting a user's OOM; JULIA_CUDA_MEMORY_LIMIT of 14 GiB)
CUDAJL_579 = ("Out of GPU memory trying to allocate 8.016 MiB\nEffective GPU memory usage: 91.54% (14.446 GiB/15.782 GiB)\n"
              "CUDA allocator usage: 13.984 GiB (capped at 14.000 GiB)\nbinned usage: 15.141 KiB (15.141 KiB allocated, "
              "0 bytes cached)\nDiscrepancy of 13.984 GiB between memory pool and allocator!")

# https://github.com/JuliaGPU/CUDA.jl/issues/2197 (Flux training; a try/catch kept earlier iterations' arrays alive)
CUDAJL_2197 = ("[ Info: starting training\nEffective GPU memory usage: 99.55% (11.688 GiB/11.741 GiB)\n"
               "Memory pool usage: 8.505 GiB (10.406 GiB reserved)\nWARNING: CUDA memory allocation failed; attempting to "
               "free up memory...\n... waiting for pending frees (freed 0 bytes)\n... waiting for all pending frees (freed "
               "0 bytes)\n... running a quick GC (freed 8.292 GiB)\nEffective GPU memory usage: 99.55% (11.688 GiB/11.741 "
               "GiB)\nMemory pool usage: 8.492 GiB (10.406 GiB reserved)")

# https://github.com/QuantumSavory/QuantumClifford.jl/issues/164 (CUDA.memory_status() after a benchmark run)
QUANTUMCLIFFORD_164 = ("Effective GPU memory usage: 99.71% (5.782 GiB/5.799 GiB)\n"
                       "Memory pool usage: 2.852 GiB (5.656 GiB reserved)")

# https://github.com/taichi-dev/taichi/issues/765 (two Taichi programs started at once on a card without unified memory)
TAICHI_765 = ("(glew) [bate@archit taichi]$ p multirestart.my.py & p multirestart.my.py  \n[1] 5805\n"
              "[Taichi] mode=development\n[Taichi] mode=development\n[Taichi] preparing sandbox at /tmp/taichi-vs1ag8qy\n"
              "[Taichi] sandbox prepared\n[Taichi] <dev mode>, supported archs: [cpu, cuda, opengl], commit 2ffc1e55, "
              "python 3.8.2\n[E 04/13/20 22:57:47.637] [cuda_driver.h:operator()@66] CUDA Error "
              "CUDA_ERROR_OUT_OF_MEMORY: out of memory while calling malloc (cuMemAlloc_v2)")


def test_memory_status_printout_gives_device_and_pool_figures() -> None:
    d = diagnose_text(QUANTUMCLIFFORD_164)
    assert d.found_oom
    dev = d.report.device
    assert dev is not None
    assert dev.total_bytes == round(5.799 * 1024**3)
    assert dev.free_bytes == round(5.799 * 1024**3) - round(5.782 * 1024**3)
    assert dev.allocated_bytes == round(2.852 * 1024**3) and dev.reserved_bytes == round(5.656 * 1024**3)


def test_allocator_at_its_cap_with_the_device_free_is_the_cap() -> None:
    d = diagnose_text(CUDAJL_579)
    top = d.causes[0]
    assert top.id == "per_process_cap"
    assert "JULIA_CUDA_MEMORY_LIMIT" in top.fix and "set_per_process_memory_fraction" not in top.fix


def test_allocator_far_below_its_cap_is_not_the_cap() -> None:
    text = CUDAJL_579.replace("CUDA allocator usage: 13.984 GiB", "CUDA allocator usage: 6.984 GiB")
    assert diagnose_text(text).causes[0].id != "per_process_cap"


def test_large_collection_at_the_failure_is_arrays_left_to_the_collector() -> None:
    d = diagnose_text(CUDAJL_2197)
    top = d.causes[0]
    assert top.id == "leak"
    assert top.evidence["gc_freed_bytes"] == round(8.292 * 1024**3)
    assert "unsafe_free!" in top.fix


def test_small_collection_at_the_failure_is_not_a_leak() -> None:
    text = CUDAJL_2197.replace("freed 8.292 GiB", "freed 0.292 GiB")
    assert diagnose_text(text).causes[0].id != "leak"


def test_taichi_driver_malloc_at_start_is_its_up_front_pool() -> None:
    d = diagnose_text(TAICHI_765)
    top = d.causes[0]
    assert top.id == "preallocation"
    assert "device_memory_fraction" in top.fix or "device_memory_GB" in top.fix


def test_taichi_driver_malloc_under_a_python_traceback_is_not_the_start() -> None:
    # The same driver failure raised inside the program's own call (its traceback through Taichi's package): not the
    # start-up reservation.
    text = ("Traceback (most recent call last):\n  File \"run.py\", line 9, in <module>\n    x = ti.ndarray(ti.f32, n)\n"
            "  File \"/usr/lib/python3/site-packages/taichi/lang/_ndarray.py\", line 40, in __init__\n"
            + TAICHI_765.rsplit("\n", 1)[1])
    assert "taichi" in text
    assert diagnose_text(text).causes[0].id != "preallocation"
    assert diagnose_text(TAICHI_765.replace("\n[1] 5805", "\n[1] 5805\nTraceback (most recent call last):")
                         ).causes[0].id != "preallocation"


# https://github.com/heterodb/pg-strom/issues/215 (PG-Strom's DMA buffers on a Tesla K40c)
PG_STROM_215 = ("LOG:  CUDA Runtime version: 7.5.0\nLOG:  NVIDIA driver version: 352.39\nLOG:  GPU0 Tesla K40c (2880 CUDA "
                "cores, 745MHz), L2 1536KB, RAM 11519MB (384bits, 3004MHz), capability 3.5\nERROR:  failed on "
                "cuMemAllocHost: CUDA_ERROR_OUT_OF_MEMORY - out of memory")

# https://github.com/OpenGVLab/InternVL/issues/554 (the post's description; 115 GB of RAM, more than one worker)
INTERNVL_554 = ("用5000w以上的数据微调8B的模型，batchsize设置为1， 当dataloader_num_workers设置为大于1的时候，到dataloader时出现内存OOM"
                "错误；当dataloader_num_workers设置为0或者1的时候，可以正常训练;\n内存大小有115G，数据json在磁盘中大约有30G")

# https://github.com/SPECFEM/specfem3d_globe/issues/617 (every rank's device-memory probe; CUDA 5.5)
SPECFEM_617 = ("Error testing memory allocation on device failed\nError rank 1: cudaMalloc failed: unknown error\n"
               "Error testing memory allocation on device failed\nError rank 2: cudaMalloc failed: unknown error\n"
               "Error: cudaMemGetInfo fails, unknown error\nERROR: CUDA runtime error: cudaMalloc failed")


def test_driver_api_pinned_host_allocation_is_pinned_memory() -> None:
    top = diagnose_text(PG_STROM_215).causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "pin_memory"


def test_driver_api_device_allocation_is_not_pinned_memory() -> None:
    text = PG_STROM_215.replace("cuMemAllocHost", "cuMemAlloc")
    assert diagnose_text(text).causes[0].evidence.get("deciding_check") != "pin_memory"


def test_ram_oom_in_chinese_is_host_ram() -> None:
    top = diagnose_text(INTERNVL_554).causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "host_ram"


def test_video_memory_oom_in_chinese_is_not_host_ram() -> None:
    # 显存 is the GPU's memory: "显存OOM" is not the host's.
    top = diagnose_text(INTERNVL_554.replace("内存OOM", "显存OOM").replace("内存大小", "显存大小")).causes[0]
    assert top.evidence.get("deciding_check") != "host_ram"


def test_memory_calls_failing_with_unknown_error_are_the_installation() -> None:
    top = diagnose_text(SPECFEM_617).causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["not_capacity_kind"] == "runtime_unusable"
    assert top.evidence["deciding_check"] == "driver_version"
    assert "deviceQuery" in top.fix


def test_memory_call_failing_with_out_of_memory_is_not_the_installation() -> None:
    text = SPECFEM_617.replace("unknown error", "out of memory")
    assert diagnose_text(text).causes[0].evidence.get("not_capacity_kind") != "runtime_unusable"


def test_host_memory_total_is_not_read_as_the_gpu_capacity() -> None:
    # vLLM's "4.30 GiB total CPU memory" is the host's RAM: the window and the report showed it as "GPU total
    # capacity 4.30 GiB" (QA pass on Ksuriuri/index-tts-vllm#99).
    d = diagnose_text(INDEX_TTS_99)
    assert d.report.device is None or d.report.device.total_bytes is None
    assert "total_bytes" not in d.causes[0].evidence
    # A device total in the same words still reads as the device's.
    assert extract("out of memory: 4.30 GiB total, 0 B free").total_bytes == round(4.30 * 1024**3)
    assert extract("out of memory: 4.30 GiB total system memory").total_bytes is None


def test_dev_shm_causes_say_what_used_shared_memory() -> None:
    # Ray's object store asking /dev/shm for more than it has was told "A DataLoader worker was killed by a bus
    # error", and DeepSpeed's bare "return code = -7" likewise: neither text names a worker (QA pass).
    ray = diagnose_text(GPUSTACK_5014).causes[0]
    assert "DataLoader" not in ray.title + ray.explanation
    assert "9.50 GiB" in ray.title and "9.00 GiB" in ray.title
    assert "--shm-size" in ray.fix
    for text in (DEEPSPEED_4002, VISUALGLM_295):
        top = diagnose_text(text).causes[0]
        assert top.title.startswith("Likely not GPU memory: a bus error"), text
        assert "SIGBUS" in top.explanation
    # A worker killed by a bus error with shared memory named keeps the DataLoader reading.
    worker = diagnose_text("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
                           "shared memory (shm).").causes[0]
    assert "DataLoader" in worker.title


def test_every_figure_of_this_pass_has_a_written_name() -> None:
    # The report showed "Gc freed", "Freed share" and "Memory report: usage" (keys and ids read out as words) for
    # CUDA.jl's texts (QA pass); the readability test covers the older case sets only.
    from gpudesk.oom.labels import has_label, label_for

    for text in (ZED_359, GPUSTACK_5014, INDEX_TTS_99, DEEPSPEED_4002, CUDAJL_579, CUDAJL_2197, QUANTUMCLIFFORD_164,
                 TAICHI_765, CUDAJL_2197[:150]):
        d = diagnose_text(text)
        for cause in d.causes:
            for key, label, value in cause.evidence_items():
                assert has_label(key) and label != key, (key, text[:40])
                assert value != "usage", key
        for key in d.report.parsed:
            assert has_label(key), (key, text[:40])
    assert label_for("gc_freed_bytes") == "Freed by the garbage collector at the failure"
    assert diagnose_text(CUDAJL_2197[:150]).report.parsed.get("memory_report") == "usage"
    from gpudesk.oom.labels import id_value_name
    assert id_value_name("memory_report", "usage") == "Memory in use, no failure named"
