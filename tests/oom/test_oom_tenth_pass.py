"""Tenth pass (issue 28): the classes behind the misses of the held-out batches fresh-10, fresh-11 and fresh-12, each
read as a mechanism: other processes holding more of the GPU than this process (listed or not), XLA:TPU's largest
program buffer above the capacity, PyTorch's message cut right after its request, an OOM raised in the validation
pass, TensorFlow in a notebook kernel with no figure. Every text is a real message quoted from the public thread named
in its comment (a variant is marked as such and keeps the mechanism's own words)."""

from __future__ import annotations

from gpudesk.oom import diagnose_text


def _top(text: str) -> tuple[str, str | None]:
    cause = diagnose_text(text).causes[0]
    return cause.id, cause.evidence.get("deciding_check")


# QwenLM/Qwen#782: this process holds 18.80 of 80 GiB, two listed processes 12.76 GiB, and 48 GiB more is held by
# processes the list does not show.
QWEN_782 = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 234.00 MiB. GPU 0 has a total capacty "
            "of 80 GiB of which 176.38 MiB is free. Process 4683 has 11.05 GiB memory in use. Process 16753 has 1.71 "
            "GiB memory in use. Including non-PyTorch memory, this process has 18.80 GiB memory in use. Of the "
            "allocated memory 18.26 GiB is allocated by PyTorch, and 30.10 MiB is reserved by PyTorch but "
            "unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid "
            "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")


def test_other_processes_holding_more_than_this_process_lead_listed_or_not():
    d = diagnose_text(QWEN_782)
    top = d.causes[0]
    assert (top.id, top.evidence["deciding_check"]) == ("other_process", "other_process")
    assert top.confidence > next(c.confidence for c in d.causes if c.id == "genuine_shortage")
    # 80 GiB − 176.38 MiB free − 18.80 GiB of this process: about 61 GiB held by the others.
    assert 60 * 1024**3 < top.evidence["held_by_others_bytes"] < 62 * 1024**3
    assert top.evidence["listed_other_processes_bytes"] == round((11.05 + 1.71) * 1024**3)


def test_a_process_that_holds_most_of_the_gpu_itself_stays_a_shortage():
    # Variant of the same message: this process holds 78 GiB, the others 1.76 GiB (below a quarter of the GPU).
    text = QWEN_782.replace("Process 4683 has 11.05 GiB", "Process 4683 has 1.05 GiB").replace(
        "this process has 18.80 GiB", "this process has 78.00 GiB").replace("18.26 GiB is allocated", "77.26 GiB is allocated")
    assert _top(text)[0] == "genuine_shortage"


# DifferentiableUniverseInitiative/flowpm#27: a 32 GiB buffer (1 GiB of data, 31 GiB of tile padding) on a 16 GiB TPU.
FLOWPM_27 = """Compilation failure: Ran out of memory in memory space hbm. Used 41.74G of 16.00G hbm. Exceeded hbm capacity by 25.74G.

Total hbm usage >= 41.74G:
    reserved        528.00M
    program          41.22G
    arguments       unknown size

Output size unknown.

Program hbm requirement 41.22G:
    reserved           4.0K
    global           29.82M
    HLO temp         41.19G (24.2% utilization, 0.7% fragmentation (293.84M))

  Largest program allocations in hbm:

  1. Size: 32.00G
     Operator: op_type="FloorMod" op_name="slicewise_79/cic_update/FloorMod"
     Shape: s32[8388608,8,4]{2,1,0:T(8,128)}
     Unpadded size: 1.00G
     Extra memory due to padding: 31.00G (32.0x expansion)
"""


def test_tpu_largest_program_buffer_above_hbm_is_one_allocation_and_padding_is_named():
    top = diagnose_text(FLOWPM_27).causes[0]
    assert top.id == "single_allocation_exceeds_capacity"
    assert top.evidence["largest_allocation_bytes"] == 32 * 1024**3
    assert top.evidence["largest_allocation_padding_bytes"] == 31 * 1024**3
    assert "128" in top.explanation and "last two" in top.fix


