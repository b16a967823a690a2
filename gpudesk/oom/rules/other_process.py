"""``other_process``: other processes hold a large part of this GPU (oom.md §3.5 rule 3).

Fires when the other processes' memory is >= 10 % of the capacity; confidence 0.5 + that share (max 0.9).
Sub-cases: several near-equal entries of 0.3-1.5 GiB are the same job's sibling ranks creating contexts on
this GPU (returnn#1469: 15 × 1.19 GiB; pytorch#135279, #49481); a holder whose PID is not alive is a zombie
(VisEdit#5). Host-PID caveat: inside a container NVML shows host PIDs (handled by the parser/evidence, which
mark the target's own entry).

Without a process list, TensorFlow's own device discovery line says it: "Total memory: T, Free memory: F" is logged
before TensorFlow creates its allocator (core/common_runtime/gpu/gpu_device.cc), so a GPU under a quarter free at
that moment was already held by another process (0.8; tensorflow#8170: 190 MiB of 7.92 GiB free; tensorflow#9489:
187 MiB of 3.94 GiB), whatever TensorFlow's own preallocation would have done next.

TensorFlow's own pool reservation refused by the CUDA driver ("failed to allocate 2.96G (3179741184 bytes) from
device: CUDA_ERROR_OUT_OF_MEMORY", with no cuBLAS/cuDNN failure beside it): without memory growth TensorFlow sizes its
BFC region from the free memory it has just measured (``gpu_device.cc``: ``DeviceMemoryUsage`` → ``memory_limit``,
then ``GpuDriver::DeviceAllocate`` in ``cuda_driver.cc``; on failure BFC retries at 90 %), so a refusal means memory
that was free a moment before is gone: another process or another session took it (ivineetm007/Fall-detection#4:
another notebook; keras#8545: a reboot cleared it) → 0.62, above TensorFlow's own preallocation (0.55). On ROCm the
early HIP runtimes reported the device's free memory wrongly and TensorFlow asked for more than there was
(hiptensorflow#62), so there the reservation itself stays first (``preallocation``).

A serving engine's start-up check ("Free memory on device (F/T GiB) on startup is less than desired GPU memory
utilization", gpudesk.oom.parsers.startup_free) runs before the engine allocates anything: a tenth of the device or
more not free is another holder's (0.85), the fix naming the largest gpu_memory_utilization that would fit.

A message that gives the request and the free memory but neither the capacity nor what this process holds
(PaddlePaddle's "Cannot allocate 541.5MB memory on GPU 0, available memory is only 8.6MB", whose own text then asks
"Please check whether there is any other process using GPU 0") cannot say whose memory fills the device: the job's
need stays first, and another process is named beside it (0.45) with the one command that tells them apart.

TensorFlow in a notebook with no figure in the text: a Jupyter notebook's code runs in a kernel, a process of its own
that lives until the kernel is shut down, and TensorFlow maps nearly all of the GPU's memory into the first process
that uses it (tensorflow.org/guide/gpu, "Limiting GPU memory growth": "By default, TensorFlow maps nearly all of the
GPU memory of all GPUs visible to the process"). A second notebook (or a kernel kept from an earlier session) then
finds the GPU taken before its model is even built (keras#14032: ResourceExhaustedError while constructing a Keras
application in cell 35; the GPU was held by another kernel). With no request, shape or capacity in the text, that is
the first reading (0.6, above TensorFlow's own op-level shortage, 0.55), with nvidia-smi as its check.

When PyTorch names what this process holds ("Including non-PyTorch memory, this process has P memory in use", NVML's
per-process figure, c10/cuda/CUDACachingAllocator.cpp), everything else that is not free, ``total − free − P``, is
held by other processes, whether the message lists them ("Process N has X memory in use") or not (processes of other
containers, or ones NVML cannot attribute: the account's "unattributed" term, gpudesk.oom.account). When that is at
least 2 GiB and a quarter of the GPU and more than this process holds, the device is full of other processes' memory,
not of this job's: another process is the first cause (0.9, above a plain shortage's 0.85) whatever the list shows
(QwenLM/Qwen#782: this process 18.80 of 80 GiB, two listed processes 12.76 GiB, 48 GiB more held by processes the
list does not show). A display on Windows holds well under a quarter of a GPU, so it does not reach this.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.parsers import smi_table
from gpudesk.oom.rules import (cut_clauses, exclusive_mode, genuine_shortage, held_outside, pool_start, ranks_on_one_gpu,
                               signature)
from gpudesk.oom.rules.tf_pool import tf_fraction_reservation, tf_pool_growth_refused, tf_reservation_refused_on_cuda
from gpudesk.oom.report import ProcessMemory
from gpudesk.oom.rules.base import Facts, clamp, evidence
from gpudesk.oom.signatures import CHECKS, check_command, check_line
from gpudesk.units import GIB as GiB, format_bytes
from gpudesk import i18n
from gpudesk.i18n import _, ngettext


def _tf_reservation(f: Facts) -> Cause:
    return Cause(
        id="other_process",
        title=_("Another process took the memory TensorFlow was reserving"),
        confidence=0.62,
        evidence=evidence(requested_bytes=f.requested, deciding_check="other_process",
                          check_command=check_command("other_process", f.report.platform)),
        explanation=_("TensorFlow sizes its memory pool from the free memory it has just measured, so the driver "
                      "refusing that reservation means memory that was free a moment before is gone: another process "
                      "(another notebook, a leftover run, a second TensorFlow session) took it."),
        fix=_("Run nvidia-smi: stop the other processes (or restart the notebook kernel or the machine when none is "
              "listed), or pick a free GPU with CUDA_VISIBLE_DEVICES"),
        more_fixes=[_("Turn on memory growth (TF_FORCE_GPU_ALLOW_GROWTH=true) so that TensorFlow reserves only what "
                      "it uses.")],
        checks=[check_line(command=check_command("other_process", f.report.platform),
                                                  meaning=i18n._(CHECKS["other_process"].meaning))],
    )


# At an engine's start-up check (gpudesk.oom.parsers.startup_free), memory held beyond this share of the device is
# another holder's; below it the driver and the engine's own CUDA context account for it, and the budget is the story
# (gpudesk.oom.rules.kv_cache_budget).
STARTUP_HELD_SHARE = 0.10


def engine_start_held(f: Facts) -> tuple[int, int, int] | None:
    """(total, free, held) at an engine's start-up free-memory check, None for any other report."""
    r = f.report
    total, free = r.parsed.get("total_at_start_bytes"), r.parsed.get("free_at_start_bytes")
    if r.kind != "engine_startup_free" or not isinstance(total, int) or not isinstance(free, int) or total <= 0:
        return None
    return total, free, max(0, total - free)


