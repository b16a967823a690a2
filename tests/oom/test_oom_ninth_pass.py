"""Ninth pass (issue 28): the classes behind the misses of the held-out batches fresh-10 and fresh-11, each read as a
mechanism rather than a wording: NCCL's shared-memory segments in /dev/shm, PyTorch MPS's element-count limit, bash's
report of a SIGKILL, PaddlePaddle's host allocator, a negative KV budget logged by a vLLM worker, a negative running
allocation count, TensorFlow's exception class named alone. Every text is a real message quoted from the public thread
named in its comment (a variant is marked as such and keeps the mechanism's own words)."""

from __future__ import annotations

from gpudesk.oom import diagnose_text, parse_text
from gpudesk.oom.parsers import smi_table
from gpudesk.oom.signatures import SHM_SEGMENT_CHECK
from gpudesk.oom.user_context import UserContext


def _top(text: str) -> tuple[str, str | None, str | None]:
    cause = diagnose_text(text).causes[0]
    return cause.id, cause.evidence.get("not_capacity_kind"), cause.evidence.get("deciding_check")


def test_nccl_shared_memory_segment_failures_are_dev_shm_with_its_check():
    # NVIDIA/nccl#342 (a container's 64 MiB /dev/shm) and fal-ai-community/video-diffusion-speedrun#2.
    for text in ("include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device\n"
                 "include/shm.h:48 NCCL WARN Error while creating shared memory segment "
                 "nccl-shm-recv-250a7cc850ba9298-0-1-3 (size 9637888)",
                 "Error while creating shared memory segment /dev/shm/nccl-pZafXL (size 7340384)"):
        d = diagnose_text(text)
        assert d.found_oom
        cause = d.causes[0]
        assert (cause.id, cause.evidence["not_capacity_kind"], cause.evidence["deciding_check"]) == (
            "not_capacity", "shm_segment", "host_ram")
        assert cause.evidence["check_command"] == SHM_SEGMENT_CHECK.command == "df -h /dev/shm"
        assert "--shm-size" in cause.fix and "NCCL_SHM_DISABLE=1" in cause.fix


def test_posix_fallocate_outside_nccl_is_not_read_as_its_segments():
    # A disk file that could not be preallocated is not NCCL's transport: no shm_segment reading.
    assert _top("posix_fallocate failed: No space left on device")[1] != "shm_segment"


def test_mps_element_count_limit_is_a_buffer_limit():
    # pytorch/pytorch#141909: a 72250 x 72250 matmul output on MPS.
    text = ("Output size of the matrix multiplication is larger than currently supported by the MPS backend: "
            "72250,72250, needs to be less than 2**32 elements")
    assert _top(text) == ("not_capacity", "buffer_limit", "buffer_limit")


def test_bash_job_report_of_a_kill_is_the_oom_killer_reading():
    # PaddlePaddle/Paddle#63: the trainer killed while initialising parameters (host RAM).
    text = ("I0910 08:11:06.422868  1881 GradientMachine.cpp:141] Init parameters done.\n"
            "/usr/local/bin/paddle: line 46:  1881 Killed                  ${DEBUGGER} "
            "$MYDIR/../opt/paddle/bin/paddle_trainer ${@:2}\nNo data to plot. Exiting!")
    assert _top(text) == ("not_capacity", "oom_killer", "host_ram")
    # The interactive form of the same report (variant: bash's job table line).
    assert _top("[1]+  Killed                  python train.py")[2] == "host_ram"


def test_paddle_cpu_allocator_failure_is_host_ram():
    # PaddlePaddle/PaddleOCR#2199: posix_memalign refused 538 MiB (errno 12) in system_allocator.cc.
    text = ("ResourceExhaustedError: Fail to alloc memory of 564023296 size, error code is 12.\n"
            "      [Hint: Expected error == 0, but received error:12 != 0:0.] "
            "(at /paddle/paddle/fluid/memory/detail/system_allocator.cc:66)\n      [operator < conv2d > error]")
    assert _top(text) == ("not_capacity", "host_ram", "host_ram")


def test_negative_kv_budget_logged_by_a_vllm_worker_is_the_kv_budget():
    # vllm-project/vllm-ascend#9372: the weights alone exceed the utilisation budget.
    text = "Loading model weights took 27.5376 GB\nAvailable KV cache memory: -0.87 GiB"
    report = parse_text(text)
    assert report.kind == "vllm_kv_cache"
    assert report.parsed["vllm_kv_cache_memory_bytes"] < 0
    cause = diagnose_text(text).causes[0]
    assert cause.id == "kv_cache_budget"
    assert "--gpu-memory-utilization" in cause.fix
    # A positive figure is a normal start-up log line, not a failure.
    assert parse_text("Available KV cache memory: 12.50 GiB").kind != "vllm_kv_cache"


