"""PyTorch caching-allocator OOM messages, every era (oom.md §3.1).

Eras recognised (the tuple/NVML wording is the fingerprint):

1. ``<=1.3``: ``(GPU N; T total capacity; A already allocated; F free; C cached)``
2. ``1.4-1.9``: ``...; R reserved in total by PyTorch)``, sometimes ``(malloc at .../CUDACachingAllocator.cpp:501)``
3. ``1.10-2.0``: the same tuple + "If reserved memory is >> allocated memory try setting max_split_size_mb"
4. ``2.1``: NVML form "GPU N has a total capacty of T of which F is free. Process P has M memory in use.
   Including non-PyTorch memory, this process has U memory in use. Of the allocated memory A is allocated by
   PyTorch, and R is reserved by PyTorch but unallocated." (typo "capacty")
5. ``2.2+``: "capacity", hint ``PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True``
6. ``2.4+``: ", with Z allocated in private pools (e.g., CUDA Graphs),"
7. newest: hint ``PYTORCH_ALLOC_CONF=expandable_segments:True``

Every clause is optional: the message may be truncated (pytorch#126766 stops after "GPU"), wrapped over lines,
prefixed (``[rank2]:``, timestamps, ``OOM: Ran out of memory with exception:``) or carry garbage values
(WSL2/WDDM). A value larger than the total capacity is treated as unknown and noted; the request itself is
kept (a bogus request is evidence of a shape bug).
"""

from __future__ import annotations

import re

from gpudesk.i18n import N_, _
from gpudesk.oom.parsers.hip_apu import apu_capacity
from gpudesk.oom.parsers.units import SIZE, UNIT, to_bytes
from gpudesk.units import format_bytes
from gpudesk.oom.report import DeviceMemory, MemoryReport, ProcessMemory