def _engine_start(f: Facts) -> Cause | None:
    """vLLM's start-up check found less free than ``gpu_memory_utilization × total`` before loading anything
    (gpudesk.oom.parsers.startup_free): what is not free is held by another process when it is a tenth or more of
    the device, 0.85."""
    got = engine_start_held(f)
    if got is None or got[2] < STARTUP_HELD_SHARE * got[0]:
        return None
    total, free, held = got
    key = "other_process"
    most = int(free / total * 100) / 100
    return Cause(
        id="other_process",
        title=_("Another process held the GPU when the engine started"),
        confidence=0.85,
        evidence=evidence(total_at_start_bytes=total, free_at_start_bytes=free, other_processes_bytes=held,
                          other_processes_ratio=round(held / total, 3), deciding_check=key,
                          check_command=check_command(key, f.report.platform)),
        explanation=_("Before loading anything the engine found {free} of {total} free: {held} ({share:.0%}) was "
                      "already held by another process (a second engine, a notebook, a run that did not exit), so "
                      "its memory budget cannot be met.").format(free=format_bytes(free), total=format_bytes(total),
                                                                 held=format_bytes(held), share=held / total),
        fix=_("Stop the other processes on this GPU (nvidia-smi lists them) or pick a free GPU; to share it, lower "
              "--gpu-memory-utilization to at most {most:.2f}").format(most=most),
        checks=[check_line(command=check_command(key, f.report.platform),
                                                 meaning=i18n._(CHECKS[key].meaning))],
    )


def _engine_start_share(f: Facts) -> Cause | None:
    """vLLM's start-up check quoted without its figures, only the share asked for ("... less than desired GPU memory
    utilization (0.8)", gpudesk.oom.parsers.startup_free): free memory below ``U × total`` before anything was loaded
    means more than ``(1 − U) × total`` was already held; at ``U`` of 0.9 or less that is a tenth of the device or more,
    another holder's as at the check with figures (verl#4229: the job's own FSDP copy of the model on the rollout
    worker's GPU). 0.75: below the reading with figures (0.85), since the held share is a bound, not a measure."""
    r = f.report
    above = r.parsed.get("held_share_above")
    if r.kind != "engine_startup_free" or engine_start_held(f) is not None or not isinstance(above, float) \
            or above < STARTUP_HELD_SHARE:
        return None
    key = "other_process"
    return Cause(
        id="other_process",
        title=_("Another process held the GPU when the engine started"),
        confidence=0.75,
        evidence=evidence(held_at_start_min_ratio=above, gpu_memory_utilization_ratio=r.parsed.get("gpu_memory_utilization"),
                          deciding_check=key, check_command=check_command(key, r.platform)),
        explanation=_("The engine checks the free memory before loading anything and found less than the "
                      "{util:.0%} of the GPU it was asked to take: more than {above:.0%} of the GPU was already held, "
                      "far more than the driver and the engine's own context take, so another process (a second "
                      "engine, a training copy of the model, a run that did not exit) holds it.").format(
                          util=1 - above, above=above),
        fix=_("Stop the other processes on this GPU (nvidia-smi lists them) or pick a free GPU; to share it, lower "
              "--gpu-memory-utilization below the share the others leave free"),
        checks=[check_line(command=check_command(key, r.platform),
                                                 meaning=i18n._(CHECKS[key].meaning))],
    )


# A Jupyter/IPython kernel's marks in a traceback: IPython 7's "<ipython-input-N-...>", IPython 8's "Cell In[N]", the
# kernel's package (ipykernel) and its temporary cell files.
_NOTEBOOK = re.compile(r"<ipython-input-\d|\bCell In\s?\[\d|\bipykernel\b|/tmp/ipykernel_\d", re.IGNORECASE)
_TENSORFLOW = re.compile(r"resourceexhaustederror|tensorflow|\bkeras\b", re.IGNORECASE)


def _tf_notebook_without_figures(f: Facts) -> bool:
    """TensorFlow's failure in a notebook kernel with no figure and no tensor shape in the text (module docstring)."""
    r = f.report
    text = r.text or ""
    dev = f.dev
    figures = (f.requested, f.total, f.free, f.allocated, f.reserved)
    return (_NOTEBOOK.search(text) is not None and _TENSORFLOW.search(text) is not None
            and all(v is None for v in figures) and r.tensor_shape is None and r.signature is None
            and (dev is None or not dev.other_processes))


def _tf_notebook(f: Facts) -> Cause:
    key = "other_process"
    return Cause(
        id="other_process",
        title=_("Another notebook kernel may hold the GPU"),
        confidence=0.6,
        evidence=evidence(deciding_check=key, check_command=check_command(key, f.report.platform)),
        explanation=_("The error comes from a notebook kernel and names no tensor or size. TensorFlow maps nearly all "
                      "of the GPU's memory into the first process that uses it, and every notebook runs in a kernel "
                      "process of its own that lives until it is shut down: another open notebook (or a kernel left "
                      "from an earlier session) holding the GPU is the first reading."),
        fix=_("Shut down the other notebooks' kernels (Kernel > Shut Down, or nvidia-smi to find their PIDs), or turn "
              "on memory growth (tf.config.experimental.set_memory_growth) in every notebook before its first use of "
              "the GPU"),
        more_fixes=[_("If nvidia-smi lists no other process, restart this kernel: its earlier cells may hold the "
                      "memory.")],
        checks=[check_line(command=check_command(key, f.report.platform),
                                                 meaning=i18n._(CHECKS[key].meaning))],
    )


# TensorFlow's graph node of a variable's initializer in the failing op ("[[Node: conv5/conv5_1/weights/Initializer/
# random_uniform/RandomUniform = ...]]", "[[{{node embeddings/Adam/Initializer/zeros}}]]"): tf.Variable (and an
# optimizer's slot variables) build an "Initializer" name scope (tensorflow/python/ops/variables.py,
# https://github.com/tensorflow/tensorflow), run by global_variables_initializer() before the first step.
_TF_INITIALIZER_NODE = re.compile(r"\[\[\s{0,3}(?:\{\{)?node:?\s{1,3}[\w/.-]{0,300}?/Initializer/", re.IGNORECASE)
# Below this, one variable is not what fills a GPU of the last ten years (4 GiB or more).
INITIALIZER_SMALL_BYTES = 1 * GiB
_TF_ELEMENT_BYTES = 4  # float32, TensorFlow's default variable dtype


