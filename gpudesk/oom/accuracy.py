"""How accurate is the OOM doctor? Its first cause checked against real messages labelled from their threads.

The case sets ship with gpudesk (source checkout: ``tests/fixtures/oom/``), each line one real message with
the URL of the public thread it comes from and the cause that thread established, written down before the
doctor was run on it:

* ``public``: ``cases.jsonl``, the 26 PyTorch/TF/JAX/vLLM cases of ``shared/reference/oom-cases.jsonl``
  (recorded ``category`` mapped to a cause id by :data:`CATEGORY_TO_CAUSE`);
* ``engines``: ``engine_cases.jsonl``, serving engines, ROCm and Apple MPS (``expected_cause``);
* ``platforms``: ``platform_cases.jsonl``, every other runtime and platform (JAX/TPU, TensorFlow, ONNX
  Runtime, NCCL, cuDNN/cuBLAS, MIG, Triton and CUDA graphs, bitsandbytes, ComfyUI, llama.cpp/Ollama, MLX,
  TensorRT, CuPy/Numba/JCuda, Windows/WSL, ECC and driver faults, host RAM), with ``expected_check`` for the
  not-capacity cases: the one check that tells that cause apart (:data:`gpudesk.oom.signatures.CHECKS`);
* ``vendors`` / ``vendors-2``: Ascend/CANN, ROCm/HIP, Gaudi, Apple MPS and Intel XPU messages;
* ``fresh``: ``fresh_cases.jsonl``, messages collected after the rules were written and labelled from their
  threads before the doctor was first run on them (``labelled: fresh``): the held-back measure of how the doctor
  does on wordings it was not built from. Rules are not tuned on it; a fix prompted by it needs a new fresh batch;
* ``fresh-2`` .. ``fresh-7``: ``fresh_cases_2.jsonl`` .. ``fresh_cases_7.jsonl``, the batches collected after the
  fixes the previous fresh batch prompted, each the unseen measure of those fixes;
* ``fresh-8``: ``fresh_cases_8.jsonl``, 22 messages (PyTorch, TensorFlow, CuPy, llama.cpp on CUDA and Metal,
  vLLM on Ascend, TGI, host-RAM kills) collected after the rules were frozen for it (the user's host OS and other
  processes' memory as inputs, XLA's autotuner, SIGKILL and start-up wordings) and labelled from their threads before
  the doctor first ran on them;
* ``fresh-9``: ``fresh_cases_9.jsonl``, 21 messages (PyTorch, TensorFlow, JAX, faiss, PaddlePaddle, NCCL tests,
  TensorRT, Triton, host RAM, WSL2) collected after the rules were frozen for it (the window's OS / other-processes
  inputs, a refused virtual-address reservation, CuPy's pinned pool) and labelled from their threads before the
  doctor first ran on them;
* ``fresh-10`` and ``fresh-11``: ``fresh_cases_10.jsonl`` and ``fresh_cases_11.jsonl``, 32 messages each, collected
  while the eighth pass was written (the second batch chosen from the families earlier batches lacked) and labelled
  from their threads before the doctor first ran on them;
* ``fresh-12``: ``fresh_cases_12.jsonl``, 30 messages collected after the ninth pass (fresh-10/11's classes) was
  merged, labelled from their threads before the doctor first ran on them;
* ``fresh-13`` and ``fresh-14``: ``fresh_cases_13.jsonl`` (35) and ``fresh_cases_14.jsonl`` (30, chosen from the
  families fresh-13 lacked), collected while the tenth pass was written and labelled from their threads before the
  doctor first ran on them;
* ``fresh-15``: ``fresh_cases_15.jsonl``, 35 messages collected while the eleventh pass (fresh-13/14's classes) was
  written, labelled from their threads before the doctor first ran on them;
* ``fresh-16``: ``fresh_cases_16.jsonl``, 34 messages collected while the twelfth pass (fresh-15's classes) was
  written, labelled from their threads before the doctor first ran on them;
* ``fresh-17``: ``fresh_cases_17.jsonl``, 30 messages (13 from Chinese-language threads) collected while the
  thirteenth pass (fresh-16's classes) was written, labelled from their threads before the doctor first ran on them;
* ``fresh-18``, ``fresh-19``: ``fresh_cases_18.jsonl`` (35 messages) and ``fresh_cases_19.jsonl`` (34), collected
  while the fifteenth pass (fresh-13..17's recurring classes) was written, labelled from their threads before the
  doctor first ran on them;
* ``fresh-20``: ``fresh_cases_20.jsonl``, 35 messages (11 from Chinese-language threads) collected while the sixteenth
  pass (fresh-18/19's classes) was written, labelled from their threads before the doctor first ran on them;
* ``fresh-21``: ``fresh_cases_21.jsonl``, 22 messages collected while the seventeenth pass (fresh-20's classes) was
  written, labelled from their threads before the doctor first ran on them;
* ``fresh-22``: ``fresh_cases_22.jsonl``, 26 messages collected while the eighteenth pass (fresh-21's classes) was
  written, labelled from their threads before the doctor first ran on them;
* ``fresh-23``, ``fresh-24``: ``fresh_cases_23.jsonl`` (35 messages) and ``fresh_cases_24.jsonl`` (43), collected
  while the nineteenth pass (fresh-22's classes) was written, labelled from their threads before the doctor first ran
  on them;
* ``fresh-25``: ``fresh_cases_25.jsonl``, 18 messages collected while the twentieth pass (fresh-23/24's classes) was
  written, labelled from their threads before the doctor first ran on them;
* ``fresh-26``: ``fresh_cases_26.jsonl``, 45 messages collected while the twenty-first and twenty-second passes were
  written, labelled from their threads before the doctor first ran on them;
* ``fresh-27``: ``fresh_cases_27.jsonl``, 49 messages collected at the same time by a second helper, scored after
  those passes merged;
* ``fresh-28``: ``fresh_cases_28.jsonl``, 45 messages collected while the twenty-third pass was written, scored after
  it merged;
* ``fresh-29``: ``fresh_cases_29.jsonl``, 45 messages collected while the twenty-fourth pass was written, scored after
  it merged;
* ``fresh-30``: ``fresh_cases_30.jsonl``, 45 messages collected while the twenty-fifth and twenty-sixth passes were
  written, scored after they merged;
* ``fresh-31``: ``fresh_cases_31.jsonl``, 38 messages collected while the twenty-seventh pass was written, scored
  after it merged;
* ``fresh-32``: ``fresh_cases_32.jsonl``, 28 messages collected while the twenty-eighth pass was written, scored
  after it merged;
* ``fresh-33``: ``fresh_cases_33.jsonl``, 21 messages collected while the twenty-ninth pass was written, scored
  after it merged;
* ``fresh-34``: ``fresh_cases_34.jsonl``, 44 messages collected while the thirty-first pass was written, scored
  after it merged;
* ``fresh-35``: ``fresh_cases_35.jsonl``, 54 messages collected while the thirty-second pass was written, scored
  after it merged;
* ``fresh-36``: ``fresh_cases_36.jsonl``, 48 messages collected while the thirty-third pass was written, scored
  after it merged;
* ``fresh-37``: ``fresh_cases_37.jsonl``, 35 messages collected while the thirty-fifth pass was written, scored
  after it merged;
* ``fresh-38``: ``fresh_cases_38.jsonl``, 49 messages collected while the thirty-sixth pass was written, scored
  after it merged;
* ``fresh-39``: ``fresh_cases_39.jsonl``, 50 messages collected while the thirty-seventh pass was written, scored
  after it merged;
* ``fresh-40``: ``fresh_cases_40.jsonl``, 44 messages collected while the thirty-eighth pass was written, scored
  after it merged;
* ``fresh-41``: ``fresh_cases_41.jsonl``, 42 messages collected while the fortieth pass was written, scored
  after it merged;
* ``fresh-42``: ``fresh_cases_42.jsonl``, 44 messages collected while the forty-first pass was written, scored
  after it merged;
* ``fresh-43``: ``fresh_cases_43.jsonl``, 23 messages collected while the forty-first pass was written, scored
  after it merged;
* ``fresh-44``: ``fresh_cases_44.jsonl``, 39 messages collected while the forty-third pass was written, scored
  after it merged;
* ``fresh-45``: ``fresh_cases_45.jsonl``, 38 messages collected while the forty-third pass was written, scored
  after it merged;
* ``fresh-46``: ``fresh_cases_46.jsonl``, 32 messages collected while the forty-third pass was written, scored
  after it merged;
* ``fresh-47``: ``fresh_cases_47.jsonl``, 26 messages collected while the forty-fourth pass was written, scored
  after it merged;
* ``fresh-48``: ``fresh_cases_48.jsonl``, 23 messages collected while the forty-fourth pass was written, scored
  after it merged;
* ``fresh-49``: ``fresh_cases_49.jsonl``, 28 messages collected while the forty-sixth pass was written, scored
  after it merged;
* ``fresh-50``: ``fresh_cases_50.jsonl``, 33 messages collected while the forty-sixth pass was written, scored
  after it merged;
* ``fresh-51``: ``fresh_cases_51.jsonl``, 48 messages collected while the forty-seventh pass was written, scored
  after it merged;
* ``fresh-52``: ``fresh_cases_52.jsonl``, 31 messages collected while the forty-seventh pass was written, scored
  after it merged;
* ``fresh-53``: ``fresh_cases_53.jsonl``, 43 messages collected while the forty-ninth pass was written, scored
  after it merged;
* ``fresh-54``: ``fresh_cases_54.jsonl``, 36 messages collected while the forty-ninth pass was written, scored
  after it merged;
* ``fresh-55``: ``fresh_cases_55.jsonl``, 27 messages collected while the fiftieth pass was written, scored
  after it merged;
* ``fresh-56``: ``fresh_cases_56.jsonl``, 30 messages collected while the fiftieth pass was written, scored
  after it merged;
* ``fresh-57`` .. ``fresh-60``: ``fresh_cases_57.jsonl`` .. ``fresh_cases_60.jsonl``, 25, 33, 27 and 32 messages
  collected while the fifty-first pass was written, scored after it merged;
* ``fresh-61``, ``fresh-62``: ``fresh_cases_61.jsonl`` (22 messages) and ``fresh_cases_62.jsonl`` (25), collected while
  the fifty-second pass was written, scored after it merged;
* ``fresh-63``, ``fresh-64``: ``fresh_cases_63.jsonl`` (27 messages) and ``fresh_cases_64.jsonl`` (28), collected after
  the fifty-second pass merged, scored on it;
* ``fresh-65``, ``fresh-66``: ``fresh_cases_65.jsonl`` (26 messages) and ``fresh_cases_66.jsonl`` (28), collected while
  the fifty-fourth pass was written, scored after it merged;
* ``fresh-67``, ``fresh-68``: ``fresh_cases_67.jsonl`` (20 messages) and ``fresh_cases_68.jsonl`` (23), collected while
  the fifty-fifth and fifty-sixth passes were written, scored after both merged;
* ``fresh-69``, ``fresh-70``: ``fresh_cases_69.jsonl`` (17 messages) and ``fresh_cases_70.jsonl`` (20), collected after
  the last change of the stop (the fifty-sixth pass and the lead's merge of the two readings), scored on it;
* ``fresh-71``, ``fresh-72``: ``fresh_cases_71.jsonl`` (23 messages, any project) and ``fresh_cases_72.jsonl`` (11),
  collected after the last change, scored on it;
* ``fresh-73``, ``fresh-74``: ``fresh_cases_73.jsonl`` (22 messages) and ``fresh_cases_74.jsonl`` (27), any project,
  collected while the fifty-seventh pass was written, scored after it merged;
* ``fresh-75``, ``fresh-76``: ``fresh_cases_75.jsonl`` (15 messages, owners A-M) and ``fresh_cases_76.jsonl`` (6, owners
  N-Z), collected after the last change of the stop, scored on it;
* ``fresh-77``, ``fresh-78``: ``fresh_cases_77.jsonl`` (27 messages, older runtimes: CNTK, Kaldi, Theano, DyNet, Caffe,
  Torch7 ...) and ``fresh_cases_78.jsonl`` (9, any project), collected after the last change of the stop, scored on it;
* ``fresh-79``: ``fresh_cases_79.jsonl`` (7 messages: XPU, Vulkan buffer limits, host RAM), collected while the
  fifty-eighth pass was written, scored before it merged;
* ``fresh-80``: ``fresh_cases_80.jsonl`` (7 messages: ms-swift, DiffSynth, MLX Metal, Tenstorrent, JAX), collected
  after the fifty-eighth pass (the last change of the stop), scored on it.
* ``fresh-81``: ``fresh_cases_81.jsonl`` (9 messages: vLLM KV budget, cuDNN/PyTorch/TensorFlow shortages, host OOM
  kill, SYCL allocation ceiling), collected after the fifty-eighth pass, scored on it before the fifty-ninth.
* ``fresh-82``: ``fresh_cases_82.jsonl`` (7 messages: vLLM's Mamba cache-block refusal x5, a start-up profile run
  without chunked prefill, Ollama's system-memory refusal), collected after the fifty-eighth pass, scored on it before
  the fifty-ninth.
* ``fresh-83``: ``fresh_cases_83.jsonl`` (5 messages: host RAM exhausted while loading weights x3, a CUDA build
  mismatch, an MPS cap on a virtual macOS runner), collected after the fifty-eighth pass, scored on it before the
  fifty-ninth.
* ``fresh-84``: ``fresh_cases_84.jsonl`` (12 messages: Unsloth, Dynamo, MLX, Ollama, tch-rs, tinygrad, vLLM, pinned
  host memory on Windows), collected after the fifty-ninth pass (the last change of the stop), scored on it.
* ``fresh-85``: ``fresh_cases_85.jsonl`` (9 messages: vLLM-Omni, PyTorch XPU, ROCm on Strix Halo, Ollama on a Mac,
  MLX buffer-count limit x2 and allocator cache, Ascend NPU), collected after the fifty-ninth pass, scored on it.
* ``fresh-86``: ``fresh_cases_86.jsonl`` (8 messages: SGLang KV budget x2 and a peer container, hipBLASLt CI, OpenVINO
  and OpenCL per-object limits, Mali, alpaca-lora), collected after the fifty-ninth pass, scored on it.
* ``fresh-87``: ``fresh_cases_87.jsonl`` (5 messages: SGLang CUDA-graph capture, ggml's fixed buffers x2, OpenVINO on an
  integrated GPU, a shortage on an 8 GB card), collected after the fifty-ninth pass, scored on it.
* ``fresh-88``: ``fresh_cases_88.jsonl`` (10 messages: JAX version mismatches x2, OOM-killer logs x2, shortages in
  Alpaca, LitGPT, club-3090 and Keras, vLLM on MI300X, PyTorch fragmentation), collected after the fifty-ninth pass,
  scored on it.
* ``fresh-89``: ``fresh_cases_89.jsonl`` (5 messages: Qwen3 on vLLM, Jan's llama.cpp buffers, Taichi unified memory
  before Pascal, Ollama on Jetson Thor reading page cache as used, an Ollama layer split), collected before the
  sixtieth pass, scored on the fifty-ninth.
* ``fresh-90``: ``fresh_cases_90.jsonl`` (7 messages: a Tenstorrent bank allocator, LLaMA int8 KV cache on a 4090, a
  Vulkan per-allocation limit in koboldcpp, a Paddle argsort, SGLang CUDA-graph capture, two oversized images in
  mlx-vlm and Ollama), collected before the sixtieth pass merged, scored on it.
* ``fresh-91``: ``fresh_cases_91.jsonl`` (8 messages: PyTorch attention on ROCm falling back to the math path x6,
  MLX's Metal buffer-count limit x2), collected while the sixty-first pass was built, scored on it (the last change).
* ``fresh-92``: ``fresh_cases_92.jsonl`` (7 messages: vLLM on Apple Metal KV budget x4, an oversized image in mlx-vlm,
  a vllm-mlx leak, a llama.cpp image buffer), collected while the sixty-first pass was built, scored on it.

* ``fresh-95``: ``fresh_cases_95.jsonl`` (10 messages: Caffe, xmrig and xmr-stak OpenCL buffers x3, a cuFFT work area
  in TensorFlow, LLaMA 7B fp16 weights on a 12 GB card, Lua Torch, a Jetson container killed, a CPU miner's host RAM,
  a Julia worker keeping VRAM), collected at the start of the 2026-12-07 session before the sixty-second pass, scored
  on the sixty-first.
* ``fresh-96``: ``fresh_cases_96.jsonl`` (12 messages, 9 not-capacity: Triton shared memory x3, ggml fixed buffers x2,
  ComfyUI's T5 encoder on 8 GB and Windows page-file error 1455, NCCL with a small /dev/shm, Metal per-buffer limit
  x2, cuDNN start-up failures x2), collected while the sixty-third pass was built, scored on the sixty-second.
* ``fresh-97``: ``fresh_cases_97.jsonl`` (11 messages, 9 not-capacity: ROCm start-up x3, NVENC error 10 x3, a memory
  access fault from an overclock, hashcat and T-Rex host memory, DirectML x2), collected while the sixty-third pass
  was built, scored on it.
* ``fresh-98``: ``fresh_cases_98.jsonl`` (8 messages: JAX RESOURCE_EXHAUSTED, Intel XPU Triton x2, a chunking fix,
  oMLX's KV guard, Tenstorrent L1, Intel compute-runtime's single-allocation ceiling, ComfyUI block swap in host RAM),
  collected while the sixty-third pass was built, scored on it.
* ``fresh-99``: ``fresh_cases_99.jsonl`` (10 messages, 1 not-capacity: Tenstorrent weights over a 12 GB chip,
  Automodel activation peaks, SGLang 12B on 16 GB, Ascend 310P CANN, dorado batch and a second process, vLLM free
  memory at start-up, InferenceX's memory fraction, a PyTorch leak of 2017, WSL host RAM), collected while the sixty-
  fourth pass was built, scored on it.
* ``fresh-100``: ``fresh_cases_100.jsonl`` (13 messages, 6 not-capacity: Sana 4K VAE decode, Ollama on two MI50s,
  TensorRT on a 4 GB laptop GPU, inference without no_grad, a vLLM KV budget, a per-batch leak, llama.cpp's ROCm pool
  with flash attention, pinned-memory limits, an absurd size, host RAM, a driver and two Xid cases), collected while
  the sixty-fifth pass was built, scored once on the sixty-sixth (the sixty-seventh pass then studied it): 8/13.
* ``fresh-101``: ``fresh_cases_101.jsonl`` (10 messages, 5 not-capacity: ZeRO-3 offload killed for host RAM, RWKV
  loading, a gpt-oss-120b negative KV budget, a Fortran solver, OpenMM loading another version's checkpoint, an
  Unsloth resume that restored batch 32, LMCache on a 24 GB card, vLLM graph capture, a 512 GiB pinning limit, Windows
  page-locked memory), collected during the sixty-sixth pass, scored once on it: 8/10.
* ``fresh-102``: ``fresh_cases_102.jsonl`` (10 messages, 3 not-capacity: LoRA samples too long, faster-whisper and a
  driver, a vLLM and an OpenVINO KV pool, a bare Killed, a WSL driver bug, dorado fragmentation, another process in
  LlamaFactory's vLLM, DPO in 4-bit, MInference's 60 GB), collected while the sixty-seventh pass was built, scored
  once on it: 7/10.
* ``fresh-103``: ``fresh_cases_103.jsonl`` (7 messages, 4 not-capacity: an FSDP 7B on RTX 3080s, ZeRO-3 ranks loading
  into host RAM, a compiler regression of activation checkpointing, two refused pinned buffers, FLUX on one L4, a
  driver older than the runtime), collected after the sixty-seventh pass, scored once on it: 4/7.
* ``fresh-104``: ``fresh_cases_104.jsonl`` (12 messages from merged pull requests, 2 not-capacity: a 64 GiB request on
  a 63.98 GiB ROCm card, one 31 GiB tensor, a forced torchtitan OOM, Ascend recompute, WSL, QLoRA experts, outputs
  gathered on GPU 0, a second vLLM-Ascend instance, vLLM wake-up beside PyTorch's cache, two illegal addresses),
  collected while the sixty-eighth pass was built, scored once on it (the last OOM change): 7/12.
What a user would give beside the text (the host OS; :mod:`gpudesk.oom.user_context`) comes with each case: a
case's own ``inputs`` object, or for the sets labelled before that input existed a row of ``case_inputs.jsonl``
(``url``, ``inputs``, and ``stated``: the words of the case's recorded context that state it). Every case whose
recorded context names its OS has a row, whatever the doctor said about it; the cases are not edited.

Counting is strict: a case is right only when the doctor's first cause is the recorded one; "not a memory
problem" counts only when the doctor says ``not_capacity`` first, and "with the deciding check" only when that
cause names the recorded check. A case is "not found" when the doctor reports no out-of-memory message (its
only answer is the ``unparseable`` stand-in).
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpudesk.i18n import _
from gpudesk.oom.errors import OomInputError
from gpudesk.paths import bundle_root

# Recorded ``category`` of the public cases -> the cause id that names it (tests/oom/test_oom_cases.py).
CATEGORY_TO_CAUSE = {
    "fragmentation": "fragmentation",
    "genuine_shortage": "genuine_shortage",
    "single_allocation_exceeds_capacity": "single_allocation_exceeds_capacity",
    "other_process_same_job_multi_gpu": "other_process",
    "genuine_shortage_in_process+pid_namespace": "genuine_shortage",
    "fragmentation_budget": "fragmentation",
    "cuda_graph_pools": "cuda_graph_pools",
    "single_allocation_exceeds_capacity_attention": "single_allocation_exceeds_capacity",
    "genuine_shortage+fragmentation": "genuine_shortage",
    "multi_gpu_imbalance": "multi_gpu_imbalance",
    "truncated_message+bogus_size": "single_allocation_exceeds_capacity",
    # taggui#188: 20 MiB refused with 2.35 of 4 GiB free. Issue 11: "a tiny request failing with most of the GPU
    # free" is not a capacity problem (was mapped to fragmentation before the not_capacity cause existed).
    "anomalous_free_gt_request": "not_capacity",
    "hidden_oom_outside_allocator": "allocation_outside_allocator",
    "genuine_shortage_multi_gpu": "genuine_shortage",
    "single_huge_tensor": "single_allocation_exceeds_capacity",
    "hidden_oom_preallocation_or_other_process": "preallocation",
    "preallocation_multi_process (hypothesis)": "preallocation",
    "other_allocator_or_preallocation (hypothesis)": "preallocation",
    "kv_cache_budget": "kv_cache_budget",
}

CASE_FILES = (("public", "cases.jsonl"), ("engines", "engine_cases.jsonl"), ("platforms", "platform_cases.jsonl"),
              ("vendors", "vendor_cases.jsonl"), ("vendors-2", "vendor_cases_2.jsonl"),
              ("vendors-3", "vendor_cases_3.jsonl"), ("fresh", "fresh_cases.jsonl"),
              ("fresh-2", "fresh_cases_2.jsonl"), ("fresh-3", "fresh_cases_3.jsonl"),
              ("fresh-4", "fresh_cases_4.jsonl"), ("fresh-5", "fresh_cases_5.jsonl"),
              ("fresh-6", "fresh_cases_6.jsonl"), ("fresh-7", "fresh_cases_7.jsonl"),
              ("fresh-8", "fresh_cases_8.jsonl"), ("fresh-9", "fresh_cases_9.jsonl"),
              ("fresh-10", "fresh_cases_10.jsonl"), ("fresh-11", "fresh_cases_11.jsonl"),
              ("fresh-12", "fresh_cases_12.jsonl"), ("fresh-13", "fresh_cases_13.jsonl"),
              ("fresh-14", "fresh_cases_14.jsonl"), ("fresh-15", "fresh_cases_15.jsonl"),
              ("fresh-16", "fresh_cases_16.jsonl"), ("fresh-17", "fresh_cases_17.jsonl"),
              ("fresh-18", "fresh_cases_18.jsonl"), ("fresh-19", "fresh_cases_19.jsonl"),
              ("fresh-20", "fresh_cases_20.jsonl"), ("fresh-21", "fresh_cases_21.jsonl"),
              ("fresh-22", "fresh_cases_22.jsonl"), ("fresh-23", "fresh_cases_23.jsonl"),
              ("fresh-24", "fresh_cases_24.jsonl"), ("fresh-25", "fresh_cases_25.jsonl"),
              ("fresh-26", "fresh_cases_26.jsonl"), ("fresh-27", "fresh_cases_27.jsonl"),
              ("fresh-28", "fresh_cases_28.jsonl"), ("fresh-29", "fresh_cases_29.jsonl"),
              ("fresh-30", "fresh_cases_30.jsonl"), ("fresh-31", "fresh_cases_31.jsonl"),
              ("fresh-32", "fresh_cases_32.jsonl"), ("fresh-33", "fresh_cases_33.jsonl"),
              ("fresh-34", "fresh_cases_34.jsonl"),
              ("fresh-35", "fresh_cases_35.jsonl"),
              ("fresh-36", "fresh_cases_36.jsonl"),
              ("fresh-37", "fresh_cases_37.jsonl"),
              ("fresh-38", "fresh_cases_38.jsonl"),
              ("fresh-39", "fresh_cases_39.jsonl"),
              ("fresh-40", "fresh_cases_40.jsonl"),
              ("fresh-41", "fresh_cases_41.jsonl"),
              ("fresh-42", "fresh_cases_42.jsonl"),
              ("fresh-43", "fresh_cases_43.jsonl"),
              ("fresh-44", "fresh_cases_44.jsonl"),
              ("fresh-45", "fresh_cases_45.jsonl"),
              ("fresh-46", "fresh_cases_46.jsonl"),
              ("fresh-47", "fresh_cases_47.jsonl"),
              ("fresh-48", "fresh_cases_48.jsonl"),
              ("fresh-49", "fresh_cases_49.jsonl"),
              ("fresh-50", "fresh_cases_50.jsonl"),
              ("fresh-51", "fresh_cases_51.jsonl"),
              ("fresh-52", "fresh_cases_52.jsonl"),
              ("fresh-53", "fresh_cases_53.jsonl"),
              ("fresh-54", "fresh_cases_54.jsonl"),
              ("fresh-55", "fresh_cases_55.jsonl"),
              ("fresh-56", "fresh_cases_56.jsonl"),
              ("fresh-57", "fresh_cases_57.jsonl"),
              ("fresh-58", "fresh_cases_58.jsonl"),
              ("fresh-59", "fresh_cases_59.jsonl"),
              ("fresh-60", "fresh_cases_60.jsonl"),
              ("fresh-61", "fresh_cases_61.jsonl"),
              ("fresh-62", "fresh_cases_62.jsonl"),
              ("fresh-63", "fresh_cases_63.jsonl"),
              ("fresh-64", "fresh_cases_64.jsonl"),
              ("fresh-65", "fresh_cases_65.jsonl"),
              ("fresh-66", "fresh_cases_66.jsonl"),
              ("fresh-67", "fresh_cases_67.jsonl"),
              ("fresh-68", "fresh_cases_68.jsonl"),
              ("fresh-69", "fresh_cases_69.jsonl"),
              ("fresh-70", "fresh_cases_70.jsonl"),
              ("fresh-71", "fresh_cases_71.jsonl"),
              ("fresh-72", "fresh_cases_72.jsonl"),
              ("fresh-73", "fresh_cases_73.jsonl"),
              ("fresh-74", "fresh_cases_74.jsonl"),
              ("fresh-75", "fresh_cases_75.jsonl"),
              ("fresh-76", "fresh_cases_76.jsonl"),
              ("fresh-77", "fresh_cases_77.jsonl"),
              ("fresh-78", "fresh_cases_78.jsonl"),
              ("fresh-79", "fresh_cases_79.jsonl"),
              ("fresh-80", "fresh_cases_80.jsonl"),
              ("fresh-81", "fresh_cases_81.jsonl"),
              ("fresh-82", "fresh_cases_82.jsonl"),
              ("fresh-83", "fresh_cases_83.jsonl"),
              ("fresh-84", "fresh_cases_84.jsonl"),
              ("fresh-85", "fresh_cases_85.jsonl"),
              ("fresh-86", "fresh_cases_86.jsonl"),
              ("fresh-87", "fresh_cases_87.jsonl"),
              ("fresh-88", "fresh_cases_88.jsonl"),
              ("fresh-89", "fresh_cases_89.jsonl"),
              ("fresh-90", "fresh_cases_90.jsonl"),
              ("fresh-91", "fresh_cases_91.jsonl"),
              ("fresh-92", "fresh_cases_92.jsonl"),
              ("fresh-93", "fresh_cases_93.jsonl"),
              ("fresh-94", "fresh_cases_94.jsonl"),
              ("fresh-95", "fresh_cases_95.jsonl"),
              ("fresh-96", "fresh_cases_96.jsonl"),
              ("fresh-97", "fresh_cases_97.jsonl"),
              ("fresh-98", "fresh_cases_98.jsonl"),
              ("fresh-99", "fresh_cases_99.jsonl"),
              ("fresh-100", "fresh_cases_100.jsonl"),
              ("fresh-101", "fresh_cases_101.jsonl"),
              ("fresh-102", "fresh_cases_102.jsonl"),
              ("fresh-103", "fresh_cases_103.jsonl"),
              ("fresh-104", "fresh_cases_104.jsonl"))
# The user's inputs for cases labelled before those inputs existed (module docstring).
INPUTS_FILE = "case_inputs.jsonl"
INPUT_NAMES = ("host_os", "other_processes_bytes", "device_total_bytes")
MAX_CASES_FILE_BYTES = 8 * 1024 * 1024
# A family is judged on its own (issue 28) from this many cases on.
FAMILY_MIN_CASES = 5


def default_cases_dir() -> Path:
    """The bundled case sets (source checkout: ``tests/fixtures/oom``)."""
    return bundle_root() / "tests" / "fixtures" / "oom"


@dataclass(frozen=True)
class OomCase:
    """One real message and what its thread established."""

    case_set: str
    url: str
    family: str
    message: str
    expected_cause: str
    expected_check: str | None = None
    labelled: str = "before_rules"
    inputs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CaseOutcome:
    """What the doctor said about one case."""

    case: OomCase
    top_cause: str
    found: bool
    checks_named: tuple[str, ...] = ()

    @property
    def right(self) -> bool:
        """The first cause is the recorded one (strict: ``not_capacity`` only when the doctor says it)."""
        return self.found and self.top_cause == self.case.expected_cause

    @property
    def not_capacity_with_check(self) -> bool | None:
        """For a not-capacity case: called not-capacity first, naming the recorded check; None otherwise."""
        if self.case.expected_cause != "not_capacity":
            return None
        if self.top_cause != "not_capacity":
            return False
        return self.case.expected_check is None or self.case.expected_check in self.checks_named

    def to_dict(self) -> dict[str, Any]:
        return {"set": self.case.case_set, "url": self.case.url, "family": self.case.family,
                "expected_cause": self.case.expected_cause, "expected_check": self.case.expected_check,
                "top_cause": self.top_cause, "found": self.found, "right": self.right,
                "checks_named": list(self.checks_named), "labelled": self.case.labelled}


@dataclass(frozen=True)
class FamilyScore:
    """First-cause accuracy of one family of one case set."""

    case_set: str
    family: str
    right: int
    total: int

    @property
    def share(self) -> float:
        return self.right / self.total if self.total else 0.0

    @property
    def judged(self) -> bool:
        """Enough cases (:data:`FAMILY_MIN_CASES`) for the family's own figure to mean something."""
        return self.total >= FAMILY_MIN_CASES