_START = re.compile(r"(?:(?:CUDA|HIP|XPU|NPU) out of memory|Tried to allocate)", re.I)
_OOM_WORDS = re.compile(r"(?:CUDA|HIP|XPU|NPU) out of memory", re.I)
# set_per_process_memory_fraction adds "N GiB allowed;" after the free clause (c10/cuda/CUDACachingAllocator.cpp).
_ALLOWED = re.compile(SIZE + r"\s+allowed\s*;", re.I)
# NVML's "not available" (2**64 - 1) printed as a size, or any capacity beyond a PiB: not a measurement.
SENTINEL_BYTES = 1024**5
# A free figure this far below 2**64 is a wrapped negative, not NVML's 2**64 - 1 printed with rounding.
WRAPPED_MIN_BYTES = 1024**2
# (A size set in Markdown bold or italics by the user who pasted it, "Tried to allocate **10.36 GiB**": the asterisks are
# the formatting, not the message's; chatchat-space/Langchain-Chatchat#33.)
_REQ = re.compile(r"Tried to allocate\s+(?:\*{1,2}|_{1,2})?" + SIZE, re.I)
_REQ_ANY = re.compile(r"Tried to allocate\s+([^\s(;]+?)\.?(?=[\s(;]|$)", re.I)
_REDACTED = re.compile(r"[xX]{1,6}(?:\.[xX]{1,6})?$")
# A request whose whole part is intact and whose decimals were mangled in the paste ("Tried to allocate 512.— MiB": a
# dash where the "00" stood). PyTorch prints the size with two decimals (c10's format_size), so the whole part is the
# request rounded down: a lower bound, which is enough to weigh it against the free and cached memory.
_REQ_WHOLE_PART = re.compile(r"Tried to allocate\s+(\d{1,9})\.[^\d\s(;]{1,3}\s*" + UNIT + r"\b", re.I)
_DEV_OLD = re.compile(r"\(\s*[GN]PU\s+(\d{1,12})\s*;")
_DEV_NEW = re.compile(r"[GN]PU\s+(\d{1,12})\s+has\s+a\s+total", re.I)
_TOTAL_OLD = re.compile(SIZE + r"\s+total\s+capacity", re.I)
_TOTAL_NEW = re.compile(r"total\s+capaci?ty\s+of\s+" + SIZE, re.I)
# (torch_npu's workspace allocator closes its figures with the free clause: "(NPU 0; 61.27 GiB total capacity; 90.23 MiB
# free)", torch_npu/csrc/core/npu/NPUWorkspaceAllocator.cpp.)
_FREE_OLD = re.compile(r";\s*" + SIZE + r"\s+free\s*[;)]", re.I)
_FREE_NEW = re.compile(r"of\s+which\s+" + SIZE + r"\s+is\s+free", re.I)
_PROC = re.compile(r"Process\s+(\d{1,12})\s+has\s+" + SIZE + r"\s+memory\s+in\s+use", re.I)
_THIS = re.compile(r"this\s+process\s+has\s+" + SIZE + r"\s+memory\s+in\s+use", re.I)
_ALLOC_OLD = re.compile(SIZE + r"\s+already\s+allocated", re.I)
_ALLOC_NEW = re.compile(SIZE + r"\s+is\s+allocated\s+by\s+PyTorch", re.I)
_ALLOC_CUT = re.compile(r"allocated\s+memory\s+" + SIZE + r"\s+is\s+allo", re.I)  # message cut mid-clause
_POOLS = re.compile(r"with\s+" + SIZE + r"\s+allocated\s+in\s+private\s+pools", re.I)
_UNALLOC = re.compile(SIZE + r"\s+is\s+reserved\s+by\s+PyTorch\s+but\s+unallocated", re.I)
# The same clause cut after its figure (meta-llama/llama-cookbook#309 stops at "and 2.51 GiB is reserv"): in every NVML
# era the template puts only this clause after "allocated by PyTorch, and" (2.1-2.3) or after "(e.g., CUDA Graphs), and"
# (2.4+; c10/cuda/CUDACachingAllocator.cpp's OOM report), so the figure there is the reserved-but-unallocated memory.
_UNALLOC_CUT = re.compile(r"(?:allocated\s+by\s+PyTorch|CUDA\s+Graphs\))\s*,?\s+and\s+" + SIZE + r"\s+is\s+res", re.I)
_RESERVED_OLD = re.compile(SIZE + r"\s+reserved\s+in\s+total\s+by\s+PyTorch", re.I)
# Some builds of that era add the inactive-split figure after it ("77.13 MiB cached; 0 bytes inactive)",
# horovod#2719): the cached clause is the same.
_CACHED_OLD = re.compile(SIZE + r"\s+cached\s*(?:\)|;\s*" + SIZE + r"\s+inactive\s*\))", re.I)
_HINT_ENV = re.compile(r"(PYTORCH_(?:CUDA_)?ALLOC_CONF)=([\w:.,\[\]>]+?)(?=\s|$|\.\s)")
_HINT_SPLIT = re.compile(r"try\s+setting\s+max_split_size_mb", re.I)
_RANK = re.compile(r"\[rank\s*(\d{1,12})\]", re.I)
# The exception before the allocator's sentence, whichever device's allocator wrote it: ROCm builds hipify
# CUDACachingAllocator's "CUDA out of memory" into "HIP out of memory"; XPU and Ascend NPU allocators say theirs.
_CLASS = re.compile(r"((?:torch\.)?(?:cuda\.)?OutOfMemoryError|RuntimeError)\s*:\s*(?:CUDA|HIP|XPU|NPU) out of memory",
                    re.I)
_MALLOC_AT = re.compile(r"\(malloc at [^)]*\)")
_CONF_LINE = re.compile(r"(PYTORCH_(?:CUDA_)?ALLOC_CONF)\s*[=:]\s*['\"]?([\w:.,]+(?:,[\w:.]+)*)")

# Less than any CUDA context takes on the device (cuInit + cuCtxCreate reserve a few hundred MiB on current GPUs).
CONTEXT_FLOOR_BYTES = 256 * 1024**2


