"""``genuine_shortage``: the job needs more memory than the GPU has left for it (oom.md §3.5 rule 5).

The margin (free + unallocated cache − request) says whether the request could fit even with a perfectly
packed cache: below zero it cannot (0.85); within 3 % of the capacity it fits only on paper (0.75; the next
step OOMs anyway, colabtools#3439, VGen#104, AP-PA#3); within 8 % (0.6); else unlikely (0.35); 0.45 when the request alone exceeds total − allocated (the
single-allocation rule explains it better). The amount
missing is ``shortfall_bytes`` (only when the request cannot fit); when it fits, ``fit_margin_bytes`` says
what is left and the title says the job needs nearly all of the GPU rather than calling it a shortage. With
the request missing or redacted, a GPU whose free + cached memory is under 8 % of its capacity still reads as
full (see ``_without_request``). For TensorFlow op-level OOMs without a Stats block (models#5527) it is the
default reading (0.55). Fixes come from the sizing code where a workload is known (see diagnose()).
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules import cut_clauses, engine_budget, fragmentation, tf_pool
from gpudesk.units import format_bytes
from gpudesk.oom.rules.base import Facts, clamp, evidence, join_sentences
from gpudesk.oom.signatures import CHECKS as SIGNATURE_CHECKS, check_command, check_line
from gpudesk import i18n
from gpudesk.i18n import N_, _

FIX = N_("Reduce the per-step memory: halve the micro-batch (use gradient accumulation to keep the effective batch)")
# The training fixes named in PyTorch's terms, by mechanism (gpudesk.oom.framework_fixes words them for other frameworks).
RECOMPUTE_FIX = N_("Enable activation checkpointing (model.gradient_checkpointing_enable() / torch.utils.checkpoint).")
PRECISION_FIX = N_("Train in bf16 mixed precision (torch.autocast) and keep fp32 master weights only in the optimizer.")
SHARDING_FIX = N_("Shard optimizer state, gradients and weights across GPUs (FSDP / DeepSpeed ZeRO-2/3).")
MORE = [
    RECOMPUTE_FIX,
    PRECISION_FIX,
    SHARDING_FIX,
    N_("For fine-tuning, use LoRA/QLoRA; for inference, use a smaller sequence length or batch."),
    N_("Use a GPU with more memory."),
]
# The job's peak with PyTorch < 1.10's stranded cache (above that allocator's "possible fragmentation", 0.5).
OLD_ALLOCATOR_PEAK_CONFIDENCE = 0.6
# Live tensors that fill the GPU beside a small cache (``live_tensors_fill``): at least this share of the capacity is
# allocated, and the cache is under fragmentation's own threshold (frag_ratio 0.15, gpudesk.oom.rules.fragmentation).
LIVE_FILL_SHARE = 0.8
LIVE_FILL_MAX_FRAG_RATIO = 0.15
# Above fragmentation's reading of a small cache that merely covers the request (0.3 + ratio, at most 0.45).
LIVE_FILL_CONFIDENCE = 0.5


def live_tensors_fill(f: Facts) -> bool:
    """The live tensors hold at least four fifths of the GPU and the cache is under 15 % of the reserved memory.

    PyTorch's caching allocator returns its whole cached segments to the driver and retries before it raises
    (``release_cached_blocks`` in ``malloc``, c10/cuda/CUDACachingAllocator.cpp), so the "reserved but unallocated"
    figure of its message is memory inside segments that live tensors still occupy. When those tensors alone hold
    80 % or more of the capacity, packing that cache perfectly (expandable_segments) would give the job at most what is
    left of the card, and the next step's growth needs more: the job's own working set is what fills the GPU
    (city-super/Octree-GS#58: 20.71 of 23.70 GiB allocated, 1.92 GiB cached, an 18 MiB request, fixed by keeping the
    images on the CPU and downsampling; RVC-Project/Retrieval-based-Voice-Conversion-WebUI#934: 13.60 of 16 GiB, fixed
    by a smaller batch). Fragmentation's own cases hold far less live memory beside a larger cache (SadTalker#229: 41 %
    live, 49 % of reserved cached; Vad-R1#11: 72 %, 20 %). Read only from PyTorch's own message (report kind
    ``pytorch_oom``, CUDA, ROCm and the NPU/XPU ports of the same allocator), whose figures these are."""
    return (f.report.kind == "pytorch_oom" and f.allocated is not None and f.total is not None and f.total > 0
            and f.frag_ratio is not None
            and f.allocated >= LIVE_FILL_SHARE * f.total and f.frag_ratio < LIVE_FILL_MAX_FRAG_RATIO)
CHECKS = [
    N_("Evaluation inside torch.no_grad()/torch.inference_mode() and model.eval(): without them activations are kept."),
    N_("AMP misuse: a model cast with .half() under autocast keeps cast copies; fp32 weights without autocast double activations."),
    N_("Tensors kept across steps (loss history without .item(), outputs stored with their graph)."),
]


# A device of 1 GiB or less: no discrete GPU sold for ML work in the last ten years is that small (the smallest MIG
# slice, 1g.5gb, has 5 GB; NVIDIA's MIG User Guide), so such a total is an integrated GPU's carve-out (AMD APUs give the
# iGPU 512 MiB of system RAM by default, the BIOS "UMA frame buffer size"; ROCm/legacy-rocm-build#2014,
# YanWenKun/ComfyUI-Docker#54) or a display card.
SMALL_DEVICE_BYTES = 1024**3


def _small_device(f: Facts) -> Cause:
    """The whole device holds 1 GiB or less (``SMALL_DEVICE_BYTES``): the job does not fit it, whatever the free and
    cached figures say at the moment of the refusal (an iGPU's free figure is often garbage: 17179869183.96 GiB in
    ComfyUI-Docker#54). 0.94: above a refusal read from free memory (not_capacity, 0.92) and a fragmented cache (at
    most 0.85), whose fixes cannot make a 512 MiB device hold a model."""
    assert f.total is not None
    return Cause(
        id="genuine_shortage",
        title=_("The device is too small for this job"),
        confidence=0.94,
        evidence=evidence(requested_bytes=f.requested, total_capacity_bytes=f.total, free_bytes=f.free,
                          allocated_bytes=f.allocated),
        explanation=_("The device has {total} in all: that is an integrated GPU's share of system memory (an AMD "
                      "APU's default carve-out is 512 MiB) or a display card, too small for a model's weights and "
                      "activations, so the refusal is the device's size, not a setting.").format(
                          total=format_bytes(f.total)),
        fix=_("On an integrated GPU raise its memory in the BIOS/UEFI (UMA frame buffer size, e.g. 4 GB or more), then "
              "reboot; otherwise run on a GPU with more memory or on the CPU"),
        more_fixes=[i18n._(MORE[3])],
    )


# Memory that grows with each turn of a chat: the demos feed the whole dialogue history back as the prompt
# (ChatGLM-6B's model.chat(tokenizer, query, history=history), https://github.com/zai-org/ChatGLM-6B cli_demo.py /
# web_demo.py), so every turn's input is longer and its activations and KV cache larger; nothing leaks, the input
# outgrows the GPU (zai-org/ChatGLM-6B#64 and #71: 每次对话显存占用都会增加 "memory grows with every dialogue",
# 随着不断交互，显存逐步增加直至OOM "with continued exchanges the memory grows until OOM").
_DIALOGUE_GROWTH = re.compile(
    r"(?:每次|每轮|每一轮|随着(?:不断)?|多轮)(?:的)?(?:对话|交互|聊天|问答)[^。；;\n]{0,30}?(?:增加|增长|上涨|上升|变大|升高)"
    r"|\b(?:each|every|with (?:each|every)) (?:chat |dialog(?:ue)? |conversation )?(?:turn|exchange|round)s?\b[^.\n]{0,40}?"
    r"\b(?:memory|vram)\b[^.\n]{0,20}?\b(?:grows?|increases?|rises?|goes up)\b"
    r"|\b(?:memory|vram)\b[^.\n]{0,30}?\b(?:grows?|increases?|rises?|goes up)\b[^.\n]{0,30}?\b(?:with|after) (?:each|every) "
    r"(?:chat |dialog(?:ue)? |conversation )?(?:turn|exchange|round)\b",
    re.IGNORECASE)

_DIALOGUE_NOUNS = ("对话", "交互", "聊天", "问答", "turn", "exchange", "round")


def _dialogue_growth(f: Facts) -> Cause | None:
    text = f.report.text or ""
    low = text.lower()
    if not any(w in low for w in _DIALOGUE_NOUNS):
        return None  # the words the pattern needs, checked first: a long log is read once, cheaply
    m = _DIALOGUE_GROWTH.search(text)
    if m is None:
        return None
    return Cause(
        id="genuine_shortage",
        title=_("The dialogue history makes every prompt longer"),
        confidence=0.7,
        evidence=evidence(described_as=m.group(0)),
        explanation=_("The memory grows with each turn of the conversation ('{words}'): a chat that sends the whole "
                      "history back as the prompt makes every input longer, and its activations and KV cache grow "
                      "with it until the GPU cannot hold one turn.").format(words=m.group(0)),
        fix=_("Keep the history short: pass only the last turns (or history=[] for a new topic), or cap the "
              "prompt length"),
        more_fixes=[_("Quantise the model (4-bit or 8-bit) to leave more room for long conversations.")],
    )


def _tpu_own_hbm(f: Facts) -> Cause:
    """A TPU's HBM refusing a device buffer, with no capacity in the text. libtpu gives a TPU chip to one process only:
    a second one is refused at start ("The TPU is already in use by another process probably owned by another user.
    Run \"$ sudo lsof -w /dev/accel0\" to figure out which process is using the TPU.", JAX's TPU backend; the lock file
    /tmp/libtpu_lockfile), so whatever fills the HBM is this job's own working set (googlecolab/colabtools#5126: a 7B
    model's training on a v2-8 core, 129.5 MB refused with 78 MB left). 0.55: above another process named beside a
    free figure (0.45, gpudesk.oom.rules.other_process), which a TPU rules out."""
    return Cause(id="genuine_shortage", title=_("Not enough TPU memory (HBM) for this computation"), confidence=0.55,
                 evidence=evidence(requested_bytes=f.requested),
                 explanation=_("A TPU chip is used by one process at a time, so the memory that is not free is this "
                               "job's own: its model, optimizer state and activations do not fit the core's HBM."),
                 fix=_("Reduce the per-core batch or sequence length, shard the model over more cores (FSDP / "
                       "jax.sharding), rematerialise with jax.checkpoint, or use a smaller model"),
                 more_fixes=[i18n._(m) for m in MORE[2:]])


TPU_COMPILE_REPORT_CONFIDENCE = 0.6


def _tpu_compile_report(f: Facts) -> Cause | None:
    """XLA:TPU's compile-time HBM report (gpudesk.oom.parsers.generic ``_TPU_HBM_USAGE``): "Total hbm usage >= T"
    with its parts, reserved R, program P (the step's temporaries) and arguments A (parameters and state kept across
    steps). The compiler prints it only when the program it placed does not fit the core's HBM, and a TPU chip serves
    one process at a time (:func:`_tpu_own_hbm`), so T is this job's need: a genuine shortage (pytorch/xla#3041:
    7.04G of arguments and 1.68G of program on an 8 GiB core; erfanzar/EasyDeL#95: 8.98G of temporaries on a v2 core).
    The larger part names the fix: arguments call for sharding the state, the program for a smaller step. 0.6: the
    compiler's own accounting, above the 0.55 of a TPU refusal read from a request alone. None for another memory
    space (vmem, smem: a kernel's scratchpad, set by its block sizes, not by the model)."""
    parsed = f.report.parsed
    usage = parsed.get("tpu_hbm_usage_bytes")
    if not isinstance(usage, int) or parsed.get("tpu_memory_space", "hbm") != "hbm":
        return None
    program, arguments = parsed.get("tpu_hbm_program_bytes"), parsed.get("tpu_hbm_arguments_bytes")
    parts = {k: v for k, v in (("program", program), ("arguments", arguments)) if isinstance(v, int)}
    state_heavy = bool(parts) and parts.get("arguments", 0) > parts.get("program", 0)
    shard = _("Shard the parameters and optimizer state over more TPU cores (FSDP / jax.sharding), keep them in bf16, "
              "or use a TPU with more HBM per core")
    smaller_step = _("Reduce the per-core batch or sequence length, rematerialise with jax.checkpoint (gradient "
                     "checkpointing), or use a TPU with more HBM per core")
    fix, other = (shard, smaller_step) if state_heavy else (smaller_step, shard)
    return Cause(
        id="genuine_shortage", title=_("Not enough TPU memory (HBM) for this computation"),
        confidence=TPU_COMPILE_REPORT_CONFIDENCE,
        evidence=evidence(tpu_hbm_usage_bytes=usage, tpu_hbm_program_bytes=program,
                          tpu_hbm_arguments_bytes=arguments),
        explanation=_("The TPU compiler's report: the step needs at least {usage} of HBM ({program} of program "
                      "temporaries, {arguments} of arguments: parameters and state), more than the core has. A TPU "
                      "chip serves one process at a time, so all of it is this job's.").format(
            usage=format_bytes(usage),
            program=format_bytes(program) if isinstance(program, int) else _("unknown"),
            arguments=format_bytes(arguments) if isinstance(arguments, int) else _("unknown")),
        fix=fix,
        more_fixes=[other],
    )


def check(f: Facts) -> Cause | None:
    if f.mps:
        return None  # Apple MPS: see mps_limit
    tpu_report = _tpu_compile_report(f)
    if tpu_report is not None:
        return tpu_report
    dialogue = _dialogue_growth(f)
    if dialogue is not None:
        return dialogue
    if engine_budget.names_sampler_warmup(f):
        return None  # vLLM's sampler warm-up: engine_budget reads it with the engine's knobs
    if engine_budget.names_quantized_model_off_gpu(f):
        return None  # bitsandbytes' refusal of modules off the GPU: engine_budget reads it
    r = f.report
    if tf_pool.tf_pool_growth_refused(f):
        return Cause(
            id="genuine_shortage",
            title=_("TensorFlow's pool cannot grow further for this batch"),
            confidence=0.65,
            evidence=evidence(requested_bytes=f.requested),
            explanation=_("TensorFlow asked the driver for the same next region of its memory pool ({size}) again and "
                          "again: the pool had already taken what it could, and the job's tensors needed more. The "
                          "batch's working set does not fit this GPU.").format(size=format_bytes(f.requested)
                                                                              if f.requested else _("memory")),
            fix=_("Reduce the batch size or the input size, or use a smaller model"),
            more_fixes=[_("Use mixed precision (tf.keras.mixed_precision.set_global_policy('mixed_float16')).")],
        )
    if r.kind in ("tf_resource_exhausted",) and f.total is None:
        return Cause(
            id="genuine_shortage",
            title=_("Not enough GPU memory for this batch"),
            confidence=0.55,
            evidence=evidence(requested_bytes=f.requested, tensor_shape=r.tensor_shape, dtype=r.dtype,
                              device_index=r.device_index),
            explanation=_("TensorFlow's GPU allocator ran out while allocating an activation tensor; its size "
                        "scales with the batch (first dimension of the shape)."),
            fix=_("Reduce the batch size (per replica with multi_gpu_model / MirroredStrategy) or the input size"),
            more_fixes=[_("Use mixed precision (tf.keras.mixed_precision.set_global_policy('mixed_float16'))."),
                        _("Add report_tensor_allocations_upon_oom to RunOptions to list the live tensors.")],
            checks=[i18n._(CHECKS[0])],
        )
    if r.kind == "xla_resource_exhausted" and f.total is None:
        if r.platform == "tpu" and f.requested is not None:
            if r.parsed.get("tpu_memory_space", "hbm") != "hbm":
                return None  # a kernel's vmem / smem scratchpad (signature ``shared_memory``), not the HBM
            return _tpu_own_hbm(f)
        if f.requested is not None and f.requested >= 1024**3:
            return Cause(id="genuine_shortage", title=_("Not enough GPU memory for this computation"), confidence=0.5,
                         evidence=evidence(requested_bytes=f.requested),
                         explanation=_("XLA could not place a buffer of more than 1 GiB."),
                         fix=_("Reduce the batch or sequence length, or rematerialise with jax.checkpoint"),
                         more_fixes=[i18n._(m) for m in MORE[2:]])
        return None
    if f.total is None or capacity_alone(f):
        return _without_capacity(f)
    if f.total <= SMALL_DEVICE_BYTES:
        return _small_device(f)
    if cut_clauses.cut_before_free(f):
        return _cut_before_free(f)
    if f.margin is None:
        return _without_request(f)
    share = f.margin / f.total
    if f.margin < 0:
        conf = 0.85
    elif share < 0.03:
        conf = 0.75
    elif share < 0.08:
        conf = 0.6
    elif live_tensors_fill(f):
        conf = LIVE_FILL_CONFIDENCE
    else:
        conf = 0.35
    if (f.requested is not None and f.allocated is not None and f.requested > f.total - f.allocated
            and (f.requested > f.allocated or 4 * f.requested >= f.total)):
        # One request larger than all the GPU could free: single_allocation_exceeds_capacity leads. (A request
        # smaller than the live tensors and under a quarter of the GPU is the last straw of the job's own working set,
        # which that rule leaves to this one: TensorFlow's Stats block gives free = Limit − InUse, so every refused
        # request there is "larger than the GPU could free".)
        conf = 0.45
    assert f.headroom is not None, "a known margin means a known free figure, hence a known headroom"
    shortfall = max(0, -f.margin)
    own = f.dev.process_used_bytes if f.dev else None
    if f.margin < 0:
        title = _("Not enough GPU memory for this job")
        if f.headroom < 0.1 * f.total:
            explanation = _("The request needs {shortfall} more than the free plus cached memory ({headroom}): the "
                            "job's live tensors fill the GPU.")
        else:
            explanation = _("The request needs {shortfall} more than the free plus cached memory ({headroom}): the "
                            "request itself is too large for what the GPU has left.")
        explanation = explanation.format(shortfall=format_bytes(shortfall), headroom=format_bytes(f.headroom))
    elif share < 0.08:
        title = _("The job needs nearly all of the GPU's memory")
        explanation = _("The request fits only on paper: even a perfectly packed cache leaves {margin} ({share:.1%} "
                        "of the GPU) after it. The job's live tensors fill the GPU, so this or the next allocation "
                        "fails.").format(margin=format_bytes(f.margin), share=share)
    elif fragmentation.stranded_in_old_allocator(f):
        # PyTorch < 1.10: the cached remainder is part of the job's own peak (fragmentation.stranded_in_old_allocator).
        conf = max(conf, OLD_ALLOCATOR_PEAK_CONFIDENCE)
        title = _("The job's peak does not fit this GPU")
        explanation = _("The live tensors hold {allocated}; the {cached} left cached sits inside their own blocks, "
                        "which this PyTorch (before 1.10) splits for every request and cannot release or tune. That "
                        "remainder is part of the job's peak, so the request of {requested} found no room: lowering "
                        "the peak (batch, input size) is what frees it.").format(
                            allocated=format_bytes(f.allocated or 0), cached=format_bytes(f.unallocated or 0),
                            requested=format_bytes(f.requested or 0))
    elif live_tensors_fill(f):
        title = _("The job's live tensors fill the GPU")
        explanation = _("The live tensors hold {allocated} of {total} ({share:.0%}); the {cached} cached beside them "
                        "sits in segments those tensors still occupy, since PyTorch returns whole free segments to "
                        "the driver before it raises. Even packed perfectly, that cache would leave the job at the "
                        "edge of the card: the working set itself is what to lower.").format(
                            allocated=format_bytes(f.allocated or 0), total=format_bytes(f.total),
                            share=(f.allocated or 0) / f.total, cached=format_bytes(f.unallocated or 0))
    else:
        title = _("GPU memory is tight, though this request would fit")
        explanation = _("{margin} ({share:.0%} of the GPU) would be left after this request, so a plain shortage is "
                        "unlikely unless the job's memory keeps growing after it.").format(
                            margin=format_bytes(f.margin), share=share)
    return Cause(
        id="genuine_shortage",
        title=title,
        confidence=clamp(conf),
        evidence=evidence(
            requested_bytes=f.requested,
            total_capacity_bytes=f.total,
            free_bytes=f.free,
            allocated_bytes=f.allocated,
            reserved_unallocated_bytes=f.unallocated,
            this_process_bytes=own,
            shortfall_bytes=shortfall if f.margin < 0 else None,
            fit_margin_bytes=f.margin if f.margin >= 0 else None,
            fit_margin_ratio=round(share, 4) if f.margin >= 0 else None,
        ),
        explanation=explanation,
        fix=i18n._(FIX),
        more_fixes=[i18n._(m) for m in MORE],
        checks=[i18n._(c) for c in CHECKS],
    )


def _without_request(f: Facts) -> Cause | None:
    """The requested size is missing, redacted ("Tried to allocate X") or garbled: use the other clauses.

    Free + reserved-unallocated below 3 % of the capacity is a full GPU whatever the request was (0.65;
    shllln/GenerativeGraph#5: 576 KiB free and 31 MiB cached of 11.17 GiB); below 8 % (0.5). Above that
    the missing request decides, so no cause.
    """
    if f.headroom is None and f.total is not None and f.allocated is not None:
        return _live_tensors_fill(f, f.total, f.allocated)
    if f.headroom is None or f.total is None:
        return None
    share = f.headroom / f.total
    if share >= 0.08:
        return None
    used = f.allocated if f.allocated is not None else f.reserved
    return Cause(
        id="genuine_shortage",
        title=_("The job needs nearly all of the GPU's memory"),
        confidence=0.65 if share < 0.03 else 0.5,
        evidence=evidence(
            total_capacity_bytes=f.total,
            free_bytes=f.free,
            allocated_bytes=f.allocated,
            reserved_unallocated_bytes=f.unallocated,
            this_process_bytes=f.dev.process_used_bytes if f.dev else None,
            headroom_bytes=f.headroom,
            headroom_ratio=round(share, 4),
        ),
        explanation=(
            _("The requested size is not in the message, but only {headroom} ({share:.1%} of the GPU) is free or "
              "cached while PyTorch holds {used} in tensors: the GPU is full, so almost any further allocation "
              "fails.").format(headroom=format_bytes(f.headroom), share=share, used=format_bytes(used))
            if used is not None else
            _("The requested size is not in the message, but only {headroom} ({share:.1%} of the GPU) is free or "
              "cached: the GPU is full, so almost any further allocation fails.").format(
                  headroom=format_bytes(f.headroom), share=share)),
        fix=i18n._(FIX),
        more_fixes=[i18n._(m) for m in MORE],
        checks=[i18n._(c) for c in CHECKS],
    )


def _live_tensors_fill(f: Facts, total: int, allocated: int) -> Cause | None:
    """The free figure is missing (a message cut after "already allocated", or a backend that prints none) but the
    live tensors alone fill the device: free + cached memory is at most total - allocated, so when that bound is
    under 3 % of the capacity the GPU is full whatever the missing figures were (0.6; vllm-omni#1199: 59.36 of
    60.96 GiB allocated on an Ascend NPU, message cut there)."""
    bound = total - allocated
    if f.requested is not None and bound >= 0:
        return _request_against_bound(f, total, allocated, bound) or _held_most_without_free(f, total)
    if bound < 0 or bound / total >= 0.03:
        return None
    share = bound / total
    return Cause(
        id="genuine_shortage",
        title=_("The job needs nearly all of the GPU's memory"),
        confidence=0.6,
        evidence=evidence(total_capacity_bytes=total, allocated_bytes=allocated, requested_bytes=f.requested,
                          headroom_upper_bound_bytes=bound, headroom_ratio=round(share, 4)),
        explanation=_("The message gives no free figure, but PyTorch's live tensors hold {used} of {total}: at most "
                      "{bound} ({share:.1%} of the GPU) can be free or cached, so the GPU is full.").format(
                          used=format_bytes(allocated), total=format_bytes(total), bound=format_bytes(bound),
                          share=share),
        fix=i18n._(FIX),
        more_fixes=[i18n._(m) for m in MORE],
        checks=[i18n._(c) for c in CHECKS],
    )


def _request_against_bound(f: Facts, total: int, allocated: int, bound: int) -> Cause | None:
    """No free figure, but the request and the live tensors are known (Intel's XPU allocator prints no free figure:
    "Tried to allocate 1.00 GiB (GPU 0; 15.56 GiB total capacity; 990.00 MiB already allocated; ..."): free + cached
    memory is at most ``total - allocated``, so what would be left after the request is at most that bound minus the
    request. Less than nothing → 0.7; under 3 % of the device → 0.6, under 8 % → 0.5 (the thresholds of a known
    margin, one step lower because the bound is an upper one); more leaves the reading to the other rules."""
    assert f.requested is not None
    left = bound - f.requested
    share = left / total
    if left < 0:
        conf = 0.7
    elif share < 0.03:
        conf = 0.6
    elif share < 0.08:
        conf = 0.5
    else:
        return None
    return Cause(
        id="genuine_shortage",
        title=_("The job needs nearly all of the GPU's memory"),
        confidence=conf,
        evidence=evidence(total_capacity_bytes=total, allocated_bytes=allocated, requested_bytes=f.requested,
                          headroom_upper_bound_bytes=bound, headroom_ratio=round(max(0.0, share), 4)),
        explanation=_("The message gives no free figure, but PyTorch's live tensors hold {used} of {total}: at most "
                      "{bound} can be free or cached, and the request of {requested} leaves at most {left} of it "
                      "(the job's tensors fill the GPU).").format(
                          used=format_bytes(allocated), total=format_bytes(total), bound=format_bytes(bound),
                          requested=format_bytes(f.requested), left=format_bytes(max(0, left))),
        fix=i18n._(FIX),
        more_fixes=[i18n._(m) for m in MORE],
        checks=[i18n._(c) for c in CHECKS],
    )


# What Intel's XPU allocator reserves, as a share of the device, from which its complete message without a free figure
# is read as the job's own memory filling the device (_held_most_without_free); under a quarter is
# not_capacity._free_unknown_but_unheld's reading (a limit or another holder), between the two nothing is read.
HELD_MOST_SHARE = 0.5


def _held_most_without_free(f: Facts, total: int) -> Cause | None:
    """A complete message with no free figure whose allocator holds most of the device, the request well inside what
    is left of it on paper (issue 28, sixty-first pass; intel/ipex-llm#12080: 130 MiB refused, 11.23 of 15.11 GiB
    reserved, 11.09 allocated).

    Intel's XPU allocator prints no free figure ("XPU out of memory. Tried to allocate A (GPU N; T total capacity; X
    already allocated; R reserved in total by PyTorch)": intel/intel-extension-for-pytorch,
    csrc/gpu/runtime/CachingDeviceAllocator.cpp at acc1d0732a8e27f19564a07ef67c7a8aa79598a1, release/xpu/2.1.40,
    CachingDeviceAllocator::malloc). It raises only when its cache had no block for the request and
    ``malloc_with_retry`` failed twice to get a new segment from the device, the second time after
    ``free_cached_blocks``: so the T − R this allocator did not hold was not free for a segment of the request. It was
    held outside this allocator, by the same process (the runtime, oneDNN/oneMKL scratch, native kernels that allocate
    on their own) or by another process. With the allocator holding half the device or more, the job's own memory
    filling it is the likelier reading (0.45, the figure of a message cut before its free figure,
    :func:`_cut_before_free`); another process is the other, and the device's process list tells them apart (the
    check named first). A message cut inside its clauses is :func:`gpudesk.oom.rules.cut_clauses.cut_before_free`'s."""
    r = f.report
    reserved = f.reserved
    if (r.kind != "pytorch_oom" or f.requested is None or f.free is not None or reserved is None
            or r.signature is not None or not HELD_MOST_SHARE * total <= reserved <= total):
        return None
    deciding = "other_process"
    command = check_command(deciding, r.platform)
    return Cause(
        id="genuine_shortage",
        title=_("Not enough GPU memory for this job"),
        confidence=0.45,
        evidence=evidence(requested_bytes=f.requested, total_capacity_bytes=total, allocated_bytes=f.allocated,
                          reserved_bytes=reserved, headroom_upper_bound_bytes=total - reserved,
                          deciding_check=deciding, check_command=command),
        explanation=_("The allocator holds {reserved} of {total} and could not get {requested} more from the device, "
                      "even after releasing its cache; the message gives no free figure, so the other {rest} was held "
                      "outside this allocator: by this job's own runtime and libraries (the likelier reading) or by "
                      "another process.").format(reserved=format_bytes(reserved), total=format_bytes(total),
                                                 requested=format_bytes(f.requested),
                                                 rest=format_bytes(total - reserved)),
        fix=i18n._(FIX),
        more_fixes=[i18n._(m) for m in MORE],
        checks=[check_line(command=command, meaning=i18n._(SIGNATURE_CHECKS[deciding].meaning)),
                *[i18n._(c) for c in CHECKS]],
    )


# Shapes that name a failed allocation without the capacity: the runtime's own wording, read by the extraction
# layer (gpudesk.oom.parsers.generic), Metal, DirectML, ... (PyTorch's own message with its clauses garbled or cut
# keeps the "not enough of the message" answer, which names the missing clauses.)
_CAPACITY_UNKNOWN_KINDS = ("generic_oom", "signature")
# PyTorch's message cut after its first sentence ("CUDA out of memory.") carries none of its clauses: the caching
# allocator failed, and nothing else is known (a message whose clauses are present but garbled keeps the "not
# enough of the message" answer instead).
_CLAUSES = re.compile(r"tried to allocate|total capacity|already allocated|is free|reserved|of which", re.IGNORECASE)


# The clauses PyTorch's message carries after its request ("(GPU 0; T total capacity; A already allocated; F free; R
# reserved ...)" or "GPU 0 has a total capacity of T of which F is free ..."). A message with the request and none of
# them was cut right after "Tried to allocate N" (visionml/pytracking#155: "RuntimeError: CUDA out of memory. Tried to
# allocate 66.00 MiB"); one with them present but unread keeps the "not enough of the message" answer.
_CLAUSES_AFTER_REQUEST = re.compile(r"total capacity|already allocated|is free|\bfree\b|reserved|of which|\(GPU\s{0,2}\d",
                                    re.IGNORECASE)


# The same message cut inside its first clause, before the capacity's figure could be read ("Tried to allocate 20.00
# MiB (GPU 0;", "(GPU 0; 4.00 GiB total ca", "GPU 0 has a total capacity"): the text ends in an unclosed clause list a few
# characters after the request. Garbled clauses ("?? total capacity; ?? free)") close their parenthesis and are not cut.
_CUT_IN_FIRST_CLAUSE = re.compile(r"tried to allocate\s{1,2}[\d.]{1,12}\s{0,2}[KMGT]i?B(?:\s{0,2}\(GPU\s{0,2}\d{1,2}[^()\n]{0,40}"
                                  r"|\.\s{1,2}GPU\s{0,2}\d{1,2} has a total capacity[^()\n]{0,24})\s*$", re.IGNORECASE)


def _cut_after_request(f: Facts) -> bool:
    """PyTorch's message cut right after its request, or inside its first clause (``_CUT_IN_FIRST_CLAUSE``): the
    caching allocator's own failure, with only its size."""
    r = f.report
    text = r.text or ""
    return (r.kind == "pytorch_oom" and f.requested is not None and f.total is None and f.free is None
            and f.allocated is None and f.reserved is None
            and (not _CLAUSES_AFTER_REQUEST.search(_after_request(text))
                 or _CUT_IN_FIRST_CLAUSE.search(text) is not None))


_REQUEST_WORDS = re.compile(r"tried to allocate", re.IGNORECASE)


def _after_request(text: str) -> str:
    """The rest of the line that holds PyTorch's request, and the next line (a wrap): where its clauses would be. Words
    like "reserved" and "free" elsewhere in a paste belong to other lines (a tool's own memory report before the run,
    ultralytics' AutoBatch "14.75G total, 0.25G reserved, 0.12G allocated, 14.38G free", printed at start-up by
    ultralytics/utils/autobatch.py), not to the message that failed. Without the request words, the whole text."""
    m = _REQUEST_WORDS.search(text)
    if m is None:
        return text
    end = text.find("\n", m.end())
    if end >= 0:
        following = text.find("\n", end + 1)
        end = following if following >= 0 else len(text)
    return text[m.start():end if end >= 0 else len(text)]


# CUDA's allocation granularity (2 MiB, cuMemGetAllocationGranularity; PyTorch's caching allocator rounds small
# requests into 2 MiB segments, c10/cuda/CUDACachingAllocator.cpp kSmallBuffer). A request below it refused with
# nothing free, in a text that names nothing this process holds, says the device was already full before the job
# asked: its own tensors or another process's, which the text cannot tell (PaddleOCR#6197: 2.25 kB refused at
# predictor creation, a leftover Paddle process held the GPU). The ranking then leaves the lead to the
# other-process reading with its check (:mod:`gpudesk.oom.rules.other_process`).
TINY_REQUEST_BYTES = 2 * 1024**2


def capacity_alone(f: Facts) -> bool:
    """PyTorch's message whose figures stop after the capacity ("CUDA out of memory.(GPU 1; 14.76 GiB total
    capacity;)", an issue title cut there: pytorch_geometric#2730, a full-graph GCN on a 15 GB card, fixed by
    mini-batches): with no request, free, allocated or reserved figure there is nothing to weigh the capacity against,
    so the message reads as the bare first sentence does (:func:`_without_capacity`, 0.45), not as clauses that failed
    to parse."""
    return (f.report.kind == "pytorch_oom" and f.total is not None and f.requested is None and f.free is None
            and f.allocated is None and f.reserved is None and f.report.parsed.get("request_redacted") != 1)


def reads_without_capacity(f: Facts) -> bool:
    """This rule reads the text as a shortage with no capacity figure (:func:`_without_capacity`); other_process
    ranks the holder second beside that reading."""
    if f.mps or engine_budget.names_sampler_warmup(f) or f.total is not None:
        return False
    if f.report.kind == "tf_resource_exhausted":
        return True
    return f.report.kind != "xla_resource_exhausted" and _without_capacity(f) is not None


def _without_capacity(f: Facts) -> Cause | None:
    """No capacity in the text: what is left to go on.

    Free below the request (XLA:TPU "There are 142.58M free", pytorch/xla#2569) → 0.7 (free just above it, see
    :func:`_full_though_free_covers`), 0.4 for a request below
    :data:`TINY_REQUEST_BYTES` with nothing this process holds in the text. A request alone
    (ONNX Runtime's BFC arena, a Vulkan or DirectML buffer, a TensorRT allocation) or nothing at all ("Allocation
    on device" in ComfyUI) → 0.55 / 0.45: a failed allocation with no sign of
    anything else reads as a job that does not fit, at a confidence that says the figures are missing. A signature
    the signature rule ranks decides instead (no cause here).
    """
    r = f.report
    cut_short = (r.kind == "pytorch_oom" and not _CLAUSES.search(r.text or "")) or (
        r.kind == "tf_bfc_dump" and f.total is None and f.free is None) or (  # the BFC line without its Stats block
        _cut_after_request(f)) or (
        # The figures replaced by placeholders ("Tried to allocate xxx GiB (GPU 0; x.xx GiB total capacity; ...",
        # pyannote-audio#1036): PyTorch's message with nothing to weigh, read as the one line alone.
        r.kind == "pytorch_oom" and r.parsed.get("request_redacted") == 1 and f.total is None) or capacity_alone(f)
    if (r.kind not in _CAPACITY_UNKNOWN_KINDS and not cut_short) or r.signature not in (None, "metal_oom"):
        return None
    if f.requested is not None and f.free is not None:
        if f.free >= f.requested:
            return _full_though_free_covers(f)
        conf, explanation = 0.7, _("The request ({requested}) is larger than what the device had free ({free}): the "
                                   "job's memory fills it.").format(requested=format_bytes(f.requested),
                                                                    free=format_bytes(f.free))
        if f.requested < TINY_REQUEST_BYTES and f.allocated is None and f.reserved is None:
            conf = 0.4  # a tiny request refused: the device was full before it, by whom the text does not say
    elif f.requested is not None:
        conf, explanation = 0.55, _("The runtime could not get {requested} from the device and names no other "
                                    "reason: the job's buffers fill the memory (the capacity is not in the "
                                    "text).").format(requested=format_bytes(f.requested))
    elif isinstance(exceeded := r.parsed.get("exceeded_by_bytes"), int) and exceeded > 0:
        # The runtime's own count of the whole job against the device ("exceeds total capacity by N"): the job, not
        # one request, is larger than the device by that much.
        conf, explanation = 0.6, _("The runtime's own count says the job exceeds the device's capacity by "
                                   "{exceeded}: the model and its buffers need more than the device has.").format(
                                       exceeded=format_bytes(exceeded))
    else:
        conf, explanation = 0.45, _("An out-of-memory without figures: nothing points past the job itself needing "
                                    "more than the device has. Paste the full message or probe the process for "
                                    "the figures.")
    checks = [i18n._(c) for c in CHECKS]
    deciding = None
    if _cut_after_request(f):
        # The caching allocator refused the request; whose memory filled the device (this job's or another
        # process's) is in the clauses that were cut, and nvidia-smi tells it.
        explanation = _("PyTorch's allocator could not get {requested}; the rest of the message (capacity, free, what "
                        "PyTorch held) was cut. With nothing else in the text, the job's own memory filling the GPU is "
                        "the likelier reading; another process holding it is the other, and nvidia-smi tells them "
                        "apart.").format(requested=format_bytes(f.requested or 0))
        deciding = "other_process"
        checks.insert(0, check_line(command=check_command(deciding, r.platform),
                                                          meaning=i18n._(SIGNATURE_CHECKS[deciding].meaning)))
    return Cause(
        id="genuine_shortage",
        title=_("Not enough GPU memory for this job"),
        confidence=conf,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, runtime=r.runtime,
                          backend=r.backend, deciding_check=deciding,
                          check_command=check_command(deciding, r.platform) if deciding else None),
        explanation=explanation,
        fix=i18n._(FIX),
        more_fixes=[i18n._(m) for m in MORE],
        checks=checks,
    )