@dataclass
class OomAccuracy:
    """Every outcome and the summaries the CLI and the window show."""

    outcomes: list[CaseOutcome] = field(default_factory=list)

    def subset(self, case_set: str | None = None, labelled: str | None = None) -> OomAccuracy:
        return OomAccuracy([o for o in self.outcomes
                            if (case_set is None or o.case.case_set == case_set)
                            and (labelled is None or o.case.labelled == labelled)])

    @property
    def right(self) -> int:
        return sum(o.right for o in self.outcomes)

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def share(self) -> float:
        return self.right / self.total if self.total else 0.0

    def families(self) -> list[FamilyScore]:
        """Per (case set, family), largest first."""
        counts: dict[tuple[str, str], list[int]] = collections.defaultdict(lambda: [0, 0])
        for o in self.outcomes:
            cell = counts[(o.case.case_set, o.case.family)]
            cell[0] += o.right
            cell[1] += 1
        scores = [FamilyScore(s, f, r, t) for (s, f), (r, t) in counts.items()]
        return sorted(scores, key=lambda s: (-s.total, s.case_set, s.family))

    def not_capacity(self) -> tuple[int, int]:
        """(called not-capacity first with the deciding check, not-capacity cases)."""
        flags = [o.not_capacity_with_check for o in self.outcomes if o.not_capacity_with_check is not None]
        return sum(flags), len(flags)

    def not_found(self) -> list[CaseOutcome]:
        """Cases the doctor reported as holding no out-of-memory message."""
        return [o for o in self.outcomes if not o.found]

    def to_dict(self) -> dict[str, Any]:
        nc_right, nc_total = self.not_capacity()
        return {
            "right": self.right, "total": self.total, "share": round(self.share, 4),
            "not_capacity_with_check": nc_right, "not_capacity_cases": nc_total,
            "not_found": len(self.not_found()),
            "families": [{"set": s.case_set, "family": s.family, "right": s.right, "total": s.total,
                          "share": round(s.share, 4), "judged": s.judged} for s in self.families()],
            "cases": [o.to_dict() for o in self.outcomes],
        }