def _tf_initializer(f: Facts) -> Cause | None:
    """TensorFlow failing to allocate one variable's initial value, a tensor under 1 GiB, before the first step.

    Variables are initialised once, before any step runs: at that moment the process holds only the variables created
    before this one (no activations, no gradients), and a default TensorFlow session maps the memory the GPU has free
    into its allocator at start. So a small variable refused at initialisation means the GPU was already full before
    the model started: another process (a notebook kernel, a job left running) holds it (balancap/SSD-Tensorflow#157:
    a 9 MB weight refused until the other processes were gone; dongjun-Lee/text-classification-models-tf#4). 0.62:
    above the shortage read from the refusal alone (0.55), which remains for a model whose variables do not fit."""
    r = f.report
    if r.framework != "tensorflow" or _TF_INITIALIZER_NODE.search(r.text or "") is None:
        return None
    elements = r.parsed.get("tensor_elements")
    size = f.requested if f.requested is not None else (
        elements * _TF_ELEMENT_BYTES if isinstance(elements, int) else None)
    if size is None or size >= INITIALIZER_SMALL_BYTES or f.total is not None:
        return None
    key = "other_process"
    return Cause(
        id="other_process",
        title=_("The GPU was already full before the model started: another process may hold it"),
        confidence=0.62,
        evidence=evidence(requested_bytes=size, deciding_check=key,
                          check_command=check_command(key, r.platform)),
        explanation=_("The refused tensor ({size}) is a variable's initial value: variables are initialised before the "
                      "first step, when the job holds nothing but its variables, so a tensor this small could not be "
                      "placed because the GPU's memory was already taken, most likely by another process (an open "
                      "notebook kernel, an earlier run still alive).").format(size=format_bytes(size)),
        fix=_("Run nvidia-smi and stop the other processes on this GPU (or shut down other notebook kernels), or pick "
              "a free GPU with CUDA_VISIBLE_DEVICES; then rerun"),
        more_fixes=[_("If nothing else holds the GPU, turn on memory growth (tf.config.experimental.set_memory_growth) "
                      "so that each TensorFlow process takes only what it uses.")],
        checks=[check_line(command=check_command(key, r.platform),
                                                 meaning=i18n._(CHECKS[key].meaning))],
    )


# Memory in use before vLLM's profiling run beyond the weights it just loaded, as a share of the device, at and above
# which another process holds it (the engine's own CUDA context and cuBLAS/NCCL handles stay well under a tenth).
VLLM_OTHERS_SHARE = 0.10


def _vllm_profile_others(f: Facts) -> Cause | None:
    """vLLM's V0 profiling line shows memory in use before profiling (``initial_memory_usage``, total minus free after
    the weights loaded) far above the weights it reports: the difference is other processes' memory. Those vLLM
    releases charge it to this instance's budget (gpu_memory_utilization × total has to cover it), so a second engine
    on a shared GPU finds no room for the KV cache (vllm-project/vllm#10533: initial_memory_usage 68.01 of 79.15 GiB
    beside another instance; fixed in the profiler later). 0.92: above the budget reading (0.9), which the same
    figures explain only through the other holder."""
    r = f.report
    initial, weights = r.parsed.get("vllm_initial_usage_bytes"), r.parsed.get("vllm_weights_bytes")
    total = r.parsed.get("vllm_total_gpu_memory_bytes")
    if not (isinstance(initial, int) and isinstance(weights, int) and isinstance(total, int) and total > 0):
        return None
    others = initial - weights
    if others < VLLM_OTHERS_SHARE * total:
        return None
    key = "other_process"
    return Cause(
        id="other_process",
        title=_("Another process holds the GPU that vLLM profiled"),
        confidence=0.92,
        evidence=evidence(vllm_initial_usage_bytes=initial, vllm_weights_bytes=weights, total_capacity_bytes=total,
                          vllm_others_before_profile_bytes=others, deciding_check=key,
                          check_command=check_command(key, r.platform)),
        explanation=_("Before profiling, {initial} of the GPU's {total} was in use, but this engine's weights take "
                      "{weights}: about {others} is held by other processes (another engine, a training job), and "
                      "vLLM counts it against this instance's gpu_memory_utilization budget, so nothing is left for "
                      "the KV cache.").format(initial=format_bytes(initial), total=format_bytes(total),
                                              weights=format_bytes(weights), others=format_bytes(others)),
        fix=_("Stop the other processes on this GPU (nvidia-smi), or, to share it on purpose, start this engine with "
              "gpu_memory_utilization covering the others' share plus its own ({needed:.2f} or more here: the memory in "
              "use before profiling plus a twentieth of the GPU for activations and the KV cache), or use a "
              "vLLM release whose profiler no longer charges other processes' memory").format(
                  needed=min(1.0, (initial + 0.05 * total) / total)),
        checks=[check_line(command=check_command(key, r.platform),
                                                 meaning=i18n._(CHECKS[key].meaning))],
    )


