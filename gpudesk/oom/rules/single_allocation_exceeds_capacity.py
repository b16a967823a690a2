"""``single_allocation_exceeds_capacity``: one request larger than the GPU, or than all it could ever free.

oom.md §3.5 rules 1-2: request > total capacity (Qwen2.5-Omni#240 124.68 GiB on 95.22, clovaai#386
26.05 on 23.70) → 0.95; request > total − allocated (SD-depth 14.48 of 14.76 with 6.23 live; TF BFC
Limit − InUse, ASR#78) → 0.85 when it is over half the GPU, else 0.7 when it is larger than the live tensors; request > 2 × total, or with no total known
more than the largest GPU of the bundled catalog (pytorch#126766: 3725 GiB), is a bogus size from a shape or config
bug. With no total known, a request of half the largest GPU or more (alphafold#185: 275 GiB for a 7,000-residue
complex) fits almost no GPU → 0.7, above a plain shortage. TensorRT's builder skipping a tactic "due to
insufficient memory on requested size of S" asked for S in one piece as that tactic's workspace (up to the build's
workspace limit): with no total known, that one request is what the GPU could not give → 0.7, and the fix is the
workspace limit (DeepStream-Yolo#366 and yolo-tensorrt#169: 4 GiB asked on 4 GB GPUs; TensorRT-LLM#102).

A memory pool that prints its own figures (CuPy's ``OutOfMemoryError``, cupy/cuda/memory.pyx): a request above
the pool's limit can never be served (0.9); a request of 1 GiB or more refused while the pool held under 5 % of
it is the request alone against the device (0.6: CuPy frees its cached blocks and retries twice before raising,
``SingleDeviceMemoryPool._try_malloc``, so nothing of the process's own was in the way; cupy#2241: 200 GB asked
with 4 KiB held).

XLA:TPU's compile-time report ("Ran out of memory in memory space hbm. Used U of T hbm", then "Largest program
allocations in hbm: 1. Size: S"): a largest buffer S above the capacity T is one allocation no schedule can fit
(0.9, above the whole program's shortage), whatever else the program needs (flowpm#27: 32.00G of 16.00G hbm, a
s32[8388608,8,4] array whose 1.00G grew 32-fold because the TPU tiles an array's two minor dimensions to multiples of
8 and 128, cloud.google.com/tpu/docs/performance-guide "Tensor dimensions padding"). When padding is most of that
buffer, the fix is the array's layout (the large dimensions last), not a smaller model.
"""

from __future__ import annotations

import functools
import re

from gpudesk.catalog import CatalogError, open_catalog
from gpudesk.oom.cause import Cause
from gpudesk.oom.named_gpu import stated_gpu_bytes
from gpudesk.oom.parsers.generic import OPENCL_BUFFER_SIZE_REFUSED
from gpudesk.oom.rules import cut_clauses
from gpudesk.oom.rules.base import Facts, clamp, evidence
from gpudesk.units import GIB as GiB, format_bytes
from gpudesk.i18n import _

TiB = 1024 * GiB


@functools.lru_cache(maxsize=1)
def largest_gpu_bytes() -> int:
    """The memory of the largest GPU in the bundled catalog (1 TiB if the catalog cannot be read)."""
    try:
        catalog = open_catalog()
        try:
            return max((gpu.memory_bytes or 0 for gpu in catalog.gpus()), default=0) or TiB
        finally:
            catalog.close()
    except CatalogError:
        return TiB