def _sole_holder(dev: DeviceMemory, total: int | None, free: int | None, own_floor: int | None) -> bool:
    """One listed process holds all the used memory but a CUDA context's worth, and covers what this process's
    allocator holds (``own_floor``, when known): no room is left for the failing process anywhere else."""
    if total is None or free is None or len(dev.other_processes) != 1:
        return False
    used = dev.other_processes[0].used_bytes
    return used is not None and used >= total - free - CONTEXT_FLOOR_BYTES and (own_floor is None or used >= own_floor)


# The caching allocator's figures clause on its own, as a user quotes it without the sentence before it: before
# PyTorch 2.1 "(GPU 0; 15.75 GiB total capacity; 79.11 MiB already allocated; 3.62 MiB free; 86.00 MiB reserved in
# total by PyTorch)", since then "GPU 0 has a total capacity of 8.00 GiB of which 3.90 GiB is free" (the format strings
# of c10/cuda/CUDACachingAllocator.cpp's OOM report in PyTorch 1.x-2.0 and in 2.1 on). Only that allocator
# words its device's capacity this way, so the clause alone is a PyTorch OOM report (Morizeyao/GPT2-Chinese#215).
_FIGURES_CLAUSE = re.compile(r"\(\s*[GN]PU\s+\d{1,12}\s*;\s*" + SIZE + r"\s+total\s+capacity\s*;\s*" + SIZE
                             + r"\s+already\s+allocated|[GN]PU\s+\d{1,12}\s+has\s+a\s+total\s+capaci?ty\s+of\s+"
                             + SIZE + r"\s+of\s+which\s+" + SIZE + r"\s+is\s+free", re.I)


def matches(text: str) -> bool:
    """True when ``text`` holds a PyTorch caching-allocator OOM message (any era, even truncated, or its figures
    clause alone)."""
    return bool(_REQ.search(text) or _OOM_WORDS.search(text) or _FIGURES_CLAUSE.search(text))


def _size(m: re.Match[str] | None, group: int = 1) -> int | None:
    return None if m is None else to_bytes(m.group(group), m.group(group + 1))


def _messages(flat: str) -> list[str]:
    """Every OOM message in the flattened text, each up to the next one (the first with up to 200 characters
    before it, for prefixes such as ``[rank2]: torch.OutOfMemoryError:``)."""
    starts = sorted({m.start() for m in re.finditer(r"(?:CUDA|HIP|XPU|NPU) out of memory|Tried to allocate", flat)})
    merged: list[int] = []
    for s in starts:
        if merged and s - merged[-1] < 40:  # "CUDA out of memory. Tried to allocate" counts once
            continue
        merged.append(s)
    if not merged:
        return [flat]
    bounds = [max(0, merged[0] - 200)] + merged[1:] + [len(flat)]
    return [flat[a:b] for a, b in zip(bounds, bounds[1:])]


def _fatal(messages: list[str]) -> str:
    """The message that ended the run: the last one for the first message's GPU.

    An exception nobody catches ends the process, so an earlier OOM for the same GPU was caught by the program,
    which went on (or retried after emptying the cache: dorado's "Caught Torch error '...', clearing CUDA cache and
    retrying", nanoporetech/dorado#326, whose retry failed with other figures); the later message's figures are what
    the refusal met. Messages for other GPUs (ranks of one job) keep the first as the diagnosed one."""
    first = _DEV_NEW.search(messages[0]) or _DEV_OLD.search(messages[0])
    if first is None or not _REQ.search(messages[0]):
        return messages[0]
    for msg in reversed(messages[1:]):
        dev_m = _DEV_NEW.search(msg) or _DEV_OLD.search(msg)
        if dev_m is not None and dev_m.group(1) == first.group(1) and _REQ.search(msg):
            return msg
    return messages[0]


