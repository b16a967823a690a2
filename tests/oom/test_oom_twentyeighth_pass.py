"""Twenty-eighth pass (issue 28, fresh batch 31): who held the GPU before the job, CUDA's status number, and where one
request stops being the story.

* TensorFlow's forced runtime initialisation ("CUDA runtime implicit initialization on GPU:N failed. Status: out of
  memory"): the CUDA context could not be created before this process held anything, so another process holds the
  GPU. TensorFlow's device-discovery line ("totalMemory: T freeMemory: F") with the card already full says the same
  even where no other figure is pasted.
* "cuda execution failed with error 2": CUDA's status 2 is out of memory in both APIs; an extension that prints the
  number alone is recognised as an out-of-memory (no figure: the job's size first).
* A request smaller than the live tensors and under half of the GPU, refused on a card the live tensors fill: the
  working set, not one oversized tensor (a request of half the card or more stays a single allocation).
* Aphrodite's "Profiling peak memory usage..." line: vLLM's start-up profiling batch, sized by the context length.
* A bare "CUDA error: out of memory" raised by torch.cuda.empty_cache(), a call that only gives memory back: the
  driver's state (a driver update, a fault), not capacity.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words or figures."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text

# junxnone/tio#189.
TF_CONTEXT = ("tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:0 "
              "failed. Status: out of memory")
# tensorflow/tensorboard#1155.
TENSORBOARD = (
    "2018-04-26 13:45:55.960654: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1356] Found device 0 with "
    "properties: \nname: GeForce GTX 1060 6GB major: 6 minor: 1 memoryClockRate(GHz): 1.835\npciBusID: 0000:01:00.0\n"
    "totalMemory: 5.93GiB freeMemory: 7.94MiB\n2018-04-26 13:45:55.960668: I tensorflow/core/common_runtime/gpu/"
    "gpu_device.cc:1435] Adding visible gpu devices: 0\n2018-04-26 13:45:55.995201: E tensorflow/core/common_runtime/"
    "direct_session.cc:154] Internal: CUDA runtime implicit initialization on GPU:0 failed. Status: out of memory")
# ADLab-AutoDrive/BEVFusion#28.
SPCONV_STATUS_2 = (
    '  File "/data0/HR_dataset/3D_det_track/2_shan/BEVFusion/mmdet3d/ops/spconv/ops.py", line 91, in get_indice_pairs\n'
    "    return get_indice_pairs_func(indices, batch_size, out_shape,\n"
    "RuntimeError: mmdet3d/ops/spconv/src/indice_cuda.cu 124\ncuda execution failed with error 2")
# innnky/so-vits-svc#81.
SOVITS = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 11.15 GiB (GPU 0; 39.59 GiB total "
          "capacity; 31.42 GiB already allocated; 4.90 GiB free; 32.94 GiB reserved in total by PyTorch) If reserved "
          "memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for "
          "Memory Management and PYTORCH_CUDA_ALLOC_CONF")
# turandai/gaussian_surfels#19.
SURFELS = ("RuntimeError: CUDA out of memory. Tried to allocate 14.17 GiB (GPU 0; 44.38 GiB total capacity; 39.34 GiB "
           "already allocated; 1.34 GiB free; 41.92 GiB reserved in total by PyTorch) If reserved memory is >> "
           "allocated memory try setting max_split_size_mb to avoid fragmentation")
# CSAILVision/semantic-segmentation-pytorch#151: over half of the card in one request.
HALF_CARD = ("RuntimeError: CUDA out of memory. Tried to allocate 4.46 GiB (GPU 0; 7.93 GiB total capacity; 4.72 GiB "
             "already allocated; 2.41 GiB free; 11.21 MiB cached)")
# hbb1/2d-gaussian-splatting#97: larger than the whole card.
WHOLE_CARD = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 35.79 GiB (GPU 0; 23.49 GiB total "
              "capacity; 990.78 MiB already allocated; 21.66 GiB free; 1.14 GiB reserved in total by PyTorch)")
# dphnAI/sonar#1077 (the reporter's own "..." cuts).
APHRODITE_PROFILE = (
    "INFO:     Context Length = 131072\n...\nINFO:     Total model weights memory usage: 5.36 GiB\n"
    "INFO:     Profiling peak memory usage...\nProcess SpawnProcess-1:\nTraceback (most recent call last):\n...\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1024.00 MiB. GPU 0 has a total capacity of "
    "11.66 GiB...")
# deepbeepmeep/Wan2GP#1215.
EMPTY_CACHE = (
    "CUDA error: out of memory CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect. For debugging consider passing CUDA_LAUNCH_BLOCKING=1 Compile with "
    "`TORCH_USE_CUDA_DSA` to enable device-side assertions.\nTraceback (most recent call last):\n"
    '  File "A:\\Wan2GP\\Wan2GP\\wgp.py", line 5746, in generate_video\n    offloadobj.unload_all()\n'
    '  File "A:\\Wan2GP\\Wan2GP\\python_embeded\\lib\\site-packages\\mmgp\\offload.py", line 2070, in unload_all\n'
    "    torch.cuda.empty_cache()\n"
    '  File "A:\\Wan2GP\\Wan2GP\\python_embeded\\lib\\site-packages\\torch\\cuda\\memory.py", line 222, in '
    "empty_cache\n    torch._C._cuda_emptyCache()\nRuntimeError: CUDA error: out of memory")
# TheLastBen/fast-stable-diffusion#702: the same call reporting an ECC fault.
EMPTY_CACHE_ECC = (
    '  File "/usr/local/lib/python3.7/dist-packages/torch/cuda/memory.py", line 121, in empty_cache\n'
    "    torch._C._cuda_emptyCache()\nRuntimeError: CUDA error: uncorrectable ECC error encountered\n"
    "CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be "
    "incorrect.")


def test_tensorflow_context_refused_is_another_process() -> None:
    assert _top(TF_CONTEXT) == ("other_process", True, "other_process")
    cause = diagnose_text(TF_CONTEXT).causes[0]
    assert "CUDA_VISIBLE_DEVICES" in cause.fix and "nvidia-smi" in cause.fix
    assert "context" in cause.explanation


def test_device_discovery_free_memory_says_held_before_start_without_other_figures() -> None:
    assert _top(TENSORBOARD)[:2] == ("other_process", True)
    cause = diagnose_text(TENSORBOARD).causes[0]
    assert cause.evidence["free_at_start_bytes"] < 10 * 2**20
    assert "CUDA_VISIBLE_DEVICES" in cause.fix


def test_context_refusal_needs_tensorflow_s_own_line() -> None:
    # TensorFlow's initialisation refused for another status is not read by the context-refusal rule. (Since the
    # fifty-first pass the busy/unavailable status, cudaErrorDevicesUnavailable, has a reading of its own: a GPU another
    # process owns in exclusive-process mode, test_oom_fiftyfirst_pass.py.)
    busy = TF_CONTEXT.replace("out of memory", "CUDA-capable device(s) is/are busy or unavailable")
    top = diagnose_text(busy).causes[0]
    assert "could not even create its CUDA context" not in top.title
    assert diagnose_text(busy).report.signature == "devices_unavailable"
    unknown = TF_CONTEXT.replace("out of memory", "initialization error")
    assert "could not even create its CUDA context" not in diagnose_text(unknown).causes[0].title
    # TensorFlow's own allocator running out (tensorflow/tensorflow#14724, taki0112/FUNIT-Tensorflow#3) is the job's.
    for text in ("Using GPU mnist_deep.py throws OOM when allocating tensor with shape...",
                 "Allocator (GPU_0_bfc) ran out of memo"):
        assert _top(text)[0] == "genuine_shortage", text
    # Device discovery with most of the card free says nothing about another holder.
    roomy = TENSORBOARD.replace("freeMemory: 7.94MiB", "freeMemory: 5.71GiB").replace(
        "Internal: CUDA runtime implicit initialization on GPU:0 failed. Status: out of memory",
        "OOM when allocating tensor with shape[64,256,56,56]")
    assert _top(roomy)[0] != "other_process"


def test_cuda_status_2_is_recognised_as_out_of_memory() -> None:
    d = diagnose_text(SPCONV_STATUS_2)
    assert d.found_oom
    assert d.causes[0].id == "genuine_shortage"
    for other in ("cuda execution failed with error 20", "cuda execution failed with error 2.1",
                  "error 2 while reading cuda.json"):
        assert not diagnose_text(other).found_oom, other


def test_request_under_half_the_card_beside_live_tensors_is_the_working_set() -> None:
    for text in (SOVITS, SURFELS):
        top = diagnose_text(text).causes[0]
        assert top.id == "genuine_shortage", text
    for text in (HALF_CARD, WHOLE_CARD):
        assert _top(text)[0] == "single_allocation_exceeds_capacity", text


def test_aphrodite_profiling_line_is_the_profiling_batch() -> None:
    assert _top(APHRODITE_PROFILE)[:2] == ("kv_cache_budget", True)
    cause = diagnose_text(APHRODITE_PROFILE).causes[0]
    assert "--max-model-len" in cause.fix
    # The phrase outside the engine's own log line (a benchmark script's echo) is not the engine's profiling run.
    echoed = APHRODITE_PROFILE.replace("INFO:     Profiling peak memory usage...",
                                       "@echo Profiling peak memory usage (default attention)")
    assert _top(echoed)[0] != "kv_cache_budget"


def test_out_of_memory_from_a_release_call_is_the_driver_s_state() -> None:
    assert _top(EMPTY_CACHE) == ("not_capacity", True, "driver_version")
    cause = diagnose_text(EMPTY_CACHE).causes[0]
    assert "roll back" in cause.fix and "Xid" in cause.fix
    assert cause.evidence["not_capacity_kind"] == "release_call_failed"
    # The fault the same call names keeps its own reading.
    assert _top(EMPTY_CACHE_ECC) == ("not_capacity", True, "ecc")
    # empty_cache() earlier in the traceback, the error raised by a later call: not this reading.
    later = EMPTY_CACHE.replace("    torch._C._cuda_emptyCache()\n",
                                "    torch._C._cuda_emptyCache()\n  File \"x.py\", line 3, in forward\n"
                                "    y = self.conv(x)\n")
    assert diagnose_text(later).causes[0].evidence.get("not_capacity_kind") != "release_call_failed"
