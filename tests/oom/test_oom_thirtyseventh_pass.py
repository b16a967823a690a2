"""Thirty-seventh pass (issue 28, fresh-38's texts that came back "not found", and one garbage size).

Each reading is the runtime's own wording, read from the text:

* XLA:TPU's compile-time HBM report quoted without its first line ("Total hbm usage >= T:", reserved / program /
  arguments, "Program hbm requirement"): an out-of-memory report in itself; T is the step's need on a chip that serves
  one process, so a genuine shortage, whose fix follows the larger part. Its "0.5% fragmentation (7.92M)" statistic is
  a figure, not a statement that memory fragments. Another memory space (vmem, smem) is a kernel's scratchpad.
* PyTorch's caching-allocator figures clause quoted alone ("(GPU 0; 15.75 GiB total capacity; 79.11 MiB already
  allocated; 3.62 MiB free; 86.00 MiB reserved in total by PyTorch)"): a PyTorch OOM report, read with its figures.
* TensorRT's "Cudnn Error in initializeCommonContext: 1 (Could not initialize cudnn ...)" inside TF-TRT: cuDNN's handle
  refused after TensorFlow's pool mapped the GPU (preallocation); the same line from TensorRT alone is not that.
* A request of exactly 2**32 - 1 bytes: -1 in a 32-bit unsigned size, a garbage size (absurd_size); 2**32 is real.

Every text is a real message quoted from the public thread named in its comment.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.labels import has_label
from gpudesk.oom.rules import genuine_shortage

# https://github.com/pytorch/xla/issues/3041 (8 GB-per-core TPU; the arguments alone nearly fill the core)
XLA_3041 = (
    "Total hbm usage >= 8.74G:\n"
    "            reserved         18.00M \n"
    "            program           1.68G \n"
    "            arguments         7.04G \n"
    "        Output size 6.0K; shares 0B with arguments.\n"
    "        Program hbm requirement 1.68G:\n"
    "            global             4.0K\n"
    "            HLO temp          1.68G (66.7% utilization: Unpadded (1.12G) Padded (1.67G), 0.5% fragmentation "
    "(7.92M))\n"
    "          Largest program allocations in hbm:\n"
    "          1. Size: 570.00M\n"
    "             Shape: f32[29184,2,2560]{2,1,0:T(2,128)}\n"
    "             Unpadded size: 570.00M\n")

# https://github.com/erfanzar/EasyDeL/issues/95 (a 7B LLaMA on a TPU v2-8, 8 GiB per core: the temporaries do not fit)
EASYDEL_95 = (
    "Total hbm usage >= 9.50G:\n"
    "    reserved        530.00M \n"
    "    program           8.98G \n"
    "    arguments            0B \n\n"
    "Output size 0B; shares 0B with arguments.\n\n"
    "Program hbm requirement 8.98G:\n"
    "    global           241.0K\n"
    "    scoped            9.56M\n"
    "    HLO temp          8.97G (100.0% utilization: Unpadded (8.94G) Padded (8.94G), 0.4% fragmentation (36.60M))\n\n"
    "  Largest program allocations in hbm:")

# https://github.com/haoliuhl/ringattention/issues/11 (a Pallas kernel's blocks over the core's vector memory)
RINGATTENTION_VMEM = (
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in "
    "memory space vmem. Used 59.79M of 16.00M vmem. Exceeded vmem capacity by 43.79M.")

# https://github.com/Morizeyao/GPT2-Chinese/issues/215 (a commenter's fragment: 86 MiB reserved, 3.62 MiB free of 16 GiB)
GPT2_CHINESE_215 = ("(GPU 0; 15.75 GiB total capacity; 79.11 MiB already allocated; 3.62 MiB free; 86.00 MiB reserved "
                    "in total by PyTorch)")

# https://github.com/tensorflow/tensorrt/issues/283 (EfficientDet D0 engines built by TF-TRT on a 16 GB T4; fixed in
# the twin thread tensorflow/tensorflow#53730 by set_memory_growth)
TF_TRT_283 = (
    "2022-01-12 05:57:02.809522: W tensorflow/compiler/tf2tensorrt/kernels/trt_engine_op.cc:797] TF-TRT Warning: "
    "Engine retrieval for input shapes: [[1,64,64,64]] failed. Running native segment for StatefulPartitionedCall/"
    "WeightSharedConvolutionalBoxPredictor/BoxPredictionTower/conv2d_1/TRTEngineOp_0_31\n"
    "2022-01-12 05:57:02.821888: E tensorflow/compiler/tf2tensorrt/utils/trt_logger.cc:40] DefaultLogger "
    "safeContext.cpp (124) - Cudnn Error in initializeCommonContext: 1 (Could not initialize cudnn, please check cudnn "
    "installation.)\n"
    "2022-01-12 05:57:02.821980: W tensorflow/compiler/tf2tensorrt/kernels/trt_engine_op.cc:945] TF-TRT Warning: "
    "Engine creation for StatefulPartitionedCall/WeightSharedConvolutionalBoxPredictor/ClassPredictionTower/conv2d_2/"
    "TRTEngineOp_0_46 failed. The native segment will be used instead. Reason: INTERNAL: Failed to build TensorRT "
    "engine")

# The TensorRT line of the same thread as TensorRT's own builder logs it, outside TensorFlow.
TRT_ALONE = ("[TRT] safeContext.cpp (124) - Cudnn Error in initializeCommonContext: 1 (Could not initialize cudnn, "
             "please check cudnn installation.)")

# https://github.com/flow123d/flow123d/issues/72 (a wrong array size in DofHandler; release build only)
FLOW123D_72 = "Error (.../src/system.cc, xmalloc(), 315): Not enough memory for allocating 4294967295 bytes"

# https://github.com/enazoe/yolo-tensorrt/issues/169 (a 4 GiB tactic workspace on a 4 GB GPU: a real size)
YOLO_TRT_169 = (
    "WARNING: Requested amount of GPU memory (4294967296 bytes) could not be allocated. There may not be enough free "
    "memory for allocation to succeed.\n"
    "WARNING: Skipping tactic 1 due to insuficient memory on requested size of 4294967296 detected for tactic 0.\n"
    "Try decreasing the workspace size with IBuilderConfig::setMaxWorkspaceSize()")


def test_xla_tpu_hbm_report_alone_is_found_and_read_as_the_jobs_need() -> None:
    d = diagnose_text(XLA_3041)
    top = d.causes[0]
    assert d.found_oom and d.report.platform == "tpu"
    assert top.id == "genuine_shortage"
    assert top.confidence == genuine_shortage.TPU_COMPILE_REPORT_CONFIDENCE
    arguments, program = d.report.parsed["tpu_hbm_arguments_bytes"], d.report.parsed["tpu_hbm_program_bytes"]
    usage = d.report.parsed["tpu_hbm_usage_bytes"]
    assert isinstance(arguments, int) and isinstance(program, int) and isinstance(usage, int)
    assert arguments > program
    assert top.evidence["tpu_hbm_usage_bytes"] == usage > 8 * 1024**3
    # Arguments (parameters and state) are the larger part: shard them.
    assert "Shard the parameters" in top.fix
    # XLA's "0.5% fragmentation (7.92M)" is a statistic, not a fragmented cache.
    assert all(c.id != "fragmentation" for c in d.causes)


def test_xla_tpu_report_with_the_program_larger_names_a_smaller_step() -> None:
    d = diagnose_text(EASYDEL_95)
    top = d.causes[0]
    assert d.found_oom and top.id == "genuine_shortage"
    assert d.report.parsed["tpu_hbm_arguments_bytes"] == 0
    assert "batch" in top.fix and "jax.checkpoint" in top.fix
    assert all(c.id != "fragmentation" for c in d.causes)


def test_vmem_is_not_read_as_an_hbm_shortage() -> None:
    d = diagnose_text(RINGATTENTION_VMEM)
    assert d.report.parsed.get("tpu_memory_space") == "vmem"
    assert d.causes[0].id == "not_capacity"
    assert all(c.confidence != genuine_shortage.TPU_COMPILE_REPORT_CONFIDENCE or c.id != "genuine_shortage"
               for c in d.causes)


def test_pytorch_figures_clause_alone_is_a_pytorch_report() -> None:
    d = diagnose_text(GPT2_CHINESE_215)
    assert d.found_oom and d.report.kind == "pytorch_oom"
    dev = d.report.device
    assert dev is not None and dev.total_bytes is not None and dev.reserved_bytes is not None
    assert dev.total_bytes > 15 * 1024**3 and dev.reserved_bytes < 100 * 1024**2
    # 15.6 GiB held outside this process's 86 MiB: another process first.
    assert d.causes[0].id == "other_process"


def test_a_size_clause_without_the_allocators_words_is_not_a_pytorch_report() -> None:
    d = diagnose_text("(GPU 0; 15.75 GiB; 79.11 MiB; 3.62 MiB; 86.00 MiB)")
    assert d.report.kind != "pytorch_oom"


def test_tf_trt_cudnn_context_failure_is_tensorflows_preallocation() -> None:
    d = diagnose_text(TF_TRT_283)
    top = d.causes[0]
    assert d.found_oom and top.id == "preallocation"
    assert "TF_FORCE_GPU_ALLOW_GROWTH=true" in top.fix


def test_tensorrt_cudnn_context_failure_outside_tensorflow_is_not_preallocation() -> None:
    d = diagnose_text(TRT_ALONE)
    assert d.found_oom
    assert d.causes[0].id != "preallocation"


def test_a_request_of_two_to_the_32_minus_one_bytes_is_a_garbage_size() -> None:
    d = diagnose_text(FLOW123D_72)
    top = d.causes[0]
    assert top.id == "not_capacity"
    assert d.report.signature == "absurd_size"
    assert "shape" in top.fix.lower() or "size" in top.fix.lower()
    # 4 GiB is no size "more than any device has": the explanation names the -1 that wrapped
    assert "2^32 - 1" in top.explanation and "-1" in top.explanation
    assert "more than any device" not in top.explanation
    assert "-1 stored as an unsigned 32-bit size" in top.checks[0] and "No device has" not in top.checks[0]


def test_every_part_of_the_tpu_hbm_report_has_a_written_label() -> None:
    for text in (XLA_3041, EASYDEL_95):
        parsed = diagnose_text(text).report.parsed
        assert parsed["tpu_hbm_reserved_bytes"] > 0
        assert [key for key in parsed if not has_label(key)] == []


def test_a_request_of_exactly_four_gib_stays_a_real_size() -> None:
    d = diagnose_text(YOLO_TRT_169)
    assert d.report.signature != "absurd_size"
    assert d.causes[0].id != "not_capacity"


# openxla/xla docs/errors/error_1001.md's sample (a Pallas kernel's scoped VMEM over the core's)
XLA_1001_VMEM = (
    "XlaRuntimeError: RESOURCE_EXHAUSTED: Allocation (size=134217728) would exceed memory (size=67108864) :: "
    "#allocation25 [shape = 'u8[134217728]{0}', space=vmem, size = 0x8000000, tag = 'scoped memory for "
    "ragged_latency_optimized_all_gather_lhs_contracting_gated_matmul_kernel.2'] :: "
    "ragged_latency_optimized_all_gather_lhs_contracting_gated_matmul_kernel.2")

# openxla/xla docs/errors/error_0101.md's sample (the TPU runtime loading a program into HBM)
XLA_0101_RESERVE = (
    "XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': Attempting to reserve "
    "29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M "
    "reservable. Scope: unknown..: while running replica 0 and partition 34 of a replicated computation (other "
    "replicas may have failed as well).")


def test_xla_allocation_check_in_vmem_is_the_kernels_on_chip_limit() -> None:
    d = diagnose_text(XLA_1001_VMEM)
    assert d.report.platform == "tpu" and d.report.parsed["tpu_memory_space"] == "vmem"
    assert d.causes[0].id == "not_capacity" and d.report.signature == "shared_memory"
    # Neither JAX's GPU preallocation nor an HBM shortage is named for a TPU core's VMEM.
    assert all(c.id not in ("preallocation", "genuine_shortage") for c in d.causes)


def test_tpu_program_reservation_is_read_on_the_tpu_with_its_figures() -> None:
    d = diagnose_text(XLA_0101_RESERVE)
    assert d.report.platform == "tpu"
    assert d.report.requested_bytes is not None and d.report.requested_bytes > 29 * 1024**3
    dev = d.report.device
    assert dev is not None and dev.free_bytes is not None and dev.free_bytes < 150 * 1024**2
    top = d.causes[0]
    assert top.id == "genuine_shortage" and "TPU" in top.title
    assert all(c.id != "preallocation" for c in d.causes)