def _other_gpus(messages: list[str], report: MemoryReport) -> None:
    """Figures of further GPUs from later messages (several ranks in one log), for multi_gpu_imbalance."""
    for msg in messages:
        dev_m = _DEV_NEW.search(msg) or _DEV_OLD.search(msg)
        if dev_m is None or any(d.index == int(dev_m.group(1)) for d in report.devices):
            continue
        dev = report.ensure_device(int(dev_m.group(1)))
        dev.total_bytes = _size(_TOTAL_NEW.search(msg)) or _size(_TOTAL_OLD.search(msg))
        dev.free_bytes = _size(_FREE_NEW.search(msg) or _FREE_OLD.search(msg))
        dev.allocated_bytes = _size(_ALLOC_NEW.search(msg) or _ALLOC_OLD.search(msg))
        dev.process_used_bytes = _size(_THIS.search(msg))
        reserved, unalloc = _size(_RESERVED_OLD.search(msg)), _size(_UNALLOC.search(msg))
        if reserved is not None:
            dev.reserved_bytes = reserved
        elif unalloc is not None and dev.allocated_bytes is not None:
            dev.reserved_bytes = dev.allocated_bytes + unalloc


# A terminal or a text box that wraps at a fixed width breaks a long line inside a word ("0 bytes fre\ne; 796.00 MiB
# reserved", Vegetebird/MHFormer#27; "Includ\ning non-PyTorch memory", qibin0506/llm_trainer#2). A line at least this long
# that ends in a letter, followed by a line that starts with a lower-case letter, is one line cut by the wrap.
HARD_WRAP_MIN_CHARS = 60
_HARD_WRAP = re.compile(r"(?m)^([^\n]{%d,}[A-Za-z])\n(?=[a-z])" % (HARD_WRAP_MIN_CHARS - 1))


def _join_hard_wraps(text: str) -> str:
    """``text`` with the line breaks that a fixed-width wrap put inside a word removed (``_HARD_WRAP``)."""
    return _HARD_WRAP.sub(r"\1", text) if "\n" in text else text


_FIGURE_CLAUSES = (_REQ, _TOTAL_OLD, _TOTAL_NEW, _FREE_OLD, _FREE_NEW, _THIS, _ALLOC_OLD, _ALLOC_NEW, _UNALLOC,
                   _RESERVED_OLD)


def _flatten(text: str) -> str:
    """The text on one line. A wrap that broke a word is joined only where that reads more of the message's figure
    clauses: a text box that wrapped between words ("total capacity\nof 23.64 GiB") is read with the break as a
    space."""
    flat = re.sub(r"\s+", " ", text)
    joined_text = _join_hard_wraps(text)
    if joined_text == text:
        return flat
    joined = re.sub(r"\s+", " ", joined_text)
    read = sum(c.search(flat) is not None for c in _FIGURE_CLAUSES)
    return joined if sum(c.search(joined) is not None for c in _FIGURE_CLAUSES) > read else flat