def check(f: Facts) -> Cause | None:
    if f.mps:
        return None  # Apple MPS: see mps_limit
    profiled = _vllm_profile_others(f) or exclusive_mode.shared_by_own_jobs(f)
    if profiled is not None:
        return profiled
    if _tf_notebook_without_figures(f):
        return _tf_notebook(f)
    initializer = _tf_initializer(f)
    if initializer is not None:
        return initializer
    if f.report.kind == "engine_startup_free":
        return _engine_start(f) or _engine_start_share(f)
    if f.report.kind == "rmm_pool_startup_free":
        return pool_start.held_at_pool_start(f)
    if tf_reservation_refused_on_cuda(f) and not tf_fraction_reservation(f) and not tf_pool_growth_refused(f):
        # TensorFlow's device-discovery figures, when pasted, say more than the refusal alone.
        held = _held_before_start(f) if f.dev is not None and not f.dev.other_processes else None
        return held or _tf_reservation(f)
    crowded = _rank_crowded(f)
    if crowded is not None:
        return crowded
    dev = f.dev
    if dev is None:
        return _context_refused(f)
    # The free memory at device discovery, when pasted, says more than a message without figures (_held_before_start).
    held_at_start = _held_before_start(f)
    if held_at_start is not None and not dev.other_processes:
        return held_at_start
    refused = _context_refused(f)
    if refused is not None:
        return refused
    if _whose_memory_unknown(f):
        return _unattributed(f)
    if _no_figures(f):
        return _possible_holder(f)
    if _figureless_elsewhere(f):
        # The holder said in words on a platform whose figureless reading stays with the shortage (ROCm, XPU ...):
        # the words are the same evidence there (fifty-fourth pass, ROCm/legacy-rocm-build#6389).
        said = _said_left_by_ended(f) or _said_already_held(f)
        if said is not None:
            return said
    if held_outside.remainder_is_large(f) and held_outside.others_first(f):
        return _held_by_others(f)
    others = [p for p in dev.other_processes if not p.is_target and p.used_bytes is not None]
    dead = [p for p in dev.other_processes if p.alive is False and not p.is_target]
    share = f.share(f.other)
    beyond = _held_beyond_this_process(f)
    if not dead and beyond is not None and not _siblings(others):
        return _others_outnumber(f, beyond)
    if not dead and (share is None or share < 0.10):
        return None
    sizes = sorted(p.used_bytes for p in others if p.used_bytes is not None)
    siblings = _siblings(others)
    conf = 0.5 + min(0.4, share or 0)
    if dead:
        conf = max(conf, 0.7)
    if siblings:
        fix = (_("Bind every rank to its own GPU before any CUDA call: torch.cuda.set_device(local_rank) at the top of "
               "the script (or CUDA_VISIBLE_DEVICES per rank), and pass device_ids=[local_rank] to DDP"))
        why = ngettext("{n} process holds about {each_gib:.2f} GiB on this GPU: the same job's other ranks created "
                       "CUDA contexts here.",
                       "{n} processes hold about {each_gib:.2f} GiB each on this GPU: the same job's other ranks "
                       "created CUDA contexts here.", len(sizes)).format(n=len(sizes), each_gib=sizes[-1] / GiB)
    elif dead:
        fix = _("Free the memory held by PID(s) {pids}: they are not running here (zombie or another PID "
                "namespace); find holders with `fuser -v /dev/nvidia*` and end them").format(
                    pids=", ".join(str(p.pid) for p in dead))
        why = _("A process that no longer runs (or is not visible) still holds GPU memory.")
    else:
        fix = _("Stop or move the other processes on this GPU (nvidia-smi shows them), or pick a free GPU with CUDA_VISIBLE_DEVICES")
        why = _('Other processes use {share:.0%} of this GPU.').format(share=share)
    return Cause(
        id="other_process",
        title=_("Other processes use this GPU"),
        confidence=clamp(conf),
        evidence=evidence(
            other_processes_bytes=f.other,
            other_processes_ratio=round(share, 3) if share is not None else None,
            other_processes_count=len([p for p in others if not p.given]) or None,
            other_pids=[p.pid for p in others if not p.given] or None,
            dead_pids=[p.pid for p in dead] or None,
            same_job_siblings=siblings or None,
        ),
        explanation=why,
        fix=fix,
        more_fixes=[_("In a container, NVML lists host PIDs: map them with /proc/<pid>/status NSpid before blaming "
                    "another process.")],
    )


def _siblings(others: list[ProcessMemory]) -> bool:
    """Several near-equal entries of 0.3-1.5 GiB: the same job's ranks' CUDA contexts (module docstring)."""
    sizes = sorted(p.used_bytes for p in others if p.used_bytes is not None)
    return (len(sizes) >= 2 and 0.3 * GiB <= sizes[0] and sizes[-1] <= ranks_on_one_gpu.CONTEXT_MAX_BYTES
            and (sizes[-1] - sizes[0]) <= 0.05 * sizes[-1])


# What other processes must hold, beside this process's own NVML figure, to be the first cause (module docstring).
BEYOND_MIN_BYTES = 2 * GiB
BEYOND_MIN_SHARE = 0.25


def _held_beyond_this_process(f: Facts) -> int | None:
    """``total − free − this process`` when the text gives all three, the request did not fit (or, with no request,
    under 8 % of the GPU is free), and that memory is at least 2 GiB and a quarter of the GPU and more than this
    process holds; else None."""
    dev = f.dev
    if dev is None or f.mps or f.report.platform == "rocm" or f.total is None or f.free is None:
        return None
    own = dev.process_used_bytes
    if own is None or own <= 0:
        return None
    full = f.margin < 0 if f.margin is not None else f.free < 0.08 * f.total
    if not full:
        return None  # the request could have fit: the other processes did not stop it
    beyond = f.total - f.free - own
    if beyond < max(BEYOND_MIN_BYTES, BEYOND_MIN_SHARE * f.total) or beyond <= own:
        return None
    return beyond


def _others_outnumber(f: Facts, beyond: int) -> Cause:
    assert f.total is not None and f.dev is not None and f.dev.process_used_bytes is not None
    own = f.dev.process_used_bytes
    listed = f.other or 0
    key = "other_process"
    return Cause(
        id="other_process",
        title=_("Other processes hold most of this GPU"),
        confidence=0.9,
        evidence=evidence(this_process_bytes=own, held_by_others_bytes=beyond, listed_other_processes_bytes=listed,
                          other_processes_ratio=round(beyond / f.total, 3), total_capacity_bytes=f.total,
                          free_bytes=f.free, requested_bytes=f.requested, deciding_check=key,
                          check_command=check_command(key, f.report.platform)),
        explanation=_("Of {total}, this process holds {own} and {beyond} is held by other processes ({listed} of it "
                      "by the processes the message lists; the rest by processes it does not show, such as those of "
                      "another container): the GPU is full of other processes' memory, not of this job's.").format(
                          total=format_bytes(f.total), own=format_bytes(own), beyond=format_bytes(beyond),
                          listed=format_bytes(listed)),
        fix=_("Stop or move the other processes on this GPU (nvidia-smi shows them), or pick a free GPU with CUDA_VISIBLE_DEVICES"),
        more_fixes=[_("In a container, NVML lists host PIDs: map them with /proc/<pid>/status NSpid before blaming "
                      "another process.")],
        checks=[check_line(command=check_command(key, f.report.platform),
                                                 meaning=i18n._(CHECKS[key].meaning))],
    )


def _whose_memory_unknown(f: Facts) -> bool:
    """Request and free known, free below the request, but no capacity and no holdings of this process."""
    return (f.total is None and f.free is not None and f.requested is not None and f.free < f.requested
            and f.allocated is None and f.reserved is None and not f.other and f.report.signature is None
            and not f.report.parsed.get("in_use_bytes"))


def _no_figures(f: Facts) -> bool:
    """A device out-of-memory whose text gives no capacity, free or held figure and no signature: one line cannot tell
    this job's own need from memory something else holds (fresh-14: a TensorFlow BFC warning, a TensorRT resize, an
    SGLang title and a bare CUDA error whose threads all found another holder, beside as many one-liners that were
    the job's own need), so the holder stays in the ranked set, second to the shortage that
    rules/genuine_shortage reads there, with the command that decides."""
    r = f.report
    dev = f.dev
    # A PyTorch message cut before its free figure with only the request and the capacity read
    # (rules.cut_clauses.cut_before_free) has nothing more to say whose memory filled the device.
    figureless = (all(v is None for v in (f.total, f.free, f.allocated, f.reserved))
                  and genuine_shortage.reads_without_capacity(f))
    cut = f.allocated is None and cut_clauses.cut_before_free(f)
    return (r.source == "text" and r.kind != "unknown" and r.signature is None and r.platform in (None, "cuda")
            and (dev is None or not dev.other_processes) and not r.parsed.get("in_use_bytes")
            and (figureless or cut))


