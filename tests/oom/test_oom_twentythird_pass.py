"""Twenty-third pass (issue 28, fresh batch 27): runtimes' own wordings and the settings named beside them.

* NCCL's bare "unhandled system error" (no word of memory): its shared-memory segments in /dev/shm first, with
  NCCL_DEBUG=INFO as the confirmation (gpudesk.oom.signatures ``nccl_system_error``).
* CUDA's "unspecified launch failure": a kernel's fault, logged as an Xid, not a refused allocation; "too many
  resources requested for launch": the per-block launch limit (registers, shared memory), not device memory.
* FlashInfer's bump allocator overflowing its fixed workspace buffer: the buffer's limit, not the GPU.
* TensorFlow's "Allocation of N exceeds 10% of free system memory", and a process "killed due to memory reasons / OOM":
  host RAM.
* XLA with TF_FORCE_UNIFIED_MEMORY=1: XLA_PYTHON_CLIENT_MEM_FRACTION times the GPU is the ceiling (per_process_cap).
* A GPU memory failure said in a user's words ("GPU Memory error", "crash the memory of my GPUs", "cause memory dump")
  where a GPU is named: recognised, the job's own need.
* LMDeploy's max_batch_size beside a figureless OOM: the captured CUDA graphs; TGI's token budget with bitsandbytes:
  the KV-cache budget leaves no headroom; under WSL, an OOM at batch size 1: WSL's pinned-memory limit first.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text


# MiniMax-AI/MiniMax-01#42.
NCCL_SYSTEM = ("(VllmWorkerProcess pid=221) ERROR 04-06 20:46:48 [multiproc_worker_utils.py:238] "
               "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
               "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5")
# llm-d/llm-d#352.
NCCL_WORKER_START = ("ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] RuntimeError: NCCL error: unhandled "
                     "system error (run with NCCL_DEBUG=INFO for details)\n"
                     "ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] WorkerProc failed to start.")
# jax-ml/jax#4950 (labelled preallocation: its words name an out-of-memory).
NCCL_WITH_OOM = ("NCCL out of memory on dual 2080ti training\nThe same setup on 2 x 2080Ti either completely hung (kill "
                 "required) or crashed with a non specific NCCL error (unhandled system error).")


def test_bare_nccl_system_error_is_dev_shm_first() -> None:
    for text in (NCCL_SYSTEM, NCCL_WORKER_START):
        assert _top(text) == ("not_capacity", True, "host_ram"), text
    cause = diagnose_text(NCCL_SYSTEM).causes[0]
    assert cause.evidence["check_command"] == "df -h /dev/shm" and cause.confidence < 0.96
    assert any("NCCL_DEBUG=INFO" in fix for fix in cause.more_fixes)


def test_nccl_system_error_with_memory_words_is_not_read_so() -> None:
    assert diagnose_text(NCCL_WITH_OOM).report.signature != "nccl_system_error"
    assert not diagnose_text("NCCL WARN Call to connect returned Connection refused").found_oom


# opendatalab/MinerU#426.
LAUNCH_FAILURE = ("RuntimeError: CUDA error: unspecified launch failure\n\n"
                  "报这个错之后显卡也会无法使用，必须重启服务器之后才可以重新使用显卡。")
# Pose-Group/DCPose#46.
LAUNCH_RESOURCES = 'error in modulated_deformable_im2col_cuda": too many resources requested for launch'


def test_kernel_faults_and_launch_limits_are_not_memory() -> None:
    assert _top(LAUNCH_FAILURE) == ("not_capacity", True, "xid")
    assert "dmesg" in diagnose_text(LAUNCH_FAILURE).causes[0].fix
    assert _top(LAUNCH_RESOURCES) == ("not_capacity", True, "shared_memory")


def test_launch_words_need_their_own_failure() -> None:
    # An out-of-memory beside the launch failure is read from its own words, not as a kernel fault.
    mixed = "RuntimeError: CUDA error: out of memory\nCUDA error: unspecified launch failure"
    assert diagnose_text(mixed).report.signature != "launch_failure"
    assert diagnose_text("RuntimeError: CUDA error: out of memory").report.signature != "shared_memory"


# vllm-project/vllm#25342.
FLASHINFER = ("site-packages/flashinfer/data/include/flashinfer/allocator.h:49: Buffer overflow when allocating memory "
              "for batch_prefill_tmp_v with size 283115520 and alignment 16, but only 268435456 bytes available in "
              "AlignedAllocator. Increase the workspace buffer size.")


def test_flashinfer_workspace_overflow_is_the_buffer_limit() -> None:
    assert _top(FLASHINFER) == ("not_capacity", True, "buffer_limit")
    assert not diagnose_text("Buffer overflow detected in the parser").found_oom


# faustomorales/keras-ocr#81.
TF_FREE_SYSTEM = "Allocation of 989331456 exceeds 10% of free system memory."
# Tomiinek/Multilingual_Text_to_Speech#76.
KILLED_MEMORY_REASONS = ("I have set the running memory of my virtual machine to 24 GB, but still my program is killed "
                         "due to memory reasons\nIf I don't have a discrete graphics card, how much RAM do I need to "
                         "prepare?")
# ika-rwth-aachen/Cam2BEV#6.
KILLED_OOM = ("I am talking about the main RAM, not the GPU RAM. By the time process is killed due to OOM, it occupies "
              "~55GB of physical memory. We're trying to train on two RTX 3090s with 24GB RAM each.")


def test_host_ram_in_runtime_and_user_words() -> None:
    for text, host_os in ((TF_FREE_SYSTEM, "windows"), (TF_FREE_SYSTEM, None), (KILLED_MEMORY_REASONS, None),
                          (KILLED_OOM, None)):
        assert _top(text, host_os) == ("not_capacity", True, "host_ram"), text


def test_tf_host_warning_yields_to_a_device_failure() -> None:
    # The warning beside the GPU allocator's own failure (a run that went on after it): the device's words decide.
    gpu = (TF_FREE_SYSTEM + "\nResourceExhaustedError: OOM when allocating tensor with shape[64,512,512] and type float "
           "on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc")
    assert _top(gpu)[0] != "not_capacity"


def test_killed_needs_memory_as_its_reason() -> None:
    assert not diagnose_text("The job was killed due to the time limit of the queue").found_oom
    gpu = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB; the run was killed due to OOM"
    assert _top(gpu)[0] != "not_capacity"


# google-deepmind/alphafold#149.
UNIFIED = ("Allocator (GPU_0_bfc) ran out of memory tying to allocate 38.52GiB (rounded to 41360702720)requested by op\n"
           "2021-08-24 19:39:29.296527: E external/org_tensorflow/tensorflow/compiler/xla/pjrt/"
           "pjrt_stream_executor_client.cc:2040] Execution of replica 0 failed\n"
           ": Resource exhausted: Out of memory while trying to allocate 41360702624 bytes.\n\n"
           "i have about 11 GB of VRAM and 128 GB of system RAM + 256 GB of swap space, so i thought with   "
           "'TF_FORCE_UNIFIED_MEMORY' set to 1, the system should easily handles a ~40 GB allocation request.")


def test_unified_memory_is_capped_by_the_memory_fraction() -> None:
    cause = diagnose_text(UNIFIED).causes[0]
    assert cause.id == "per_process_cap" and "XLA_PYTHON_CLIENT_MEM_FRACTION" in cause.fix
    # Without unified memory on, the same request above an 11 GB card is one allocation larger than the GPU.
    off = UNIFIED.replace("'TF_FORCE_UNIFIED_MEMORY' set to 1", "no special settings")
    assert _top(off)[0] == "single_allocation_exceeds_capacity"


# PaddlePaddle/ERNIE#286, rsanchezgarc/deepEMhancer#3, Rayhane-mamah/Tacotron-2#239.
USER_WORDS = ("GPU Memory error while running script/zh_task/ernie_base/run_drcd.sh",
              "I can't seem to find what batch sizes I should try when I crash the memory of my GPUs. I have a "
              "512x512x512 volume that is crashing K80 GPUs and I'm trying to change the batch size",
              "GTX1070 and 8G memory cause memory dump\n\nDoes this really consume memory? Do I need update my "
              "compute to run this?")


def test_gpu_memory_failure_in_user_words_is_found() -> None:
    for text in USER_WORDS:
        assert _top(text)[:2] == ("genuine_shortage", True), text


def test_memory_failure_words_need_a_gpu() -> None:
    assert not diagnose_text("This causes memory dumps on my laptop when the parser runs").found_oom


# InternLM/lmdeploy#2603.
LMDEPLOY = ("1.max_batch_size设置为30，正常推理不会OOM\n2.max_batch_size设置为256，推理时报OOM\n\n"
            "lmdeploy应该是动态batch机制，为什么max_batch_size设置为256时会出现错误呢？")
# huggingface/text-generation-inference#890.
TGI_BNB = ("Out of memory on 1xA100 for nf4-quantized-70b\n\nForgot to specify, this is a 80gb node. So it should still "
           "have plenty of room, I got a high max batch total like around 130k I believe.")


def test_engine_settings_beside_a_figureless_oom() -> None:
    cause = diagnose_text(LMDEPLOY).causes[0]
    assert cause.id == "cuda_graph_pools" and "eager_mode=True" in cause.fix
    cause = diagnose_text(TGI_BNB).causes[0]
    assert cause.id == "kv_cache_budget" and "--cuda-memory-fraction" in cause.fix


def test_engine_settings_need_their_words() -> None:
    assert _top(LMDEPLOY.replace("max_batch_size", "batch"))[0] != "cuda_graph_pools"
    assert _top(TGI_BNB.replace("nf4-quantized-", ""))[0] != "kv_cache_budget"


# AnyaCoder/Bert-VITS2#1.
WSL_BS1 = ("[BUG] cuda out of memory with bs=1\n\n尝试使用3.11.5+cu118还是一样的问题，底模使用的是fishaudio的cj底模，"
           "是这个底模太大了吗？")


def test_wsl_oom_at_batch_one_is_the_platform_first() -> None:
    assert _top(WSL_BS1, "wsl") == ("not_capacity", True, "pin_memory")
    assert _top(WSL_BS1, "linux")[0] != "not_capacity"
    assert _top(WSL_BS1.replace("bs=1", "bs=16"), "wsl")[0] != "not_capacity"