def test_a_negative_running_allocation_count_is_an_absurd_size():
    # CFD-GO/TCLB#496: a signed total wrapped round as unsigned (2**64 bytes).
    text = "Cumulative allocation of -24577536 b (18446744073.7 GB)"
    assert _top(text) == ("not_capacity", "absurd_size", "absurd_size")


def test_tensorflow_exception_class_alone_is_recognised():
    # keras-team/keras#14032: a notebook showing only the head of the traceback.
    text = ("ResourceExhaustedError                    Traceback (most recent call last)\n"
            "<ipython-input-35-1a3bbd5216b5> in <module>\n      5     input_shape=(70,70,3),\n"
            "      6     pooling=None,\n----> 7     classes=2\n      8 )")
    assert diagnose_text(text).found_oom


LIGHTLLM_13 = (
    'self.value_buffer = [torch.empty((size, head_num, head_dim), dtype=dtype, device="cuda") for _ in '
    'range(layer_num)]\n\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.14 GiB (GPU 0; 79.35 GiB '
    "total capacity; 77.83 GiB already allocated; 711.19 MiB free; 77.83 GiB reserved in total by PyTorch) If reserved "
    "memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
    "Management and PYTORCH_CUDA_ALLOC_CONF")
# QwenLM/Qwen3#458 (IPython's traceback of vLLM's cache engine; another process held part of the GPU).
QWEN_458 = (
    "File ~/miniconda3/envs/qwen_env/lib/python3.11/site-packages/vllm/worker/cache_engine.py:64, in "
    "CacheEngine._allocate_kv_cache(self, num_blocks, device)\n     61 kv_cache: List[torch.Tensor] = []\n"
    "     62 for _ in range(self.num_layers):\n     63     kv_cache.append(\n---> 64         torch.empty(kv_cache_shape,\n"
    "     65                     dtype=self.dtype,\n     66                     pin_memory=pin_memory,\n"
    "     67                     device=device))\n     68 return kv_cache\n\n"
    "OutOfMemoryError: CUDA out of memory. Tried to allocate 642.00 MiB. GPU")


def test_an_engines_kv_pool_allocated_at_start_up_is_its_kv_budget_with_the_knobs():
    # ModelTC/LightLLM#13: fixed by a smaller --max_total_token_num. The text names no engine: every engine's knob.
    cause = diagnose_text(LIGHTLLM_13).causes[0]
    assert cause.id == "kv_cache_budget"
    assert "--max_total_token_num" in cause.fix and "--mem_fraction" in cause.fix
    assert "--gpu-memory-utilization" in cause.fix and "kv_cache_free_gpu_mem_fraction" in cause.fix
    # Named engine: its own knob only.
    named = diagnose_text("lightllm/common/mem_manager.py\n" + LIGHTLLM_13).causes[0]
    assert named.id == "kv_cache_budget" and "LightLLM" in named.fix and "vLLM" not in named.fix
    # vLLM V0's cache engine with no device figures: its budget counts other processes' memory as its own, so another
    # holder comes first (forty-sixth pass, gpudesk.oom.rules.vllm_kv_allocation) and the budget, with vLLM's own
    # knob, second.
    causes = diagnose_text(QWEN_458).causes
    assert causes[0].id == "other_process"
    vllm = next(c for c in causes if c.id == "kv_cache_budget")
    assert "--gpu-memory-utilization" in vllm.fix and "SGLang" not in vllm.fix


def test_the_same_allocator_message_without_the_pool_line_stays_a_shortage():
    text = LIGHTLLM_13.split("\n\n", 1)[1]
    assert diagnose_text(text).causes[0].id == "genuine_shortage"


def test_a_bare_hipmemcreate_failure_is_read_as_the_handle_limit_first():
    # ROCm/legacy-rocm-build#6661: about 1000 small VMM allocations with 43 of 45 GiB free (one dmabuf fd each).
    d = diagnose_text("hipMemCreate: out of memory")
    assert d.found_oom
    assert [c.id for c in d.causes[:2]] == ["not_capacity", "genuine_shortage"]
    first = d.causes[0]
    assert first.evidence["deciding_check"] == "free_exceeds_request" and "ulimit -n" in first.fix
    assert first.confidence < 0.9  # a likelier reading, not a certain one
    assert first.evidence["check_command"] == "rocm-smi --showmeminfo vram"  # HIP's API names the platform


BNB_PAGED = ("[2024-01-16 02:14:43,936] [INFO] [utils.py:792:see_memory_usage] MA 5.63 GB         Max_MA 5.93 GB"
             "         CA 6.32 GB         Max_CA 6 GB\n"
             "Error out of memory at line 380 in file /mmfs1/gscratch/zlab/timdettmers/git/bitsandbytes/csrc/"
             "pythonInterface.c")


