"""Fifty-ninth pass (issue 28): misses of fresh-79/80 and older fresh sets read in their runtime's own words.

* PyTorch's DataLoader worker found dead with no signal named ("DataLoader worker (pid(s) N) exited unexpectedly"
  outside a container, "is killed by signal" with the signal left out): the host's OOM killer first, as a likelier
  reading; a named crash (segmentation fault) is not read so;
* Tenstorrent's bank allocator when the share each bank must store is larger than the whole bank: one buffer larger
  than the region (``single_allocation_exceeds_capacity``), the region's size setting second;
* stable-diffusion.cpp's model manager, "tensor '...' is too large for params buffer: N > M": the per-buffer limit;
* SYCL's "Native API failed. Native API returns: -999 (Unknown PI error)" / "-2 (PI_ERROR_DEVICE_NOT_AVAILABLE)":
  a figureless out-of-memory on an Intel GPU, weakly; other PI codes are not read;
* Kaldi's allocator before 2018, "Allocation of R x C region failed: freeing some memory" / "Cannot allocate the
  requested memory (R x C = N bytes)": the training's own parallel jobs sharing the GPU, as its newer wording is;
* ggml's graph allocator refused in vision.cpp's words, "Failed to allocate buffer for graph": the per-allocation
  limit first, weakly, the shortage beside it.

Every positive text is a real message quoted from the public thread named in its comment; the negatives must stay
"not found" or keep their reading."""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.parsers.detect import parse_text


def _causes(text: str) -> list[tuple[str, object, float]]:
    d = diagnose_text(text)
    assert d.found_oom
    return [(c.id, c.evidence.get("deciding_check"), c.confidence) for c in d.causes]


# pytorch/xla#2359 (host OOM by the thread), FoNDUE-HTR/Documentation#21 (the OOM killer on the cluster),
# open-mmlab/mmdetection#2406 (the title, 16 workers taking 60 GB).
WORKER_EXITED = "Exception in device=TPU:6: DataLoader worker (pid(s) 1235) exited unexpectedly\nTraceback (most recent call last):"
WORKER_EXITED_KETOS = ("ketos segtrain   -f alto transcript/document-*xml\n\n"
                       "RuntimeError: DataLoader worker (pid(s) 8260) exited unexpectedly")
WORKER_KILLED_UNNAMED = "DataLoader worker (pid xxx) is killed by signal"


def test_dataloader_worker_found_dead_reads_as_the_oom_killer() -> None:
    for text in (WORKER_EXITED, WORKER_EXITED_KETOS, WORKER_KILLED_UNNAMED):
        top = _causes(text)[0]
        assert top[:2] == ("not_capacity", "host_ram"), text
        assert top[2] == 0.6  # a likelier reading, not a certain one
        d = diagnose_text(text)
        assert d.report.signature == "worker_exit"
        assert d.top is not None and d.top.evidence.get("not_capacity_kind") == "oom_killer"
        assert "dmesg" in d.top.checks[0]


def test_dataloader_worker_with_a_named_crash_or_container_keeps_its_reading() -> None:
    # A segmentation fault in a worker is a native crash, not memory.
    crash = "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Segmentation fault."
    d = diagnose_text(crash)
    assert not (d.top is not None and d.top.id == "not_capacity" and d.top.evidence.get("deciding_check") == "host_ram")
    crash_after = WORKER_EXITED_KETOS + "\nSegmentation fault (core dumped)"
    d = diagnose_text(crash_after)
    assert not (d.top is not None and d.top.id == "not_capacity" and d.top.evidence.get("deciding_check") == "host_ram")
    # Inside a container /dev/shm comes first (the existing reading).
    container = "docker run ... \nRuntimeError: DataLoader worker (pid(s) 13068) exited unexpectedly"
    d = diagnose_text(container)
    assert d.report.signature == "worker_exit_shm"
    assert d.top is not None and d.top.evidence.get("not_capacity_kind") == "dev_shm"
    # A CUDA out-of-memory beside a dead worker is the CUDA failure's reading, not the kill's.
    cuda = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "23.65 GiB of which 1.06 GiB is free.\nRuntimeError: DataLoader worker (pid(s) 77) exited unexpectedly")
    assert _causes(cuda)[0][0] != "not_capacity"