def parse(text: str, report: MemoryReport) -> bool:
    """Fill ``report`` from the first PyTorch OOM message in ``text`` (later messages for other GPUs add those
    GPUs' figures); False when there is none."""
    if report.kind in ("mps_oom", "pytorch_allowed_memory") or not matches(text):
        return False  # a platform-specific parser already read this message
    flat = _flatten(text)
    messages = _messages(flat)
    msg, count = _fatal(messages), len(messages)
    report.framework = "pytorch"
    if report.kind == "unknown" or not report.kind.startswith(("vllm_", "sglang_", "trtllm_", "tgi_", "ggml_")):
        report.kind = "pytorch_oom"
    if re.search(r"\bHIP out of memory|PYTORCH_HIP_ALLOC_CONF|HIP Graphs", msg):
        report.platform = "rocm"
    elif re.search(r"\bXPU out of memory", msg):
        report.platform = "xpu"
    elif re.search(r"\bNPU out of memory", msg):
        report.platform = "npu"  # torch_npu's port of the caching allocator prints the same message (Ascend)
    elif re.search(r"\bCUDA out of memory", msg):
        report.platform = "cuda"
    parsed = report.parsed
    if count > 1:
        parsed["oom_messages"] = count
        report.notes.append(_("The text holds {count} OOM messages; the first one is diagnosed, the others add "
                              "their GPUs' figures.").format(count=count))

    requested = _size(_REQ.search(msg))
    whole_part = _REQ_WHOLE_PART.search(msg) if requested is None else None
    if whole_part is not None:
        requested = _size(whole_part)
        parsed["requested_is_lower_bound"] = 1
        report.notes.append(_("The requested size's decimals are garbled ('{text}'); its whole part, {size}, is read "
                              "as the request (at least that much).").format(
                                  text=whole_part.group(0)[len("Tried to allocate"):].strip(),
                                  size=format_bytes(requested or 0)))
    dev_m = _DEV_NEW.search(msg) or _DEV_OLD.search(msg)
    device_index = int(dev_m.group(1)) if dev_m else None
    total = _size(_TOTAL_NEW.search(msg)) or _size(_TOTAL_OLD.search(msg))
    free_m = _FREE_NEW.search(msg) or _FREE_OLD.search(msg)
    free = _size(free_m)
    this_proc = _size(_THIS.search(msg))
    allocated = _size(_ALLOC_NEW.search(msg) or _ALLOC_OLD.search(msg) or _ALLOC_CUT.search(msg))
    pools = _size(_POOLS.search(msg))
    unalloc = _size(_UNALLOC.search(msg) or _UNALLOC_CUT.search(msg))
    reserved_total = _size(_RESERVED_OLD.search(msg))
    cached = _size(_CACHED_OLD.search(msg))
    procs = [(int(m.group(1)), to_bytes(m.group(2), m.group(3))) for m in _PROC.finditer(msg)]
    allowed = _size(_ALLOWED.search(msg))
    nvml_form = bool(_DEV_NEW.search(msg) or _FREE_NEW.search(msg) or _ALLOC_NEW.search(msg) or _UNALLOC.search(msg))

    # Era.
    hint_env = _HINT_ENV.search(msg)
    if cached is not None:
        era = "<=1.3 (cached)"
    elif reserved_total is not None:
        era = "1.10-2.0 (reserved + max_split_size_mb hint)" if _HINT_SPLIT.search(msg) else "1.4-1.9 (reserved in total)"
        if _MALLOC_AT.search(msg):
            era = "1.5-1.6 (reserved in total, malloc at)"
    elif re.search(r"total\s+capacty", msg, re.I):
        era = "2.1 (NVML, 'capacty')"
    elif pools is not None:
        era = "2.4+ (NVML, private pools)"
    elif hint_env and hint_env.group(1) == "PYTORCH_ALLOC_CONF":
        era = "newest (PYTORCH_ALLOC_CONF hint)"
    elif nvml_form:
        era = "2.2+ (NVML)"
    else:
        era = None
    report.era = era
    cls = _CLASS.search(msg)
    if cls:
        parsed["exception_class"] = cls.group(1)
    rank = _RANK.search(msg)
    if rank:
        parsed["rank"] = int(rank.group(1))
    if hint_env:
        report.alloc_conf_hint = f"{hint_env.group(1)}={hint_env.group(2)}"
    elif _HINT_SPLIT.search(msg):
        report.alloc_conf_hint = "max_split_size_mb"
    conf = _CONF_LINE.search(re.sub(r"try setting PYTORCH_\w+=\S+", "", flat))
    if conf:
        for item in conf.group(2).split(","):
            if ":" in item:
                key, _sep, value = item.partition(":")
                report.alloc_conf[key.strip()] = value.strip()

    # Garbage values (WSL2/WDDM): anything above the total capacity is unknown.
    if total is not None and total >= SENTINEL_BYTES:
        report.notes.append(_("The total capacity reads {total}: NVML's 'not available' value (2^64 bytes, "
                              "WSL/WDDM), not a measurement; treated as unknown.").format(total=format_bytes(total)))
        parsed["sentinel_total"] = 1
        total = None
    if free is not None and free >= SENTINEL_BYTES and 2**64 - free >= WRAPPED_MIN_BYTES:
        # Free computed as total - used in unsigned 64-bit arithmetic wraps round when the driver counts more in use
        # than the total it reports ("512.00 MiB of which 17179869183.96 GiB is free" on a ROCm APU,
        # YanWenKun/ComfyUI-Docker#54: 2**64 bytes less 0.04 GiB): nothing is free. NVML's "not available" is
        # 2**64 - 1 exactly, which prints as 17179869184.00 GiB.
        report.notes.append(_("The free memory reads {free}: a count that wrapped below zero (more in use than the "
                              "total); read as nothing free.").format(free=format_bytes(free)))
        parsed["free_wrapped_below_zero"] = 1
        free = 0
    if free is not None and free >= SENTINEL_BYTES:
        report.notes.append(_("The free memory reads {free}: NVML's 'not available' value; treated as "
                              "unknown.").format(free=format_bytes(free)))
        free = None
    # HIP on an APU: free may exceed the carve-out total
    total = apu_capacity(report, total, free, (allocated or 0) + (unalloc or 0) if reserved_total is None
                         else reserved_total)
    if total == 0:
        report.notes.append(_("The total capacity reads 0 bytes (a garbage value, as under WSL2/WDDM); treated as "
                              "unknown."))
        total = None

    def sane(name: str, value: int | None) -> int | None:
        if value is not None and total is not None and value > total:
            if name == _("The allocated memory"):
                # Kept aside: tensors beyond the capacity are either garbage or memory the driver spilled to the
                # host (Windows/WSL sysmem fallback); the sysmem_fallback rule tells them apart.
                report.parsed["allocated_beyond_capacity_bytes"] = value
            report.notes.append(_("{name} ({value}) is larger than the total capacity ({total}); treated as "
                                  "unknown.").format(name=name, value=format_bytes(value),
                                                     total=format_bytes(total)))
            return None
        return value

    free = sane(_("The free memory"), free)
    this_proc = sane(_("This process's memory"), this_proc)
    allocated = sane(_("The allocated memory"), allocated)

    report.requested_bytes = requested
    report.device_index = device_index
    dev = report.ensure_device(device_index)
    dev.total_bytes = total
    dev.free_bytes = free
    dev.allocated_bytes = allocated
    dev.private_pool_bytes = pools
    dev.process_used_bytes = this_proc
    dev.allowed_bytes = allowed
    if allowed is not None:
        parsed["allowed_bytes"] = allowed
    if reserved_total is not None:
        dev.reserved_bytes = sane("reserved", reserved_total)
    elif cached is not None:
        dev.reserved_bytes = sane("cached", (allocated or 0) + cached) if allocated is not None else None
        parsed["cached_bytes"] = cached
    elif unalloc is not None and allocated is not None:
        dev.reserved_bytes = allocated + unalloc
    for pid, used in procs:
        used_ok = sane(f"Process {pid}", used)
        dev.other_processes.append(ProcessMemory(pid=pid, used_bytes=used_ok, gpu_index=device_index))
    # PID namespaces (SA-ConvLSTM#22, Colab): without the "this process" clause, the Process line whose memory
    # covers PyTorch's reserved memory (and at most 3 GiB more: context + libraries) is this process under
    # its host PID.
    # Without the reserved figure (a message cut after "allocated by PyTorch"), the allocated memory is the floor.
    own_floor = dev.reserved_bytes if dev.reserved_bytes is not None else dev.allocated_bytes
    own = [] if this_proc is not None or own_floor is None else [
        p for p in dev.other_processes
        if p.used_bytes is not None and own_floor <= p.used_bytes <= own_floor + 3 * 1024**3]
    if len(own) == 1:
        own[0].is_target = True
        dev.process_used_bytes = own[0].used_bytes
        report.notes.append(_(
            "Process {pid} is taken to be this process seen under its host PID (container or other PID "
            "namespace): its memory covers PyTorch's reserved memory."
        ).format(pid=own[0].pid))
    elif this_proc is None and _sole_holder(dev, total, free, own_floor):
        # No allocator figures (a message cut short, vllm#1949), or more than 3 GiB outside the allocator (CUDA
        # graphs, NCCL, another library of this process: worker-vllm#40, 6.6 GiB beyond PyTorch's reserved memory
        # while capturing): the process that raised the error holds at least its CUDA context (a few hundred MiB),
        # so a single listed process that accounts for all the used memory but CONTEXT_FLOOR_BYTES leaves it none
        # elsewhere: it is this process under its host PID.
        only = dev.other_processes[0]
        only.is_target = True
        dev.process_used_bytes = only.used_bytes
        report.notes.append(_(
            "Process {pid} is taken to be this process seen under its host PID (container or other PID "
            "namespace): it holds all the used memory, leaving none for the process that raised the error."
        ).format(pid=only.pid))

    for name, value in (
        ("requested_bytes", requested),
        ("total_capacity_bytes", total),
        ("free_bytes", free),
        ("this_process_bytes", this_proc),
        ("allocated_bytes", allocated),
        ("private_pools_bytes", pools),
        ("reserved_unallocated_bytes", unalloc),
        ("reserved_bytes", dev.reserved_bytes),
    ):
        if value is not None:
            parsed[name] = value
    if device_index is not None:
        parsed["device_index"] = device_index
    if procs:
        parsed["other_processes_bytes"] = sum(u for _pid, u in procs)
        parsed["other_processes_count"] = len(procs)
        for pid, used in procs:
            parsed[f"process_{pid}_bytes"] = used

    _other_gpus(messages[1:], report)

    # What is missing, so a partial result says so.
    missing = report.missing
    unreadable = _REQ_ANY.search(msg) if requested is None else None
    if requested is None:
        missing.append(N_("requested size ('Tried to allocate ...')"))
    if unreadable is not None and _REDACTED.match(unreadable.group(1)):
        # The figures replaced by the reporter's placeholders ("xxx GiB", "x.xx GiB"): a whole message with its numbers
        # hidden, not a garbled one.
        parsed["request_redacted"] = 1
    if unreadable is not None:
        report.notes.append(_(
            "The requested size reads '{text}' (redacted or garbled); the diagnosis uses the "
            "other clauses (capacity, allocated, free, reserved)."
        ).format(text=unreadable.group(1)))
    if device_index is None:
        missing.append(N_("GPU index"))
    if total is None:
        missing.append(N_("total capacity"))
    if free_m is None:
        missing.append(N_("free memory"))
    if allocated is None:
        missing.append(N_("allocated by PyTorch"))
    if dev.reserved_bytes is None:
        missing.append(N_("reserved by PyTorch"))
    if nvml_form and this_proc is None and "this process" not in msg:
        missing.append(N_("this process's memory ('Including non-PyTorch memory, this process has ...')"))
        report.notes.append(
            (_("The per-process clause is missing: amdsmi could not match this process (a container with its own "
               "PID namespace, an APU, or no amdsmi). A 'Process P' line may be this process under its host PID.")
             if procs else
             _("The per-process clause is missing: amdsmi could not match this process (a container with its own "
               "PID namespace, an APU, or no amdsmi)."))
            if report.platform == "rocm" else
            (_("The per-process clause is missing: NVML could not match this process (Windows/WDDM, a container "
               "with its own PID namespace, or no NVML). A 'Process P' line may be this process under its host PID.")
             if procs else
             _("The per-process clause is missing: NVML could not match this process (Windows/WDDM, a container "
               "with its own PID namespace, or no NVML)."))
        )
    if total is None and requested is not None and re.search(r"Tried to allocate\s+\S+\s+\S+?\.\s*GPU\s*$", msg.strip()):
        report.notes.append(_("The message is cut off right after 'GPU' (pytorch#126766); only the request is "
                              "known."))
    return True