def check(f: Facts) -> Cause | None:
    if f.mps:
        return None  # Apple MPS: see mps_limit
    largest_buffer = _largest_program_buffer(f)
    if largest_buffer is not None:
        return largest_buffer
    opencl_object = _opencl_object_over_cap(f)
    if opencl_object is not None:
        return opencl_object
    req = f.requested
    if req is None:
        return _builder_workspace_refused(f)
    total = f.total
    largest = largest_gpu_bytes()
    workspace = _int(f.report.parsed.get("tactic_workspace_bytes"))
    trt_piece = (_TRT_ONE_PIECE.search(f.report.text or "") is not None
                 and _TRT_EXECUTION_CONTEXT.search(f.report.text or "") is None)
    bogus = (total is not None and req > 2 * total) or (total is None and req > largest)
    ggml_weights = f.report.parsed.get("ggml_buffer") == "model"
    pool_held, pool_limit = f.pool_held, f.pool_limit
    checks: list[str] = []
    if bogus:
        conf = 0.9 if total is not None else 0.75
        why = _("The request is far larger than any GPU: a shape, dtype or configuration bug (e.g. a wrong dimension).")
    elif pool_limit is not None and req > pool_limit:
        conf = 0.9
        why = _("One request ({requested}) is larger than the memory pool's limit ({limit}); nothing the pool "
                "frees can make it fit.").format(requested=format_bytes(req), limit=format_bytes(pool_limit))
    elif total is None and pool_held is not None and req >= GiB and pool_held * 20 <= req:
        conf = 0.6
        why = _("The memory pool held only {held} and a single request of {requested} still failed after the pool "
                "released its cache: the request alone is larger than what the device had free.").format(
                    held=format_bytes(pool_held), requested=format_bytes(req))
        checks.append(_("nvidia-smi shows the GPU's total memory and what other processes hold: a request above "
                        "the total never fits; one below it failed because others hold the rest."))
    elif total is None and workspace is not None and workspace >= req:
        conf = 0.7
        why = _("TensorRT's builder asked for {requested} in one piece as one tactic's workspace, up to the workspace "
                "limit the build set, and the GPU could not give it: the limit is larger than this GPU can "
                "hold beside the network.").format(requested=format_bytes(req))
    elif total is None and trt_piece and req >= TRT_LARGE_PIECE_BYTES:
        conf = 0.6
        why = _("TensorRT asked for {requested} in one piece (one tactic's workspace while building, or the execution "
                "context's whole activation memory) and the GPU could not give it: a piece that large is more than "
                "most GPUs hold beside the network; the workspace limit or the engine's shapes set it.").format(
                    requested=format_bytes(req))
    elif total is None and req >= largest / 2:
        conf = 0.7
        why = _("One request of {requested} is larger than almost every GPU: only the largest ({largest}) could hold "
                "it, and only nearly empty.").format(requested=format_bytes(req), largest=format_bytes(largest))
    elif total is None and (stated := stated_gpu_bytes(f.report.text or "")) is not None and req > stated:
        # The message gives no capacity, but the user states the GPU's memory in words ("Tried to allocate 7.41 GiB /
        # 但我只有6G显存", innnky/so-vits-svc#129): one request above the whole card.
        conf = 0.8
        why = _("One request of {requested} is larger than the whole GPU the text names ({gpu}); no setting can make "
                "it fit.").format(requested=format_bytes(req), gpu=format_bytes(stated))
        if ggml_weights:
            # llama.cpp allocates the weights it places on one device as one backend buffer (llama-model.cpp
            # load_tensors: ggml_backend_alloc_ctx_tensors_from_buft per buffer type; ggml-cuda.cu
            # ggml_backend_cuda_buffer_type_alloc_buffer logs "allocating N MiB on device D" before its cudaMalloc):
            # a weights buffer larger than the whole card is the layer split asking the impossible (Ollama's
            # estimate or -ngl placing more layers than the card holds, ollama#8776), not a card that others fill.
            conf = 0.85
            why = _("The weights placed on this GPU form one buffer of {requested}, larger than the whole GPU the text "
                    "names ({gpu}): the layer split put more layers on it than it can ever hold.").format(
                        requested=format_bytes(req), gpu=format_bytes(stated))
    elif total is None:
        return None
    elif req > total:
        conf = 0.95
        why = _("One request is larger than the whole GPU; no setting can make it fit.")
    elif f.allocated is None and 2 * req >= total and cut_clauses.cut_before_free(f):
        # A message cut before its other figures (rules.cut_clauses): a request of half the GPU or more cannot sit
        # beside a working set of its own size (the branch below, with the live tensors known).
        conf = 0.7
        why = _("One request of {requested} is half the GPU ({total}) or more: it cannot sit beside a working set of "
                "its own size (the message was cut before what PyTorch held).").format(
                    requested=format_bytes(req), total=format_bytes(total))
    elif f.allocated is not None and req > total - f.allocated and (req > f.allocated or 2 * req >= total):
        # A request smaller than the live tensors and under half of the GPU is the last straw of an accumulated
        # working set (the job's own need), not one oversized tensor: with fewer live tensors (a shorter clip, a
        # coarser scale, a smaller batch) it fits (innnky/so-vits-svc#81: 11.15 GiB asked of 39.59 with 31.42 live,
        # fixed by slicing the audio; turandai/gaussian_surfels#19: 14.17 of 44.38 with 39.34 live, fixed by a
        # coarser scale). A request of half the GPU or more cannot sit beside a working set of its own size.
        conf = 0.85 if req > total / 2 else 0.7
        why = _("One request is larger than everything the GPU could free while the live tensors stay.")
    else:
        return None
    r = f.report
    fix = _("Find the tensor: an attention score matrix (batch × heads × seq²) or a wrong shape; use memory-efficient attention (attn_implementation='sdpa' or 'flash_attention_2')")
    more = [
        _("Lower the resolution / sequence length or the batch for this step."),
        _("Split the computation (attention slicing, tiling, chunked loss over the vocabulary)."),
    ]
    if r.framework == "tensorflow":
        fix = _("Check the op that makes this tensor (shape {shape}): a Tile/Concat/broadcast that grew too "
                "large").format(shape=r.tensor_shape)
        more = [_("Reduce the batch or the input length."), _("Add report_tensor_allocations_upon_oom to RunOptions.")]
    if (workspace is not None or trt_piece) and not bogus:
        fix = _("Lower the builder's workspace limit below the GPU's free memory: "
                "config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, N) (setMaxWorkspaceSize before TensorRT "
                "8.4; trtexec --memPoolSize=workspace:N)")
        more = [_("A skipped tactic is a warning: the build goes on with tactics that fit, so a build that still "
                  "fails is short of memory elsewhere (the network's weights and activations).")]
    if ggml_weights and not bogus:
        ollama = r.engine == "ollama"
        knob = "num_gpu" if ollama else "-ngl / --n-gpu-layers"
        model_buf, layers = r.parsed.get("model_buffer_bytes"), r.parsed.get("offloaded_layers")
        if f.free is not None and isinstance(model_buf, int) and isinstance(layers, int) and model_buf:
            # The layers share the buffer evenly enough to scale (as gpudesk.oom.rules.engine_budget reads them).
            fits = max(0, int(layers * f.free / model_buf))
            fix = _("Offload fewer layers: {knob} {fits} (the free memory holds about {fits} of {layers})").format(
                knob=knob, fits=fits, layers=layers)
        elif ollama:
            fix = _("Offload fewer layers: lower num_gpu so the layers on this GPU fit in its memory")
        else:
            fix = _("Offload fewer layers: lower -ngl / --n-gpu-layers, or spread them with --tensor-split")
        more = [_("Use a smaller quantisation (e.g. Q4_K_M) or add GPUs so each one holds fewer layers.")]
    if bogus:
        fix = _("Print the shapes feeding this allocation; the requested size is not a plausible tensor")
    return Cause(
        id="single_allocation_exceeds_capacity",
        title=_("A single allocation larger than the GPU can hold"),
        confidence=clamp(conf),
        evidence=evidence(
            requested_bytes=req,
            total_capacity_bytes=total,
            allocated_bytes=f.allocated,
            requested_to_capacity_ratio=round(req / total, 3) if total else None,
            bogus_size=bogus or None,
            tensor_shape=r.tensor_shape,
            pool_held_bytes=pool_held,
            pool_limit_bytes=pool_limit,
            tactic_workspace_bytes=workspace,
        ),
        explanation=why,
        fix=fix,
        more_fixes=more,
        checks=checks,
    )