def _cut_before_free(f: Facts) -> Cause:
    """A message cut before its free figure (:func:`gpudesk.oom.rules.cut_clauses.cut_before_free`): read from the
    clauses that survived.

    With the live tensors read, the bound of :func:`_request_against_bound` decides when it is tight; otherwise (or
    with only the request and the capacity) the request failed on a device whose free memory the cut took away, and
    the reading is the one of a message cut right after its request (the job's own memory first, 0.5; another process
    the other, with nvidia-smi as the check that tells them apart), not "not enough of the message": the
    caching allocator refused the request, and the clauses that would say whose memory filled the device are gone.
    A request of half the device or more is read by single_allocation_exceeds_capacity."""
    assert f.requested is not None and f.total is not None
    if f.allocated is not None and f.allocated <= f.total:
        bounded = _request_against_bound(f, f.total, f.allocated, f.total - f.allocated)
        if bounded is not None:
            return bounded
    r = f.report
    deciding = "other_process"
    command = check_command(deciding, r.platform)
    if f.allocated is None:
        said = _("PyTorch's allocator could not get {requested} on a GPU of {total}; the message was cut before its "
                 "free and reserved figures.").format(requested=format_bytes(f.requested), total=format_bytes(f.total))
    else:
        said = _("PyTorch's allocator could not get {requested} on a GPU of {total} while its tensors held {allocated}; "
                 "the message was cut before its free and reserved figures.").format(
                     requested=format_bytes(f.requested), total=format_bytes(f.total),
                     allocated=format_bytes(f.allocated))
    return Cause(
        id="genuine_shortage",
        title=_("Not enough GPU memory for this job"),
        confidence=0.5 if f.allocated is None else 0.45,
        evidence=evidence(requested_bytes=f.requested, total_capacity_bytes=f.total, allocated_bytes=f.allocated,
                          deciding_check=deciding, check_command=command),
        explanation=join_sentences([said, _("The job's own memory filling the GPU is the likelier reading; another "
                                            "process holding it is the other, and nvidia-smi tells them apart.")]),
        fix=i18n._(FIX),
        more_fixes=[i18n._(m) for m in MORE],
        checks=[check_line(command=command, meaning=i18n._(SIGNATURE_CHECKS[deciding].meaning)),
                *[i18n._(c) for c in CHECKS]],
    )