def _figureless_elsewhere(f: Facts) -> bool:
    """A text out-of-memory with no capacity, free or held figure, no signature and no process list, on a platform
    that ``_no_figures`` leaves out (not CUDA): read only for a holder said in words."""
    r = f.report
    dev = f.dev
    return (r.source == "text" and r.kind != "unknown" and r.signature is None and r.platform not in (None, "cuda")
            and (dev is None or not dev.other_processes) and not r.parsed.get("in_use_bytes")
            and all(v is None for v in (f.total, f.free, f.allocated, f.reserved)))


# A model's parameter count in its name ("llama3-llava-next-8b", "Qwen2-7B", "a 13B model") and a GPU's memory next
# to a GPU word ("H100 80GB", "RTX 3090 24GB", "A100-40G", "24gb vram").
_MODEL_PARAMS = re.compile(r"(?:[-_/\s]|^)(\d{1,3}(?:\.\d{1,2})?)\s?b(?![a-z0-9])", re.IGNORECASE)
_GPU_MEMORY = re.compile(
    r"\b(?:[AHLBV]\d{2,3}|[A-Z]?\d{4}(?:\s?ti)?|rtx|gtx|gpu|card)[-\s]{0,2}(?:\w{1,8}[-\s]{1,2})?(\d{1,3})\s?(?:gb|gib|g)\b|"
    r"\b(\d{1,3})\s?(?:gb|gib|g)\s{0,2}(?:of\s{1,2})?(?:vram|gpu|card|显存)", re.IGNORECASE)
# Words of a training run, whose need is many times the weights (gradients, optimizer state, activations).
_TRAINING = re.compile(r"\btrain|fine-?tun|\bbackward|\blora\b|optimi[sz]er|训练|微调", re.IGNORECASE)
# Bytes per parameter of weights served in bf16/fp16 (the default of every serving engine and of from_pretrained with
# a half dtype), and the share of the GPU's memory under which such weights leave most of it to the rest of inference.
SERVED_BYTES_PER_PARAM = 2
SMALL_MODEL_SHARE = 0.3


def model_far_below_gpu(text: str) -> tuple[float, int, int] | None:
    """(billions of parameters, weight bytes, GPU bytes) when a figureless text names a model whose bf16 weights fill
    under :data:`SMALL_MODEL_SHARE` of the GPU it names, and no training; else None. Inference of such a model does not
    fill that GPU by itself, so memory something else holds (another process, a job placed on a GPU already in use
    by a mistyped CUDA_VISIBLE_DEVICES, sglang#465: an 8B model on an 80 GB H100) is the likelier reading."""
    if _TRAINING.search(text):
        return None
    params = [float(m.group(1)) for m in _MODEL_PARAMS.finditer(text) if 0 < float(m.group(1)) <= 1000]
    gpus = [int(m.group(1) or m.group(2)) for m in _GPU_MEMORY.finditer(text)]
    gpus = [g for g in gpus if 4 <= g <= 288]
    if len(set(params)) != 1 or len(set(gpus)) != 1:
        return None  # several models or GPUs named: which one ran where is not in the text
    weights = int(params[0] * 1e9 * SERVED_BYTES_PER_PARAM)
    gpu = gpus[0] * 10**9
    if weights > SMALL_MODEL_SHARE * gpu:
        return None
    return params[0], weights, gpu


# A GPU of a pasted nvidia-smi table at least this full has its memory taken; one at most this full is empty.
SMI_FULL_SHARE = 0.9
SMI_EMPTY_SHARE = 0.1
# With an empty process list, a GPU at least this full holds memory of processes the table does not show.
SMI_HIDDEN_SHARE = 0.5
# The table's process section with no row: its header rule followed directly by the closing border, or the driver's
# "No running processes found".
_SMI_NO_PROCESSES = re.compile(r"Processes:[^\n]{0,80}\n(?:[^\n]{0,120}\n){1,3}\|={20,}\|\s{0,4}\n\s{0,4}\+-{20,}\+"
                               r"|No running processes found", re.IGNORECASE)


def _smi_table_holder(f: Facts) -> Cause | None:
    """A figureless out-of-memory pasted with an nvidia-smi table (gpudesk.oom.parsers.smi_table) in which a GPU is at
    least :data:`SMI_FULL_SHARE` used: the table counts every process's memory on that GPU, and users paste it after
    the failure to show the GPU's state, so a full GPU there is memory something still holds once the job has stopped
    (yangjianxin1/GPT2-chitchat#19: another user's job at 15.5 of 16 GB on GPU 0, GPUs 1-3 empty). Taken while the
    job ran, the same table shows the job's own memory, which is why the reading stays at 0.5: above a shortage read
    from nothing (0.45), below one read from a request (0.55); its check is the table taken again with the job
    stopped."""
    rows = smi_table.gpu_memory(f.report.text or "")
    full = [i for i, (used, total) in enumerate(rows) if used >= SMI_FULL_SHARE * total]
    if not full and _SMI_NO_PROCESSES.search(f.report.text or ""):
        # Memory in use with no process listed: nvidia-smi lists only the processes it can see (inside a container,
        # those of its own PID namespace), so the holder runs outside this view (wencolani/CrossE#2: 12.8 of 16 GB in
        # use, an empty process list).
        full = [i for i, (used, total) in enumerate(rows) if used >= SMI_HIDDEN_SHARE * total]
    if not full:
        return None
    used, total = rows[full[0]]
    free_gpus = [i for i, (u, t) in enumerate(rows) if u <= SMI_EMPTY_SHARE * t]
    platform = f.report.platform
    return Cause(
        id="other_process",
        title=_("The pasted nvidia-smi table shows the GPU full"),
        confidence=0.5,
        evidence=evidence(smi_gpu_index=full[0], smi_used_bytes=used, smi_total_bytes=total,
                          deciding_check="other_process", check_command=check_command("other_process", platform)),
        explanation=_("The nvidia-smi table pasted with the error shows GPU {index} with {used} of {total} in use. Taken "
                      "after the job stopped, that memory is another process's (another user's job, a notebook kernel, "
                      "a run that did not exit); taken while the job ran, it is the job's own.").format(
                          index=full[0], used=format_bytes(used), total=format_bytes(total)),
        fix=(_("Run on a GPU the table shows free: CUDA_VISIBLE_DEVICES={index}, or stop the process that fills GPU "
               "{full}").format(index=free_gpus[0], full=full[0]) if free_gpus else
             _("Stop the process that fills GPU {full}, or wait until it frees the memory").format(full=full[0])),
        checks=[check_line(command=check_command("other_process", platform),
                                                  meaning=i18n._(CHECKS["other_process"].meaning))],
    )