# tenstorrent/tt-xla#1722 (the vgg19_unet line): 33,792 B per bank against a 32,768 B L1_SMALL bank.
TT_SHARE_ABOVE_BANK = ("Out of Memory: Not enough space to allocate 2162688 B L1_SMALL buffer across 64 banks, where "
                       "each bank needs to store 33792 B, but bank size is only 32768 B")
# tenstorrent/tt-mlir#5556: 256 B per bank refused in a full 32,768 B L1_SMALL bank.
TT_REGION_FULL = ("RuntimeError: TT_FATAL @ /__w/tt-xla/tt-xla/third_party/tt-mlir/src/tt-mlir/third_party/tt-metal/src/"
                  "tt-metal/tt_metal/impl/allocator/bank_manager.cpp:431: address.has_value()\ninfo:\nOut of Memory: "
                  "Not enough space to allocate 16384 B L1_SMALL buffer across 64 banks, where each bank needs to "
                  "store 256 B, but bank size is only 32768 B")


def test_tenstorrent_share_larger_than_the_bank_is_one_buffer_too_large() -> None:
    causes = _causes(TT_SHARE_ABOVE_BANK)
    assert causes[0][0] == "single_allocation_exceeds_capacity" and causes[0][2] == 0.9
    assert ("not_capacity", "buffer_limit", 0.6) in causes  # the region's size setting, second
    # A share that fits the bank is the region full, as before.
    assert _causes(TT_REGION_FULL)[0] == ("not_capacity", "buffer_limit", 0.9)
    # The same in DRAM: a share above the bank leads; one below it is not this reading.
    dram = ("Out of Memory: Not enough space to allocate 13000000000 B DRAM buffer across 12 banks, where each bank "
            "needs to store 1083333632 B, but bank size is 1071821792 B (allocated: 0 B, free: 1071821792 B, largest "
            "free block: 1071821792 B)")
    assert _causes(dram)[0][0] == "single_allocation_exceeds_capacity"
    fits = dram.replace("1083333632 B, but", "626350080 B, but")
    assert _causes(fits)[0][0] != "single_allocation_exceeds_capacity"


# leejet/stable-diffusion.cpp#1659 (a collaborator's reproduction on Vulkan).
SDCPP_PARAMS = ("[ERROR] model_manager.cpp:581  - model manager tensor 'text_encoders.llm.model.embed_tokens.weight' is "
                "too large for params buffer: 1555824640 > 1073741824\n"
                "[ERROR] ggml_extend.hpp:1893 - qwen3 prepare graph weights failed")


def test_tensor_above_its_buffer_types_maximum_is_the_buffer_limit() -> None:
    report = parse_text(SDCPP_PARAMS)
    assert report.signature == "buffer_limit"
    assert report.requested_bytes == 1555824640
    assert report.parsed["buffer_limit_bytes"] == 1073741824
    assert _causes(SDCPP_PARAMS)[0][:2] == ("not_capacity", "buffer_limit")
    # The figures the other way round are no refusal of this kind.
    reversed_figures = "model manager tensor 'a.weight' is too large for params buffer: 1024 > 1073741824"
    assert parse_text(reversed_figures).signature != "buffer_limit"


# intel/ipex-llm#10778 (an Intel maintainer: "-999 seems to infer an OOM error") and #11400 (an Iris Xe iGPU past the
# half of RAM it may use).
SYCL_UNKNOWN = "RuntimeError: Native API failed. Native API returns: -999 (Unknown PI error) -999 (Unknown PI error)"
SYCL_NOT_AVAILABLE = ("RuntimeError: Native API failed. Native API returns: -2 (PI_ERROR_DEVICE_NOT_AVAILABLE) -2 "
                      "(PI_ERROR_DEVICE_NOT_AVAILABLE)")


def test_sycl_opaque_statuses_are_a_weak_out_of_memory_on_an_intel_gpu() -> None:
    for text in (SYCL_UNKNOWN, SYCL_NOT_AVAILABLE):
        d = diagnose_text(text)
        assert d.found_oom and d.report.platform == "xpu"
        assert d.top is not None and d.top.id == "genuine_shortage" and d.top.confidence <= 0.45
    # Other PI codes are not read as memory.
    assert not diagnose_text("RuntimeError: Native API failed. Native API returns: -30 (PI_ERROR_INVALID_VALUE) "
                             "-30 (PI_ERROR_INVALID_VALUE)").found_oom
    assert not diagnose_text("Native API returns: -9990 (Unknown PI error)").found_oom


