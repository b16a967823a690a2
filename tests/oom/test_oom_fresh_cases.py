"""The held-back sets (tests/fixtures/oom/fresh_cases.jsonl .. fresh_cases_17.jsonl, issue 28): real messages
collected after the rules were written, each labelled from its public thread before the doctor was first run on it.
The rules are not tuned on them; the figures below are what the doctor scored when it first saw each batch, kept
as floors so that a regression shows, and reported as they are (below the 85 % bar: that is what a held-back set is
for)."""

from __future__ import annotations

import json

import pytest
from oom_support import FIXTURES

from gpudesk.oom.accuracy import CASE_FILES, evaluate, load_cases
from gpudesk.oom.cause import CAUSE_IDS
from gpudesk.oom.signatures import CHECKS

FRESH_FILES = {"fresh": "fresh_cases.jsonl", "fresh-2": "fresh_cases_2.jsonl", "fresh-3": "fresh_cases_3.jsonl",
               "fresh-4": "fresh_cases_4.jsonl", "fresh-5": "fresh_cases_5.jsonl", "fresh-6": "fresh_cases_6.jsonl",
               "fresh-7": "fresh_cases_7.jsonl", "fresh-8": "fresh_cases_8.jsonl", "fresh-9": "fresh_cases_9.jsonl",
               "fresh-10": "fresh_cases_10.jsonl", "fresh-11": "fresh_cases_11.jsonl", "fresh-12": "fresh_cases_12.jsonl",
               "fresh-13": "fresh_cases_13.jsonl", "fresh-14": "fresh_cases_14.jsonl",
               "fresh-15": "fresh_cases_15.jsonl", "fresh-16": "fresh_cases_16.jsonl",
               "fresh-17": "fresh_cases_17.jsonl", "fresh-18": "fresh_cases_18.jsonl",
               "fresh-19": "fresh_cases_19.jsonl", "fresh-20": "fresh_cases_20.jsonl",
               "fresh-21": "fresh_cases_21.jsonl", "fresh-22": "fresh_cases_22.jsonl",
               "fresh-23": "fresh_cases_23.jsonl", "fresh-24": "fresh_cases_24.jsonl",
               "fresh-25": "fresh_cases_25.jsonl", "fresh-26": "fresh_cases_26.jsonl",
               "fresh-27": "fresh_cases_27.jsonl", "fresh-28": "fresh_cases_28.jsonl",
               "fresh-29": "fresh_cases_29.jsonl", "fresh-30": "fresh_cases_30.jsonl",
               "fresh-31": "fresh_cases_31.jsonl", "fresh-32": "fresh_cases_32.jsonl",
               "fresh-33": "fresh_cases_33.jsonl", "fresh-34": "fresh_cases_34.jsonl",
               "fresh-35": "fresh_cases_35.jsonl",
               "fresh-36": "fresh_cases_36.jsonl",
               "fresh-37": "fresh_cases_37.jsonl",
               "fresh-38": "fresh_cases_38.jsonl",
               "fresh-39": "fresh_cases_39.jsonl",
               "fresh-40": "fresh_cases_40.jsonl",
               "fresh-41": "fresh_cases_41.jsonl",
               "fresh-42": "fresh_cases_42.jsonl",
               "fresh-43": "fresh_cases_43.jsonl",
               "fresh-44": "fresh_cases_44.jsonl",
               "fresh-45": "fresh_cases_45.jsonl",
               "fresh-46": "fresh_cases_46.jsonl",
               "fresh-47": "fresh_cases_47.jsonl",
               "fresh-48": "fresh_cases_48.jsonl",
               "fresh-49": "fresh_cases_49.jsonl",
               "fresh-50": "fresh_cases_50.jsonl",
               "fresh-51": "fresh_cases_51.jsonl",
               "fresh-52": "fresh_cases_52.jsonl",
               "fresh-53": "fresh_cases_53.jsonl",
               "fresh-54": "fresh_cases_54.jsonl",
               "fresh-55": "fresh_cases_55.jsonl",
               "fresh-56": "fresh_cases_56.jsonl",
               "fresh-57": "fresh_cases_57.jsonl",
               "fresh-58": "fresh_cases_58.jsonl",
               "fresh-59": "fresh_cases_59.jsonl",
               "fresh-60": "fresh_cases_60.jsonl",
               "fresh-61": "fresh_cases_61.jsonl",
               "fresh-62": "fresh_cases_62.jsonl",
               "fresh-63": "fresh_cases_63.jsonl",
               "fresh-64": "fresh_cases_64.jsonl",
               "fresh-65": "fresh_cases_65.jsonl",
               "fresh-66": "fresh_cases_66.jsonl",
               "fresh-67": "fresh_cases_67.jsonl",
               "fresh-68": "fresh_cases_68.jsonl",
               "fresh-69": "fresh_cases_69.jsonl",
               "fresh-70": "fresh_cases_70.jsonl",
               "fresh-71": "fresh_cases_71.jsonl",
               "fresh-72": "fresh_cases_72.jsonl",
               "fresh-73": "fresh_cases_73.jsonl",
               "fresh-74": "fresh_cases_74.jsonl",
               "fresh-75": "fresh_cases_75.jsonl",
               "fresh-76": "fresh_cases_76.jsonl",
               "fresh-77": "fresh_cases_77.jsonl",
               "fresh-78": "fresh_cases_78.jsonl",
               "fresh-79": "fresh_cases_79.jsonl",
               "fresh-80": "fresh_cases_80.jsonl",
               "fresh-81": "fresh_cases_81.jsonl",
               "fresh-82": "fresh_cases_82.jsonl",
               "fresh-83": "fresh_cases_83.jsonl",
               "fresh-84": "fresh_cases_84.jsonl",
               "fresh-85": "fresh_cases_85.jsonl",
               "fresh-86": "fresh_cases_86.jsonl",
               "fresh-87": "fresh_cases_87.jsonl",
               "fresh-88": "fresh_cases_88.jsonl",
               "fresh-89": "fresh_cases_89.jsonl",
               "fresh-90": "fresh_cases_90.jsonl",
               "fresh-91": "fresh_cases_91.jsonl",
               "fresh-92": "fresh_cases_92.jsonl",
               "fresh-93": "fresh_cases_93.jsonl",
               "fresh-94": "fresh_cases_94.jsonl",
               "fresh-95": "fresh_cases_95.jsonl",
               "fresh-96": "fresh_cases_96.jsonl",
               "fresh-97": "fresh_cases_97.jsonl",
               "fresh-98": "fresh_cases_98.jsonl",
               "fresh-99": "fresh_cases_99.jsonl",
               "fresh-100": "fresh_cases_100.jsonl",
               "fresh-101": "fresh_cases_101.jsonl",
               "fresh-102": "fresh_cases_102.jsonl",
               "fresh-103": "fresh_cases_103.jsonl",
               "fresh-104": "fresh_cases_104.jsonl"}