def _ranks_on_one_gpu(f: Facts) -> Cause:
    """A figureless out-of-memory from a multi-process launch (torchrun, DDP, DeepSpeed, MPI, Horovod, Accelerate:
    gpudesk.oom.rules.signature.names_distributed_launch). A rank that does not bind its own GPU before its first CUDA
    call creates its CUDA context on GPU 0, 0.3-1.2 GiB each beside the rank that trains there (returnn#1469: 15
    contexts of 1.19 GiB; pytorch#135279, #49481), and a job launched on every GPU of a shared machine lands on GPUs
    other users hold: 0.5, the reading the bare CUDA error gets from the same words, above a figureless shortage."""
    platform = f.report.platform
    return Cause(
        id="other_process",
        title=_("Other processes of the same job (or of other users) may hold this GPU"),
        confidence=0.5,
        evidence=evidence(requested_bytes=f.requested, deciding_check="other_process",
                          check_command=check_command("other_process", platform)),
        explanation=_("The text shows a multi-process launch and gives no figure of the GPU's memory. A rank that does "
                      "not bind its own GPU before its first CUDA call puts its CUDA context on GPU 0 beside the rank "
                      "that trains there, and a launch over every GPU of a shared machine lands on GPUs others hold."),
        fix=_("Bind every rank to its own GPU before any CUDA call: torch.cuda.set_device(local_rank) at the top of "
              "the script (or CUDA_VISIBLE_DEVICES per rank); on a shared machine list only the free GPUs in "
              "CUDA_VISIBLE_DEVICES"),
        checks=[check_line(command=check_command("other_process", platform),
                                                  meaning=i18n._(CHECKS["other_process"].meaning))],
    )


# The user's own words that part of the GPU was already taken before the job ran: "one card already has 15G occupied"
# (已经被占用了15G显存, hiyouga/LlamaFactory#24), "already in use by another process".
_ALREADY_HELD = re.compile(
    r"已(?:经)?被(?:其他|别的|别人的?)?[^，,。；;\n]{0,8}?占用|被(?:其他|别的|别人的?)[^，,。；;\n]{0,12}?占用"
    r"|\balready (?:occupied|in use|taken|used|held)\b[^\n.;]{0,20}?\bby\b"
    # Earlier processes said to hold the memory while the new one starts (fifty-fourth pass): "a new
    # python-inference-process is created while the previous process(es) are still holding GPU memory"
    # (NVIDIA/gpu-operator#2880, with nvidia-smi's list of five PIDs on one T4), and a graphics session said to hold
    # VRAM ("With a graphics session holding VRAM the gap can be multiple GiB", ROCm/legacy-rocm-build#6389: Vulkan/GL
    # clients and the compositor are processes of their own, outside the compute runtime's free figure).
    r"|\b(?:previous|earlier|older|old|other|leftover|stale|idle)\s(?:[\w-]{1,30}\s)?process(?:\(?es\)?)?\s"
    r"(?:are\s|is\s|were\s|was\s)?still\s(?:holding|occupying|using|keeping|hold|occupy|use|keep)\b[^.\n]{0,12}?"
    r"\b(?:memory|vram)\b"
    r"|\b(?:graphics|desktop|display)\s(?:session|server|processes|clients?)\s(?:is\s|are\s)?(?:holding|occupying|"
    r"using|taking)\s(?:(?:the|some|several|\d{1,3}(?:\.\d)?\s?gi?b\s(?:of)?)\s?)?(?:vram|gpu memory|video memory)\b",
    re.IGNORECASE)
# (A runtime's own hint, "Please check whether there is any other process using GPU 0" (PaddlePaddle), is a question,
# not a finding, and is not among these words.)


def _said_already_held(f: Facts) -> Cause | None:
    """A figureless out-of-memory whose text says part of the GPU was already taken by something else (``_ALREADY_HELD``):
    the user saw the holder; 0.55, above a shortage read from nothing (0.45) and level with one read from a request."""
    m = _ALREADY_HELD.search(f.report.text or "")
    if m is None:
        return None
    platform = f.report.platform
    return Cause(
        id="other_process",
        title=_("Another process holds part of the GPU"),
        confidence=0.55,
        evidence=evidence(described_as=m.group(0), deciding_check="other_process",
                          check_command=check_command("other_process", platform)),
        explanation=_("The text says part of the GPU was already taken before this job ran ('{words}'): what that "
                      "holder keeps is missing from this job, which then runs out on that GPU first (in a multi-GPU "
                      "job, the fullest GPU decides).").format(words=m.group(0)),
        fix=_("Free that GPU (stop the process that holds it) or leave it out: CUDA_VISIBLE_DEVICES set to the free GPUs "
              "only, before the program starts"),
        checks=[check_line(command=check_command("other_process", platform),
                                                  meaning=i18n._(CHECKS["other_process"].meaning))],
    )


# Memory left on the GPU by a process that ended badly, said in words: "the memory is orphaned on the GPU when pycaffe
# exits unexpectedly" (BVLC/caffe#3136), memory "still occupied after the process was killed", 进程崩溃后显存没有释放.
# The driver frees a process's memory when the process is gone, so memory that stays is held by what still lives:
# a child or worker process, a hung process in the D state, a container's other process (the CUDA C Programming
# Guide, "Initialization": a context and its allocations belong to a process). Each such process is another holder.
_LEFT_BY_ENDED = re.compile(
    r"\b(?:memory|vram)\b[^.\n]{0,30}?\b(?:is |was |gets |got |stays? |remains? )?(?:orphaned|not (?:freed|released)|"
    r"never (?:freed|released)|still (?:occupied|used|in use|held|allocated))\b[^.\n]{0,60}?"
    r"\b(?:exits?|exited|crash(?:es|ed)?|killed|kill|terminated|interrupted|ctrl\+c|dies|died)\b"
    r"|\b(?:after|when)\b[^.\n]{0,30}?\b(?:crash(?:es|ed)?|exits?|exited|was killed|got killed|died|terminated|"
    r"interrupted)\b[^.\n]{0,40}?\b(?:memory|vram)\b[^.\n]{0,20}?\b(?:is |was |stays? |remains? )?(?:still|not (?:freed|"
    r"released)|never (?:freed|released)|orphaned)\b"
    r"|(?:崩溃|退出|被杀|被kill|中断|结束)(?:了)?(?:之)?后[^，,。；;\n]{0,10}?显存[^，,。；;\n]{0,6}?(?:没有|没|未|仍|还|依然|一直)"
    r"(?:被)?(?:释放|占用|占着)",
    re.IGNORECASE)