# kaldi-asr/kaldi#1882 (the chain training's fatal error) and #2583 (the allocator's retry before it).
KALDI_OLD_FATAL = ("ERROR (nnet3-chain-train[5.2.62~1-a2342]:MallocPitchInternal():cu-allocator.cc:114) Cannot allocate "
                   "the requested memory (5696 x 12032 = 68534272 bytes)")
KALDI_OLD_RETRY = ("LOG (nnet3-train[5.4]:PrintMemoryUsage():cu-allocator.cc:127) Memory usage: 565742480 bytes currently "
                   "allocated (max: 641014368); 334091864 currently in use by user (max: 493138232); 12619/135552 calls "
                   "to Malloc* resulted in CUDA calls.\nWARNING (nnet3-train[5.4]:MallocPitchInternal():cu-allocator.cc:97)"
                   " Allocation of 10204 x 6656 region failed: freeing some memory and trying again. \nLOG (nnet3-train"
                   "[5.4]:MallocPitchInternal():cu-allocator.cc:102) To avoid future problems like this, changing "
                   "memory_factor from 1.3 to 1.1")


def test_kaldis_older_allocator_reads_as_its_jobs_sharing_the_gpu() -> None:
    for text in (KALDI_OLD_FATAL, KALDI_OLD_RETRY):
        top = _causes(text)[0]
        assert top == ("other_process", "other_process", 0.6), text
    # The same words with no Kaldi program named are not the shared-jobs reading.
    bare = "Cannot allocate the requested memory (5696 x 12032 = 68534272 bytes)"
    assert _causes(bare)[0][0] != "other_process"


# Acly/krita-vision-tools#43 (an AMD driver on Windows capping one allocation at 2 GB) and #54 (the plug-in's report,
# spelled "Faled", of a 4864x3328 input on a 32 GB card).
GRAPH_BUFFER = "Error during image processing: Failed to allocate buffer for graph"
GRAPH_BUFFER_FALED = ('Error during image processing: Faled to allocate buffer for graph\n'
                      'image dimensions 2432x1664: FAIL: "Error during image processing: Faled to allocate buffer for '
                      'graph"\nimage dimensions 1216x832:   PASS')


def test_graph_buffer_refused_reads_as_the_per_allocation_limit_first() -> None:
    for text in (GRAPH_BUFFER, GRAPH_BUFFER_FALED):
        causes = _causes(text)
        assert causes[0] == ("not_capacity", "buffer_limit", 0.55), text
        assert causes[1][0] == "genuine_shortage" and causes[1][2] == 0.5
    # Other "graph" words are not this refusal, and a refusal that gives its size is read from the size.
    assert parse_text("Failed to allocate buffer for graphics overlay").signature != "graph_buffer"
    assert parse_text("Failed to allocate buffer for graph (size 9.50 GiB)").signature != "graph_buffer"


# ggml-org/llama.cpp#5206 (an Intel Mac offloading every layer: 26062.74 of 8176 MiB).
METAL_WORKING_SET = ("ggml_backend_metal_buffer_type_alloc_buffer: allocated buffer, size =   125.98 MiB, (26062.74 /  "
                     "8176.00)ggml_backend_metal_log_allocated_size: warning: current allocated size is greater than the "
                     "recommended max working set size\nllama_new_context_with_model:      Metal compute buffer size =   "
                     "125.98 MiB")


def test_metal_buffers_past_the_working_set_read_as_a_shortage() -> None:
    d = diagnose_text(METAL_WORKING_SET)
    assert d.found_oom and d.report.platform == "metal"
    assert d.top is not None and d.top.id == "genuine_shortage"
    # Buffers within the working set are no failure.
    assert not diagnose_text("ggml_backend_metal_buffer_type_alloc_buffer: allocated buffer, size =   125.98 MiB, "
                             "(4062.74 /  8176.00)").found_oom


# illinois-impact/puma-compiler#6 (zsh's job report on the line the program left unterminated).
ZSH_JOB_GLUED = ("Partitioning graph... done.\nPhysical layout... done.\nMemory allocation... done.\n"
                 "MVM coalescing... [1]    51630 killed     ./vgg16.test")


def test_zsh_job_report_after_an_unterminated_line_is_a_kill() -> None:
    assert _causes(ZSH_JOB_GLUED)[0][:2] == ("not_capacity", "host_ram")
    # Brackets and a number in prose are not the job report.
    assert parse_text("see [1] 2019 killed the feature, said the changelog").signature != "sigkill"