def _inputs(row: dict[str, Any]) -> dict[str, Any]:
    inputs = row.get("inputs") or {}
    if not isinstance(inputs, dict) or any(k not in INPUT_NAMES for k in inputs):
        raise ValueError(_("a case's inputs must be an object with the keys {names}").format(
            names=", ".join(INPUT_NAMES)))
    return inputs


def _case(case_set: str, row: dict[str, Any], given: dict[str, dict[str, Any]] | None = None) -> OomCase:
    if case_set == "public":
        expected = CATEGORY_TO_CAUSE.get(str(row.get("category")))
        family = str(row.get("framework") or "unknown")
    else:
        expected = row.get("expected_cause")
        family = str(row.get("family") or "unknown")
    if not expected or not isinstance(row.get("message"), str) or not row.get("url"):
        raise ValueError(_("a case needs a url, a message and an expected cause"))
    inputs = _inputs(row) or (given or {}).get(str(row["url"]), {})
    return OomCase(case_set=case_set, url=str(row["url"]), family=family, message=row["message"],
                   expected_cause=str(expected), expected_check=row.get("expected_check") or None,
                   labelled=str(row.get("labelled") or "before_rules"), inputs=inputs)


def _read_lines(path: Path) -> list[str]:
    if path.stat().st_size > MAX_CASES_FILE_BYTES:
        raise OomInputError(_("The case file {path} is larger than {limit} bytes.").format(
            path=path, limit=MAX_CASES_FILE_BYTES))
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise OomInputError(_("The case file {path} cannot be read: {exc}").format(path=path, exc=exc)) from exc