def test_tpu_largest_buffer_that_fits_leaves_the_whole_program_shortage():
    # Variant: the largest buffer (8.00G) fits the 16.00G HBM; the program as a whole does not.
    text = FLOWPM_27.replace("1. Size: 32.00G", "1. Size: 8.00G")
    assert _top(text)[0] == "genuine_shortage"


def test_pytorch_message_cut_after_its_request_is_a_shortage_with_the_other_process_check():
    # visionml/pytracking#155.
    d = diagnose_text("RuntimeError: CUDA out of memory. Tried to allocate 66.00 MiB")
    top = d.causes[0]
    assert (top.id, top.evidence["deciding_check"]) == ("genuine_shortage", "other_process")
    assert top.evidence["requested_bytes"] == 66 * 1024**2
    assert "nvidia-smi" in top.checks[0]


def test_pytorch_message_with_its_clauses_garbled_still_asks_for_the_full_message():
    # Variant: the clauses are there but unreadable; the doctor says what is missing instead of guessing.
    text = "RuntimeError: CUDA out of memory. Tried to allocate 66.00 MiB (GPU 0; ?? total capacity; ?? free)"
    assert _top(text)[0] == "unparseable"


# sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning#57: the error raised in validate(), the scores of every batch kept.
CAPTIONING_57 = """Traceback (most recent call last):
  File "train.py", line 349, in <module>
    main()
  File "train.py", line 127, in main
    criterion=criterion)
  File "train.py", line 282, in validate
    scores_copy = scores.clone()
RuntimeError: CUDA error: out of memory"""


def test_an_oom_raised_in_the_validation_pass_reads_as_memory_kept_across_it():
    top = diagnose_text(CAPTIONING_57).causes[0]
    assert top.id == "leak" and top.evidence["frame"] == "validate"
    assert "torch.no_grad()" in top.fix


def test_a_training_frame_is_not_read_as_validation():
    # Variant: the same traceback through train_step: no validation reading (the figureless line keeps only the
    # low-ranked leak of any bare line, tests/oom/test_oom_fifteenth_pass.py).
    text = CAPTIONING_57.replace("in validate", "in train_step")
    assert all(c.id != "leak" or ("frame" not in c.evidence and c.confidence < 0.45)
               for c in diagnose_text(text).causes)


def test_a_validation_frame_does_not_outweigh_the_figures():
    # Variant: the validation frame with PyTorch's full clauses (a 4 GiB request on a full 8 GiB GPU): the figures
    # decide.
    text = CAPTIONING_57.replace("RuntimeError: CUDA error: out of memory",
                                 "RuntimeError: CUDA out of memory. Tried to allocate 4.00 GiB (GPU 0; 7.79 GiB total "
                                 "capacity; 6.90 GiB already allocated; 120.00 MiB free; 7.01 GiB reserved in total "
                                 "by PyTorch)")
    assert _top(text)[0] != "leak"


# keras-team/keras#14032: TensorFlow's exception in a notebook cell, at model construction, no figure.
KERAS_14032 = """ResourceExhaustedError                    Traceback (most recent call last)
<ipython-input-35-1a3bbd5216b5> in <module>
      5     input_shape=(70,70,3),
      6     pooling=None,
----> 7     classes=2
      8 )"""


def test_tensorflow_in_a_notebook_without_figures_names_another_kernel_first():
    top = diagnose_text(KERAS_14032).causes[0]
    assert (top.id, top.evidence["deciding_check"]) == ("other_process", "other_process")
    assert "set_memory_growth" in top.fix


def test_tensorflow_in_a_notebook_with_a_tensor_shape_stays_the_batch():
    # Variant: the op-level message with its shape (the job's activation): the notebook alone does not decide.
    text = KERAS_14032 + ("\nResourceExhaustedError: OOM when allocating tensor with shape[128,128,109,109] and type "
                          "float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc")
    assert _top(text)[0] == "genuine_shortage"


# huggingface/diffusers#11315: HiDream on a 24 GB M3 iMac, the process ended by a trap at the first step ("the message
# we expect on OOM with MPS", the maintainer).
DIFFUSERS_11315 = """  0%|                                                                                            | 0/50 [00:00<?, ?it/s]Trace/BPT trap: 5

real	11m17.127s
user	0m21.874s
sys	1m53.146s"""