# TensorRT's default allocator refusing one request ("Requested amount of GPU memory (N bytes) could not be allocated.
# There may not be enough free memory for allocation to succeed.", logged by the builder and the runtime after a
# failed cudaMalloc, NVIDIA/TensorRT#2643, #4258, #2826): TensorRT allocates a tactic's workspace while building, and an
# execution context's activation memory (ICudaEngine::getDeviceMemorySize), each as one piece. With no capacity in the
# text, a piece of 8 GiB or more (half of a 16 GB card, all of an 8 GB one) is read as one allocation the GPU cannot
# hold (0.6, above a plain shortage's 0.5); a smaller one is not read so.
_TRT_ONE_PIECE = re.compile(r"requested amount of gpu memory \(\d{1,20} bytes\) could not be allocated", re.IGNORECASE)
TRT_LARGE_PIECE_BYTES = 8 * GiB
# An execution context's creation is read by gpudesk.oom.rules.engine_budget (its own fix: the built maximum shapes).
_TRT_EXECUTION_CONTEXT = re.compile(r"executioncontext|execution context", re.IGNORECASE)


# TensorRT's own allocator refusing memory with no size, while the builder times tactics: TensorRT 7's
# "rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)" (2 is cudaErrorMemoryAllocation) and 8's
# "DefaultAllocator::allocate ... Error Code 1: Cuda Runtime (out of memory)", next to the builder's own words: its
# tactic timing ("Get cuda error during getBestTactic", "during timeReformat") or the application's build step
# ("Building the TensorRT Engine", "build engine done"). While it builds, TensorRT times each candidate tactic with the
# workspace that tactic asks for, each one allocation up to the workspace limit the build set
# (IBuilderConfig::setMaxWorkspaceSize before 8.4, setMemoryPoolLimit(kWORKSPACE) after; TensorRT Developer Guide,
# "Memory" / "The Build Phase"); a limit set near or above the GPU's free memory makes those allocations fail one after
# another, where a smaller limit only skips the tactics that need more (TensorRT 8's "Skipping tactic ... insufficient
# memory ... Try decreasing the workspace size", read above with its size). NVIDIA's answer to the same TensorRT 7
# line (NVIDIA/TensorRT#948) and the maintainer's in linghu8812/tensorrt_inference#155 was the workspace limit. Read as
# that one oversized piece (0.55), above the build's plain shortage (0.45) that genuine_shortage gives TensorRT; the
# execution context's own memory (engine_budget) and a refusal with its size are read elsewhere.
_TRT_ALLOCATOR_REFUSED = re.compile(
    r"cuda error in [\w:]{0,60}allocate(?:async)?:\s{0,2}2\s{0,2}\(out of memory\)"
    r"|defaultallocator\S{0,40}allocate\S{0,20}\s{0,3}error code 1:\s{0,2}cuda runtime \(out of memory\)",
    re.IGNORECASE)