# Free memory that covers the request less than this many times over, while what the runtime says is in use is at
# least IN_USE_OVER_FREE times the free memory, is a full device (see _full_though_free_covers).
FREE_JUST_COVERS = 2
IN_USE_OVER_FREE = 10


def _full_though_free_covers(f: Facts) -> Cause | None:
    """Free memory just above the request (under twice it) while the runtime's own in-use figure is at least ten
    times the free memory: the device is full. A runtime asks the driver for more than the bare request (its
    allocator rounds and aligns each chunk, PaddlePaddle's auto-growth allocator in
    ``paddle/fluid/memory/allocation/auto_growth_best_fit_allocator.cc``; the CUDA driver maps whole pages), and the
    free figure is read after the refusal, so a request within a factor of two of a sliver of free memory does not fit
    (PaddlePaddle: "Cannot allocate 80.000000MB memory on GPU 0, 10.647278GB memory has been allocated and available
    memory is only 108.750000MB", PaddleVideo#502, fixed by a smaller batch). 0.6; without an in-use figure the text
    does not say who filled the device, so no cause here."""
    assert f.requested is not None and f.free is not None
    in_use = f.report.parsed.get("in_use_bytes")
    if not isinstance(in_use, int) or f.free >= FREE_JUST_COVERS * f.requested or in_use < IN_USE_OVER_FREE * f.free:
        return None
    return Cause(
        id="genuine_shortage",
        title=_("Not enough GPU memory for this job"),
        confidence=0.6,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, in_use_bytes=in_use,
                          runtime=f.report.runtime),
        explanation=_("{in_use} is in use and only {free} is free: the request ({requested}) fits that sliver only "
                      "on paper, since the allocator asks for rounded, aligned chunks. The job's memory fills the "
                      "device.").format(in_use=format_bytes(in_use), free=format_bytes(f.free),
                                        requested=format_bytes(f.requested)),
        fix=i18n._(FIX),
        more_fixes=[i18n._(m) for m in MORE],
        checks=[i18n._(c) for c in CHECKS],
    )