def test_a_trap_on_a_mac_while_a_model_runs_is_likely_out_of_memory_with_the_memory_pressure_check():
    d = diagnose_text(DIFFUSERS_11315)
    assert d.found_oom
    top = d.causes[0]
    assert top.id == "genuine_shortage" and top.confidence < 0.6  # the likelier reading, not a certain one
    assert "vm.swapusage" in top.evidence["check_command"]
    assert "PYTORCH_MPS_HIGH_WATERMARK_RATIO" in top.fix


def test_a_trap_with_no_model_running_is_not_read_as_memory():
    # pypa/pip#5131: pip 10b1 on Python 3.3 ended by the same trap (a library, not memory).
    d = diagnose_text("$ pip3 install flake8\nCollecting flake8\nTrace/BPT trap: 5\n$")
    assert not d.found_oom


# iree-org/iree#5268: IREE's Vulkan HAL, the buffer creation refused with no size in the text.
IREE_5268 = ("E /home/ravishankarm/Development/iree/iree/iree/tools/iree-run-mlir-main.cc:469] Failure for split at line "
             "#1: /home/ravishankarm/Development/iree/iree/iree/hal/vulkan/status_util.c:53: RESOURCE_EXHAUSTED; "
             "VK_ERROR_OUT_OF_DEVICE_MEMORY; vmaCreateBuffer; while invoking native function hal.allocator.allocate; "
             "while calling import; Evaluating export function 2; Evaluating functions")


def test_a_vulkan_buffer_refused_without_a_size_is_the_allocation_limit_first_and_never_xla_preallocation():
    causes = diagnose_text(IREE_5268).causes
    assert (causes[0].id, causes[0].evidence["deciding_check"]) == ("not_capacity", "buffer_limit")
    assert "maxMemoryAllocationSize" in causes[0].fix
    assert "genuine_shortage" in [c.id for c in causes[1:]]
    assert all(c.id != "preallocation" for c in causes)


def test_a_vulkan_buffer_refused_with_its_size_keeps_the_size_rules():
    # iree-org/iree#13516's wording (the length is in the text): 26953666560 bytes, above 2 GiB: vulkan_large.
    text = ("vma_allocator.cc:693: RESOURCE_EXHAUSTED; VK_ERROR_OUT_OF_DEVICE_MEMORY; vmaCreateBuffer; failed to "
            "allocate buffer of length 26953666560; while invoking native function hal.allocator.allocate.initialized")
    top = diagnose_text(text).causes[0]
    assert top.evidence["not_capacity_kind"] == "vulkan_large"
    assert top.evidence["requested_bytes"] == 26953666560


# NVIDIA/MinkowskiEngine#359: a loop that catches the out-of-memory error and skips the batch; two of its messages.
MINKOWSKI_359 = """2021-06-02 15:58:00 dev-ssh-geza root[14429] DEBUG CUDA out of memory. Tried to allocate 478.00 MiB (GPU 0; 15.78 GiB total capacity; 13.47 GiB already allocated; 178.75 MiB free; 13.97 GiB reserved in total by PyTorch)
2021-06-02 15:58:00 dev-ssh-geza root[14429] WARNING CUDA OOM Error during batch execution, skipping batch.
2021-06-02 15:58:10 dev-ssh-geza root[14429] DEBUG CUDA out of memory. Tried to allocate 212.00 MiB (GPU 0; 15.78 GiB total capacity; 13.41 GiB already allocated; 142.75 MiB free; 14.00 GiB reserved in total by PyTorch)
2021-06-02 15:58:10 dev-ssh-geza root[14429] WARNING CUDA OOM Error during batch execution, skipping batch."""


def test_live_memory_growing_from_one_caught_oom_to_the_next_is_a_leak():
    # Variant of MinkowskiEngine#359's log: the live tensors at the second failure 2.00 GiB above the first.
    text = MINKOWSKI_359.replace("13.41 GiB already allocated", "15.47 GiB already allocated").replace(
        "13.47 GiB already allocated", "13.47 GiB already allocated")
    top = diagnose_text(text).causes[0]
    assert top.id == "leak" and top.evidence["messages"] == 2
    assert top.evidence["allocated_growth_bytes"] == round(15.47 * 1024**3) - round(13.47 * 1024**3)