_TRT_BUILDER_WORDS = re.compile(
    r"\bgetbesttactic\b|\btimereformat\b|\bbuild(?:ing)?\s{1,3}(?:the\s{1,3})?(?:tensorrt\s{1,3}|trt\s{1,3})?engine\b"
    r"|\bbuild(?:engine(?:withconfig)?|cudaengine|serializednetwork)\b",
    re.IGNORECASE)


def _builder_workspace_refused(f: Facts) -> Cause | None:
    """TensorRT's allocator refused a tactic's workspace while the builder ran (``_TRT_ALLOCATOR_REFUSED`` beside
    ``_TRT_BUILDER_WORDS``); None otherwise."""
    text = f.report.text or ""
    if (f.total is not None or _TRT_ALLOCATOR_REFUSED.search(text) is None
            or _TRT_BUILDER_WORDS.search(text) is None or _TRT_EXECUTION_CONTEXT.search(text) is not None):
        return None
    return Cause(
        id="single_allocation_exceeds_capacity",
        title=_("TensorRT's builder workspace is larger than the GPU can give"),
        confidence=0.55,
        evidence=evidence(requested_bytes=None, error_kind=f.report.kind),
        explanation=_("TensorRT's allocator refused memory while the builder was timing tactics: each tactic is timed "
                      "with the workspace it asks for, up to the workspace limit the build set, in one piece; a limit "
                      "near or above the GPU's free memory makes those allocations fail."),
        fix=_("Lower the builder's workspace limit below the GPU's free memory: "
              "config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, N) (setMaxWorkspaceSize before TensorRT "
              "8.4; trtexec --memPoolSize=workspace:N)"),
        more_fixes=[_("If a small workspace still fails, the network's weights and activations do not fit: build for "
                      "smaller maximum shapes or batch, or in FP16/INT8.")],
        checks=[_("nvidia-smi before the build: the free memory against the workspace limit the build sets (the "
                  "builder's verbose log prints it).")],
    )


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# Padding this share of a buffer or more makes the layout, not the data, the reason it is large.
PADDING_SHARE = 0.5


