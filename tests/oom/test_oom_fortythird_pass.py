"""Forty-third pass (issue 28, the misses over every fresh batch, no new set): the groups whose text decides.

Each reading is the runtime's own wording, read from its source:

* TensorRT's allocator refusing memory with no size while the builder times tactics (TensorRT 7's
  "rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)" beside "getBestTactic" / "Building the
  TensorRT Engine"): each tactic is timed with its workspace, one piece up to the build's workspace limit, so the
  limit is what did not fit (the workspace fix first, the build's shortage second).
* The user's own figure for the free memory, as a share of the GPU ("with GPU having 80% of its vram free"): a refusal
  with most of the device free is not about capacity, the figures' free-exceeds-request reading said in words.
* cuDNN's CUDNN_STATUS_NOT_INITIALIZED alone (an issue title, "[Bug]: CUDNN_STATUS_NOT_INITIALIZED"): the cuDNN API
  reference's status for a library that could not start (cudnnCreate's CUDA runtime calls, the hardware setup), the
  handle's memory being ALLOC_FAILED; with no framework named whose pool could have taken the memory, the library's
  build against the driver is checked first.
* PyTorch's message cut inside its clauses, before the free figure (a title or a paste that stops at "total capacity"
  or "already all"): read from the clauses that survived (the request against the capacity, the live tensors'
  bound), the job's need first and another process second with nvidia-smi, a request of half the card or more as one
  oversized allocation, instead of "not enough of the message"; garbled clauses and complete messages that print no
  free figure keep their readings.
* A need and what there was as a labelled list ("Insufficient GPU memory. Required: 18.5 GB, Available: 15.2 GB", the
  wording of many applications' own pre-flight checks; CatBoost's "Requested 5696 MB; Free 3958.17 MB"): an OOM with
  its figures, as the forty-second pass's need-and-have sentences.

Every text is a real message quoted from the public thread named in its comment.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# https://github.com/linghu8812/tensorrt_inference/issues/155 (YOLOv4-tiny engine build, TensorRT 7.1.3)
TENSORRT_INFERENCE_155 = (
    "start building engine\n"
    "[09/29/2022-16:59:38] [E] [TRT] ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)\n"
    "[09/29/2022-16:59:38] [E] [TRT] ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)\n"
    "build engine done\n"
    "tensorrt_inference: /home/thuong/source/tensorrt_inference/code/src/model.cpp:46: void Model::OnnxToTRTModel(): "
    "Assertion `engine' failed.\nAborted (core dumped)")

# https://github.com/NVIDIA/TensorRT/issues/840 (a YOLOv3 FP16 batch-64 engine build)
TENSORRT_840 = (
    "File does not exist : ../configs/yolov3-kHALF-batch64.engine\nBuilding the TensorRT Engine...\n"
    "ERROR: ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)\n"
    "WARNING: Get cuda error during getBestTactic: (Unnamed Layer* 1) [ElementWise]\n"
    "ERROR: ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)\n"
    "WARNING: Get cuda error during timeReformat.")

# https://github.com/NVIDIA/TensorRT/issues/948 (the allocator's line alone, no build step in the paste)
TENSORRT_948 = ("[E] [TRT] C:\\source\\rtSafe\\safeRuntime.cpp (25) - Cuda Error in "
                "nvinfer1::internal::DefaultAllocator::allocate: 2 (out of memory)")


def test_allocator_refusal_while_the_builder_times_tactics_is_the_workspace() -> None:
    for text in (TENSORRT_INFERENCE_155, TENSORRT_840):
        d = diagnose_text(text)
        top = d.causes[0]
        assert d.found_oom and top.id == "single_allocation_exceeds_capacity", text
        assert "WORKSPACE" in top.fix and "workspace" in top.explanation
        # The build's own shortage stays the next reading.
        assert d.causes[1].id == "genuine_shortage"


def test_allocator_refusal_without_a_build_step_is_not_read_as_the_workspace() -> None:
    d = diagnose_text(TENSORRT_948)
    assert d.found_oom and d.causes[0].id == "genuine_shortage"


def test_build_step_with_an_execution_context_is_left_to_the_context_reading() -> None:
    text = TENSORRT_840 + "\n[E] [TRT] executionContext.cpp: could not create the execution context"
    assert diagnose_text(text).causes[0].title != "TensorRT's builder workspace is larger than the GPU can give"


# https://github.com/autonomousvision/stylegan-xl/issues/90 (the issue title and the reporter's words)
STYLEGAN_XL_90 = (
    "Out of Memory error with GPU having 80% of its vram free.\n"
    "I'm getting OOM errors even at lowest resolution batch_size = 1 , with 12gb vram and 32gb system ram. \n"
    "Strangely the OOM error message says I had more than 9.7gb of vram left , yet I got OOM error'ed for much "
    "smaller allocations.")


def test_most_of_the_memory_said_free_is_not_capacity() -> None:
    d = diagnose_text(STYLEGAN_XL_90)
    top = d.causes[0]
    assert d.found_oom and top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "free_exceeds_request"
    assert top.evidence["stated_free_share"] == 0.8
    assert "driver" in top.fix and "batch" in top.explanation


def test_a_share_in_use_or_a_small_share_free_is_not_read_as_free() -> None:
    in_use = STYLEGAN_XL_90.replace("having 80% of its vram free", "using 80% of its vram")
    assert diagnose_text(in_use).causes[0].id != "not_capacity"
    little_free = STYLEGAN_XL_90.replace("80% of its vram free", "20% of its vram free")
    assert diagnose_text(little_free).causes[0].id != "not_capacity"
    # No out-of-memory text at all: nothing was refused.
    calm = diagnose_text("The GPU has 80% of its memory free and training runs fine.")
    assert not calm.found_oom and "not_capacity" not in [c.id for c in calm.causes]


# https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/9589 (the issue title)
WEBUI_9589 = "[Bug]: CUDNN_STATUS_NOT_INITIALIZED"


def test_cudnn_not_initialized_alone_is_the_library_first() -> None:
    for text in (WEBUI_9589, "CUDNN_STATUS_NOT_INITIALIZED"):
        d = diagnose_text(text)
        top = d.causes[0]
        assert d.found_oom and top.id == "not_capacity", text
        assert top.evidence["deciding_check"] == "driver_version"
        # Memory stays ranked behind it.
        assert "genuine_shortage" in [c.id for c in d.causes[1:3]]


def test_other_bare_statuses_stay_with_the_up_front_pool() -> None:
    # The handle's allocation failing, and cuBLAS's NOT_INITIALIZED (also its out-of-resources status): a framework's
    # preallocation first, as before.
    for text in ("CUDNN_STATUS_ALLOC_FAILED", "CUBLAS_STATUS_NOT_INITIALIZED", "[Bug]: CUDNN_STATUS_INTERNAL_ERROR"):
        assert diagnose_text(text).causes[0].id == "preallocation", text


# The messages of RVC-Project/Retrieval-based-Voice-Conversion-WebUI#1106, opendatalab/MinerU#3418 and
# paTRICK-swk/D3DP#9, cut where a title or a paste is cut: inside the clause list, before the free figure.
RVC_1106 = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 4.00 GiB total "
            "capacity; 2.33 GiB already allocated; 1.89 MiB free; 2.35 GiB reserved in total by PyTorch)")
MINERU_3418 = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 42.00 MiB. GPU 0 has a total capacity of "
               "23.49 GiB of which 55.38 MiB is free. Including non-PyTorch memory, this process has 22.31 GiB memory "
               "in use.")
D3DP_9 = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 23.11 GiB (GPU 0; 23.70 GiB total "
          "capacity; 1.54 GiB already allocated; 20.83 GiB free; 1.87 GiB reserved in total by PyTorch)")


def _cut(text: str, after: str) -> str:
    return text[:text.index(after) + len(after)]


def test_message_cut_before_its_free_figure_is_read_from_what_survived() -> None:
    for text in (_cut(RVC_1106, "total capacity; 2.33 GiB already all"), _cut(RVC_1106, "4.00 GiB total capacity"),
                 _cut(MINERU_3418, "23.49 GiB of which"),
                 # cut inside the first clause, before the capacity's figure could be read
                 _cut(RVC_1106, "(GPU 0;"), _cut(RVC_1106, "4.00 GiB total ca"), _cut(MINERU_3418, "capacity of 23.4")):
        d = diagnose_text(text)
        ids = [c.id for c in d.causes]
        assert d.found_oom and ids[0] == "genuine_shortage", text
        assert "other_process" in ids[1:3] and "unparseable" not in ids
        assert d.causes[0].evidence["deciding_check"] == "other_process"
        assert "nvidia-smi" in d.causes[0].checks[0] and "cut" in d.causes[0].explanation


def test_message_cut_inside_its_request_size_still_asks_for_the_message() -> None:
    # The size itself cut ("Tried to allocate" and nothing after): nothing to read (test_truncated_request_size).
    assert diagnose_text(_cut(RVC_1106, "Tried to allocate")).causes[0].id == "unparseable"


def test_cut_message_with_a_request_of_half_the_card_is_one_oversized_allocation() -> None:
    d = diagnose_text(_cut(D3DP_9, "23.70 GiB total capacity"))
    assert d.causes[0].id == "single_allocation_exceeds_capacity"
    assert d.causes[1].id == "genuine_shortage"


def test_garbled_or_complete_messages_without_a_free_figure_keep_their_readings() -> None:
    # Clauses present but unreadable: still "not enough of the message".
    garbled = "RuntimeError: CUDA out of memory. Tried to allocate 66.00 MiB (GPU 0; ?? total capacity; ?? free)"
    assert diagnose_text(garbled).causes[0].id == "unparseable"
    # The whole message with its free figure: read from the figures, not as cut.
    assert "cut" not in diagnose_text(RVC_1106).causes[0].explanation
    # Intel's XPU allocator prints no free figure but closes its clauses: not cut.
    xpu = ("RuntimeError: XPU out of memory. Tried to allocate 1.00 GiB (GPU 0; 15.56 GiB total capacity; 990.00 MiB "
           "already allocated; 990.00 MiB reserved in total by PyTorch)")
    assert diagnose_text(xpu).causes[0].id == "not_capacity"


# The wording of applications' own pre-flight checks (f"Insufficient GPU memory. Required: {required}GB, Available:
# {available}GB", printed by Python, C++ and JavaScript sources alike), with figures filled in.
PREFLIGHT = "ERROR: Insufficient GPU memory. Required: 18.5 GB, Available: 15.2 GB"
# https://github.com/catboost/catboost/issues/1081 (CatBoost's memory pool, fresh-41)
CATBOOST_1081 = "Requested 5696 MB; Free 3958.169335 MB"


def test_need_and_have_as_a_labelled_list_is_an_oom_with_its_figures() -> None:
    d = diagnose_text(PREFLIGHT)
    assert d.found_oom and d.causes[0].id == "genuine_shortage"
    assert d.report.requested_bytes == round(18.5 * 1024**3)
    assert d.report.device is not None and d.report.device.free_bytes == round(15.2 * 1024**3)
    cat = diagnose_text(CATBOOST_1081)
    assert cat.found_oom and cat.report.requested_bytes == 5696 * 1024**2


def test_need_below_have_in_a_labelled_list_refuses_nothing() -> None:
    assert not diagnose_text("GPU memory check passed. Required: 12.5 GB, Available: 15.2 GB").found_oom