def test_live_memory_that_does_not_grow_between_caught_ooms_is_not_read_as_a_leak():
    # The log as posted: 13.47 then 13.41 GiB live; no growth in the allocator's figures.
    assert all(c.id != "leak" for c in diagnose_text(MINKOWSKI_359).causes)


# MIC-DKFZ/nnUNet#593: DDP's barrier before each rank bound its GPU, launched with torch.distributed.launch.
NNUNET_593 = """  File "run/run_training_DDP.py", line 157, in main
    trainer.initialize(not validation_only)
  File "/afs/crc.nd.edu/user/y/ypeng4/nnUnet/nnunet/training/network_training/nnUNetTrainerV2_DDP.py", line 160, in initialize
    distributed.barrier()
  File "/afs/crc.nd.edu/user/y/ypeng4/.local/lib/python3.7/site-packages/torch/distributed/distributed_c10d.py", line 2420, in barrier
    work = default_pg.barrier(opts=opts)
RuntimeError: CUDA error: out of memory"""


def test_a_bare_cuda_error_in_a_multi_process_launch_names_the_other_ranks_first():
    causes = diagnose_text(NNUNET_593).causes
    assert (causes[0].id, causes[0].evidence["deciding_check"]) == ("other_process", "other_process")
    assert "set_device" in causes[0].fix
    assert causes[1].id == "genuine_shortage"


def test_the_same_bare_error_without_a_launch_keeps_the_jobs_own_need_first():
    # The one line alone (fresh-2's DeepLabv3.pytorch#16 wording): the job's own need leads.
    assert diagnose_text("RuntimeError: CUDA error: out of memory").causes[0].id == "genuine_shortage"


def test_tensorflow_concat_inside_a_while_loop_is_memory_growing_with_the_loop():
    # microsoft/DirectML#37: GPT-2's sampling loop on DirectML, the past keys and values concatenated each token.
    text = ("tensorflow.python.framework.errors_impl.ResourceExhaustedError: 2 root error(s) found.\n"
            "  (0) Resource exhausted: OOM when allocating tensor with shape[1,48,2,25,455,64] and type float on "
            "/job:localhost/replica:0/task:0/device:DML:0 by allocator DmlAllocator\n"
            "         [[node sample_sequence/while/concat (defined at F:\\DSML\\Soft\\Anaconda\\envs\\directml\\lib\\"
            "site-packages\\tensorflow_core\\python\\framework\\ops.py:1762) ]]")
    top = diagnose_text(text).causes[0]
    assert top.id == "leak" and top.evidence["described_as"] == "sample_sequence/while/concat"
    # The same op outside a loop (variant: "sample_sequence/concat") is the batch's tensor: no loop reading.
    assert diagnose_text(text.replace("while/concat", "concat")).causes[0].id == "genuine_shortage"


def test_zsh_reports_of_a_kill_are_the_oom_killer_reading():
    # zsh's own wordings of a SIGKILL (macOS's default shell): the job line and the command report.
    for text in ("[1]    12345 killed     python train.py", "zsh: killed     python generate.py"):
        assert _top(text) == ("not_capacity", "host_ram")


def test_webgpu_buffer_limit_in_wgpu_and_dawn_words_asks_for_the_adapters_limit():
    # gfx-rs/wgpu#6221 (wgpu-native on an M3 Max) and apple/embedding-atlas#159 (Chrome's Dawn).
    wgpu = ("Caused by:\n    In wgpuDeviceCreateBuffer\n      note: label = `Data_0`\n"
            "    Buffer size 640000000 is greater than the maximum buffer size (268435456)")
    dawn = ("Buffer size (870585948) exceeds the max buffer size limit (536870912). This adapter supports a higher "
            "maxBufferSize of 4294967296, which can be specified in requiredLimits when calling requestDevice().")
    for text in (wgpu, dawn):
        top = diagnose_text(text).causes[0]
        assert (top.id, top.evidence["deciding_check"]) == ("not_capacity", "buffer_limit")
        assert "max_buffer_size" in top.evidence["check_command"]
        assert "requiredLimits" in top.fix and "vulkaninfo" not in top.evidence["check_command"]