def _largest_program_buffer(f: Facts) -> Cause | None:
    """XLA:TPU's largest program buffer above the device's capacity (module docstring); None otherwise."""
    largest = _int(f.report.parsed.get("largest_allocation_bytes"))
    total = f.total
    if largest is None or total is None or largest <= total:
        return None
    padding = _int(f.report.parsed.get("largest_allocation_padding_bytes"))
    padded = padding is not None and padding >= PADDING_SHARE * largest
    if padded:
        assert padding is not None
        why = _("The program's largest buffer alone is {largest}, more than the device's {total}; {padding} of it is "
                "padding: the TPU lays arrays out in tiles that round the two minor dimensions up to multiples of 8 "
                "and 128, so an array whose last dimensions are small grows many times over.").format(
                    largest=format_bytes(largest), total=format_bytes(total), padding=format_bytes(padding))
        fix = _("Reshape or transpose the array so that its large dimensions are the last two (or merge the small "
                "minor dimensions into one of 128 or more); the padding then goes away")
    else:
        why = _("The program's largest buffer alone is {largest}, more than the device's {total}: no schedule or "
                "rematerialisation can fit one buffer larger than the memory.").format(
                    largest=format_bytes(largest), total=format_bytes(total))
        fix = _("Shard that array across devices (jax.sharding / pjit, or a mesh layout) or split the computation that "
                "makes it into smaller pieces")
    return Cause(
        id="single_allocation_exceeds_capacity",
        title=_("A single allocation larger than the GPU can hold"),
        confidence=0.9,
        evidence=evidence(largest_allocation_bytes=largest, total_capacity_bytes=total,
                          largest_allocation_padding_bytes=padding,
                          requested_to_capacity_ratio=round(largest / total, 3)),
        explanation=why,
        fix=fix,
        more_fixes=[_("Find the operator that makes it: the report names it under the largest allocation "
                      "(Operator, Shape).")],
    )


def _opencl_object_over_cap(f: Facts) -> Cause | None:
    """OpenCL's clCreateBuffer refusing one memory object as CL_INVALID_BUFFER_SIZE (sixty-third pass): the size is
    above CL_DEVICE_MAX_MEM_ALLOC_SIZE, which the OpenCL specification sets to at least a quarter of the device's global
    memory (gpudesk.oom.parsers.generic.OPENCL_BUFFER_SIZE_REFUSED). The runtime checks the size before it allocates
    anything, so nothing else on the device was in the way: the one object is larger than the device will ever give
    one object, and no memory freed makes it fit. Where the text gives the device's global memory and the object fits
    it, the cap alone refused it (signatures ``buffer_limit``, read there); otherwise, with the request above the
    global memory or the global memory not given, it is read as one allocation larger than the device (0.75; 0.6
    without the size). xmrig/xmrig#2263: a 2986344448-byte buffer (an algorithm's DAG) on a 1 GB card."""
    text = f.report.text or ""
    if OPENCL_BUFFER_SIZE_REFUSED.search(text) is None:
        return None
    req, total = f.requested, f.total
    if req is not None and total is not None and req <= total:
        return None
    if req is not None:
        why = _("OpenCL refused one memory object of {requested} as CL_INVALID_BUFFER_SIZE: it is larger than the "
                "largest object the device allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE, at least a quarter of its memory). "
                "The size is checked before anything is allocated, so no memory freed makes it fit.").format(
                    requested=format_bytes(req))
    else:
        why = _("OpenCL refused one memory object as CL_INVALID_BUFFER_SIZE: it is larger than the largest object the "
                "device allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE, at least a quarter of its memory). The size is checked "
                "before anything is allocated, so no memory freed makes it fit.")
    return Cause(
        id="single_allocation_exceeds_capacity",
        title=_("A single allocation larger than the GPU can hold"),
        confidence=0.75 if req is not None else 0.6,
        evidence=evidence(requested_bytes=req, total_capacity_bytes=total, error_kind="CL_INVALID_BUFFER_SIZE"),
        explanation=why,
        fix=_("Make the object smaller (a smaller batch, work size, intensity or threads), or use a device whose "
              "memory holds it"),
        more_fixes=[_("If the object is smaller than the device's memory, the per-object limit alone refused it: some "
                      "drivers raise it (AMD: GPU_MAX_ALLOC_PERCENT=100 in the environment)."),
                    _("A size the program computed from its settings (a dataset, a table or a scratchpad per thread) "
                      "grows with them: lower the setting that multiplies it.")],
        checks=[_("clinfo | grep -i -E 'max memory allocation|global memory size': the request above the first is "
                  "refused whatever is free; above the second, no device setting makes it fit.")],
    )