# First scoring of each batch. "fresh": 19 of 35 (2 of 5 not-capacity cases with the deciding check, 1 message not
# recognised). Three mechanisms it exposed were fixed afterwards (a request figure next to a failure is recognised in
# any wording, PyTorch's caching host allocator is pinned memory, TensorFlow's own cuDNN/cuBLAS handle wording names
# TensorFlow): 22/35 on that now-seen batch. "fresh-2", collected after those fixes: 5 of 15; two mechanisms it
# exposed were fixed in turn (TensorFlow's device-discovery free figure shows another process; a named shape whose
# parser read no figure is read by the tolerant layer): 7/15 on it, seen. "fresh-3", collected after those: 8 of 9
# (mostly PyTorch messages with all their clauses and host-RAM failures: an easier mix than "fresh-2"). The second
# pass fixed the mechanisms those batches showed (memory outside the allocator read as another process when the figures
# say so, TensorRT tactic workspaces, one-line CUDA errors and bare library statuses ranked by what public threads
# resolved, requests near the largest GPU, ONNX Runtime on the CPU provider, leaks in words, cut pastes, an OOM in a
# runtime's init source): 32/35, 11/15
# and 8/9 on those seen batches. "fresh-4", collected after them and committed before the doctor ran on it: 17 of 30
# at first scoring (the code before the second pass scored 16); its misses (PaddlePaddle's own wordings not read, a
# one-line error from a shared scheduler, a vLLM message cut before its PyTorch clause, an ECC fault worded as
# "Cannot allocate memory") are for the next pass, measured on a new batch. The third pass read any allocation word
# next to a size (PaddlePaddle's allocators, Chinese wordings), DataLoader bus errors as /dev/shm, PaddlePaddle's
# up-front chunk, MXNet/CTranslate2/OpenCV one-line CUDA errors and WSL paths: 20/30 on fresh-4, seen. "fresh-5",
# collected after it and committed before the doctor ran on it: 18 of 30 at first scoring (6 of 11 not-capacity cases
# with the deciding check, 3 reported as not found); its misses (a "Bus\nerror" split over two lines, torch's
# "unable to write to file </torch_...>" without "No space left on device", OpenCV's host allocator alloc.cpp, other
# processes behind PaddlePaddle's figures, an ONNX Runtime arena failure during CUDA-graph capture) are for the next
# pass, measured on a new batch. The fourth pass fixed the mechanisms that recurred over all batches (wrapped pastes,
# PyTorch's /torch_ shared-memory files, host allocators named by source file, RMM/Thrust bad_alloc as device memory,
# PaddlePaddle's device_context.cc start-up, cuDNN handles ranked with the library check, TGI's total-token budget,
# DataParallel's imbalance warning; then TensorFlow's pool reservation refused on CUDA as another process): 25/30 on
# fresh-5 and 24/30 on fresh-4, seen. "fresh-6", collected after it and
# committed before the doctor ran on it: 19 of 31 at first scoring (4 of 11 not-capacity cases with the deciding check,
# 5 reported as not found: Ollama's "requires more system memory" and XPU's "larger than 4GB" wordings, an Ascend
# runtime init failure, MXNet's "Create cublas handle failed"; Torch7/Caffe cuDNN statuses read as TensorFlow's).
# The fifth pass fixed the mechanisms behind them as classes (a runtime's per-allocation limit stated in words, a
# runtime's own check of the model against system RAM, runtime start-up failures without memory words, cuDNN/cuBLAS
# handles of frameworks that set up eagerly, host registration as pinned memory, device figures no device can hold):
# 28/31 on fresh-6, seen. "fresh-7" (CTranslate2, XGBoost/RMM, Theano, darknet, Caffe, TF, TPU and Windows page-file
# messages), collected after it and committed before the doctor ran on it: 13 of 21 at first scoring (2 of 6
# not-capacity cases with the deciding check, 3 reported as not found: Windows' "paging file is too small" (WinError
# 1455) in every wording). Windows' commit limit (error 1455 in any wording) and a MemoryError about device memory were
# then read for what they are, and XGBoost's unit-less figures with free memory covering a bare error: 18/21 on
# fresh-7, seen; its other misses (darknet/Caffe one-liners whose thread found another holder) are for the next pass,
# measured on a new batch. The sixth pass (issue 28, branch oom) added the user's inputs (host OS, other processes'
# memory), XLA's autotuner as preallocation, SIGKILL/exit-137 as the host OOM killer, vLLM's start-up free-memory check
# and more single-buffer and kernel-fault wordings. "fresh-8" (PyTorch, TF, CuPy, llama.cpp CUDA/Metal, vLLM-Ascend,
# TGI, host-RAM kills), collected after those rules were frozen and committed before the doctor ran on it: 15 of 22 at
# first scoring (5 of 7 not-capacity cases with the deciding check, 1 reported as not found: Metal's "command buffer 0
# failed with status 5"; the code before the sixth pass scored 14 of 22 with 2 not found). Its misses (a one-line
# error whose thread found another holder, an engine budget on an NPU with no engine words in the text, CuPy's pinned
# staging buffer, a llama.cpp VMM reservation) are for the next pass, measured on a new batch. Reading ggml-metal's
# failed command buffer as the Metal working set (and vLLM's start-up check naming its device) then gave 16/22 and none
# not found on fresh-8, seen. The seventh pass (issue 28, branch oom2: the window's OS / other-processes inputs, a
# refused cuMemAddressReserve as not capacity, CuPy's pinned pool, a figureless message asking for nvidia-smi) was
# frozen before "fresh-9" (PyTorch, TF, JAX, faiss, PaddlePaddle, NCCL tests, TensorRT, Triton, host RAM, WSL2) was
# collected and committed: 15 of 21 at first scoring (3 of 3 not-capacity cases with the deciding check, 2 reported as
# not found: a faiss StackDeviceMemory assertion and an NCCL test's "unhandled cuda error", neither with a figure).
# Reading free memory just above a request beside a large in-use figure as a full device, and faiss's scratch
# reservation as an up-front reservation, then gave 17/21 and 1 not found on fresh-9, seen. The eighth pass (issue 28,
# branch oomfix) read its misses and new real messages from public threads as classes: NCCL's "unhandled cuda error"
# (recognised, ranked with NCCL_DEBUG=WARN; nccl-tests run alone), faiss's 1.5 GiB default scratch in any wording and
# the "size N bytes" field of a failed-allocation record, ggml's pinned host buffers under WSL (GGML_CUDA_NO_PINNED), a
# ggml buffer no GPU holds as one allocation, a runtime's start-up pool (AMReX's arena, Taichi's field storage) as its
# preallocation, ONNX Runtime's arena at the session's gpu_mem_limit, TVM/MLC planned regions and dynamic shared
# memory, AWS Neuron's "Allocation Failure": 19/21 and none not found on fresh-9, 33/35 on fresh, seen. Left for the
# next pass, measured on a new batch: one-line errors whose thread found another holder or a leak (no text can tell
# them from the job's own need: the check decides), engine budgets on an NPU with no engine words, fragmentation with
# the cache a few per cent of reserved memory (read as a full device, as most such threads resolved), Windows/WDDM
# figures where free memory covers the request. "fresh-10" (32 messages: PyTorch, cuDNN/cuBLAS, NCCL /dev/shm in
# containers, Ollama and llama.cpp, TensorRT, MIG, Caffe, darknet, IREE on Vulkan) and "fresh-11" (32 messages chosen
# from the families earlier batches lacked: bitsandbytes, ONNX Runtime, JAX, MPS, ROCm, XPU, PaddlePaddle, DeepSpeed,
# TRT-LLM, TGI, LightLLM, Ascend, DirectML; half of them not-capacity cases), collected by two helpers while the
# eighth pass was written and committed before the doctor ran on them: 22 of 32 (6 of 10 not-capacity cases with the
# deciding check, 2 reported as not found: NCCL's /dev/shm failures in containers) and 12 of 32 (5 of 16 with the
# deciding check, 7 reported as not found) at first scoring. The ninth pass (issue 28, branch oomfix2) read their misses
# as classes: NCCL's shared-memory segments in /dev/shm (every NCCL wording of ncclShmOpen), PyTorch MPS's element-count
# and dimension limits, bash's report of a SIGKILL, PaddlePaddle's CPU allocator, a vLLM worker's negative KV budget, a
# negative running allocation count, TensorFlow's exception class named alone, a serving engine's KV pool allocated at
# start-up (LightLLM's per-layer buffers, vLLM's cache engine) with the engine's own knob, a bare hipMemCreate as ROCm's
# per-allocation handle limit, managed memory under WSL2/Windows, an nvidia-smi table pasted with a bare CUDA error:
# 24/32 (8 of 10 with the deciding check, none not found) and 21/32 (11 of 16, 1 not found: MPS's "Trace/BPT trap: 5",
# a SIGTRAP with no memory words, left unread on purpose) on those now-seen batches. Left for the next pass, measured on
# a new batch: one-line errors whose threads disagree (the same "CUDA error: out of memory" resolved as another holder,
# an ECC fault and a driver mismatch), TensorRT builder failures, engine budgets whose text names no engine (TGI, vLLM
# on MIG), TRT-LLM runtime buffers (labelled both ways), ONNX Runtime arena caps, IREE's Vulkan heap.
# "fresh-12" (30 messages: PyTorch, vLLM, Ollama, ONNX Runtime, Triton server, dlib, TPU, MLX, TGI, Ascend), collected
# after the ninth pass was merged and committed before the doctor ran on it: 20 of 30 at first scoring (7 of 10
# not-capacity cases with the deciding check, 2 reported as not found: Triton's Python backend failing to size its
# shared-memory region, "No space left on device"). A full POSIX shared-memory filesystem is now read as /dev/shm in
# any runtime: 22/30 on fresh-12, seen. The tenth pass (issue 28, branch oomfix; tests/oom/test_oom_tenth_pass.py) read
# the misses of fresh-10/11/12 as classes: other processes holding more of the GPU than this process (listed or not),
# XLA:TPU's largest program buffer above HBM (tile padding named), PyTorch's message cut after its request, an OOM
# raised in the validation pass, TensorFlow in a notebook with no figure, a TensorFlow concat inside a while loop, a
# trap on a Mac while a model runs (the maintainer of diffusers#11315: the expected MPS out-of-memory), a Vulkan
# buffer refused with no size; and, from new public wordings, live memory growing between caught OOMs, a bare CUDA
# error in a multi-process launch, TensorFlow 2's RESOURCE_EXHAUSTED op line, zsh's kill reports, WebGPU's and
# OpenCL's per-buffer limits: 25/32, 24/32 and 26/30 on those now-seen batches. Left for the next pass: one-line
# errors whose threads disagree, TensorRT builder failures, engine budgets with no engine words (NPU, TGI, MIG).
# "fresh-13" (35 messages, 18 families, 14 labelled not-capacity / another process / leak) and "fresh-14" (30, the
# families fresh-13 lacked: TensorRT, SGLang, Ascend MindIE, WSL, Vulkan), collected while the tenth pass was written
# and committed before the doctor ran on them: 26 of 35 and 17 of 30 at first scoring, after the tenth pass merged
# (fresh-13: 3 not found: an MPS buffer-size limit, ROCm TensorFlow with no figure, a host-RAM kill in Kubernetes;
# fresh-14: bare one-liners whose threads found another process 0 of 5). The eleventh pass (issue 28, branch oomfix2;
# tests/oom/test_oom_eleventh_pass.py) read their misses as classes: MPSNDArray's element-count assertion, MIOpen's
# "Memory not available to allocate buffer", the kubelet's SystemOOM event and a shortage said in any word order
# (never "not found" again), an initialisation that fails out of memory as another holder, cudaFuncSetAttribute out
# of memory as device memory (not the shared-memory limit), MLX's malloc_or_wait as its memory limit, one MLX array
# above Metal's maximum buffer as a single allocation, a unified-memory allocator as managed memory the GPU cannot
# oversubscribe, a RAM shortage in words as host memory, the fragmentation fix in the terms of the allocator the
# message dates, and another holder kept second (with the process list) beside a figureless shortage: 31/35 and 19/30
# on those now-seen batches, none not found (development sets 242/259, not-capacity 67/71). Left for the next pass, no text deciding them: one-liners whose threads
# found another holder or a leak (TensorFlow's BFC line, TensorRT's resize, an SGLang title, a bare CUDA error),
# PyTorch <= 1.3 caches above the request read as fragmentation where the threads resolved the need, an allocation
# above the card under the driver's sysmem fallback, an engine's warm-up budget on Ascend worded like TGI's.
# "fresh-15" (35 messages: PyTorch 12, ONNX Runtime 3, ComfyUI, vLLM, SGLang, DeepSpeed, FSDP, JAX, MLX, DirectML,
# WSL, Caffe, faiss), collected while the eleventh pass was written and committed before the doctor ran on it: 19 of 35
# at first scoring, after that pass merged (3 of 10 not-capacity / another-holder / leak labels; 1 not found: a
# Chinese-only title "模型加载过程被系统终止", the host killing the loader).
# The twelfth pass (issue 28, branch oomfix3; tests/oom/test_oom_twelfth_pass.py) read its misses as classes: memory
# shortages and OS kills worded in Chinese (内存 host RAM, 显存 video memory, "被系统终止/杀死", bash's "已杀死", glibc's
# "无法分配内存"), an engine's KV-pool refusal whose own counts show the tokens free (SGLang's page bookkeeping,
# not capacity), vLLM's sleep-mode allocator waking up beside a trainer (the engine's budget), MLX refusing a few bytes
# (the step's own need, its limit second), cuDNN/cuBLAS statuses in the CudaCall format of CNTK and ONNX Runtime (an
# allocation status a full GPU, a library status a mismatched install; preallocation only where TensorFlow or JAX is
# named), allocations spilled past the card by many small requests (the job's need first, the sysmem fallback second;
# one request as large as the card stays the fallback), and, from the same mechanisms' other wordings, memory growth
# described in words (English or Chinese) above a near-full shortage, TensorFlow or JAX in a PyTorch process as their
# preallocated pool, DirectML's figureless allocator failure with the Windows commit limit ranked: 26/35 on fresh-15,
# now seen, none not found; fresh-14 20/30 (a spill past the card), fresh-13 31/35 unchanged; development sets 242/259,
# not-capacity 67/71. Left, no text deciding them: bare one-liners whose threads found a leak or TensorFlow's pool in
# the same process, PyTorch figures that read as another holder or fragmentation where the threads resolved the need,
# ONNX Runtime's arena at start-up on a GPU shared with the desktop, a cuBLAS handle refused after a CUDA reinstall (the
# library check ranked third), DirectML's allocator after the page file was capped (ranked second), faiss's 1.5 GiB
# scratch size where the maintainer blamed the 21 GB matrix.
# "fresh-16" (34 messages: PyTorch 14, ComfyUI/diffusers 5, vLLM 3, host RAM 3, TensorFlow, MXNet, instant-ngp,
# SGLang on Ascend, llama.cpp on an iPhone, MLX, DirectML, WSL), collected while the twelfth pass was written and
# committed before the doctor ran on it: 23 of 34 at first scoring, after that pass merged (4 of 9 not-capacity /
# another-holder / leak labels; 1 not found: Metal's "newBufferWith*:length 0x86004000 must not exceed 2048 MB").
# The thirteenth pass (issue 28, branch oomfix4; tests/oom/test_oom_thirteenth_pass.py) read its misses as classes: a
# figure printed in hexadecimal after a size word or before "bytes" as a count of bytes (an address elsewhere is left
# alone), Metal's buffer validation ("length N must not exceed M MB") as the per-buffer limit with llama.cpp's -ub / -c
# / -fa, vLLM's sleep-mode allocator with a spaced line number, and an out-of-memory error inside vLLM's start-up
# profiling run (determine_num_available_blocks, profile_run, "Starting profile run") as the engine's profiling budget
# (max_num_seqs), a digit run inside a hexadecimal literal (an address) as no size, and WSL2's pinned-memory limit ranked
# second beside a figureless CUDA out-of-memory under WSL: 24/34 on fresh-16, now seen, none not found (llama.cpp#6861
# is now the buffer limit against its genuine_shortage label, a borderline one); fresh-13/14/15 31/35, 20/30, 26/35
# unchanged; development sets 242/259, not-capacity 67/71. Left, no text deciding them: one-liners whose threads found a
# leak (a checkpoint kept referenced, a loss accumulated with its graph, rendered chunks kept on the GPU) or another
# holder (MXNet's cut "cudaMalloc failed: out of mem", ranked second), PyTorch figures whose reserved-but-unallocated
# memory or memory outside the allocator exceed the request where the threads resolved the need (SOLO, MADDoG,
# instruct-nerf2nerf), a title with no figure or engine word (vllm#9445), and "CUDA out of memory in WSL2" (the pinned
# limit ranked second: the paraphrase is the caching allocator's wording, not the runtime's bare error).
# "fresh-17" (30 messages, 13 from Chinese-language threads: PaddleOCR, Langchain-Chatchat, GLM-4, LLaMA-Factory;
# host RAM and /dev/shm 6, PyTorch 8, Ollama, vLLM, llama.cpp, MLX, ONNX Runtime, DeepSpeed, Kubernetes time-slicing),
# collected while the thirteenth pass was written and committed before the doctor ran on it: 19 of 30 at first
# scoring, after that pass merged (8 of 15 not-capacity / another-holder / leak labels; 4 not found: Ollama's "failed
# to create context", a Chinese "进程会自己kill掉", ONNX Runtime's "bad allocation", MLX's "Resource limit (499000)
# exceeded", a count of Metal buffers rather than bytes). The fourteenth pass reads those four by mechanism
# (llama.cpp's "failed to create context with model" as the context's own allocation, "kill掉"/"自己kill" as the
# system's kill, MSVC's "bad allocation" as the host allocator, "Resource limit (N) exceeded" as MLX's buffer count):
# 23/30 on fresh-17, now seen, none not found; fresh-13..16 and the development sets (242/259, 67/71) unchanged.
# It also reads vLLM's "Capturing the model for CUDA graphs" log line (while no "Graph capturing finished" follows) as
# capture, and a sole listed PyTorch process holding all the used memory as the failing one even with more than 3 GiB
# outside its allocator: worker-vllm#40 right, 24/30 on fresh-17; and Vulkan's device-memory allocation named in
# words or as vulkan.hpp's vk::Device::allocateMemory with no size as the unsized per-allocation reading
# (llama.cpp#5441): 25/30 on fresh-17.
# The fifteenth pass (issue 28, branch oomfix5; tests/oom/test_oom_fifteenth_pass.py) read the misses that recurred over
# the seen batches fresh-13..17 as mechanisms: PyTorch before 1.10 (the message dates the allocator) raises only after
# returning every whole cached segment, so a cache smaller than the live tensors is the job's own peak and
# fragmentation only possible there (mega.pytorch#32, seamseg#19, YOLOv5-PyTorch#5, MADDoG#11); a figureless one-liner
# from a training framework ranks memory kept from step to step with its check (0.3; 0.45 after steps or from a
# notebook kernel; 0.6 after whole epochs; none at a first step or while the model is placed on the GPU); a
# figureless text naming a model whose bf16 weights fill under 30 % of the GPU it names, with no training, reads as
# memory held elsewhere (sglang#465); a pasted nvidia-smi table with a full GPU and a multi-process launch rank the
# holder beside any figureless message (0.5); a serving engine's warm-up out of memory is its batch budget with the settings
# the message names (gpustack#3541); a .NET process whose live tensors fill the GPU is tensors not disposed
# (TorchSharp#1057); a program's own VRAM check in words is found; "p2.xlarge" is no XLA. Seen batches after it:
# fresh-13 32/35, fresh-14 24/30, fresh-15 27/35, fresh-16 25/34, fresh-17 25/30 (133/164, from 126); leak or another
# holder in the top three for 16 of those 22 labels (from 11); development sets 242/259, not-capacity 69/71.
# "fresh-18" (35 messages: 9 Chinese-language threads, LM Studio, TGI, TRT-LLM, JAX, MLX, NCCL /dev/shm) and
# "fresh-19" (34: cuDNN init, SGLang, TPU, MIG, CuPy, XGBoost, TensorRT, 9 Chinese-language threads), collected while
# the fifteenth pass was written, scored once after it merged: fresh-18 20/35 (9 not recognised: memory reported
# full with nothing failing, titles in the user's words), fresh-19 14/34 (2 not recognised; leak, preallocation and
# driver-version labels missed). The sixteenth pass (tests/oom/test_oom_sixteenth_pass.py) read them by mechanism:
# memory described as filled with no failure is the engine's up-front reservation in its own setting's name; growth
# in the user's words is a leak; "OOM" as a verb; a user-stated card size; SGLang scheduler lines; TensorRT's
# execution context (seen: fresh-18 32/35, fresh-19 25/34; development sets 242/259).
# "fresh-20" (35 messages, 11 Chinese-language threads, 18 labelled not-capacity, leak or another holder), collected
# while the sixteenth pass was written, scored once after it merged: 13/35 (5 not recognised). The seventeenth pass
# (tests/oom/test_oom_seventeenth_pass.py) read its misses by mechanism: growth in more words ("over time", "for too
# long", "in the second epoch", 在350页到400页之间) and a kill after epochs as a leak; memory that "explodes" as a failure;
# the shell's bare "Bus error" (/dev/shm, 0.6) and the kubelet's node-memory eviction as host RAM; RDMA verbs' ENOMEM as
# the locked-memory limit (ulimit -l); GPU imbalance and vLLM inside a trainer said in words; cuDNN NOT_INITIALIZED with
# "unable to instantiate cudnn" as a library mismatch; fragmentation said in words (seen: fresh-20 26/35, none not
# found; fresh-13..19 unchanged; development sets 242/259).
# "fresh-21" (22 messages, 5 Chinese-language threads), collected while the seventeenth pass was written, scored once
# after it merged: 10/22 (5 not recognised: Windows error 1455 in words, MLX/oMLX and JAX titles, a TF question).
# The eighteenth pass (tests/oom/test_oom_eighteenth_pass.py): a program's own memory setting printed beside the size
# it refused, Windows error 1455 in words, vLLM at gpu_memory_utilization >= 0.96, Ollama's num_ctx, memory a request
# leaves behind, JAX's double allocation, Chinese imbalance wordings (seen: fresh-21 18/22, none not found).
# "fresh-22" (26 messages, 8 Chinese-language threads, 17 not-capacity, leak or another holder), collected while the
# eighteenth pass was written, scored once after it merged: 12/26 (5 not recognised).
# The nineteenth pass (tests/oom/test_oom_nineteenth_pass.py) read its misses by mechanism: a DataLoader worker's bus
# error as /dev/shm; PyTorch's cuBLAS wording never as preallocation; ggml's cuBLAS handle as the context's KV cache;
# ComfyUI's HostBuffer as pinned memory; a silent exit while loading and a notebook kernel that crashed as host RAM; room at
# the start then an overflow as a leak; a small TensorFlow variable refused at initialisation as another holder; a
# device of 1 GiB or less as the device's size; WSL2's residency ENOMEM; a bare error inside forward as the device
# (seen: fresh-22 19/26, none not found; fresh-18 33/35, 1 not found; fresh-19 27/34, fresh-13 33/35; development
# sets 242/259).
# "fresh-23" (35 messages, 10 Chinese-language threads) and "fresh-24" (43, 11), collected while the nineteenth pass
# was written, scored once after it merged: 14/35 (3 not recognised) and 22/43 (5 not recognised); the
# not-capacity, leak and other-holder labels 3/11 and 3/12, placement faults across GPUs 0/8.
# The twentieth pass (tests/oom/test_oom_twentieth_pass.py): placement across GPUs in the user's words, engine budget
# words per engine (TGI, SGLang, vLLM, llama.cpp, Ollama), growth that ends in the failure, dialogue history, a low
# vLLM share, capture of CUDA graphs, an nvidia-smi table with no process listed (seen: fresh-23 25/35, fresh-24
# 32/43; development sets 242/259). "fresh-25" (18 messages, 5 Chinese-language threads), collected while it was
# written, scored once after it merged: 12/18 (3 not recognised). "fresh-26" (45 messages, 6 non-English threads;
# 21 not-capacity: host RAM, /dev/shm, Windows page file, cuDNN builds, free far above the request), collected
# while the twenty-first and twenty-second passes were written, scored once before they merged: 24/45 (8 not
# recognised; not-capacity with the deciding check 9/21). The twenty-first and twenty-second passes
# (tests/oom/test_oom_twentyfirst_pass.py, test_oom_twentysecond_pass.py) read fresh-23..26 by mechanism (seen:
# fresh-23 27/35, fresh-24 35/43, fresh-25 17/18, fresh-26 42/45). "fresh-27" (49 messages, 8 Chinese-language
# threads; NCCL /dev/shm, JAX/TPU, XPU, TGI, lmdeploy, ECC/Xid), collected while they were written, scored once after
# they merged: 32/49 (10 not recognised; not-capacity with the deciding check 10/20). The twenty-third pass
# (tests/oom/test_oom_twentythird_pass.py) read fresh-27 by mechanism (seen: 47/49). "fresh-28" (45 messages, 22
# not-capacity; JAX/XLA, Ollama, SGLang, TensorRT, Triton server), collected while it was written by a helper told to
# prefer threads resolved by a cause other than a plain shortage, scored once after it merged: 14/45 (8 not
# recognised; not-capacity with the deciding check 3/22). The twenty-fourth pass
# (tests/oom/test_oom_twentyfourth_pass.py) read it by mechanism (seen: 29/45). "fresh-29" (45 messages, 6
# Chinese-language threads; physics engines, vGPU containers, Kaldi, TensorFlow cuDNN), collected at the same time,
# scored once after it merged: 25/45 (4 not recognised; not-capacity with the deciding check 9/17). The twenty-fifth
# and twenty-sixth passes (tests/oom/test_oom_twentyfifth_pass.py, test_oom_twentysixth_pass.py) read fresh-29 and
# the other_process/leak misses by mechanism (seen: fresh-28 33/45, fresh-29 39/45). "fresh-30" (45 messages, 15
# not-capacity; Tenstorrent, Windows miners, TPU VMEM, scientific codes, XPU, Metal), collected while they were
# written, scored once after they merged: 23/45 (4 not recognised; not-capacity with the deciding check 4/15). The
# twenty-seventh pass (tests/oom/test_oom_twentyseventh_pass.py) read it by mechanism (seen: 38/45). "fresh-31" (38
# messages, about 9 Chinese-language threads; 25 not a plain shortage), collected while it was written, scored once
# after it merged: 22/38 (1 not recognised; not-capacity with the deciding check 7/10). The twenty-eighth pass
# (tests/oom/test_oom_twentyeighth_pass.py) read it by mechanism (seen: 28/38). "fresh-32" (28 messages, 12
# not-capacity; dorado, Real-ESRGAN, vLLM on RTX 3090s, ROCm shared memory), collected while it was written, scored
# once after it merged: 19/28 (none not recognised; not-capacity with the deciding check 10/12). The twenty-ninth
# pass (tests/oom/test_oom_twentyninth_pass.py) read it by mechanism (seen: 22/28). "fresh-33" (21 messages, 5
# not-capacity; AlphaFold/BindCraft XLA, nerfstudio, RVC, LAMMPS/Kokkos on a MIG slice), collected while it was
# written, scored once after it merged: 10/21 (2 not recognised; not-capacity with the deciding check 2/5). The
# thirtieth pass (tests/oom/test_oom_thirtieth_pass.py) read it by mechanism (seen: 12/21). "fresh-34" (44 messages,
# 17 not-capacity; Torch7, CatBoost, RAPIDS cuDF, MLX, TensorRT-LLM, numpy host RAM), collected while the thirty-first pass was written, scored once after it merged: 35/44 (1 not recognised; not-capacity with the deciding check 12/17).
# The thirty-second pass (tests/oom/test_oom_thirtysecond_pass.py) read fresh-34 by mechanism (seen: 39/44).
# "fresh-35" (54 messages, 17 not-capacity; oobabooga textgen, NeMo speech, Chinese research code, Caffe/Lua Torch, five GPU miners), collected while the thirty-second pass was written, scored once
# after it merged: 36/54 (2 not recognised; not-capacity with the deciding check 11/17).
# The thirty-third pass (tests/oom/test_oom_thirtythird_pass.py) read fresh-35 by mechanism (seen: 42/54).
# "fresh-36" (48 messages, 11 not-capacity; sentence-transformers, nnU-Net, dorado, kohya_ss/Forge/FramePack, vLLM start-up refusals, TGI, four Chinese threads), collected while the thirty-third pass was written, scored once
# after it merged: 37/48 (1 not recognised; not-capacity with the deciding check 9/11).
# The thirty-fourth pass (tests/oom/test_oom_thirtyfourth_pass.py) read fresh-36 by mechanism (seen: 42/48).
# "fresh-37" (35 messages, 14 not-capacity (9 host RAM); pbrt-v4/Mitsuba renderers, llm.c, RAPIDS Spark, TorchServe on a shared GPU, NCCL /dev/shm, Qwen3 vLLM), collected while the thirty-fifth pass was written, scored once
# after it merged: 21/35 (1 not recognised; not-capacity with the deciding check 13/14).
# The thirty-sixth pass (tests/oom/test_oom_thirtysixth_pass.py) read fresh-37 by mechanism (seen: 23/35).
# "fresh-38" (49 messages, 18 not-capacity; FramePack/ComfyUI, TensorRT-LLM, vLLM-TPU/PyTorch-XLA/EasyDeL, Intel Arc, Xid 48, three Chinese threads), collected while the thirty-sixth pass was written, scored once
# after it merged: 35/49 (4 not recognised; not-capacity with the deciding check 13/18).
# The thirty-seventh pass (tests/oom/test_oom_thirtyseventh_pass.py) read fresh-38 by mechanism (seen: 40/49).
# "fresh-39" (50 messages, 14 not-capacity (7 host RAM); lmdeploy, SGLang on Ascend NPU, ChatRTX, whisper-jax, YOLO, six Chinese threads), collected while the thirty-seventh pass was written, scored once
# after it merged: 34/50 (2 not recognised; not-capacity with the deciding check 10/14).
# The thirty-eighth pass (tests/oom/test_oom_thirtyeighth_pass.py) read fresh-39 by mechanism (seen: 41/50).
# "fresh-40" (44 messages, 12 not-capacity (4 absurd sizes from Gaussian-splatting rasterizers, 4 host RAM); Boltz-2/Chai-1, TRELLIS, Hunyuan3D, SLAM, medical segmentation), collected while the thirty-eighth pass was written, scored once
# after it merged: 31/44 (1 not recognised; not-capacity with the deciding check 6/12).
# The thirty-ninth pass (tests/oom/test_oom_thirtyninth_pass.py) read fresh-40 by mechanism (seen: 36/44).
# "fresh-41" (42 messages, 17 not-capacity (7 host RAM, 6 driver/cuDNN init); JAX cuDNN handles, Vulkan heap limits, catboost, IREE, ECC, Docker memory limits), collected while the fortieth pass was written, scored once
# after it merged: 33/42 (3 not recognised; not-capacity with the deciding check 13/17).
# The forty-first pass (tests/oom/test_oom_fortyfirst_pass.py) read fresh-41 by mechanism (seen: 38/42).
# "fresh-42" (44 messages, 17 not-capacity (9 host RAM, 5 /dev/shm); Julia CUDA.jl, Taichi, ZED SDK, 16 Chinese threads), collected while the forty-first pass was written, scored once
# after it merged: 24/44 (8 not recognised; not-capacity with the deciding check 6/17).
# "fresh-43" (23 messages, 8 not-capacity (4 pinned memory); SPECFEM, OpenMM tools, PG-Strom, llm-d, LMDeploy, TPU program size), collected while the forty-first pass was written, scored once
# after it merged: 17/23 (none not recognised; not-capacity with the deciding check 5/8).
# The forty-second pass (tests/oom/test_oom_fortysecond_pass.py) read fresh-43 by mechanism (seen: 19/23).
# "fresh-44" (39 messages, 14 not-capacity (6 host RAM, 3 free exceeds request, 2 ECC); vLLM, ONNX Runtime, Caffe, PyTorch/XLA on TPU, six Chinese threads), collected while the forty-third pass was written, scored once
# after it merged: 26/39 (1 not recognised; not-capacity with the deciding check 10/14).
# "fresh-45" (38 messages, 13 not-capacity (6 host RAM, 2 absurd sizes); TensorFlow, ds4, OpenCV, Spark RAPIDS, Jetson, Tenstorrent, three Chinese threads), collected while the forty-third pass was written, scored once
# after it merged: 23/38 (2 not recognised; not-capacity with the deciding check 8/13).
# "fresh-46" (32 messages, 11 not-capacity (7 host RAM, 2 pinned memory); RELION, XMRig, ds4, CUDA.jl, ZLUDA, Theano, Caffe), collected while the forty-third pass was written, scored once
# after it merged: 19/32 (none not recognised; not-capacity with the deciding check 8/11).
# The forty-fourth pass (tests/oom/test_oom_fortyfourth_pass.py) read fresh-44..46 by mechanism (seen: 27/39, 27/38, 20/32).
# "fresh-47" (26 messages, 11 not-capacity (7 host RAM: Ray's memory monitor, RL trainers); TPU fragmentation wordings, FlashInfer workspace, vLLM on a MIG slice, four Chinese threads), collected while the forty-fourth pass was written, scored once
# after it merged: 16/26 (3 not recognised; not-capacity with the deciding check 5/11).
# "fresh-48" (23 messages, 5 not-capacity; A1111/ComfyUI and diffusion models, exllamav2, text-generation-webui, Torch7, Ryujinx Vulkan), collected while the forty-fourth pass was written, scored once
# after it merged: 18/23 (none not recognised; not-capacity with the deciding check 4/5).
# The forty-fifth pass (tests/oom/test_oom_fortyfifth_pass.py) read fresh-48 by mechanism (seen: 18/23).
# "fresh-49" (28 messages, 8 not-capacity; Fooocus and ComfyUI nodes, llama.cpp (Vulkan, Metal), FastChat, Langchain-Chatchat, trl; projects A-L), collected while the forty-sixth pass was written, scored once
# after it merged: 20/28 (1 not recognised; not-capacity with the deciding check 6/8).
# "fresh-50" (33 messages, 10 not-capacity; cuDF, PaddlePaddle, SGLang, Ollama, tinygrad, ONNX Runtime, nine Chinese-language threads; projects M-Z), collected while the forty-sixth pass was written, scored once
# after it merged: 14/33 (2 not recognised; not-capacity with the deciding check 6/10).
# The forty-seventh pass (tests/oom/test_oom_fortyseventh_pass.py) read fresh-49 and fresh-50 by mechanism (seen: 23/28, 19/33).
# "fresh-51" (48 messages, 15 not-capacity; vLLM, dlib, Jetson TensorRT builds with host RAM, FlashInfer, mteb, ComfyUI; any project), collected while the forty-seventh pass was written, scored once
# after it merged: 35/48 (none not recognised; not-capacity with the deciding check 14/15).
# "fresh-52" (31 messages, 6 not-capacity; vLLM, TensorRT-LLM, NCCL shared memory, Ollama, bitsandbytes, LMDeploy; search budget spent during it), collected while the forty-seventh pass was written, scored once
# after it merged: 21/31 (1 not recognised; not-capacity with the deciding check 2/6).
# The forty-eighth pass (tests/oom/test_oom_fortyeighth_pass.py) read fresh-51 and fresh-52 by mechanism (seen: 36/48, 28/31).
# "fresh-53" (43 messages, 11 not-capacity; diffusers/ComfyUI, PyTorch DDP/FSDP, llama.cpp/KoboldCpp, DeepSpeed, DirectML; projects A-L), collected while the forty-ninth pass was written, scored once
# after it merged: 31/43 (2 not recognised; not-capacity with the deciding check 9/11).
# "fresh-54" (36 messages, 10 not-capacity; vLLM incl. vllm-ascend, TensorRT-LLM, host RAM, SGLang, NCCL, Theano, JAX, ONNX Runtime, MLX; projects M-Z), collected while the forty-ninth pass was written, scored once
# after it merged: 20/36 (4 not recognised; not-capacity with the deciding check 7/10).
# The fiftieth pass (tests/oom/test_oom_fiftieth_pass.py) read fresh-53 and fresh-54 by mechanism (seen: 34/43, 27/36).
# "fresh-55" (27 messages, 6 not-capacity; PyTorch, diffusers/ComfyUI, MXNet, Kaldi, Caffe, CUDA.jl, CuPy, a MIG slice; projects A-L), collected while the fiftieth pass was written, scored once
# after it merged: 18/27 (1 not recognised; not-capacity with the deciding check 4/6).
# "fresh-56" (30 messages, 8 not-capacity; PyTorch, vLLM, SGLang, ONNX Runtime, TensorFlow, TensorRT, Ollama, kvcached; projects M-Z; search budget spent during it), collected while the fiftieth pass was written, scored once
# after it merged: 15/30 (4 not recognised; not-capacity with the deciding check 7/8).
# The fifty-first pass (tests/oom/test_oom_fiftyfirst_pass.py) read fresh-41 .. fresh-56 by mechanism (seen: fresh-55 20/27, fresh-56 17/30).
# "fresh-57" (25 messages, 3 not-capacity; PyTorch, diffusers/ComfyUI, ROCm, Intel XPU, JAX, MLX, llama.cpp; projects A-L), collected while the fifty-first pass was written, scored once
# after it merged: 19/25 (0 not recognised; not-capacity with the deciding check 2/3).
# "fresh-58" (33 messages, 9 not-capacity; TensorFlow.js WebGL, TF Serving, TorchServe, Ray, ms-swift on Ascend, ONNX Runtime GenAI; projects M-Z), collected at the same time, scored once
# after it merged: 14/33 (7 not recognised; not-capacity with the deciding check 4/9).
# "fresh-59" (27 messages, 10 not-capacity; 21 Tenstorrent, Graphcore IPU, AWS Inferentia, Hygon DCU), collected at the same time, scored once
# after it merged: 7/27 (7 not recognised; not-capacity with the deciding check 0/10).
# "fresh-60" (32 messages, 9 not-capacity; Chinese-language threads, 5 Ascend), collected at the same time, scored once
# after it merged: 23/32 (2 not recognised; not-capacity with the deciding check 5/9).
# The fifty-second pass (tests/oom/test_oom_fiftysecond_pass.py) read fresh-57 .. fresh-60 by mechanism (seen: 19/25, 19/33, 18/27, 24/32).
# "fresh-61" (22 messages, 2 not-capacity; PyTorch, llama.cpp, TensorFlow, DeepSpeed, JAX, Intel XPU; projects A-L), collected while the fifty-second pass was written, scored once
# after it merged: 15/22 (1 not recognised; not-capacity with the deciding check 2/2).
# "fresh-62" (25 messages, 13 not-capacity; PyTorch, vLLM, SGLang, Ollama, llama.cpp, Ascend, TPU, ROCm on WSL, MLX, MPS; projects M-Z), collected at the same time, scored once
# after it merged: 17/25 (5 not recognised; not-capacity with the deciding check 9/13).
# "fresh-63" (27 messages, 6 not-capacity; LocalAI, exllamav2, unsloth, vLLM, SGLang, llama.cpp, Ollama, TensorFlow, Ray, JAX, MXNet, DeepSpeed), collected after the fifty-second pass merged, scored once
# on the final doctor: 15/27 (0 not recognised; not-capacity with the deciding check 3/6).
# "fresh-64" (28 messages, 6 not-capacity; PyTorch, TensorFlow, JAX, vLLM, Ollama, ROCm, Intel XPU, Paddle, Caffe, RAPIDS RMM, exllamav2), collected after the fifty-second pass merged, scored once
# on the final doctor: 10/28 (2 not recognised; not-capacity with the deciding check 3/6).
# "fresh-65" (26 messages, 11 not-capacity; JAX/EXLA, Intel XPU, ROCm, MLX, DirectML, LM Studio, mistral.rs, DeepSpeed; projects A-M), collected while the fifty-fourth pass was written, scored once
# after it merged: 16/26 (5 not recognised; not-capacity with the deciding check 6/11).
# "fresh-66" (28 messages, 8 not-capacity; PyTorch, vLLM, ncnn Vulkan, OpenVINO, ZLUDA, RAPIDS, ExLlamaV3; projects N-Z), collected at the same time, scored once
# after it merged: 17/28 (5 not recognised; not-capacity with the deciding check 4/8).
# "fresh-67" (20 messages, 9 not-capacity; Intel XPU, Gaudi, IREE on ROCm, Ascend, JAX on TPU, Metal and Vulkan buffer limits; projects A-M), collected while the fifty-fifth and fifty-sixth passes were written, scored once
# after both merged: 9/20 (5 not recognised; not-capacity with the deciding check 5/9).
# "fresh-68" (23 messages, 11 not-capacity; MLX, Taichi, tiny-cuda-nn, CubeCL, nnabla, OpenVINO, tinygrad, LLamaSharp, Ollama, Paddle; projects N-Z), collected at the same time, scored once
# after both merged: 15/23 (4 not recognised; not-capacity with the deciding check 8/11).
# "fresh-69" (17 messages, 3 not-capacity; PyTorch, JAX/XLA, llama.cpp on CUDA and SYCL, DeepSpeed, TensorFlow, Caffe2, HeavyDB; projects A-M), collected after the last change of the stop, scored once
# on it: 11/17 (1 not recognised; not-capacity with the deciding check 2/3).
# "fresh-70" (20 messages, 9 not-capacity; Ollama, vLLM, Xinference, PyTorch/XLA on TPU, ROCm TheRock, Ray, MXNet, PaddleSpeech; projects N-Z), collected at the same time, scored once
# on it: 13/20 (4 not recognised; not-capacity with the deciding check 6/9).
# "fresh-71" (23 messages, 8 not-capacity; Ollama, llama.cpp on ROCm, vllm-omni, MegEngine, MLC/TVM, CuPy, Caffe, XGBoost/Thrust, A1111, Colab host RAM; any project), collected after the last change of the stop, scored once
# on it: 16/23 (3 not recognised; not-capacity with the deciding check 7/8).
# "fresh-72" (11 messages, 6 not-capacity; host RAM kills (Slurm, dmesg, Ollama's system-memory check), PyTorch, Tenstorrent; any project), collected after the last change of the stop, scored once
# on it: 9/11 (1 not recognised; not-capacity with the deciding check 5/6).
# "fresh-73" (22 messages, 7 not-capacity; C++ bad_alloc host RAM, Windows page file, iOS kill, TensorFlow, MXNet, MLC, Caffe; any project), collected while the fifty-seventh pass was written, scored once
# after it: 18/22 (1 not recognised; not-capacity with the deciding check 6/7).
# "fresh-74" (27 messages, 6 not-capacity; older TensorFlow/Caffe/darknet, Docker and DataLoader host RAM, SYCL and Metal buffer limits, Ascend NPU, JAX, TensorRT-LLM; any project), collected while the fifty-seventh pass was written, scored once
# after it: 12/27 (6 not recognised; not-capacity with the deciding check 2/6).
# "fresh-75" (15 messages, 3 not-capacity; PyTorch, Torch7, PyCUDA, cuBLAS, DyNet, darknet, Kaldi, OpenCL; owners A-M), collected after the last change of the stop, scored once
# on it: 11/15 (0 not recognised; not-capacity with the deciding check 1/3).
# "fresh-76" (6 messages, 4 not-capacity; Ray's memory monitor, a Docker limit, RL trainers; owners N-Z), collected after the last change of the stop, scored once
# on it: 5/6 (1 refused as no out-of-memory message; not-capacity with the deciding check 4/4).
# "fresh-77" (27 messages, 5 not-capacity; CNTK, Kaldi, DyNet, Theano, MXNet, darknet, Caffe, Torch7, Chainer, Paddle, MindSpore, ArrayFire, OpenCL; older runtimes), collected after the last change of the stop, scored once
# on it: 15/27 (3 not recognised; not-capacity with the deciding check 3/5).
# "fresh-78" (9 messages, 4 not-capacity; vLLM in an RL trainer, Ollama via Continue, exllamav3, JAX, SGLang on Ascend; any project), collected after the last change of the stop, scored once
# on it: 5/9 (1 not recognised; not-capacity with the deciding check 3/4).
# "fresh-79" (7 messages, 5 not-capacity; Intel Arc XPU, Vulkan per-allocation limits in stable-diffusion.cpp, ROCm,
# Ollama's system-memory check, kernel OOM kills), collected while the fifty-eighth pass was written, scored once
# before it merged: 6/7 (1 refused as no out-of-memory message; not-capacity with the deciding check 4/5).
# "fresh-80" (7 messages, 1 not-capacity; ms-swift, DiffSynth-Studio, MLX Metal buffer limit, Tenstorrent tt-xla
# allocator, JAX), collected after the fifty-eighth pass (the last change of the stop), scored once on it: 4/7
# (0 not recognised; not-capacity with the deciding check 0/1).
# "fresh-81" (9 messages, 2 not-capacity; vLLM KV budget x4, cuDNN / PyTorch / TensorFlow shortages, host OOM kill,
# SYCL allocation ceiling), collected after the fifty-eighth pass, scored once on it before the fifty-ninth: 7/9
# (1 reported as no out-of-memory message; not-capacity with the deciding check 1/2).
# "fresh-82" (7 messages, 1 not-capacity; vLLM's Mamba cache-block refusal x5, a start-up profile run without chunked
# prefill, Ollama's system-memory refusal), collected after the fifty-eighth pass, scored once on it before the
# fifty-ninth: 6/7 (1 reported as no out-of-memory message: a fragment cut with "..."; not-capacity with the deciding
# check 1/1).
# "fresh-83" (5 messages, 4 not-capacity; host RAM exhausted loading weights x3, a CUDA build mismatch, an MPS cap on
# a virtual macOS runner), collected after the fifty-eighth pass, scored once on it before the fifty-ninth: 2/5 (0 not
# recognised; not-capacity with the deciding check 2/4).
# "fresh-84" (12 messages, 5 not-capacity; Unsloth, Dynamo, MLX, Ollama, tch-rs, tinygrad, vLLM, pinned host memory on
# Windows), collected after the fifty-ninth pass (the last change of the stop), scored once on it: 6/12 (1 reported as
# no out-of-memory message; not-capacity with the deciding check 4/5).
# "fresh-85" (9 messages, 4 not-capacity; vLLM-Omni, PyTorch XPU, ROCm on Strix Halo, Ollama on a Mac, MLX buffer-count
# limit x2 and allocator cache, Ascend NPU), collected after the fifty-ninth pass, scored once on it: 7/9 (0 not
# recognised; not-capacity with the deciding check 3/4).
# "fresh-86" (8 messages, 2 not-capacity; SGLang KV budget x2 and a peer container, hipBLASLt CI, OpenVINO and OpenCL
# per-object limits, Mali, alpaca-lora), collected after the fifty-ninth pass, scored once on it: 3/8 (1 reported as
# no out-of-memory message; not-capacity with the deciding check 1/2).
# "fresh-87" (5 messages, 2 not-capacity; SGLang CUDA-graph capture, ggml's fixed buffers x2, OpenVINO on an integrated
# GPU, a shortage on an 8 GB card), collected after the fifty-ninth pass, scored once on it: 4/5 (0 not recognised;
# not-capacity with the deciding check 2/2).
# "fresh-88" (10 messages, 4 not-capacity; JAX version mismatches, OOM-killer logs, shortages, vLLM on MI300X, PyTorch
# fragmentation), collected after the fifty-ninth pass, scored once on it: 8/10 (1 reported as no out-of-memory
# message: a vLLM line cut mid-sentence; not-capacity with the deciding check 4/4).
# "fresh-89" (5 messages, 2 not-capacity; Qwen3 on vLLM, Jan's llama.cpp buffers, Taichi unified memory before Pascal,
# Ollama on Jetson Thor, an Ollama layer split), collected before the sixtieth pass, scored once on the fifty-ninth:
# 5/5 (0 not recognised; not-capacity with the deciding check 2/2).
# "fresh-90" (7 messages, 1 not-capacity; a Tenstorrent bank allocator, LLaMA int8 KV cache, a Vulkan per-allocation
# limit, a Paddle argsort, SGLang CUDA-graph capture, two oversized images), scored once on the sixtieth pass: 6/7 (0 not
# recognised; not-capacity with the deciding check 1/1).
# "fresh-91" (8 messages, 2 not-capacity; PyTorch attention on ROCm on the math path x6, MLX's Metal buffer-count limit
# x2), scored once on the sixty-first pass: 6/8 (0 not recognised; not-capacity with the deciding check 2/2).
# "fresh-92" (7 messages; vLLM on Apple Metal KV budget x4, an oversized image, a vllm-mlx leak, a llama.cpp image
# buffer), scored once on the sixty-first pass: 3/7 (0 not recognised; the three vLLM-Metal budget lines and the leak
# read as shortages).
# "fresh-93" (8 messages, 2 not-capacity; vLLM-Omni offload and TP cases, SGLang's image processor on GPU 0, pinned
# buffers on the host, MPS on CI runners, a colocated vLLM start-up), collected after the sixty-first pass, scored once
# on it: 6/8 (0 not recognised; not-capacity with the deciding check 2/2).
# "fresh-94" (5 messages; Ollama on ROCm, vLLM at a 0.1 memory fraction, a Tenstorrent buffer larger than the device,
# Flux ControlNet, ComfyUI on MPS), collected after the sixty-first pass, scored once on it: 4/5 (0 not recognised).
# "fresh-95" (10 messages, 3 not-capacity; Caffe, OpenCL miners, TensorFlow cuFFT, LLaMA weights, Lua Torch, Jetson,
# Julia), collected at the start of the 2026-12-07 session, scored once on the sixty-first pass: 4/10 (3 not recognised: an OpenCL buffer and two miners' host-RAM failures; not-capacity with the deciding check 0/3).
# "fresh-96" (12 messages, 9 not-capacity; Triton shared memory, ggml buffers, ComfyUI, NCCL /dev/shm, Metal, cuDNN
# start-up), collected while the sixty-third pass was built, scored once on the sixty-second: 10/12 (0 not recognised;
# not-capacity with the deciding check 8/9; misses: PyTorch 2.10's OutOfMemoryError wording for Triton shared memory
# read as a shortage, a bare Metal message read as a shortage).
# "fresh-97" (11 messages, 9 not-capacity; ROCm start-up, NVENC, DirectML, hashcat, miners), collected while the
# sixty-third pass was built, scored once on it (the last change): 1/11 (4 not recognised: two NVENC error-10 lines
# and both DirectML messages; not-capacity with the deciding check 0/9: ROCm start-up, NVENC session limits, host
# memory read as shortages).
# "fresh-98" (8 messages, 2 not-capacity; JAX, Intel XPU, PyTorch, oMLX, Tenstorrent, Intel compute-runtime, ComfyUI),
# collected while the sixty-third pass was built, scored once on it (the last change): 4/8 (0 not recognised; not-
# capacity with the deciding check 0/2).
# "fresh-99" (10 messages, 1 not-capacity; Tenstorrent, NeMo Automodel, SGLang, Ascend CANN, dorado, vLLM, InferenceX,
# PyTorch, WSL), collected while the sixty-fourth pass was built, scored once on it (the last change): 8/10 (0 not
# recognised; not-capacity with the deciding check 1/1; misses: a 2017 PyTorch leak and InferenceX's memory fraction
# read as shortages).
# "fresh-100" (13 messages, 6 not-capacity) and "fresh-101" (10 messages, 5 not-capacity): scored once on the sixty-sixth
# pass: 8/13 and 8/10 (the sixty-seventh pass then studied both).
# "fresh-102" (10 messages, 3 not-capacity): scored once on the sixty-seventh pass: 7/10.
# "fresh-103" (7 messages, 4 not-capacity): collected after the sixty-seventh pass, scored once on it: 4/7.
# "fresh-104" (12 messages, 2 not-capacity): scored once on the sixty-eighth pass, the last OOM change: 7/12.
FIRST_SCORE_RIGHT = {"fresh": 19, "fresh-2": 5, "fresh-3": 8, "fresh-4": 17, "fresh-5": 18, "fresh-6": 19,
                     "fresh-7": 13, "fresh-8": 15, "fresh-9": 15, "fresh-10": 22, "fresh-11": 12,
                     "fresh-12": 20, "fresh-13": 26, "fresh-14": 17, "fresh-15": 19, "fresh-16": 23, "fresh-17": 19,
                     "fresh-18": 20, "fresh-19": 14, "fresh-20": 13, "fresh-21": 10,
                     "fresh-22": 12, "fresh-23": 14, "fresh-24": 22, "fresh-25": 12, "fresh-26": 24, "fresh-27": 32, "fresh-28": 14, "fresh-29": 25,
                     "fresh-30": 23, "fresh-31": 22,
                     "fresh-32": 19, "fresh-33": 10, "fresh-34": 35, "fresh-35": 36, "fresh-36": 37, "fresh-37": 21, "fresh-38": 35, "fresh-39": 34, "fresh-40": 31, "fresh-41": 33, "fresh-42": 24, "fresh-43": 17, "fresh-44": 26, "fresh-45": 23, "fresh-46": 19, "fresh-47": 16, "fresh-48": 18, "fresh-49": 20, "fresh-50": 14, "fresh-51": 35, "fresh-52": 21, "fresh-53": 31, "fresh-54": 20, "fresh-55": 18, "fresh-56": 15, "fresh-57": 19, "fresh-58": 14, "fresh-59": 7, "fresh-60": 23, "fresh-61": 15, "fresh-62": 17, "fresh-63": 15, "fresh-64": 10, "fresh-65": 16, "fresh-66": 17, "fresh-67": 9, "fresh-68": 15, "fresh-69": 11, "fresh-70": 13, "fresh-71": 16, "fresh-72": 9, "fresh-73": 18, "fresh-74": 12, "fresh-75": 11, "fresh-76": 5, "fresh-77": 15, "fresh-78": 5, "fresh-79": 6, "fresh-80": 4, "fresh-81": 7, "fresh-82": 6, "fresh-83": 2, "fresh-84": 6, "fresh-85": 7, "fresh-86": 3, "fresh-87": 4, "fresh-88": 8, "fresh-89": 5, "fresh-90": 6, "fresh-91": 6, "fresh-92": 3, "fresh-93": 6, "fresh-94": 4, "fresh-95": 4, "fresh-96": 10, "fresh-97": 1, "fresh-98": 4, "fresh-99": 8, "fresh-100": 8, "fresh-101": 8, "fresh-102": 7, "fresh-103": 4, "fresh-104": 7}


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_fresh_cases_are_real_labelled_and_separate_from_the_development_sets():
    fresh_urls: list[str] = []
    for name in FRESH_FILES.values():
        for row in _rows(name):
            assert row["url"].startswith(("https://github.com/", "https://stackoverflow.com/")) and row["message"].strip() and row["context"].strip()
            assert row["expected_cause"] in CAUSE_IDS and row["labelled"] == "fresh"
            if row["expected_cause"] == "not_capacity":
                assert row["expected_check"] in CHECKS, row["url"]
            fresh_urls.append(row["url"])
    assert len(fresh_urls) >= 140 and len(set(fresh_urls)) == len(fresh_urls)
    development = set()
    for _set, name in CASE_FILES:
        if name in FRESH_FILES.values() or not (FIXTURES / name).is_file():
            continue
        development |= {row["url"] for row in _rows(name)}
    assert not development & set(fresh_urls), "a fresh case must not be one the rules were developed on"


@pytest.mark.parametrize("case_set", sorted(FRESH_FILES))
def test_fresh_figures_do_not_regress(case_set, capsys):
    fresh = evaluate([c for c in load_cases() if c.case_set == case_set])
    with capsys.disabled():
        print(f"\n{case_set}: first cause right in {fresh.right}/{fresh.total} ("
              + ", ".join(f"{f.family} {f.right}/{f.total}" for f in fresh.families()) + ")")
    assert fresh.right >= FIRST_SCORE_RIGHT[case_set]