def _given_inputs(folder: Path) -> dict[str, dict[str, Any]]:
    """url -> inputs from :data:`INPUTS_FILE` (empty when the folder has none)."""
    path = folder / INPUTS_FILE
    if not path.is_file():
        return {}
    given: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(_read_lines(path), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("url"), str):
                raise ValueError(_("an inputs row needs a url"))
            given[row["url"]] = _inputs(row)
        except ValueError as exc:
            raise OomInputError(_("{path}, line {number}: {exc}").format(path=path, number=number, exc=exc)) from exc
    return given


def load_cases(folder: Path | None = None) -> list[OomCase]:
    """Every case of the three sets in ``folder`` (default :func:`default_cases_dir`); a missing set is skipped.

    Raises:
        OomInputError: a case file is too large, not UTF-8, or a line is not a valid case (file and line named).
    """
    folder = folder or default_cases_dir()
    given = _given_inputs(folder)
    cases: list[OomCase] = []
    for case_set, name in CASE_FILES:
        path = folder / name
        if not path.is_file():
            continue
        lines = _read_lines(path)
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if not isinstance(row, dict):
                    raise ValueError(_("a case must be a JSON object"))
                cases.append(_case(case_set, row, given))
            except ValueError as exc:
                raise OomInputError(_("{path}, line {number}: {exc}").format(path=path, number=number, exc=exc)) from exc
    return cases


def evaluate(cases: list[OomCase]) -> OomAccuracy:
    """Diagnose every case's message and record the first cause (a message the doctor refuses counts as not found)."""
    from gpudesk.oom.diagnose import diagnose_text
    from gpudesk.oom.user_context import UserContext

    outcomes = []
    for case in cases:
        try:
            diagnosis = diagnose_text(case.message, context=UserContext(**case.inputs) if case.inputs else None)
        except OomInputError:
            outcomes.append(CaseOutcome(case, "unparseable", False))
            continue
        top = diagnosis.top
        found = diagnosis.found_oom
        checks = tuple(sorted({str(c.evidence.get("deciding_check")) for c in diagnosis.causes[:1]
                               if c.evidence.get("deciding_check")}))
        outcomes.append(CaseOutcome(case, top.id if top is not None else "unparseable", found, checks))
    return OomAccuracy(outcomes)


def load_accuracy(folder: Path | None = None) -> OomAccuracy:
    """:func:`evaluate` on :func:`load_cases` (what ``gpudesk oom accuracy`` and the window show)."""
    return evaluate(load_cases(folder))