# wizyoung/YOLOv3_TensorFlow#153's op line as TensorFlow 2 words it (variant: the status named RESOURCE_EXHAUSTED, as
# TF 2's op_kernel.cc prints it) after the BFC allocator's Stats block (variant figures: the pool full to 512 bytes).
TF2_OP_LINE = """2019-09-11 01:58:49.790000: I tensorflow/core/common_runtime/bfc_allocator.cc:1105] Stats:
Limit:                     11324620800
InUse:                     11324620288
MaxInUse:                  11324620288
NumAllocs:                        1234
MaxAllocSize:               1073741824
2019-09-11 01:58:49.790228: W tensorflow/core/framework/op_kernel.cc:1318] OP_REQUIRES failed at assign_op.h:117 : RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[256] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"""


def test_tensorflow_2s_named_status_stays_tensorflows_and_a_full_pool_is_a_shortage():
    d = diagnose_text(TF2_OP_LINE)
    assert d.report.kind == "tf_resource_exhausted" and d.report.framework == "tensorflow"
    top = d.causes[0]
    assert top.id == "genuine_shortage" and top.confidence >= 0.8
    assert all(c.id != "preallocation" for c in d.causes)


def test_xlas_own_wording_with_the_named_status_stays_xla():
    # google-deepmind/jaxline#11: JAX's wording, no tensor: still XLA's reading.
    d = diagnose_text("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 285212672 bytes.")
    assert d.report.kind == "xla_resource_exhausted"


def test_openvino_gpu_plugin_wordings_are_recognised_and_its_object_limit_is_a_buffer_limit():
    # ggml-org/llama.cpp#20661 (OpenVINO backend on an Arc A750) and immich-app/immich#13674 (OpenVINO on an N5095).
    limit = ("[GPU] Exceeded max size of memory object allocation: requested 4831838208 bytes, but max alloc size "
             "supported by device is 1073741824 bytes.Please try to reduce batch size or use lower precision.")
    top = diagnose_text(limit).causes[0]
    assert (top.id, top.evidence["not_capacity_kind"]) == ("not_capacity", "buffer_limit")
    assert top.evidence["check_command"].startswith("clinfo")
    resources = ("Exception from src/plugins/intel_gpu/src/runtime/ocl/ocl_engine.cpp:185:\n"
                 "[GPU] out of GPU resources")
    assert diagnose_text(resources).found_oom


def test_a_bare_cuda_errors_holder_checks_include_the_one_for_holders_nvidia_smi_cannot_show():
    # microsoft/pai#2910's one line (a shared scheduler's container): the set names nvidia-smi and, for a holder in
    # another container or a zombie, fuser on the device files.
    causes = diagnose_text("CUDA error: out of memory").causes
    holder = next(c for c in causes if c.id == "other_process")
    assert any(line.startswith("sudo fuser -v /dev/nvidia*") for line in holder.checks)
    assert {c.evidence.get("not_capacity_kind") for c in causes} >= {"ecc", "xid"}


def test_out_of_memory_messages_of_two_gpus_are_not_read_as_one_runs_growth():
    # Variant of MinkowskiEngine#359's log: the second message from GPU 1 (another rank), with more live memory.
    text = MINKOWSKI_359.replace("(GPU 0; 15.78 GiB total capacity; 13.41 GiB", "(GPU 1; 15.78 GiB total capacity; 15.41 GiB")
    assert all(c.id != "leak" for c in diagnose_text(text).causes)


def test_vllms_sampler_warm_up_is_the_engines_budget_with_its_two_knobs():
    # llm-d/llm-d#787 (vLLM 0.11, Qwen3-32B, --gpu-memory-utilization=0.95): the KV cache allocated, then the warm-up.
    text = ("RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 \ndummy requests. Please try "
            "lowering `max_num_seqs` or `gpu_memory_utilization` \nwhen initializing the engine.")
    causes = diagnose_text(text).causes
    assert [c.id for c in causes] == ["kv_cache_budget"]
    assert causes[0].evidence["max_num_seqs"] == 1024
    assert "--max-num-seqs" in causes[0].fix and "512" in causes[0].fix and "--gpu-memory-utilization" in causes[0].fix