def test_bitsandbytes_managed_memory_under_wsl_is_not_capacity_and_stays_a_shortage_elsewhere():
    # InternLM/xtuner#319: the paged optimizer under WSL; torch.optim.AdamW fixed it. The host OS decides.
    under_wsl = diagnose_text(BNB_PAGED, context=UserContext(host_os="wsl")).causes[0]
    assert (under_wsl.id, under_wsl.evidence["not_capacity_kind"], under_wsl.evidence["deciding_check"]) == (
        "not_capacity", "managed_memory", "free_exceeds_request")
    assert "AdamW" in under_wsl.fix
    assert diagnose_text(BNB_PAGED).causes[0].id == "genuine_shortage"


CHITCHAT_19 = (
    "Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
    "|===============================+======================+======================|\n"
    "|   0  Tesla V100-SXM2...  On   | 00000000:00:08.0 Off |                    0 |\n"
    "| N/A   54C    P0   246W / 300W |  15514MiB / 16130MiB |    100%      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n"
    "|   1  Tesla V100-SXM2...  On   | 00000000:00:09.0 Off |                    0 |\n"
    "| N/A   38C    P0    39W / 300W |      0MiB / 16130MiB |      0%      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n\n"
    "RuntimeError: CUDA error: out of memory")


def test_a_bare_cuda_error_pasted_with_a_full_gpu_in_nvidia_smi_is_another_holder_with_the_free_gpu_named():
    # yangjianxin1/GPT2-chitchat#19: someone's job filled GPU 0; GPUs 1-3 were empty.
    assert smi_table.gpu_memory(CHITCHAT_19) == [(15514 * 1024**2, 16130 * 1024**2), (0, 16130 * 1024**2)]
    cause = diagnose_text(CHITCHAT_19).causes[0]
    assert (cause.id, cause.evidence["smi_gpu_index"]) == ("other_process", 0)
    assert "CUDA_VISIBLE_DEVICES=1" in cause.fix
    # The error line alone keeps its one-line reading (the job's own need first).
    assert diagnose_text("RuntimeError: CUDA error: out of memory").causes[0].id == "genuine_shortage"
    # A table with no GPU near full says nothing about a holder.
    roomy = CHITCHAT_19.replace("15514MiB", "2514MiB")
    assert diagnose_text(roomy).causes[0].id == "genuine_shortage"


def test_newer_nccl_shm_wordings_are_the_same_class():
    # NCCL 2.12+ src/misc/shmutils.cc words (variant: the format string filled in as NCCL prints it).
    text = ("NCCL WARN Error: failed to extend /dev/shm/nccl-4Ab9Qz to 9637892 bytes, error: No space left on device (28)\n"
            "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled system "
            "error, NCCL version 2.14.3")
    assert _top(text) == ("not_capacity", "shm_segment", "host_ram")


def test_the_v0_wording_of_a_negative_kv_budget_and_mpsgraph_dimension_limit():
    # vllm-project/vllm#15598's V0 profiling line, with the figure below zero as vLLM prints it when weights overflow
    # the budget (variant of the real line's sign).
    text = ("model weights take 20.64GiB; non_torch_memory takes 0.28GiB; PyTorch activation peak memory takes 1.52GiB; "
            "the rest of the memory reserved for KV Cache is -2.20GiB.")
    assert diagnose_text(text).causes[0].id == "kv_cache_budget"
    # pytorch/pytorch#164415 (printing a (2, 2**31) int8 tensor on MPS; PyTorch's own spelling).
    assert _top("RuntimeError: MPSGaph does not support tensor dims larger than INT_MAX")[1] == "buffer_limit"


def test_a_full_shared_memory_filesystem_in_any_runtime_is_dev_shm():
    # triton-inference-server/server#6195 (seen after fresh-12 was scored): Triton's Python backend sizes a POSIX
    # shared-memory object and ftruncate returns ENOSPC; the same filesystem as PyTorch's DataLoader tensors.
    text = ("UNAVAILABLE: Internal: Unable to initialize shared memory key 'triton_python_backend_shm_region_3' to "
            "requested size (67108864 bytes). If you are running Triton inside docker, use '--shm-size' flag to control "
            "the shared memory region size. Each Python backend model instance requires at least 64MBs of shared "
            "memory. Error: No space left on device")
    d = diagnose_text(text)
    assert d.found_oom
    assert _top(text) == ("not_capacity", "dev_shm", "host_ram")
    # A full disk without any shared-memory word stays something else.
    assert _top("OSError: [Errno 28] No space left on device: '/tmp/ckpt/model.safetensors'")[1] != "dev_shm"