def _said_left_by_ended(f: Facts) -> Cause | None:
    """A figureless out-of-memory whose text says memory stayed on the GPU after a process crashed, exited or was
    killed (``_LEFT_BY_ENDED``): what stays is held by a process that still lives; 0.6, above a shortage read from
    nothing (0.45) and a words-said holder (0.55)."""
    m = _LEFT_BY_ENDED.search(f.report.text or "")
    if m is None:
        return None
    platform = f.report.platform
    return Cause(
        id="other_process",
        title=_("Processes that ended badly left memory on the GPU"),
        confidence=0.6,
        evidence=evidence(described_as=m.group(0), deciding_check="other_process",
                          check_command=check_command("other_process", platform)),
        explanation=_("The text says memory stayed on the GPU after a process ended ('{words}'). The driver frees a "
                      "process's memory when the process is gone, so what stays belongs to processes still alive: "
                      "leftover workers or children, a hung process, another process of the container; each run adds "
                      "to it until the next one cannot start.").format(words=m.group(0)),
        fix=_("List what still holds the GPU (nvidia-smi --query-compute-apps=pid,used_memory --format=csv, or "
              "fuser -v /dev/nvidia*) and end those processes (kill the leftover workers of the crashed run); make the "
              "program exit cleanly (join or terminate its worker processes)"),
        checks=[check_line(command=check_command("other_process", platform),
                                                  meaning=i18n._(CHECKS["other_process"].meaning))],
    )


# A message one process of many prints with its own number ("Proc 32: cupy.cuda.memory.OutOfMemoryError ...", "[rank
# 12]:", "rank 12:"), a number that no one node's GPUs reach one to one.
_PROCESS_NUMBER = re.compile(r"(?:^|\n)\s{0,8}\[?\s{0,2}(?:proc(?:ess)?|rank)\s{0,2}(\d{1,6})\s{0,2}\]?\s{0,2}:",
                             re.IGNORECASE)
# Ranks numbered this high run several to a GPU on any node that has at most 8 GPUs, unless they are bound to GPUs.
RANK_BEYOND_NODE = 8
# What one rank held when it failed, at most: far below any GPU a multi-GPU node carries (16 GB and up).
RANK_SMALL_HOLDING_BYTES = 4 * 1024**3


def _rank_crowded(f: Facts) -> Cause | None:
    """A memory pool's own figures (CuPy's "allocated so far") from a process numbered :data:`RANK_BEYOND_NODE` or
    more, whose holding plus the request is under :data:`RANK_SMALL_HOLDING_BYTES`: one rank that small did not fill a
    node's GPU alone; the job's other ranks on the same GPU did (desihub/redrock#235: 64 MPI ranks on four A100s, rank
    32 failing at 2.3 GB, fixed by one GPU process per GPU). 0.6: above the pool's own shortage reading (0.55)."""
    m = _PROCESS_NUMBER.search(f.report.text or "")
    held, req = f.pool_held, f.requested
    if (m is None or int(m.group(1)) < RANK_BEYOND_NODE or f.total is not None or held is None or req is None
            or held + req >= RANK_SMALL_HOLDING_BYTES):
        return None
    platform = f.report.platform
    return Cause(
        id="other_process",
        title=_("The job's other ranks share this GPU"),
        confidence=0.6,
        evidence=evidence(rank=int(m.group(1)), pool_held_bytes=held, requested_bytes=req,
                          deciding_check="other_process", check_command=check_command("other_process", platform)),
        explanation=_("Process {rank} of the job failed holding {held}: far less than a node's GPU. Ranks numbered this "
                      "high run several to one GPU unless each is bound to its own, so the other ranks on that GPU hold "
                      "the rest.").format(rank=m.group(1), held=format_bytes(held)),
        fix=_("Run at most as many GPU processes as the node has GPUs (or bind each rank to its own GPU), and let the "
              "other ranks work on the CPU or wait"),
        checks=[check_line(command=check_command("other_process", platform),
                                                  meaning=i18n._(CHECKS["other_process"].meaning))],
    )


def _possible_holder(f: Facts) -> Cause:
    platform = f.report.platform
    table = _smi_table_holder(f)
    if table is not None:
        return table
    said = _said_left_by_ended(f) or _said_already_held(f)
    if said is not None:
        return said
    if signature.names_distributed_launch(f.report.text or ""):
        return _ranks_on_one_gpu(f)
    small = model_far_below_gpu(f.report.text or "")
    if small is not None:
        billions, weights, gpu = small
        return Cause(
            id="other_process",
            title=_("Another process may hold the GPU"),
            confidence=0.5,
            evidence=evidence(model_parameters_billions=billions, model_weight_bytes=weights, gpu_memory_bytes=gpu,
                              deciding_check="other_process", check_command=check_command("other_process", platform)),
            explanation=_("The text names a model of {billions:g}B parameters, about {weights} of weights in bf16, on a "
                          "GPU of {gpu}: its weights fill under a third of it, and the text names no training. Memory "
                          "that something else holds (another process, or a GPU already in use chosen by mistake) is "
                          "the likelier reading than the model's own need.").format(
                              billions=billions, weights=format_bytes(weights), gpu=format_bytes(gpu)),
            fix=_("Run nvidia-smi: stop the other processes, or check CUDA_VISIBLE_DEVICES (spelled exactly, set before "
                  "the program starts) so that the job runs on the free GPU"),
            checks=[check_line(command=check_command("other_process", platform),
                                                      meaning=i18n._(CHECKS["other_process"].meaning))],
        )
    return Cause(
        id="other_process",
        title=_("Another process may hold the GPU"),
        confidence=0.35,
        evidence=evidence(requested_bytes=f.requested, deciding_check="other_process",
                          check_command=check_command("other_process", platform)),
        explanation=_("The message gives no figure of the GPU's memory: the job's own need and memory held by another "
                      "process (another notebook kernel, a server on the same GPU, the wrong GPU chosen) fail the same "
                      "way, and only the process list tells them apart."),
        fix=_("Run nvidia-smi: stop the other processes or pick a free GPU with CUDA_VISIBLE_DEVICES; if this job is "
              "the only one, lower the batch size"),
        checks=[check_line(command=check_command("other_process", platform),
                                                  meaning=i18n._(CHECKS["other_process"].meaning))],
    )


def _unattributed(f: Facts) -> Cause:
    platform = f.report.platform
    return Cause(
        id="other_process",
        title=_("Another process may hold the GPU"),
        confidence=0.45,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, deciding_check="other_process",
                          check_command=check_command("other_process", platform)),
        explanation=_("The message says only {free} was free for a request of {requested}; it gives neither the "
                      "capacity nor what this process holds, so the memory may be this job's own or another "
                      "process's.").format(free=format_bytes(f.free or 0), requested=format_bytes(f.requested or 0)),
        fix=_("Run nvidia-smi: stop the other processes or pick a free GPU with CUDA_VISIBLE_DEVICES; if this job is "
              "the only one, lower the batch size"),
        checks=[check_line(command=check_command("other_process", platform),
                                                  meaning=i18n._(CHECKS["other_process"].meaning))],
    )


def _held_before_start(f: Facts) -> Cause | None:
    """The GPU was mostly taken before the framework started (module docstring)."""
    total, free = f.report.parsed.get("total_at_start_bytes"), f.report.parsed.get("free_at_start_bytes")
    if not isinstance(total, int) or not isinstance(free, int) or total <= 0 or free >= total / 4:
        return None
    share = (total - free) / total
    return Cause(
        id="other_process",
        title=_("Another process held the GPU before this one started"),
        confidence=0.8,
        evidence=evidence(total_at_start_bytes=total, free_at_start_bytes=free, other_processes_ratio=round(share, 3)),
        explanation=_("When the framework found the GPU, only {free} of {total} was free: {share:.0%} was already "
                      "taken before it allocated anything.").format(free=format_bytes(free), total=format_bytes(total),
                                                                    share=share),
        fix=_("Stop or move the other processes on this GPU (nvidia-smi shows them), or pick a free GPU with CUDA_VISIBLE_DEVICES"),
        more_fixes=[_("Two TensorFlow sessions in one program each map the GPU: close the first one or turn on "
                      "memory growth in both.")],
    )


# TensorFlow's forced runtime initialisation refused with out of memory (_context_refused's docstring).
_TF_CONTEXT_REFUSED = re.compile(r"CUDA runtime implicit initiali[sz]ation on GPU:?\s?\d{1,3} failed\.?\s{1,3}"
                                 r"Status:\s{1,3}out of memory", re.IGNORECASE)


def _context_refused(f: Facts) -> Cause | None:
    """TensorFlow could not create its CUDA context: the GPU was full before this process allocated anything.

    Before it builds any GPU device or allocator, TensorFlow forces the CUDA runtime to initialise on every visible GPU
    (``cudaSetDevice`` then ``cudaFree(nullptr)``, whose only effect is to create the primary context) and fails with
    "CUDA runtime implicit initialization on GPU:N failed. Status: <cudaGetErrorString>"
    (tensorflow/core/common_runtime/gpu/gpu_device.cc, ``BaseGPUDeviceFactory::CreateDevices``, TF 1.5 to 2.x). A
    context takes a few hundred MiB (CUDA C Programming Guide, "Initialization"); "out of memory" there means the
    device had not even that free while this process held nothing: another process holds it (a training job beside
    TensorBoard, other users' applications on a shared server). 0.7: above the shortage read from a bare refusal."""
    r = f.report
    if r.framework != "tensorflow" or _TF_CONTEXT_REFUSED.search(r.text or "") is None:
        return None
    key = "other_process"
    return Cause(
        id="other_process",
        title=_("TensorFlow could not even create its CUDA context: another process holds the GPU"),
        confidence=0.7,
        evidence=evidence(deciding_check=key, check_command=check_command(key, r.platform)),
        explanation=_("TensorFlow initialises the CUDA runtime on each visible GPU before it allocates anything, and "
                      "that initialisation (the CUDA context, a few hundred MiB) ran out of memory: the GPU was "
                      "already full of another process's memory before this job started."),
        fix=_("Run nvidia-smi and stop the other processes on this GPU, or pick a free GPU with CUDA_VISIBLE_DEVICES "
              "(an empty CUDA_VISIBLE_DEVICES for a tool that needs no GPU, such as TensorBoard); then rerun"),
        more_fixes=[_("If the other process is your own TensorFlow job, turn on memory growth there "
                      "(TF_FORCE_GPU_ALLOW_GROWTH=true) so that it does not map the whole GPU.")],
        checks=[check_line(command=check_command(key, r.platform),
                                                 meaning=i18n._(CHECKS[key].meaning))],
    )


def _held_by_others(f: Facts) -> Cause:
    """Memory neither free nor in this process's allocator, far above what one CUDA context holds: another process
    (or a zombie) holds it (:mod:`gpudesk.oom.rules.held_outside`)."""
    assert f.outside is not None and f.total is not None
    others = held_outside.held_by_others_bytes(f) or 0
    key = "other_process"
    return Cause(
        id="other_process",
        title=_("Another process (or a leftover one) holds most of this GPU"),
        confidence=(held_outside.POOL_LARGER_CONFIDENCE
                    if held_outside.pool_outweighs_remainder(f) and not held_outside.others_hold_compute_job(f)
                    else 0.9),
        evidence=evidence(outside_allocator_bytes=f.outside, held_by_others_estimate_bytes=others,
                          other_processes_ratio=round(others / f.total, 3), total_capacity_bytes=f.total,
                          free_bytes=f.free, reserved_bytes=f.reserved, requested_bytes=f.requested,
                          deciding_check=key, check_command=check_command(key, f.report.platform)),
        explanation=_("Of {total}, {outside} is neither free nor held by this process's allocator. This process's "
                      "own memory outside the allocator (CUDA context, cuDNN/cuBLAS) is about {own} at most, so "
                      "about {others} is held by another process: another job or user, a notebook kernel, or a run "
                      "that did not exit.").format(total=format_bytes(f.total), outside=format_bytes(f.outside),
                                                    own=format_bytes(held_outside.OWN_NON_ALLOCATOR_BYTES),
                                                    others=format_bytes(others)),
        fix=_("Find the holder with nvidia-smi (on the host: containers hide other PIDs); stop it, or run on a free "
              "GPU (CUDA_VISIBLE_DEVICES, set before the framework starts)"),
        more_fixes=[_("If nvidia-smi lists no other process, the holder is this process itself: look for NCCL "
                      "buffers or a second framework's pool (JAX/TF/CuPy).")],
        checks=[check_line(command=check_command(key, f.report.platform),
                                                 meaning=i18n._(CHECKS[key].meaning))],
    )
