"""One tolerant extraction layer for any out-of-memory text (issue 28).

The named parsers read the formats that carry more (PyTorch's message and ``memory_summary``, vLLM's
profile, TensorFlow's BFC dump, MPS); every other wording is read here, by what its words mean rather than by
an exact sentence per engine:

* figures: the request ("tried/trying/attempting to allocate", "allocation of size", "requested buffer of size",
  "allocating N MiB on device", "Requested amount of GPU memory (N bytes)", "you tried to allocate",
  "calloc N bytes", "request for", MindSpore's "alloc size : N", Gaudi's "Allocation failed for size::N"), the capacity ("total capacity", "HBM capacity", "of N hbm", "Device limit",
  "(total N bytes)", "N bytes total", "total memory reported", MindSpore's "total mem size : N", ggml's "(N MiB, M MiB free)"), what is free,
  what is in use and a limit, in any unit the runtimes print (bytes with or without the word, thousands
  separators, KiB..EiB, XLA's ``G``/``M``, ggml's ``MiB``; all binary, as :mod:`.units` explains; "more than
  1EB" is PyTorch's way of printing a size it cannot format);
* where: the backend (CUDA, ROCm/HIP, Metal/MPS, Vulkan, TPU, DirectML, CPU) and the runtime that printed it
  (:func:`detect_runtime`), the MIG profile of the GPU (``1g.10gb``: a slice, not the whole GPU);
* how it got there: the traceback frames (``File "...", line N, in func`` and C++ frames), so that a capture
  inside ``torch.cuda.graph`` / ``make_graphed_callables`` / vLLM's ``capture_model`` reads as CUDA-graph
  memory.

Every pattern is bounded (numbers of at most 20 digits, gaps of at most a few characters), so a pasted log of
any length is scanned in linear time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpudesk.oom import limit_words, need_have
from gpudesk.oom.parsers import pool_status
from gpudesk.oom.parsers.units import MAX_DIGITS
from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_

_UNITS = {
    "": 1, "b": 1, "byte": 1, "bytes": 1,
    "k": 1024, "kb": 1024, "kib": 1024,
    "m": 1024**2, "mb": 1024**2, "mib": 1024**2, "mbyte": 1024**2,
    "g": 1024**3, "gb": 1024**3, "gib": 1024**3, "gbyte": 1024**3,
    "t": 1024**4, "tb": 1024**4, "tib": 1024**4,
    "p": 1024**5, "pb": 1024**5, "pib": 1024**5,
    "e": 1024**6, "eb": 1024**6, "eib": 1024**6,
}
# A number (thousands separators "25,600,000" or a decimal "14.48" / "14,48") and an optional unit. A digit run that
# continues a hexadecimal literal (an address such as "0x55d4c3a2b000", whose "2b" would read as two bytes) is none:
# no digit, hexadecimal letter, "x", point or comma may precede it (a hexadecimal size is read whole, in decimal, by
# ``_decimal_hex_sizes``).
_NUM = r"(?<![\da-fA-FxX.,])(\d{1,3}(?:,\d{3}){1,6}(?![\d.])|\d{1,20}(?:[.,]\d{1,20})?(?![\d]))"
_UNIT = r"(bytes?|[KMGTPE]i?B|[KMGTPE](?![a-zA-Z])|B(?![a-zA-Z]))?"
_SIZE = _NUM + r"\s{0,2}" + _UNIT
# Same, unit required (a bare number after "free" or "total" is too often something else).
_SIZE_U = _NUM + r"\s{0,2}" + r"(bytes?|[KMGTPE]i?B|[KMGTPE](?![a-zA-Z])|B(?![a-zA-Z]))"


def _bytes(number: str, unit: str | None) -> int | None:
    """A size in bytes; None for a number that is not one (too long, not finite, or a fraction with no unit: bytes
    are whole, so "Tried to allocate 1.5" at the end of a cut-off message lost its unit and says no size)."""
    digits = number.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", number) else number.replace(",", ".")
    if len(digits) > 2 * MAX_DIGITS + 1:
        return None
    try:
        value = float(digits)
    except ValueError:
        return None
    factor = _UNITS.get((unit or "").lower())
    if factor is None or (not unit and not value.is_integer()):
        return None
    return round(value * factor)


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# Wordings that close their figure with words or a unit ("Allocation of size ::N failed!", "Device memory allocation
# of size N failed.", CubeCL's "... to reserve N bytes."): one whose figure ends the text was cut inside it
# (``_cut_figure``). Others end on their figure (ONNX Runtime's "Failed to allocate memory for requested buffer of
# size N").
_ALLOCATION_OF_SIZE = _c(r"(?:memory )?allocation of size(?:\s{1,3}|\s{0,2}::?\s{0,2})" + _SIZE)
_CUBECL_POOL_REQUEST = _c(r"\bno memory pool big enough to (?:reserve|alloc(?:ate)?)\s{1,3}" + _SIZE)
_CLOSED_FIGURE = (_ALLOCATION_OF_SIZE, _CUBECL_POOL_REQUEST)

# Each role's wordings; group 1 = number, group 2 = unit (absent = bytes).
_REQUEST = [
    # A buffer's length checked against a per-buffer limit (Metal's debug layer, MTLDebugDevice's "Buffer Validation":
    # "newBufferWith*:length 0x86004000 must not exceed 2048 MB", the length in bytes, printed in hexadecimal and read
    # as decimal by ``_decimal_hex_sizes``; llama.cpp#6861).
    _c(r"\blength\s{0,2}[=:]?\s{0,2}" + _NUM + r"\s{0,2}(bytes?)?\s{0,3}(?:must not|may not|cannot|can't|does not|shall not)"
       r"\s{1,3}exceed\b"),
    _c(r"(?:tried|trying|attempting|attempt|attempted) to (?:allocate|reserve)\s{1,3}(?:more than\s{1,3})?" + _SIZE),
    # A tensor's size against its buffer type's maximum (gpudesk.oom.limit_words.TENSOR_OVER_BUFFER_MAX), in bytes.
    _c(r"\bis too large for (?:the )?\w{1,20} buffer\s{0,2}:\s{0,3}" + _SIZE + r"(?=\s{0,3}>)"),
    # PyTorch's expandable segments mapping more of a segment (CUDACachingAllocator.cpp's warning, see _TOTAL):
    # "expandable_segments: memory mapping failed with OOM on device 0 while trying to map 20971520 bytes".
    _c(r"memory mapping failed with OOM on device\s{0,2}\d{0,3}\s{1,3}while trying to map\s{1,3}" + _SIZE),
    _c(r"allocat\w{0,5} (?:memory )?for requested buffer of size\s{1,3}" + _SIZE),
    # (Also with Habana's "::" before the figure (fifty-seventh pass): SynapseAI's graph helper refusing a graph's
    # workspace, "FATAL ERROR :: MODULE:SYNHELPER workspace Allocation of size ::14493510400 failed!", in bytes, the
    # same "MODULE:... size::N" style as the PT bridge's PT_DEVMEM line below; HabanaAI/Model-References#10.)
    _ALLOCATION_OF_SIZE,
    # CubeCL's memory manager finding no pool whose largest slice covers the request (cubecl-runtime
    # src/memory_management/dynamic.rs, DynamicMemoryManagement::reserve / alloc, tracel-ai/cubecl at 88a693f5:
    # "No memory pool big enough to reserve {size} bytes.", size against each pool option's slice_max_size).
    _CUBECL_POOL_REQUEST,
    # PaddlePaddle's CPU allocator after a refused posix_memalign (system_allocator.cc, AlignedMalloc: "Alloc N
    # error!", N in bytes; signatures ``host_ram``).
    _c(r"\balloc\s{1,3}" + _SIZE + r"\s{1,3}error!"),
    # (Not XLA's pool created at start, "XLA backend allocating N bytes on device 0 for BFCAllocator."
    # (xla/pjrt/gpu/gpu_helpers.cc, CreateBFCAllocator): that is the preallocated pool, memory_fraction of the device,
    # not a request that failed; elixir-nx/EXLA, georgeguimaraes/soothsayer#6.)
    _c(r"(?<!backend )allocating\s{1,3}" + _SIZE + r"\s{1,3}on device(?!\s{0,3}\d{0,3}\s{1,3}for\s{1,3}bfc)"),
    _c(r"requested amount of (?:gpu )?memory\s{0,2}\(\s{0,2}" + _SIZE),
    _c(r"request(?:ed)? for\s{1,3}" + _SIZE),
    _c(r"out of memory (?:to )?allocat\w{0,5}\s{1,3}" + _SIZE),
    _c(r"you tried to allocate\s{1,3}" + _SIZE),
    _c(r"calloc\s{1,3}" + _SIZE),
    _c(r"requested size was\s{1,3}" + _SIZE),
    _c(r"buffer of size\s{1,3}" + _SIZE),
    _c(r"\bfor (?:a |the )?buffer of\s{1,3}" + _SIZE_U),
    _c(r"not available to allocate (?:a )?buffer\s{0,2}:\s{0,3}" + _SIZE),  # MIOpen (OOM_WORDS)
    # OpenVINO's GPU plugin (src/plugins/intel_gpu/src/runtime/ocl/ocl_engine.cpp): "[GPU] Exceeded max size of memory
    # object allocation: requested N bytes, but max alloc size supported by device is M bytes" and "[GPU] Exceeded max
    # size of memory allocation: Required N bytes, already occupied : U bytes, but available memory size is T bytes".
    _c(r"\b(?:requested|required)\s{1,3}" + _SIZE + r",\s{0,3}(?:but|already)"),
    _c(r"\bbuffer size\s{1,3}\(?" + _SIZE + r"\)?\s{1,3}(?:is greater than|exceeds)"),  # wgpu-core's, Dawn's
    # (Sixty-third pass) An OpenCL program naming the size it passed to clCreateBuffer beside the refusal: "CL_INVALID_
    # BUFFER_SIZE when calling clCreateBuffer with buffer size 2986344448", in bytes (see OPENCL_BUFFER_SIZE_REFUSED).
    _c(r"\bwith (?:a )?buffer size\s{0,2}(?:of\s{1,3}|[=:]\s{0,3})?" + _SIZE),
    # IREE's HAL (runtime/src/iree/hal/drivers/vulkan/vma_allocator.cc, native_allocator.cc): "failed to allocate buffer
    # of length N", N in bytes (iree#13516).
    _c(r"allocate buffer of length\s{1,3}" + _SIZE),
    _c(r"allocating\s{1,3}" + _SIZE + r"-byte buffer"),
    # The request as an adjective before its noun: "so the 4294967296-byte request fails" (CHIP-SPV/chipStar#1186).
    _c(_NUM + r"-(bytes?)\s{1,3}(?:request|allocation)\b"),
    _c(r"could not allocate tensor with\s{1,3}" + _SIZE),
    _c(r"\bsize\s{1,3}" + _SIZE + r"\s{1,3}is larger than"),
    _c(r"\brequested\s{0,3}:\s{0,3}" + _SIZE),
    _c(r"\brequested bytes of\s{1,3}" + _SIZE),  # ONNX Runtime's arena limit (signatures ``arena_limit``)
    # "Requested N MB" as a field of the error, its unit required (CatBoost's GPU memory pool, catboost/cuda/cuda_lib/
    # memory_pool/stack_like_memory_pool.h: "Error: Out of memory. Requested 8880 MB; Free 5902.061425 MB").
    # (Also at the start of a quote: a user pasting the pair in backticks or quotes, catboost/catboost#1081.)
    _c(r"(?:^|[;,.(`'\"]\s{0,3}|\s)requested\s{1,3}" + _SIZE_U),
    # XGBoost's device allocator (src/common/device_helpers.cuh, ThrowOOMError): a list under the error, "- Free memory:
    # F" and "- Requested memory: R", in bytes when no unit follows (dmlc/xgboost#7140, #8484; GB in 2.x, #11457).
    _c(r"(?m)^\s{0,4}-\s{0,2}requested memory\s{0,2}:\s{0,3}" + _SIZE),
    _c(r"(?:failed to|could not|couldn't|cannot|can't|unable to) (?:allocate|alloc|reserve)\s{1,3}" + _SIZE_U),
    _c(r"needed\s{1,3}" + _SIZE + r",\s{0,2}available"),
    # A failed cudaMalloc named with its buffer and size, under cudaMemGetInfo's figures (GrinGoldMiner's solver:
    # "cudaMalloc failed buffer A 4GB!", below "Currently available amount of device memory: N bytes", _FREE).
    _c(r"\bmalloc failed\s{1,3}(?:for\s{1,3})?(?:buffer\s{1,3}\w{1,3}\s{1,3})?" + _SIZE_U),
    # MindSpore's dynamic allocator (mem_dynamic_allocator.cc): "... plus alloc size : N is more than total mem size"
    _c(r"plus alloc size\s{0,3}:\s{0,3}" + _SIZE),
    # Intel Gaudi's PyTorch bridge (habana_frameworks): "MODULE:PT_DEVMEM Allocation failed for size::N (M)MB"
    _c(r"allocation failed for size\s{0,2}::?\s{0,2}" + _SIZE),
    # PaddlePaddle's legacy GPU allocator (paddle/fluid/memory/detail/system_allocator.cc, GPUAllocator::Alloc):
    # "Cannot malloc 49.0002 MB GPU memory. Please shrink FLAGS_fraction_of_gpu_memory_to_use ..."
    _c(r"(?:cannot|can't|failed to|unable to) (?:c|re)?malloc\s{1,3}" + _SIZE_U),
    # Paddle's GpuMaxChunkSize check (paddle/fluid/platform/gpu_info.cc, PADDLE_ENFORCE_LE(allocating, available,
    # "Insufficient GPU memory to allocation.")): "received allocating:20998686233 > available:19587333888".
    _c(r"\ballocating\s{0,2}:\s{0,2}" + _SIZE + r"\s{0,3}>\s{0,3}available"),
    # DyNet's CPU allocator (dynet/mem.cc, CPUAllocator::malloc): "CPU memory allocation failed n=N align=A".
    _c(r"\bmemory allocation failed n=\s{0,2}" + _SIZE),
    # Its 2017 form (paddle/platform/gpu_info.cc, no message): "enforce allocating <= available failed, A > F"; a
    # month earlier the check was strict, PADDLE_ENFORCE_LT, printed "enforce allocating < available failed, A >= F"
    # (fifty-eighth pass, PaddlePaddle/Paddle#6265).
    _c(r"allocating <=? available failed,\s{0,3}" + _SIZE + r"\s{0,3}>"),
    _c(r"allocation of\s{1,3}" + _SIZE_U + r"(?:\s{1,3}\w{1,12}){0,3}\s{1,3}failed"),
    # Chinese wordings (PaddlePaddle/MindSpore docs, localised tools): "无法分配 512 MB", "需要 2.5 GB", "申请 1 GB";
    # 已分配 ("already allocated") is the in-use figure, not the request.
    _c(r"(?:无法分配|分配失败|申请|需要|尝试分配|(?<!已)分配)\s{0,3}" + _SIZE_U),
    # A need stated as such, last (the wordings above say more): "requires 20.5 GiB but only ...", "needs 12 GB",
    # "need 6442450944 bytes", "512 MiB needed".
    _c(r"\b(?:requires|needs|need)\s{1,3}(?:at least\s{1,3})?" + _SIZE_U),
    # An Ethash miner's DAG, the one device buffer it allocates for an epoch (ethminer's CUDAMiner::initEpoch_internal
    # cudaMalloc of the DAG, libethcore/EthashAux; the size grows by 8 MiB per epoch, past 4 GiB near epoch 380), as the
    # miners log it before the allocation: Phoenix Miner "Allocating DAG (3.33) GB" (NiceHashMiner#1857), lolMiner
    # "size of new DAG: 4184 MByte" (lolMiner-releases#271), ethminer "Generating DAG + Light : 3.14 GB" (DAG and light
    # cache together; ethminer#1891 pastes it as "DAG _ Light").
    _c(r"\ballocating dag\s{0,3}\(\s{0,2}" + _NUM + r"\s{0,2}\)\s{0,2}" + _UNIT),
    _c(r"\bsize of (?:the\s{1,3})?(?:new\s{1,3})?dag\s{0,3}:\s{0,3}" + _SIZE_U),
    _c(r"\bgenerating dag\b[^\n:]{0,12}:\s{0,3}" + _SIZE_U),
    _c(_SIZE_U + r"\s{1,3}(?:is\s{1,3})?(?:needed|required)\b"),
]
_TOTAL = [
    _c(r"total capacity of\s{1,3}" + _SIZE_U),
    _c(r"total mem size\s{0,3}:\s{0,3}" + _SIZE),  # MindSpore: device memory its allocator may use
    _c(r"total capacty of\s{1,3}" + _SIZE_U),
    _c(_SIZE_U + r"\s{1,3}total capacity"),
    _c(r"hbm capacity\s{0,3}" + _SIZE_U),
    _c(r"\bof\s{1,3}" + _SIZE_U + r"\s{1,3}hbm"),
    _c(r"device limit\s{0,3}:\s{0,3}" + _SIZE_U),
    # "N total", but not the host's "N total CPU memory" (vLLM's swap-space check, vllm/config.py
    # CacheConfig.verify_with_parallel_config): the host's RAM is no device capacity (gpudesk.oom.need_have places it).
    _c(_SIZE_U + r"\s{1,3}total\b(?!\s{1,3}(?:cpu|system|host)\s{1,3}memory\b|\s{1,3}(?:ram|swap)\b)"),
    _c(r"total memory(?: reported)?\s{0,3}:?\s{0,3}" + _SIZE),
    # cudaMemGetInfo's figures as a widespread CUDA sample prints them: "Total amount of device memory: N bytes".
    _c(r"total amount of device memory\s{0,2}:\s{0,3}" + _SIZE),
    # lolMiner's device table, one "Memory: N MByte" row per card (the device's memory; lolMiner-releases#271).
    re.compile(r"^\s{0,12}memory:\s{1,6}" + _NUM + r"\s{0,2}(MByte|GByte)s?\s{0,3}$", re.IGNORECASE | re.MULTILINE),
    _c(r"\(\s{0,2}" + _SIZE_U + r",\s{0,3}" + _NUM + r"\s{0,2}(?:MiB|GiB|MB|GB)\s{1,3}free\s{0,2}\)"),
    # PyTorch's caching allocator logging a refused cudaMalloc (or, with expandable segments, a refused mapping) as a
    # warning, "[W... CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device 5 while trying to
    # allocate 671088640 bytes (free: 513736704, total: 85095874560)" (c10/cuda/CUDACachingAllocator.cpp; the "W" of
    # c10's log prefix is a warning): the device's free and total memory, in bytes.
    _c(r"while trying to (?:allocate|map)\s{1,3}\d{1,20}\s{1,3}bytes\s{0,3}\(free:\s{0,2}\d{1,20},\s{0,3}total:\s{0,2}"
       + _SIZE + r"\)"),
]
_FREE = [
    _c(r"of which\s{1,3}" + _SIZE_U + r"\s{1,3}is free"),
    # PaddlePaddle's allocator (paddle/fluid/memory/allocation/cuda_allocator.cc, PADDLE_THROW_BAD_ALLOC): "Out of
    # memory error on GPU 0. Cannot allocate 27.000000MB memory on GPU 0, 10.906372GB memory has been allocated and
    # available memory is only 4.062500MB."; its GpuMaxChunkSize check: "allocating:A > available:F".
    _c(r"available memory is(?: only)?\s{1,3}" + _SIZE_U),
    _c(r">\s{0,3}available\s{0,2}:\s{0,2}" + _SIZE),
    _c(r"allocating <=? available failed,\s{0,3}\d{1,20}\s{0,3}>=?\s{0,3}" + _SIZE),
    # Paddle's legacy allocator (legacy_allocator.cc): "Cannot allocate 196.000000MB in GPU 0, available 1.214539GB"
    # (ggml's "(needed N, available M)" is a pool limit, read in _LIMIT).
    _c(r",\s{0,3}available\s{1,3}" + _SIZE_U + r"(?!\s{0,2}\))"),
    # 剩余/可用/空闲 "remaining/available/free", 仅为/只有 "only": "可用内存仅为0.000000B".
    _c(r"(?:剩余|可用|空闲)(?:显存|内存)?\s{0,2}[:：]?\s{0,2}(?:仅为|只有|仅|为)?\s{0,3}" + _SIZE_U),
    _c(r"there (?:are|is)\s{1,3}" + _SIZE_U + r"\s{1,3}free"),
    _c(r"(?m)^\s{0,4}-\s{0,2}free memory\s{0,2}:\s{0,3}" + _SIZE),  # XGBoost's list, above (_REQUEST)
    _c(r"free memory\s{0,3}:\s{0,3}" + _SIZE_U),
    _c(r"available amount of device memory\s{0,2}:\s{0,3}" + _SIZE),  # the same sample's free figure
    # "Free N MB" as a field after the request (CatBoost, above: "Requested 8880 MB; Free 5902.061425 MB").
    _c(r"[;,]\s{0,3}free\s{1,3}" + _SIZE_U),
    _c(r"free \(according to cuda\)\s{0,3}:\s{0,3}" + _SIZE_U),
    _c(r",\s{0,3}" + _SIZE_U + r"\s{1,3}free\s{0,2}\)"),
    # The size and the word on one line: "Total memory: 12.00GiB\nFree memory: 496.40MiB" (TensorFlow's device
    # discovery) is a total above a free label, not 12 GiB free.
    _c(_SIZE_U + r"[ \t]{1,3}free\b"),
    _c(r"\bonly\s{1,3}" + _SIZE_U + r"\s{1,3}(?:is\s{1,3}|are\s{1,3})?(?:available|free)\b"),
    # PyTorch's caching allocator warning (above, _TOTAL).
    _c(r"while trying to (?:allocate|map)\s{1,3}\d{1,20}\s{1,3}bytes\s{0,3}\(free:\s{0,2}" + _SIZE + r",\s{0,3}total:"),
    # A program's own report of the device's free memory as a labelled field, the device named between the words
    # (sixty-fifth pass): "Free Intel GPU memory BEFORE: 32155.87 MiB" (a one-allocation test of sycl::malloc_device,
    # the free figure from Level Zero's zesMemoryGetState / sycl::ext::intel::info::device::free_memory, printed
    # before the allocation; intel/compute-runtime#998), "Free GPU memory: N MiB".
    _c(r"\bfree\s{1,3}(?:[a-z]{1,12}\s{1,3}){1,3}memory(?:\s{1,3}(?:before|now|left))?\s{0,3}:\s{0,3}" + _SIZE_U),
]
_IN_USE = [
    _c(_SIZE_U + r"\s{1,3}already allocated"),
    _c(_SIZE_U + r"\s{1,3}memory has been allocated"),  # PaddlePaddle (cuda_allocator.cc, above)
    _c(r"已分配\s{0,3}" + _SIZE_U),  # the same in Chinese: "已分配11.999512 GB内存"
    _c(r"TotalUsedMemStatistics\s{0,3}:\s{0,3}" + _SIZE),  # MindSpore: bytes its allocator has handed out
    _c(r"currently allocated\s{0,3}:?\s{0,3}" + _SIZE_U),
    _c(r"already occupied\s{0,3}:\s{0,3}" + _SIZE),  # OpenVINO's GPU plugin (see _REQUEST)
    _c(r"allocated so far\s{0,3}:\s{0,3}" + _SIZE),
    # CuPy: "out of memory to allocate N bytes (total M bytes)": M is what its memory pool holds, not the GPU.
    _c(r"\(total\s{1,3}" + _SIZE + r"\)"),
    _c(r"\bused\s{1,3}" + _SIZE_U + r"\s{1,3}of\s{1,3}" + _NUM),
]
# An allocator pool's own figures (CuPy's ``SingleDeviceMemoryPool``, cupy/cuda/memory.pyx ``OutOfMemoryError``,
# https://github.com/cupy/cupy): "allocated so far: A" is what the pool holds before this request, live blocks
# and cached free ones alike (``_total_bytes``); the older "(total T bytes)" is the request plus that
# (``total = size + total_bytes()``); "limit set to: L" is the pool's cap (``set_limit`` /
# ``CUPY_GPU_MEMORY_LIMIT``).
_POOL_HELD = _c(r"allocated so far\s{0,3}:\s{0,3}" + _SIZE)
_POOL_HELD_WITH_REQUEST = _c(r"\(total\s{1,3}" + _SIZE + r"\)")
_POOL_LIMIT = _c(r"limit set to\s{0,3}:\s{0,3}" + _SIZE)
# "Exceeded hbm capacity by N" (XLA:TPU) and a runtime's own fit check in any tense ("... and exceeds total capacity by
# 5706MB", mistral.rs's device mapper, mistralrs-core/src/device_map.rs; mistral.rs#2127).
_EXCEEDED = _c(r"exceed(?:s|ed)?\s{1,3}(?:the\s{1,3})?(?:total\s{1,3}|hbm\s{1,3})?capacity\s{1,3}by\s{1,3}" + _SIZE_U)
# XLA:TPU's compile-time out-of-memory report lists the program's largest buffers ("Largest program allocations in
# hbm:" then "1. Size: 32.00G", each with "Unpadded size: U" and "Extra memory due to padding: P (Nx expansion)"). The
# first entry is the largest single buffer; the padding is the TPU's tiled layout, which rounds an array's two minor
# dimensions up to multiples of 8 and 128 (cloud.google.com/tpu/docs/performance-guide, "Tensor dimensions padding").
_LARGEST_PROGRAM_ALLOCATION = _c(r"largest program allocations in\s{1,3}\w{1,12}\s{0,3}:?\s{0,12}1\.\s{0,3}size\s{0,3}:\s{0,3}"
                                 + _SIZE_U)
_PADDING = _c(r"extra memory due to padding\s{0,3}:\s{0,3}" + _SIZE_U)
# XLA:TPU's out-of-memory report in the compiler's and the TPU runtime's own words (libtpu; the report is quoted whole in
# public threads, e.g. sokrypton/ColabFold#62, erfanzar/EasyDeL#166, and openxla/xla docs/errors/error_0101.md):
# * the compile-time breakdown printed under "Ran out of memory in memory space hbm. Used A of B hbm": "Total hbm usage
#   >= T:" then "reserved R", "program P", "arguments A" (the persistent inputs: parameters, optimizer state), then
#   "Program hbm requirement P:" ("HLO temp": the program's temporaries). It is printed only when the program does not
#   fit, so the breakdown alone, as users often quote it, is the out-of-memory report, and T is what the step needs;
# * the runtime's load-time refusal "Attempting to reserve N at the bottom of memory. That was not possible. There are
#   F free, R reserved, and V reservable": the program's N against the V that is left of the core's HBM.
_TPU_HBM_USAGE = _c(r"total\s{1,3}hbm\s{1,3}usage\s{0,3}>=?\s{0,3}" + _SIZE_U)
_TPU_HBM_PART = re.compile(r"^[ \t]{0,40}(reserved|program|arguments)[ \t]{1,40}" + _SIZE_U + r"[ \t]{0,40}$", re.I | re.M)
_TPU_RESERVE = _c(r"attempting to reserve\s{1,3}" + _SIZE_U + r"\s{1,3}at the (?:bottom|top) of memory\.?\s{0,3}"
                  r"that was not possible\.?(?:\s{0,3}there (?:are|is)\s{1,3}" + _SIZE_U + r"\s{1,3}free)?")
# The same refusal's last figure, the largest piece the reservation could take ("... and 3.53G reservable"; openxla/xla
# docs/errors/error_0101.md: free HBM sufficient in aggregate but not one contiguous block is HBM fragmentation).
_TPU_RESERVABLE = _c(r"that was not possible\.?[^\n]{0,120}?\band\s{1,3}" + _SIZE_U + r"\s{1,3}reservable\b")
# The TPU runtime's refusal of one buffer with its two figures of free memory: "Could not allocate N bytes in memory
# 0x0x0_HBM0; A bytes allocatable, F bytes available" (jax-ml/jax#14304): F the core's free HBM in all, A the largest
# piece the allocator can hand out in one block. A < N <= F is the fragmentation case of openxla/xla
# docs/errors/error_0101.md ("sufficient in aggregate, ... not available in a single, contiguous block").
_TPU_ALLOCATABLE = _c(r"could not allocate\s{1,3}" + _SIZE_U + r"\s{1,3}in memory\s{1,3}[^;\n]{1,60};\s{0,3}" + _SIZE_U
                      + r"\s{1,3}allocatable,\s{0,3}" + _SIZE_U + r"\s{1,3}available\b")
# XLA:TPU's memory spaces besides HBM: a kernel's vector and scalar scratchpads ("Ran out of memory in memory space
# vmem / smem"), whose size is fixed per core and set by the kernel's block sizes, not by the model's memory.
_TPU_MEMORY_SPACE = _c(r"(?:ran out of memory in memory space\s{1,3}|\bspace\s{0,2}=\s{0,2})(hbm|vmem|smem|cmem|sflag)\b")
# TensorFlow's device discovery line (core/common_runtime/gpu/gpu_device.cc, "Found device N with properties"):
# TF1 "totalMemory: 3.94GiB freeMemory: 187.62MiB", older "Total memory: 7.92GiB" / "Free memory: 190.31MiB". It is
# logged before TensorFlow creates its allocator, so the free figure is what other processes left on the GPU.
_START_MEMORY = _c(r"total ?memory:\s{0,3}" + _SIZE_U + r"\s{1,3}free ?memory:\s{0,3}" + _SIZE_U)
# (Sixty-third pass) The same reading as other programs print it when they set up on a device, before they allocate:
# gpu-burn's "Initialized device 0 with 3956 MB of memory (117 MB available, using 105 MB of it)" (cudaMemGetInfo's
# free and total, printed by its GPU_Test constructor before it allocates its result buffers; wilicc/gpu-burn
# gpu_burn-drv.cpp), groups 1-2 total, 3-4 free; and a worker's "Available memory: 0, total memory: 65452113920" in
# bytes (groups 1-2 free, 3-4 total), read only with the pair together on one line.
_SETUP_MEMORY = _c(r"\bdevice\s{1,3}\d{1,3}\s{1,3}with\s{1,3}" + _SIZE_U + r"\s{1,3}of\s{1,3}memory\s{0,2}\(\s{0,2}"
                   + _SIZE_U + r"\s{1,3}available\b")
_AVAILABLE_THEN_TOTAL = _c(r"\bavailable memory\s{0,2}[:=]\s{0,3}" + _SIZE + r"\s{0,2},\s{0,3}total memory\s{0,2}[:=]"
                           r"\s{0,3}" + _SIZE + r"(?![\d.])")
_LIMIT = [
    _c(r"\bmust not exceed\s{1,3}" + _SIZE_U),  # the limit of the same check (see _REQUEST)
    # A tensor against its buffer type's maximum size, in bytes (gpudesk.oom.limit_words.TENSOR_OVER_BUFFER_MAX).
    _c(r"\bis too large for (?:the )?\w{1,20} buffer\s{0,2}:\s{0,3}\d{1,20}\s{0,3}>\s{0,3}" + _SIZE),
    _c(r"maximum allowed buffer size of\s{1,3}" + _SIZE),
    _c(r"buffer maximum of\s{1,3}" + _SIZE),
    _c(r"greater than the maximum buffer size\s{0,2}\(\s{0,2}" + _SIZE),
    _c(r"max alloc(?:able)? (?:memory )?size (?:supported by (?:the )?device )?is\s{1,3}" + _SIZE),  # OpenVINO
    _c(r"max buffer size limit\s{0,2}\(\s{0,2}" + _SIZE),
    _c(r"with size larger than\s{1,3}" + _SIZE),  # a runtime's own per-allocation limit (intel/ipex-llm#11248)
    # The same limit stated (signatures ``_STATED_ALLOCATION_LIMIT``: Level Zero's maxMemAllocSize and its kin).
    _c(r"\b(?:max(?:imum)?\s{1,3}(?:memory\s{1,3})?alloc(?:ation)?\s{1,3}size|(?:per[- ]|single[- ])?allocation\s{1,3}"
       r"(?:size\s{1,3})?limit)\s{0,3}(?:is|of|=|:)\s{0,3}" + _SIZE_U),
    _c(r"\bmemory limit\s{0,3}:\s{0,3}" + _SIZE),
    _c(r"\bavailable\s{1,3}" + _SIZE + r"\s{0,2}\)"),
    # A region planned ahead (TVM's Relax VM: "attempted to allocate N at offset 0 in region that is M bytes").
    _c(r"\bin (?:a |the )?region (?:that is|of size|of)\s{0,2}" + _SIZE),
]
# A program's own configured memory ceiling refusing a load before anything is allocated: the size and the setting's
# value side by side, "Model 'NAME' (10.20GB) exceeds max-model-memory (8.00GB)" (oMLX, an MLX model server, checks a
# model's size against its max-model-memory setting before loading it). Group 1-2: the size; group 3: the setting's
# name (a word with "memory" or "limit" in it); group 4-5: the setting's value.
CONFIGURED_CEILING = _c(r"\(\s{0,2}" + _SIZE_U + r"\s{0,2}\)\s{0,3}exceeds?\s{1,3}(?:the\s{1,3})?"
                        r"([a-z][\w -]{0,40}?(?:memory|limit)[\w-]{0,20})\s{0,3}\(\s{0,2}" + _SIZE_U + r"\s{0,2}\)")
# The same check during a run, the process's memory against the server's own ceiling: "Prefill force-stopped at 1441
# tokens: memory 42.8GB exceeds ceiling 42.0GB" (oMLX's process memory enforcer, jundot/omlx#1522). Same groups.
CONFIGURED_CEILING_RUNNING = _c(r"\bmemory\s{1,3}" + _SIZE_U + r"\s{0,3}exceeds?\s{1,3}(?:the\s{1,3})?"
                                r"((?:memory\s{1,3})?(?:ceiling|limit|cap))\s{0,3}:?\s{0,3}" + _SIZE_U + r"(?![\w.])")
# The same check before a step, the step's estimated peak against the ceiling: "Prefill would require ~70.27 GB peak
# (current 67.54 GB + KV+SDPA 2.73 GB) but metal_cap ceiling is 69.86 GB. Raise kernel iogpu.wired_limit_mb" (oMLX's
# prefill guard, jundot/omlx#1998: the ceiling is macOS's GPU wired-memory limit, sysctl iogpu.wired_limit_mb). Same
# groups. (Fifty-seventh pass: the guard's wording without the ceiling's name, "Prefill would require ~62.21 GB peak
# (current 54.71 GB + KV+SDPA 7.51 GB) but ceiling is 60.00 GB (usage 54.7 GB, ceiling 60.0 GB)" (jundot/omlx#1794,
# wrapped by its client and read unwrapped by gpudesk.oom.parsers.detect): the same refusal by the program's own
# ceiling.)
CONFIGURED_CEILING_REQUIRED = _c(r"\b(?:would\s{1,3})?requires?\s{1,3}~?\s{0,2}" + _SIZE_U
                                 + r"[^\n]{0,160}?\bbut\s{1,3}"
                                 r"(?:the\s{1,3})?((?:[a-z][\w-]{0,40}\s{1,3})?(?:ceiling|limit|cap))\s{1,3}is\s{1,3}~?"
                                 r"\s{0,2}" + _SIZE_U + r"(?!\w)")
# TensorRT's builder (``IBuilder`` autotuning): "Skipping tactic N due to insufficient memory on requested size of S
# detected for tactic T" (older builds spell it "insuficient"). S is the workspace one tactic asked for, in one piece,
# up to the workspace limit the build set (``IBuilderConfig::setMemoryPoolLimit(kWORKSPACE, ...)``,
# ``setMaxWorkspaceSize`` before TensorRT 8.4; TensorRT Developer Guide, "The Build Phase").
_TACTIC_WORKSPACE = _c(r"skipping tactic.{0,120}?insuf{1,2}icient memory on requested size of\s{1,3}" + _SIZE)
# TensorRT 8.6-9's builder logs the same refusal a line earlier with its units: "Tactic Device request: 16512MB
# Available: 12281MB. Device memory is insufficient to use tactic." and then "Skipping tactic 0 due to insufficient
# memory on requested size of 16512 detected ..." with the figure in MB and no unit (TensorRT-LLM 0.5-0.7 builds on
# TensorRT 9, NVIDIA/TensorRT-LLM#85 and #910). The device request is the tactic's scratch in one piece; "Available"
# is what the device had free for it beside the network being built. TensorRT's MB are 2**20 bytes.
_TACTIC_DEVICE_REQUEST = _c(r"tactic device request:\s{0,3}" + _NUM + r"\s{0,2}(MB)\s{0,3}available:\s{0,3}" + _NUM
                            + r"\s{0,2}(MB)\b[^\n]{0,20}device memory is insuf{1,2}icient")
# A size below zero: "negative size", "allocate -N", and an allocator's running count printed as "allocation of -N b"
# (TCLB's cudaMalloc wrapper, src/cross.cu in https://github.com/CFD-GO/TCLB: "Cumulative allocation of -24577536 b
# (18446744073.7 GB)", its signed total wrapped round as unsigned; TCLB#496).
_NEGATIVE = _c(r"(?:negative (?:capacity|size)\s{0,3}:?\s{0,3}|allocate\s{1,3}|allocation of\s{1,3})-(\d{1,20})")

# Words that mark a text as being about a failed allocation (lower-cased substrings).
OOM_WORDS = (
    "out of memory", "outofmemory", "out_of_memory", "out-of-memory", "not enough memory", "failed to allocate", "failed to alloc",
    "resource_exhausted", "resource exhausted", "insufficient memory", "erroroutofdevicememory",
    "out_of_device_memory", "cannot allocate", "can't allocate", "could not be allocated", "could not allocate",
    # The passive in the present tense, as a user or a wrapper reports the refusal ("memory cannot be allocated",
    # LMCache#1051's reporter).
    "cannot be allocated", "can't be allocated",
    "allocation on device", "not enough gpu", "memory allocation", "device allocation error", "out of resource",
    "cudaerrormemoryallocation", "alloc_failed", "greater than the maximum allowed buffer",
    "larger than buffer maximum", "unable to allocate", "oom when allocating", "ran out of memory",
    "not enough space", "out of device memory", "negative capacity", "result=2 ", "malloc failed", "malloc fails",
    # OpenCL, DirectML/Windows, oneAPI/SYCL and HIP names for the same failure.
    "cl_mem_object_allocation_failure", "cl_out_of_resources", "cl_out_of_host_memory", "e_outofmemory",
    "0x8007000e", "out_of_device_memory", "hiperroroutofmemory", "out_of_host_memory",
    # SYCL's plug-in interface (PI_ERROR_OUT_OF_RESOURCES, Intel's oneAPI runtime), Vulkan's VkResult -2
    # (VK_ERROR_OUT_OF_DEVICE_MEMORY) printed as a number, Metal/MPS's single-buffer limits (PyTorch's
    # MPSAllocator.mm "Invalid buffer size", MPSNDArray's "total bytes of NDArray > 2**32"), and TensorFlow's copy to
    # a GPU tensor it could not allocate ("Dst tensor is not initialized", common_runtime/gpu/gpu_util.cc).
    "out_of_resources", "invalid buffer size", "total bytes of ndarray",
    # OpenCL's CL_MEM_OBJECT_ALLOCATION_FAILURE (-4, Khronos CL/cl.h) as PyOpenCL names it, without the prefix
    # ("pyopencl._cl.MemoryError: clEnqueueWriteBuffer failed: MEM_OBJECT_ALLOCATION_FAILURE"); Vulkan's
    # VK_ERROR_OUT_OF_HOST_MEMORY (-1, vulkan_core.h VkResult) as vulkan.hpp names it ("ErrorOutOfHostMemory") or as
    # a number after the allocation call, which the spec lets vkAllocateMemory return beside -2 (numbers read whole by
    # limit_words.vulkan_memory_result, so that -10, VK_ERROR_TOO_MANY_OBJECTS, is not read as -1).
    "mem_object_allocation_failure", "erroroutofhostmemory",
    # LMDeploy TurboMind's engine cutting session_len to what its KV-cache blocks hold ("`session_len` truncated to N
    # due to limited KV cache memory", src/turbomind/engine/engine.cc, https://github.com/InternLM/lmdeploy).
    "due to limited kv cache memory",
    "product of dimension sizes >",
    # MIOpen's HIP handle (src/hip/handlehip.cpp, Handle::Create / AllocateBuffer: "Memory not available to allocate
    # buffer: N", N in bytes), the workspace of ROCm's convolutions; the kubelet's event for a kernel OOM kill.
    "memory not available to allocate", "system oom encountered",
    # The operating systems' own codes for a failed allocation, named by the code alone: Windows' ERROR_NOT_ENOUGH_MEMORY
    # (8) and ERROR_OUTOFMEMORY (14, whose HRESULT is E_OUTOFMEMORY 0x8007000E above; learn.microsoft.com "System Error
    # Codes (0-499)") and POSIX's ENOMEM (errno 12), which GPU kernel drivers return for a refused buffer as well.
    "error_not_enough_memory", "error_outofmemory", "enomem",
    "dst tensor is not initialized",
    # The same failure in Chinese, as Chinese-language tools and users word it: video memory ("显存") or memory
    # ("内存") short ("不足"), overflowing ("溢出"), blown ("爆显存"), or an allocation that failed ("分配失败"); glibc's
    # zh_CN text of ENOMEM, "无法分配内存" (cannot allocate memory).
    "显存不足", "显存不够", "显存溢出", "爆显存", "显存爆", "显存分配失败", "内存不足", "内存不够", "内存溢出", "内存爆",
    "内存分配失败", "无法分配内存",
    # MindSpore's device memory pool ("Device(id:0) memory isn't enough and alloc failed, ... alloc size: NB").
    "memory isn't enough", "memory is not enough",
    # Intel Gaudi's PyTorch bridge, MindSpore's allocator and the Ascend CANN runtime (EL0004).
    "allocation failed for size", "is more than total mem size", "memory resources are exhausted",
    # PaddlePaddle (system_allocator.cc "Cannot malloc", gpu_info.cc "Insufficient GPU memory to allocation",
    # memory::allocation::BadAlloc), C++'s std::bad_alloc spelled as a class, and Chinese wordings: 显存 is GPU
    # memory, 内存 memory, 不足 "insufficient", 溢出 "overflow", 分配失败 "allocation failed".
    "cannot malloc", "insufficient gpu memory", "badalloc", "bad_alloc", "显存不足", "内存不足", "显存溢出", "内存溢出",
    "分配失败", "无法分配",
    # More of Chinese-speaking users' own words: 显存占满 / 显存满了 / 显存已满 (GPU memory full), 显存放不下 / 显存装不下
    # (does not fit in GPU memory); and the Japanese and Korean words for a memory shortage (メモリ不足, メモリが足りない,
    # 메모리 부족, 메모리가 부족).
    "显存占满", "显存满了", "显存已满", "显存放不下", "显存装不下",
    # GPU resources short: "报GPU资源不足" (THUDM/CogVLM#109).
    "gpu资源不足", "gpu 资源不足", "显卡资源不足",
    # The verb before the noun: "溢出显存" / "爆了显存" ("overflowed the GPU memory", jingyaogong/minimind#522).
    "溢出显存", "爆了显存",
    # The English counterpart of 爆显存 (video memory "blown"): memory that "explodes" or "blew up" ("GPU RAM exploding
    # on validation ... the GPU memory explode after some iterations", leftthomas/SRGAN#43).
    "memory explod", "ram explod", "memory blew up", "memory blows up", "memory blow up",
    "メモリ不足", "メモリが足りな", "メモリー不足", "메모리 부족", "메모리가 부족",
    # ONNX Runtime's BFC arena at its configured limit ("Available memory of A is smaller than requested bytes of R").
    "smaller than requested bytes",
    # (Fifty-ninth pass) ggml's Metal backend once the buffers it has allocated pass the GPU's working set
    # (MTLDevice.recommendedMaxWorkingSetSize, derived from the unified memory): it prints each buffer as "(allocated /
    # recommended)" in MiB and then "warning: current allocated size is greater than the recommended max working set
    # size" (ggml-org/llama.cpp at 291f1e28106fb1ca844bb6f7439c3d15b9f6d14f, ggml/src/ggml-metal/ggml-metal.m,
    # ``ggml_backend_metal_log_allocated_size``, as quoted by the code search). Past it Metal pages the GPU's memory
    # out or fails the command buffer; the model and its buffers do not fit (llama.cpp#5206: 26062.74 of 8176 MiB on
    # an Intel Mac, "the GPU does not have enough memory to offload the entire model", offload fewer layers).
    "greater than the recommended max working set size",
    # (Sixtieth pass) PyTorch's cuDNN convolution when no algorithm's workspace could be had: the algorithm search
    # (aten/src/ATen/native/cudnn/Conv_v7.cpp, AlgoIterator::try_all, https://github.com/pytorch/pytorch) tries each
    # candidate cuDNN returns, allocating its workspace through the caching allocator and skipping it on
    # c10::OutOfMemoryError, then fails "Unable to find a valid cuDNN algorithm to run convolution"; onnxruntime's CUDA
    # convolution words its own search the same way (ORT_ENFORCE in its AlgoIterator). With the GPU nearly full no
    # workspace fits (DiffBIR#59: the maintainer, "GPU memory is not enough", 11 GB needed on an 8 GB card); a
    # cuDNN that does not support the GPU ends the same way, so it is a figureless shortage, not more.
    "unable to find a valid cudnn algorithm to run convolution",
    # The failure named as a noun or with a shortened verb: AWS Neuron's runtime (nrt_tensor_allocate status=4
    # message="Allocation Failure", NRT_RESOURCE; "NERR_RESOURCE ... unable to allocate a resource"), TVM's "storage
    # allocation failure", Jittor's "Unable to alloc cuda device memory" (src/mem/allocator/cuda_device_allocator.cc).
    "allocation failure", "unable to alloc", "nerr_resource", "nrt_resource",
    # A runtime's own check of the model against the devices before it allocates (mistral.rs: "This model does not
    # fit on the devices").
    "does not fit on the device", "doesn't fit on the device",
    # TensorFlow's class for an allocation its allocator refused (tensorflow/python/framework/errors_impl.py
    # ResourceExhaustedError, error code RESOURCE_EXHAUSTED), named alone when a notebook shows only the traceback's
    # head (keras#14032), and PaddlePaddle's, which reuses the name (paddle/phi/core/enforce.h, ResourceExhausted).
    "resourceexhaustederror",
    # PaddlePaddle's CPUAllocator (system_allocator.cc): "Fail to alloc memory of N size, error code is 12".
    "fail to alloc memory of",
    # OpenVINO's GPU plugin (src/plugins/intel_gpu/src/runtime/ocl/ocl_engine.cpp): "[GPU] out of GPU resources", and
    # its own check of the device's memory ("[GPU] Exceeded max size of memory allocation").
    "out of gpu resources", "exceeded max size of memory allocation",
    # llama.cpp's report that llama_init_from_model (llama_new_context_with_model before 2025) returned no context
    # ("failed to create context with model '%s'", common/common.cpp; Ollama's runner prints it before it exits): the
    # context's KV cache and compute buffers, sized by n_ctx and the parallel slots, could not be allocated
    # (src/llama-context.cpp, https://github.com/ggml-org/llama.cpp).
    "failed to create context with model",
    # C++'s std::bad_alloc as MSVC's runtime words its what() ("bad allocation"; libstdc++ says "std::bad_alloc"):
    # ONNX Runtime and other C++ libraries pass it on as their status message.
    "bad allocation",
    # (Sixty-third pass) A program's own "<buffer> allocation failed" (cpuminer's "scrypt buffer allocation failed" after
    # malloc returned NULL; signatures ``host_ram`` reads it as the host's memory where no device is named).
    "buffer allocation failed",
    # (Sixty-third pass) Xcode's alert when iOS's jetsam ends an app over its memory limit (signatures ``host_ram``).
    "because it is using too much memory", "because it was using too much memory",
    # transformers' bitsandbytes quantizers refuse a device map that put modules off the GPU
    # (transformers/quantizers/quantizer_bnb_4bit.py and quantizer_bnb_8bit.py, validate_environment: "Some modules are
    # dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model."): with
    # device_map="auto", accelerate's infer_auto_device_map places on the CPU or disk whatever the GPU's free memory
    # cannot hold, so the refusal says the quantized model did not fit the GPU (unslothai/unsloth#1629).
    "some modules are dispatched on the cpu or the disk",
    # TensorFlow.js's WebGL backend refusing a texture whose width or height is above the GL context's
    # MAX_TEXTURE_SIZE (tfjs-backend-webgl/src/webgl_util.ts, validateTextureSize: "Requested texture size [WxH]
    # greater than WebGL maximum on this browser / GPU [MxM]", https://github.com/tensorflow/tfjs at 0fc04d95): one
    # tensor's texture could not be allocated (signatures ``buffer_limit``).
    "greater than webgl maximum",
    # Tenstorrent's per-core L1 (signatures ``shared_memory``): a program's circular buffers that do not fit it.
    "beyond max l1 size", "clash with l1 buffers", "required l1 memory usage",
)

# A CUDA math library's allocation failure printed as its status number (the numbering of cusparse.h and
# cusolver_common.h: *_STATUS_ALLOC_FAILED = 2; cublas_api.h: CUBLAS_STATUS_ALLOC_FAILED = 3): DGL's "CUSPARSE ERROR: 2"
# (dmlc/dgl#2548), "cuSOLVER status 2".
LIBRARY_ALLOC_STATUS = re.compile(r"\b(?:cusparse|cusolver)(?:\s{1,2}|_)(?:error|status)\s{0,2}[:=]?\s{0,2}(?:code\s{0,2})?2\b|"
                                  r"\bcublas(?:\s{1,2}|_)(?:error|status)\s{0,2}[:=]?\s{0,2}(?:code\s{0,2})?3\b",
                                  re.IGNORECASE)

# A CUDA status printed as its number: 2 is out of memory in both CUDA APIs (runtime ``cudaErrorMemoryAllocation = 2``,
# driver ``CUDA_ERROR_OUT_OF_MEMORY = 2``; CUDA Runtime API reference, "Data types: cudaError"; Driver API reference,
# "CUresult"). Extensions that check their own calls print the number alone: spconv's "cuda execution failed with error
# 2" (the TV_CHECK_CUDA_ERR macro of the tensorview headers bundled with spconv and mmdet3d, which prints
# ``cudaGetLastError()`` as an integer), "CUDA error 2", "CUDA error code: 2". "cuda" must come first on the line and
# the number stand alone ("error 20", "error 2.1" are not read). No figure comes with it: the job's size first.
CUDA_ALLOC_STATUS = re.compile(r"\bcuda\b[^\n]{0,40}?\berror(?:\s{1,3}code)?\s{0,3}[:=#]?\s{0,3}2(?![\d.])", re.IGNORECASE)

# A CUDA allocation call named as the one that failed, in a program's own wrapper words: "Unable to cudaMallocPitch"
# (DeepFactors' CUDAException, jczarnowski/DeepFactors#2: GPU buffers that grow with the keyframes), "cudaMalloc3D
# failed". The runtime's allocation entry points (cudaMalloc, cudaMallocPitch, cudaMalloc3D, cudaMalloc3DArray,
# cudaMallocArray, cudaMallocAsync, cudaMallocFromPoolAsync; the driver's cuMemAlloc, cuMemAllocPitch: CUDA Runtime API
# reference, "Memory Management"; Driver API reference, "Memory Management") fail for want of device memory
# (cudaErrorMemoryAllocation) in all but misuse, so the failing call is the out-of-memory itself, with no figure.
# Host-side calls (cudaMallocHost, cudaMallocManaged) are left to the pin_memory / managed_memory signatures.
CUDA_ALLOC_CALL_FAILED = re.compile(
    r"\b(?:unable to|could not|couldn't|cannot|can't|failed to)\s{1,3}(?:call\s{1,3})?"
    r"(?:cudaMalloc(?:Pitch|3D(?:Array)?|Array|Async|FromPoolAsync)?|cuMemAlloc(?:Pitch)?(?:_v2)?)\b"
    r"|\b(?:cudaMalloc(?:Pitch|3D(?:Array)?|Array|Async|FromPoolAsync)|cuMemAlloc(?:Pitch)?(?:_v2)?)\b"
    r"(?:\(\))?\s{0,3}(?:failed|error)\b",
    re.IGNORECASE)

# A failed check on Direct3D 12's allocating calls (sixty-fourth pass): CreateCommittedResource "creates both a resource
# and an implicit heap, such that the heap is big enough to contain the entire resource" (CreatePlacedResource places
# one in a heap the caller made), and returns E_OUTOFMEMORY "if there is insufficient memory to create the resource"
# (learn.microsoft.com, ID3D12Device::CreateCommittedResource, Return value). A DirectML / D3D12 program's status check
# on that call ("CHECK failed: ((HRESULT)(d3d_device->CreateCommittedResource(...)) >= 0)", microsoft/DirectML#281)
# is the device allocation failing, with no figure; the rules rank it as a figureless shortage.
D3D12_ALLOC_CHECK_FAILED = re.compile(
    r"\bcheck failed\b[^\n]{0,120}?\bCreate(?:Committed|Placed)Resource\b"
    r"|\bCreate(?:Committed|Placed)Resource\b(?:\(\))?\s{0,3}failed\b", re.IGNORECASE)

# A runtime's own status check printing the allocation status by number (fifty-seventh pass), where no other word says
# memory:
# * CUDA's status 2 (cudaErrorMemoryAllocation, above) in a glog/Caffe2 equality check against cudaSuccess: Caffe's
#   CUDA_CHECK, CHECK_EQ(error, cudaSuccess) prints "Check failed: error == cudaSuccess (2 vs. 0)", Caffe2's
#   CAFFE_ENFORCE_EQ "error == cudaSuccess. 2 vs 0" (caffe2/core/context_gpu.cu; facebookarchive/caffe2#1936);
# * cuFFT's status 2 against CUFFT_SUCCESS: cufftResult CUFFT_ALLOC_FAILED = 0x2, "cuFFT failed to allocate GPU or CPU
#   memory" (cufft.h; cuFFT API reference, "cufftResult"), "cufftPlanMany(...) == CUFFT_SUCCESS (2 vs. 0)"
#   (gy20073/compact_bilinear_pooling#21), or the status named;
# * nnabla's error for an allocation of its Memory class: Exception::what is "<code> error in <function>" then the file
#   and "<type> allocation failed." (src/nbla/exception.cpp, Memory::alloc in src/nbla/memory/memory.cpp with
#   error_code::memory; sony/nnabla at 2814df0d): "memory error in alloc" (sony/NDJIR#5).
# * CubeCL's memory manager refusing a request no configured pool can hold (_REQUEST, signatures ``buffer_limit``).
# * (Fifty-eighth pass) darknet's (AlexeyAB fork's) advice printed when a cudaMalloc of a layer's array returns anything
#   but cudaSuccess, before CHECK_CUDA reports the status: " Try to set subdivisions=64 in your cfg-file. " (AlexeyAB/
#   darknet at 59596d7880f6504768df41d6daa586f5cb2b932f, src/dark_cuda.c cuda_make_array / cuda_make_int_array /
#   cuda_make_array_pointers); pasted on its own beside "CUDA status Error: file: ./src/dark_cuda.c" when the status
#   line is left out (pjreddie/darknet#2146). A failed cudaMalloc of a network's buffers is the allocation failure.
# * (Fifty-eighth pass) OpenCL's status -4, CL_MEM_OBJECT_ALLOCATION_FAILURE ("#define CL_MEM_OBJECT_ALLOCATION_FAILURE
#   -4", KhronosGroup/OpenCL-Headers at 15b536b7fbe1098cea462a27db496b287ac89b63, CL/cl.h), printed as a number after
#   the OpenCL call that returned it: "sa-solver clEnqueueNDRangeKernel (-4) error" (mbevand/silentarmy#59: the solver's
#   hash tables larger than the card), "clCreateBuffer returned -4", "clEnqueueWriteBuffer failed: -4". Only -4: -5
#   (CL_OUT_OF_RESOURCES) is as often a kernel's launch resources, and other numbers are not memory.
# The number must be the status compared with success (2 against 0), not a count elsewhere on the line.
RUNTIME_ALLOC_STATUS = re.compile(
    r"==\s{0,2}cudaSuccess\s{0,2}[.(]\s{0,2}2\s{1,3}vs\.?\s{1,3}0\b"
    r"|==\s{0,2}CUFFT_SUCCESS\s{0,2}[.(]\s{0,2}2\s{1,3}vs\.?\s{1,3}0\b|\bCUFFT_ALLOC_FAILED\b"
    r"|\bmemory error in alloc(?:_impl)?\b|\bno memory pool big enough to (?:reserve|alloc)"
    r"|\btry to set subdivisions=64 in your cfg-file\b"
    # Kaldi's allocator before 2018 retrying a refused cudaMallocPitch (gpudesk.oom.rules.exclusive_mode).
    r"|\ballocation of \d{1,12} x \d{1,12} region failed: freeing some memory\b"
    r"|\b(?-i:cl[A-Z][A-Za-z]{3,40})\s{0,2}(?:\(\s{0,2}\)\s{0,2})?(?:\(\s{0,2}-4\s{0,2}\)|[:,]?\s{0,2}(?:failed|returned|error|err)"
    r"\s{0,2}(?:with\s{1,3})?(?:code\s{1,3})?[:=(]?\s{0,2}-4)(?![\d.])", re.IGNORECASE)

# (Sixty-sixth pass) Fragments that are a failed allocation by where they are printed, though no failure word is left:
# * ggml's buffer-type allocators log "allocating" only when the device allocation failed: "GGML_LOG_ERROR("%s:
#   allocating %.2f MiB on device %d: cudaMalloc failed: %s\n", __func__, ...)" inside "if (err != cudaSuccess)"
#   (ggml-org/llama.cpp, ggml/src/ggml-cuda/ggml-cuda.cu, ggml_backend_cuda_buffer_type_alloc_buffer), so a paste cut
#   after the figure ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 11597", ollama/ollama#5239) is that
#   failure;
# * posix_memalign's status in a glog equality check, the form of CHECK_EQ: "Check failed: posix_memalign(&ptr, 4096ul,
#   size) == 0 (12 vs. 0)" (PaddlePaddle/Paddle#11082, paddle/memory/detail/system_allocator.cc of 2018): 12 is ENOMEM,
#   the host's memory refused with the requested alignment (POSIX posix_memalign; see signatures' host allocator words);
# * PyTorch's per-process clause, which only its out-of-memory error prints: "Process %d has %s memory in use"
#   (c10/cuda/CUDACachingAllocator.cpp, reportProcessMemoryInfo, called from the OOM path of malloc), pasted alone
#   (noonghunna/club-3090#32);
# * a memory manager's own "available < need" comparison, printed with the operator when a request does not fit:
#   "available_size()=9.0 < need_size=30" (ovg-project/kvcached#191, kvcached/kv_cache_manager.py): an amount
#   available set below an amount needed is a shortage, whatever unit the manager counts in;
# * a size said to be larger than the GPU's memory: "The model weight size may be larger than GPU memory size"
#   (mlc-ai/mlc-llm#2239), the comparative form of "not enough GPU memory".
ALLOCATION_FRAGMENT = re.compile(
    r"\bggml_backend_\w{1,40}_buffer_type_alloc_buffer:\s{0,3}allocating\s{1,3}\d"
    r"|\bposix_memalign\s{0,2}\([^\n()]{0,60}\)\s{0,2}==\s{0,2}0\s{0,3}\(\s{0,2}12\s{1,3}vs\.?\s{1,3}0\s{0,2}\)"
    r"|\b(?:process\s{1,3}\d{1,9}|this\s{1,3}process)\s{1,3}has\s{1,3}\d[\d.,]{0,24}\s{0,2}[KMGTPE]i?B\s{1,3}memory\s{1,3}in use\b"
    r"|\b(?:available|free|avail)\w{0,20}(?:\(\s{0,2}\))?\s{0,2}[=:]\s{0,2}\d[\d.]{0,20}\s{0,3}<\s{0,3}"
    r"(?:need|needed|required|requested|request)\w{0,20}(?:\(\s{0,2}\))?\s{0,2}[=:]\s{0,2}\d"
    r"|\b(?:larger|bigger|greater)\s{1,3}than\s{1,3}(?:the\s{1,3})?(?:available\s{1,3})?"
    r"(?:(?:gpu|device|video)(?:'s)?\s{0,3}(?:memory|ram)|vram)\b",
    re.IGNORECASE)

# (Sixty-third pass) OpenCL's refusal of one memory object above the device's per-object limit, named by its status:
# clCreateBuffer "returns CL_INVALID_BUFFER_SIZE if size is 0, or if size is greater than CL_DEVICE_MAX_MEM_ALLOC_SIZE
# value specified in the table of allowed values for param_name for clGetDeviceInfo for all devices in context"
# (Khronos OpenCL 1.2 specification, section 5.2.1 "Creating Buffer Objects", and the OpenCL 3.0 API specification,
# clCreateBuffer; the status is -61 in CL/cl.h, KhronosGroup/OpenCL-Headers). CL_DEVICE_MAX_MEM_ALLOC_SIZE is at
# least max(1/4 of CL_DEVICE_GLOBAL_MEM_SIZE, 128 MB) (same specification, table 4.3, clGetDeviceInfo), so the refusal
# is one request over a per-object cap that may be as low as a quarter of the card: an allocation failure without any
# other word for memory. The letters of "BUFFER" are read with a doubled or tripled F as a user retypes them
# ("CL_INVALID_BUFFFER_SIZE"); "CL_INVALID_BUFFER_SIZE" is never another status.
OPENCL_BUFFER_SIZE_REFUSED = re.compile(r"\bCL_INVALID_BUF{1,3}ER_SIZE\b", re.IGNORECASE)

# Level Zero reporting the device lost (ZE_RESULT_ERROR_DEVICE_LOST, through the Unified Runtime as
# UR_RESULT_ERROR_DEVICE_LOST, error 20, or the older PI plug-in): Intel's GPU driver resets a device whose kernels ran
# out of memory mid-run and reports it as lost rather than as an allocation failure (intel/torch-xpu-ops#2990: a 32 GB
# working set on a smaller Arc BMG card, fixed by marking the test largeTensorTest('32GB'; #3120); the driver's
# surfacing it as a lost device is tracked in #3155). Read as an out-of-memory with no figures: the job's size first.
LEVEL_ZERO_DEVICE_LOST = re.compile(r"\b(?:UR_RESULT|ZE_RESULT|PI)_ERROR_DEVICE_LOST\b")
# (Fifty-ninth pass) SYCL's kernel-launch error with the plug-in's status that Intel's GPU stack returns when a job
# outgrows the device: the runtime throws "Native API failed. Native API returns: " + codeToString(status), "N (NAME)"
# (intel/llvm at a80069f0e9396b523523967b603999a7b628a8db, sycl/source/detail/error_handling/enqueue_kernel.cpp,
# ``enqueue_kernel_launch::handleError``, default branch), so the Level Zero result behind it is lost: -999 "Unknown
# PI error" (PI_ERROR_UNKNOWN) and -2 PI_ERROR_DEVICE_NOT_AVAILABLE. ipex-llm's maintainers read both as the GPU's
# memory exhausted: "Native API returns: -999 seems to infer an OOM error" (intel/ipex-llm#10778, an 8 GB iGPU; #11519
# fixed with IPEX_LLM_LOW_MEM=1), and an Iris Xe iGPU "can use only half of your 16GB RAM ... If you use more then
# 7.8GB memory, you will get Native API returns: -2 (PI_ERROR_DEVICE_NOT_AVAILABLE)" (#11400). Both codes are also
# returned for other failures (a driver fault, a lost device), so they mark an out-of-memory with no figures, weakly;
# other PI codes are not read here (-5 PI_ERROR_OUT_OF_RESOURCES is read by its name).
SYCL_OPAQUE_STATUS = re.compile(r"\bNative API returns:\s{0,3}(?:-999\s{0,3}\(\s{0,2}Unknown PI error|"
                                r"-2\s{0,3}\(\s{0,2}PI_ERROR_DEVICE_NOT_AVAILABLE)\b", re.IGNORECASE)

# A paste cut short inside "out of memory" (the last characters of the text): "Allocator (GPU_0_bfc) ran out of memo"
# (taki0112/FUNIT-Tensorflow#3).
_CUT_OOM = re.compile(r"\bout of me(?:m(?:o(?:r)?)?)?\s{0,3}$")

# A shortage of memory said in any word order rather than a fixed sentence (the words of the many runtimes that print
# their own: "not enough VRAM", "insufficient device memory", "device memory is insufficient", "out of GPU memory",
# "vram exhausted", "requires 20.5 GiB but only 15.8 GiB is available"), and "OOM" as a word in capitals (the
# abbreviation logs and schedulers use: "OOM error", "OOM:"). A memory noun and a shortage word within a few words of
# each other, on one line; every gap is bounded, so a long log is scanned in linear time.
# (Shared memory is /dev/shm or a kernel's on-chip memory: the signatures read those.)
# (Fifty-fifth pass: "lack of" is the same shortage; a swap area is memory a runtime spills to, and the resources of a
# system, a GPU or a device are its memory among others: "Aborted due to the lack of CPU swap space" (vLLM's scheduler,
# vllm/core/scheduler.py), "Model loading was stopped due to insufficient system resources" (a model loader's
# guardrail against the machine's memory). What ran short is left to the rules: a swap area for preempted KV-cache
# blocks is the KV-cache budget (gpudesk.oom.rules.kv_swap_space), not the host's swap.)
_MEMORY_NOUN = (r"(?<!shared )(?:memory|vram|hbm|ram|swap(?:\s?space)?|(?:system|gpu|device|memory|hardware)\s"
                r"resources)")
_SHORTAGE_WORD = (r"(?:insufficient|not enough|exhausted|out of|ran out of|running out of|too little|too small|"
                  r"(?:the\s)?lack of)")
_SHORTAGE_PHRASE = re.compile(
    # (Its start may follow a CJK character directly, where no word boundary is: "运行提示Not enough available NPU
    # memory", PaddlePaddle/Paddle#44407.)
    r"(?:\b|(?<=[\u3000-\u9fff\uff00-\uffef]))" + _SHORTAGE_WORD + r"\b[^\n.;]{0,24}?\b" + _MEMORY_NOUN + r"\b"
    r"|\b" + _MEMORY_NOUN + r"\b[^\n.;]{0,24}?\b(?:is |are |was )?(?:insufficient|exhausted|not enough)\b"
    # "no available / free / more memory" with the memory noun next to it (a user's words for vLLM's "No available
    # memory for the cache blocks", pat-jj/s3#10); "no memory leak", "no more data in the memory-mapped file" are not.
    r"|\bno\s(?:available|free|more)\s(?:(?:gpu|device|cuda|npu|video|graphics)\s)?(?:memory|vram|hbm)\b"
    r"|\brequir\w{1,4}\s{1,3}\d[^\n]{0,40}?\bbut only\s{1,3}\d[^\n]{0,30}?\b(?:available|free)\b"
    # A program's own check of a need in bytes against what the device has, before it allocates ("The nf4 variant
    # needs roughly 24 GB of VRAM but your GPU has 12.0 GB", "wants about 40 GB of VRAM but 23.6 GB is visible").
    r"|\b(?:needs?|requires?|required|wants?)\s{1,3}(?:(?:at least|roughly|about|approximately|around|~)\s{0,3})?"
    r"\d[\d.,]{0,8}\s{0,2}[KMGT]i?B\b[^\n]{0,40}?\bbut\b[^\n]{0,30}?\b(?:has|have|had|available|free|visible)\b",
    re.IGNORECASE)
# A failure of the GPU's memory named in a user's words rather than a runtime's sentence: "GPU Memory error while
# running run_drcd.sh" (PaddlePaddle/ERNIE#286), "when I crash the memory of my GPUs" (deepEMhancer#3), "GTX1070 and 8G
# memory cause memory dump" (Tacotron-2#239). A memory noun joined to a failure noun or verb; read only where the text
# names a GPU (_GPU_NAMED), so that Python's host MemoryError ("memory error") is left to the host-memory signatures.
_MEMORY_FAILURE = re.compile(
    r"\b(?:gpu|cuda|vram|video|graphics)\s{0,2}memory\s{1,3}(?:error|crash|overflow|dump|explosion)s?\b"
    r"|\bcrash(?:es|ed|ing)?\s{1,3}(?:the\s{1,3})?(?:gpu\s{1,3})?memory\s{1,3}of\b"
    r"|\bcaus(?:e|es|ed|ing)\s{1,3}(?:a\s{1,3})?(?:gpu\s{1,3})?memory\s{1,3}(?:dump|overflow|crash|error)s?\b",
    re.IGNORECASE)
_GPU_NAMED = re.compile(r"\bgpus?\b|\bcuda\b|\bvram\b|\b(?:gtx|rtx|geforce|quadro|tesla)\s?-?\d{0,4}|"
                        r"\b[KPVTAHL]\d{2,3}\b", re.IGNORECASE)


def names_device_memory_failure(text: str) -> bool:
    """A GPU's memory failure said in a user's words (``_MEMORY_FAILURE``) in a text that names a GPU."""
    return _MEMORY_FAILURE.search(text) is not None and _GPU_NAMED.search(text) is not None


# Memory reserved twice over, named as the fault ("Double allocation of memory causes xla GPU-compiler error",
# apax-hub/apax#111): a pool taken a second time leaves the next allocation none, a memory failure in any wording.
MEMORY_TAKEN_TWICE = re.compile(
    r"\b(?:double|duplicated?)\s(?:pre-?)?allocations?\s(?:of\s)?(?:the\s)?(?:gpu\s|device\s)?memory\b"
    r"|\bmemory\s(?:is\s|was\s|gets\s|being\s)?(?:pre-?)?allocated\stwice\b", re.IGNORECASE)
# (Bounded by anything but a Latin letter or digit, so that it is read beside CJK text too: "一跑就OOM了".)
# Its verb forms ("--medvram OOMs", "it OOMed", "OOMing") are the same word; in lower case it is read only against CJK
# text ("出现oom，"), where a Latin word cannot be meant.
_OOM_ABBREVIATION = re.compile(r"(?<![A-Za-z0-9])OOM(?:s|ed|ing|'d)?(?![A-Za-z0-9])"
                               # "out memory" with the "of" dropped, read only against CJK text, where an English
                               # phrase ("carry out memory tests") cannot be meant: "为什么会out memory？"
                               # (megvii-research/tf-tutorials#69).
                               r"|(?<=[\u3000-\u9fff\uff00-\uffef])\s?out\s(?:of\s)?memory(?![A-Za-z0-9])"
                               r"|(?<![A-Za-z0-9])oom(?=[\u3000-\u9fff\uff00-\uffef])"
                               r"|(?<=[\u3000-\u9fff\uff00-\uffef])oom(?![A-Za-z0-9])"
                               # After the runtime's name, any case: "CUDA-ooM with large PDFs" (allenai/olmocr#50).
                               r"|(?i:(?<=cuda[-_ ])oom)(?![A-Za-z0-9])")

# A text that reports how much memory a job holds, or how that memory grows, without any failure: users paste these
# when a runtime's up-front reservation looks like a fault ("the GPU memory gets immediately filled up", "uses around 70%
# of the GPU memory", "each card can occupy about 28G", 显存占用21GB) or when memory climbs run after run ("more and more
# gpu memory"). Such a text is about memory and names figures or growth the rules can read, so it is recognised (kind
# "memory_report") rather than answered "not found". Every gap is bounded (linear on a long log).
MEMORY_GROWTH = re.compile(
    r"\bleak(?:s|age|ing|ed)?\b|memory (?:usage )?(?:keeps?|kept|is|was) (?:growing|increasing|going up|rising)"
    r"|(?:grows|increases|rises|accumulates) (?:with|after|every|each|per|over)(?: (?:each|every|the))? "
    r"(?:iterations?|epochs?|steps?|batch(?:es)?|frames?)\b"
    # The same growth in other words: memory (GPU memory, RAM) "increasing with training iterations" (a participle and
    # a word between), "keep increasing until", "more and more memory" (users' own wording: 3d-gaussian-splatting#5,
    # pytorch#4932, ML2021#2), and every forward pass taking new memory (dgl#745).
    # (An adverb of pace may stand before the verb: "vram usage gradually increasing each run until OOM",
    # ggml-org/llama.cpp#23446.)
    r"|\b(?:memory|ram|vram)(?: usage)? (?:keeps? |kept |is |was |are )?"
    r"(?:(?:gradually|steadily|constantly|continuously|continually|slowly) )?(?:growing|increasing|going up|rising|climbing)"
    r" (?:with|after|every|each|per|over|until|till|during)\b"
    r"|\b(?:growing|increasing|rising|climbing) (?:with|after|every|each|per|over)(?: (?:each|every|the))?"
    r"(?: (?:training|train|validation|inference|forward))? (?:iterations?|epochs?|steps?|batch(?:es)?|frames?)\b"
    r"|\bmore and more (?:\w{1,12} )?(?:memory|ram|vram)\b"
    # Memory (its usage) that rises "over time" in any verb form ("Cuda memory usage increase over time when training",
    # VDIGPKU/T-SEA#13): growth over the run, not one step's need.
    r"|\b(?:memory|ram|vram)(?: usage)? (?:keeps? |kept |is |was |are )?(?:grow|increas|ris|climb|go(?:es)? up)\w{0,3}"
    r" (?:over time|with time|over the (?:run|training))\b"
    r"|\b(?:each|every) (?:forward|step|iteration|batch)(?: pass)? (?:would |will |does |did )?(?:uses?|allocates?|takes?) "
    r"new memory\b"
    # Memory that one request, step or run leaves behind and the next adds to ("after the previous request ends, the
    # GPU memory is not released, and the next request will continue to increase the GPU memory until OOM",
    # NVIDIA/TensorRT-LLM#252): the verb before the memory noun, or the memory kept from one unit of work to the next.
    r"|\b(?:continues?|continued|keeps?|kept) (?:to )?(?:increas|grow|rais)\w{0,3} (?:the )?(?:gpu |gpu's |cuda |video )?"
    r"(?:memory|vram|ram)\b"
    r"|\b(?:previous|last|earlier|finished) (?:request|step|iteration|batch|run|inference)s?\b[^\n.;]{0,40}?"
    r"\b(?:memory|vram)\b[^\n.;]{0,16}?(?:\bnot |\bnever |n't (?:be |been )?)(?:be |been )?(?:released|freed)\b"
    # Growth that ends in the failure ("the GPU continued to increase with the tracking process,until out of memory",
    # researchmm/VOT2019#1), and memory that scales with the time the job has run ("The more time I utilize to train
    # the model the larger memory is occupied", mks0601/TF-SimpleHumanPose#9).
    r"|\b(?:continues?|continued|keeps?|kept) (?:to )?(?:increas|grow|ris|climb)\w{0,3}\b[^\n;]{0,60}?\buntil\b"
    r"[^\n;]{0,20}?(?:out of memory|\boom\b)"
    r"|\bthe (?:more|longer)\b[^\n.;]{0,60}?\bthe (?:larger|more|bigger|higher|greater) (?:the )?(?:gpu |video )?"
    r"(?:memory|vram|ram)\b"
    r"|泄漏|泄露|(?:显存|内存|占用)[^，,。；;\n]{0,12}?(?:不断|持续|逐渐|一直|越来越)(?:地)?(?:增加|增长|上涨|上升|变大|升高|多)"
    r"|每(?:个|一个|次|轮)?(?:epoch|iteration|step|迭代|轮|步|帧)[^，,。；;\n]{0,8}?(?:增加|增长|上涨|上升|变大)",
    re.IGNORECASE)
MEMORY_USAGE = re.compile(
    r"\b(?:memory|vram)\b[^\n.;]{0,30}?\b(?:fill(?:s|ed|ing)? up|(?:gets?|got|is|was|are) (?:immediately |completely |all |"
    r"almost )?(?:filled|full|taken|used up)|taken up|used up)\b"
    r"|\b(?:memory|vram)\s{0,2}footprint\b"
    r"|\bus(?:es|e|ing)\s{1,3}(?:around |about |approximately |roughly |~)?\d{1,3}\s?%\s{0,3}of\s{1,3}(?:the\s{1,3})?"
    r"(?:gpu\s{1,3}|video\s{1,3}|device\s{1,3})?(?:memory|vram)\b"
    r"|\b(?:occupy|occupies|occupying|occupied|takes up|taken up|consumes|consuming)\b[^\n.;]{0,30}?\b\d{1,4}(?:\.\d{1,2})?\s?"
    r"(?:G|GB|GiB)\b"
    r"|显存占用|占用(?:了)?\s{0,2}(?:GPU|显存)?\s{0,2}\d{1,4}(?:\.\d{1,2})?\s{0,2}G",
    re.IGNORECASE)


# llama.cpp's load failure relayed with no reason ("Error loading model." in LM Studio's dialog; llama.cpp itself
# prints "llama_model_load: error loading model: <reason>", and "failed to load model '<path>'" alone is as often a
# missing file), and the words of a load that failed for the file itself, not for memory (an unknown architecture, a
# bad magic number, a truncated or unsupported file).
_MODEL_LOAD_FAILED = re.compile(r"\berror loading model\b(?!\s{0,2}:)", re.IGNORECASE)
_MODEL_FILE_FAULT = re.compile(r"unknown (?:model )?architecture|invalid magic|bad magic|unsupported|not supported|"
                               r"corrupt|truncated|no such file|not found|tensor '[^']{1,80}' has wrong shape|"
                               r"unknown pre-tokenizer|invalid model file", re.IGNORECASE)


# (Sixty-third pass) A size of memory stated in any wording: a memory noun and a figure with its unit within a few
# words on one line, either order ("Initialized device 0 with 3956 MB of memory (117 MB available", "Process 60 has
# 17179869184.00 GiB memory in use", 'memory.available="[11.4 GiB]"', "4.11 GiB memory is still in use"), or a memory
# field given in bytes ("Available memory: 0, total memory: 65452113920"). A pasted text of a memory problem whose error
# line no reading knows still carries these; with them it is read for its figures instead of answered "not found".
MEMORY_FIGURE = re.compile(
    r"\b(?:memory|mem|vram|ram|hbm)\b[^\n]{0,40}?" + _SIZE_U
    + r"|" + _SIZE_U + r"[^\n]{0,30}?\b(?:of\s{1,3})?(?:gpu\s{1,3}|device\s{1,3}|video\s{1,3})?(?:memory|vram|ram|hbm)\b"
    r"|\b(?:total|free|available|used)\s{1,3}memory\s{0,2}[:=]\s{0,3}\d{7,20}(?![\d.])"
    # (Sixty-sixth pass) A size said to be free with no memory noun beside it, the noun said earlier in the sentence:
    # "VramAvail returns HSA_STATUS_ERROR, PyTorch sees 0 bytes free" (ROCm/librocdxg#22). Still read only beside a
    # failure (parse()).
    r"|" + _SIZE_U + r"\s{1,3}free\b(?!\s{0,3}(?:disk|space|storage))",
    re.IGNORECASE)


# A run said to have stopped without the word "error": a Python traceback's head, or a program that aborted (gpu-burn's
# "Couldn't init a GPU test: Low mem for result. aborting.").
_RUN_STOPPED = re.compile(r"\btraceback \(most recent call last\)|\babort(?:ing|ed)?\b", re.IGNORECASE)


# (Sixty-sixth pass) An allocator's running total of what it holds, printed each time it grows: ONNX Runtime's arena logs
# "Extended allocation by N bytes." then "Total allocated bytes: T" from BFCArena::Extend (microsoft/onnxruntime,
# onnxruntime/core/framework/bfc_arena.cc, Extend: LOGS_DEFAULT(INFO) << "Total allocated bytes: " << stats_.total_
# allocated_bytes_). Several totals, each above the last, are the pool growing run after run (microsoft/onnxruntime
# #14474): growth in figures rather than words.
_RUNNING_TOTAL = re.compile(r"\btotal allocated bytes\s{0,2}[:=]\s{0,3}(\d{1,20})(?![\d.])", re.IGNORECASE)
_MAX_TOTALS = 1000


def growing_total(text: str) -> re.Match[str] | None:
    """The last of at least two running totals (:data:`_RUNNING_TOTAL`), each above the one before; else None."""
    found = [m for _, m in zip(range(_MAX_TOTALS), _RUNNING_TOTAL.finditer(text))]
    totals = [int(m.group(1)) for m in found]
    if len(totals) >= 2 and all(b > a for a, b in zip(totals, totals[1:])):
        return found[-1]
    return None


def memory_report(text: str) -> str | None:
    """"growth" or "usage" for a text that reports memory growing or held without naming a failure; else None."""
    if MEMORY_GROWTH.search(text) or growing_total(text) is not None:
        return "growth"
    if MEMORY_USAGE.search(text):
        return "usage"
    return None


# Words that say a call failed (lower-cased substrings): with a request figure they make any wording an allocation
# failure.
_FAILURE_WORDS = ("fail", "error", "unable", "could not", "couldn't", "cannot", "can't", "exhausted", "insufficient",
                  "not enough", "refused", "denied", "失败", "不足", "无法")

# (runtime, words), first match wins: the most specific runtimes first.
# XLA's name where it is one (tensorflow/compiler/xla/, local_xla, xla_extension, "XLA:"), not the letters inside
# another word ("xlarge"): a marker that detect_runtime matches as a pattern rather than a substring.
_XLA_WORD = re.compile(r"(?<![a-z0-9])xla(?![a-z])")
_RUNTIMES: tuple[tuple[str, tuple[str | re.Pattern[str], ...]], ...] = (
    ("ollama", ("ollama",)),
    ("trtllm", ("tensorrt-llm", "tensorrt_llm", "trt-llm", "trtllm")),
    # (ComfyUI's executor logs "Got an OOM, unloading all loaded models." after any out-of-memory in a node,
    # execution.py, https://github.com/comfyanonymous/ComfyUI: the one line of its own a pasted node error carries.)
    ("comfyui", ("comfyui", "comfy.", "node type:", "vaedecode", "got an oom, unloading all loaded models")),
    # AUTOMATIC1111's Stable Diffusion web UI (and its forks): its repository and launcher names and its memory flags
    # (modules/cmd_args.py: --medvram, --lowvram, --medvram-sdxl; https://github.com/AUTOMATIC1111/stable-diffusion-webui).
    ("sdwebui", ("stable-diffusion-webui", "webui.py", "webui-user", "--medvram", "--lowvram")),
    ("llamacpp", ("ggml", "llama_", "llama.cpp", "llama-server", "llama-cli")),
    ("onnxruntime", ("onnxruntime", "bfc_arena", "bfcarena")),
    # OpenCV's CUDA modules ("(-217:Gpu API call)", cudaSafeCall): before TensorRT, whose DefaultAllocator shares a
    # class name with OpenCV's GpuMat allocator.
    ("opencv", ("opencv", "cv2.error", "gpu api call")),
    ("tensorrt", ("[trt]", "tensorrt", "nvinfer1", "defaultallocator", "tactic")),
    # MLX: its package name, its Metal allocator's messages ("[metal::malloc] ...", "[malloc_or_wait] Unable to
    # allocate N bytes", mlx/backend/metal/allocator.cpp).
    ("mlx", ("mlx", "metal::malloc", "[metal]", "[malloc_or_wait]")),
    # CUDA.jl (Julia): its package and array names, its OutOfGPUMemoryError ("Out of GPU memory trying to allocate N")
    # and its status printout ("Effective GPU memory usage: ...", src/pool.jl memory_status; gpudesk.oom.parsers
    # .pool_status) and its retry line ("CUDA memory allocation failed; attempting to free up memory").
    ("cudajl", ("cuda.jl", "juliagpu", "cuarrays", "cuarray{", ".julia/packages", "outofgpumemoryerror",
                "out of gpu memory trying to allocate", "effective gpu memory usage", "attempting to free up memory")),
    ("nccl", ("nccl",)),
    ("vllm", ("vllm",)),
    ("sglang", ("sglang",)),
    ("triton", ("triton.runtime", "outofresources", "out of resource: shared memory")),
    # MLC LLM and the TVM runtime it runs on (mlc_llm / mlc_chat packages, tvm._ffi, "TVMError").
    ("mlc", ("mlc_llm", "mlc-llm", "mlc_chat", "mlc-chat", "tvmerror", "tvm._ffi", "tvm/src/runtime")),
    ("jcuda", ("jcuda",)),
    # AWS Neuron (Inferentia/Trainium): its runtime's calls and status names (nrt_*, NRT_RESOURCE, NERR_RESOURCE) and
    # the PyTorch packages that drive it (torch_neuron, torch_neuronx, transformers_neuronx).
    ("neuron", ("nrt_", "neuron_runtime", "torch_neuron", "transformers_neuronx", "nerr_resource", "neuronx")),
    ("faiss", ("faiss",)),
    ("taichi", ("taichi",)),
    ("amrex", ("amrex",)),
    ("cupy", ("cupy",)),
    ("numba", ("numba",)),
    ("jax", ("jaxlib", "jax.", "xla_python_client", "xlaruntimeerror", "xla:tpu", "exla")),
    # "xla" as a name, not inside a word: an AWS instance type ("p2.xlarge", "g4dn.xlarge") is no XLA.
    ("xla", (_XLA_WORD, "hbm", "tpu_worker", "best cudnn convolution algorithm")),
    # TensorFlow's StreamExecutor words its cuDNN/cuBLAS handle failures itself (stream_executor/cuda/cuda_dnn.cc
    # "Could not create cudnn handle", cuda_blas.cc "failed to create cublas handle"); PyTorch says "cuDNN error:".
    ("tensorflow", ("tensorflow", "stream_executor", "bfc_allocator", "gpu_0_bfc", "could not create cudnn handle",
                    "failed to create cublas handle")),
    ("diffusers", ("diffusers",)),
    # PaddlePaddle (paddle.fluid / phi errors, its FLAGS_*_gpu_memory_* flags), MXNet (MXNetError, src/storage),
    # CTranslate2 and what wraps it (faster-whisper, WhisperX).
    ("paddle", ("paddle", "flags_fraction_of_gpu_memory", "flags_initial_gpu_memory")),
    ("mxnet", ("mxnet", "pooled_storage_manager")),
    ("catboost", ("catboost", "ncudalib::")),
    ("ctranslate2", ("ctranslate2", "faster_whisper", "faster-whisper", "whisperx")),
    ("pytorch", ("torch", "pytorch", "defaultcpuallocator", "alloc_cpu.cpp", "cudacachingallocator")),
)
_BACKENDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # ("tpu" as a word only: the letters sit inside "output" and "throughput"; ``_TPU_WORD``.)
    # (The TPU runtime's program reservation, "at the bottom of memory" / "Top-of-Memory reserved", is TPU-only wording:
    # openxla/xla docs/errors/error_0101.md, "XLA backends: TPU"; error_1001.md names the core's "space=vmem".)
    ("tpu", ("xla:tpu", "memory space hbm", "tpu_worker", "hbm capacity", "_hbm", "hbm usage", "hbm requirement",
             "memory space vmem", "memory space smem", "at the bottom of memory", "top-of-memory", "space=vmem",
             "space=smem")),
    ("vulkan", ("vulkan", "vk::", "vk_error", "erroroutofdevicememory", "erroroutofhostmemory")),
    ("metal", ("metal", "mtldebugdevice", "mtldevice", "newbufferwith", "kiogpu", "iogpu", "mtlcommandbuffer", "mps backend", "[malloc_or_wait]")),
    ("rocm", ("hipmalloc", "hipmem", "hip out of memory", "hip error", "hiperror", "rocm", "amdgpu", "gfx1", "miopen")),
    # torch-directml's allocator words its failure "DML allocator out of memory!"; TensorFlow-DirectML names its
    # allocator "DmlAllocator" ("by allocator DmlAllocator").
    ("directml", ("directml", "gpu video memory", "dml:", "dml allocator", "dmlallocator")),
    ("opencl", ("mem_object_allocation_failure", "cl_out_of_resources", "opencl", "pyopencl")),
    ("cpu", ("defaultcpuallocator", "alloc_cpu.cpp", "cpu buffer", "cpuallocator.cpp", "cannot allocate memory")),
    ("cuda", ("cuda", "cudnn", "cublas", "nvidia", "cumem", "nccl", "gpu api call")),
)
_MIG = re.compile(r"\bMIG[\s-]{1,3}(\d)g\.(\d{1,3})gb\b|\b(\d)g\.(\d{1,3})gb\b", re.IGNORECASE)
_PY_FRAME = re.compile(r'File "([^"\n]{1,400})", line \d{1,7}, in ([\w<>.]{1,200})')
_C_FRAME = re.compile(r"\bin (?:function )?([A-Za-z_][\w:]{2,200})\b")
_GRAPH_FRAMES = ("capture_model", "make_graphed_callables", "create_cudagraphs", "torch.cuda.graph", "cudagraph",
                 "cuda_graph", "capture_begin", "cudagraphs", "graph.capture",
                 # SGLang's CudaGraphRunner wraps the failure in its own words ("Capture cuda graph failed: ...",
                 # python/sglang/srt/model_executor/cuda_graph_runner.py).
                 "capture cuda graph failed", "cuda graph capture failed",
                 # vLLM's log line as its model runner starts capturing (vllm/worker/model_runner.py, capture_model:
                 # "Capturing the model for CUDA graphs. This may lead to unexpected consequences ..."); the words of the log
                 # are read only while its "Graph capturing finished" line is absent (:func:`frames_of`).
                 "capturing the model for cuda graphs",
                 # V1's progress bar while it captures (vllm/v1/worker/gpu_model_runner.py, capture_model: "Capturing
                 # CUDA graphs (decode, FULL)"); read, like the V0 line, only before "Graph capturing finished".
                 "capturing cuda graphs")
# vLLM's line once capture is over ("Graph capturing finished in N secs, took M GiB": vllm/worker/model_runner.py in V0,
# vllm/v1/worker/gpu_model_runner.py ``capture_model`` in V1): a later failure is not in it. V1's worker then runs the
# sampler's warm-up (``_dummy_sampler_run``) and logs the budget it measured, with the graphs' memory ("... and 2.28 GiB
# for CUDAGraph memory", vllm/v1/worker/gpu_worker.py ``compile_or_warm_up_model``), so once that line is in the text
# the graph words of the log are history, not where the failure came: only a traceback frame in capture code counts.
_CAPTURE_FINISHED = "graph capturing finished"
# A setting that names CUDA graphs (a flag or config key: "cudagraph_mode", "--cuda-graph-max-bs", "disable_cuda_graph",
# "--cudagraph-capture-sizes") says the engine uses or skips them, not that the failure came while they were captured.
_GRAPH_SETTING = re.compile(r"(?:--|\b)[\w-]*(?:cuda[_-]?graphs?)[\w-]*[_-](?:mode|sizes?|bs|batch[_-]?sizes?|"
                            r"max[_-]?bs|capture[_-]?sizes|config)\b|(?:--|\b)(?:disable|enable|use)[_-]cuda[_-]?graphs?\b")


# Shapes whose named parser reads no capacity clause: the extraction layer may add the figures they lack.
FILL_KINDS = frozenset({"xla_resource_exhausted", "ggml_alloc_failed", "cuda_error_oom", "nccl_oom",
                        "cublas_alloc_failed", "cudnn_alloc_failed", "pin_memory_thread"})


@dataclass
class Extraction:
    """What the tolerant layer found in a text (bytes; None = not found)."""

    oom_words: bool = False
    failure_words: bool = False
    requested_bytes: int | None = None
    requested_is_lower_bound: bool = False
    # The request's figure runs into the end of the paste with no unit after it (``_cut_figure``): not read.
    requested_cut: bool = False
    total_bytes: int | None = None
    free_bytes: int | None = None
    in_use_bytes: int | None = None
    limit_bytes: int | None = None
    exceeded_bytes: int | None = None
    negative_size: int | None = None
    pool_held_bytes: int | None = None
    pool_limit_bytes: int | None = None
    start_total_bytes: int | None = None
    start_free_bytes: int | None = None
    tactic_workspace_bytes: int | None = None
    need_and_have: need_have.NeedHave | None = None
    largest_allocation_bytes: int | None = None
    tpu_hbm_usage_bytes: int | None = None
    tpu_hbm_parts: dict[str, int | None] = field(default_factory=dict)
    tpu_memory_space: str | None = None
    tpu_reservable_bytes: int | None = None
    largest_allocation_padding_bytes: int | None = None
    configured_limit_bytes: int | None = None
    runtime: str | None = None
    backend: str | None = None
    mig_profile: str | None = None
    frames: list[str] = field(default_factory=list)

    @property
    def has_figure(self) -> bool:
        return any(v is not None for v in (self.requested_bytes, self.total_bytes, self.free_bytes,
                                             self.in_use_bytes, self.limit_bytes, self.exceeded_bytes,
                                             self.negative_size, self.configured_limit_bytes))

    @property
    def graph_capture(self) -> bool:
        """The traceback (or the text) runs through CUDA-graph capture code."""
        return any(marker in frame.lower() for frame in self.frames for marker in _GRAPH_FRAMES)


def _first(patterns: list[re.Pattern[str]], text: str) -> tuple[int, re.Match[str]] | None:
    """The earliest match of any pattern (position, match)."""
    best: tuple[int, re.Match[str]] | None = None
    for pattern in patterns:
        m = pattern.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), m)
    return best


def _cut_figure(m: re.Match[str], text: str) -> bool:
    """The figure of a size match (group 1, its unit group 2) of a wording that closes its figure (``_CLOSED_FIGURE``)
    is the last thing in the text, with no unit after it: a paste cut inside the number ("Allocation of size
    ::1449351" of "...::14493510400 failed!"), whose digits so far read as a figure orders of magnitude too small. A
    complete message of such a wording closes its figure with a unit or the words after it ("bytes", "failed!"), so a
    figure with neither is not read."""
    return m.re in _CLOSED_FIGURE and not m.group(2) and not text[m.end(1):].strip()


# Any allocation word followed closely by a size: the request of a wording no pattern above names ("cudaMalloc of
# 2.00 GiB returned 2", "alloc 512 MiB on device"). Only a size with a unit, in the same clause (no sentence end or
# line break between), and not one that a following word marks as another role (free, available, total, in use).
_ALLOC_NEAR = _c(r"\b(?:cuda|cu|hip|c|re|m)?(?:malloc|alloc(?:ate|ated|ating|ation)?)\b[^\n.;:!?]{0,40}?" + _SIZE_U
                 + r"(?!\s{0,3}(?:free|available|total|in use|is free|of free|reserved|allocated|has been|already))")


# A log line at INFO level ("[TensorRT-LLM][INFO] Allocate 956301312 bytes for k/v cache.", the runtime reporting the KV
# pool it created, tensorrt_llm's logger prefix "[TensorRT-LLM][LEVEL]"): what it allocated succeeded, so its size is
# not the failing request.
# (Any case: Elixir's Logger prints the level in lower case, "13:32:23.292 [info] XLA backend allocating 22816161792 bytes
# on device 0 for BFCAllocator.", the pool EXLA created at start, georgeguimaraes/soothsayer#6.)
_INFO_LINE = re.compile(r"\[INFO\]", re.IGNORECASE)


# A size in hexadecimal bytes after "size =": vendor runtimes log the raw argument of the failed call (Sophgo's bmlib
# "bm_alloc_gmem failed, dev_id = 0, size = 0xc0fb4000", sophgo/LLM-TPU#8).
_HEX_SIZE = _c(r"\b(?:size|bytes)\s{0,2}[=:]\s{0,2}0x([0-9a-f]{1,16})\b")


# A line that names an allocation and its failure, with the size as "size N <unit>" further along: allocators that log
# the failed request as a record of fields (faiss's StandardGpuResources: "alloc fail type FlatData dev 2 space Device
# stream 0 size 2764800000 bytes (cudaMalloc error out of memory [2])", faiss/gpu/StandardGpuResources.cpp
# ``allocMemory``; faiss#2179). Read line by line (each line bounded), the size with a unit only.
_FAILED_ALLOC_LINE = _c(r"\balloc\w{0,8}\b[^\n]{0,160}?\b(?:fail\w{0,4}|error)\b|\b(?:fail\w{0,4}|error)\b[^\n]{0,160}?\balloc")
_FIELD_SIZE = _c(r"\bsize\s{0,2}[=:]?\s{0,2}" + _SIZE_U)
_MAX_LINE_CHARS = 2000


def _field_size(text: str) -> int | None:
    """The "size N <unit>" of the first line that names a failed allocation (see ``_FAILED_ALLOC_LINE``)."""
    for line in text.splitlines():
        line = line[:_MAX_LINE_CHARS]
        if _FAILED_ALLOC_LINE.search(line):
            m = _FIELD_SIZE.search(line)
            if m:
                return _bytes(m.group(1), m.group(2))
    return None


# A hexadecimal figure where a size is meant: after a size word ("size = 0x...", "length 0x...", "allocate 0x...") or
# before "bytes". Runtimes that log the raw argument of a failed call print it so (Metal's buffer validation, vendor
# allocators such as Sophgo's bmlib); a hexadecimal number anywhere else (an address, a handle, an error code) is left
# alone, and so is one after "alloc"/"malloc" ("malloc 0x55d4c3a2b000" is more often the pointer it returned). The
# value is a count of bytes, as the argument it prints.
_HEX_FIGURE = _c(r"(\b(?:size|length|len|bytes|allocate|requested)\s{0,2}[=:]?\s{0,2})0x([0-9a-f]{1,16})\b"
                 r"|\b0x([0-9a-f]{1,16})(\s{0,2}bytes?\b)")


def _decimal_hex_sizes(text: str) -> str:
    """``text`` with each hexadecimal size (``_HEX_FIGURE``) written as its decimal count of bytes."""
    def decimal(m: re.Match[str]) -> str:
        if m.group(2) is not None:
            return m.group(1) + str(int(m.group(2), 16))
        return str(int(m.group(3), 16)) + m.group(4)
    return _HEX_FIGURE.sub(decimal, text) if "0x" in text.lower() else text


def _near_request(text: str, raw: str) -> int | None:
    """The size closest after an allocation word (see ``_ALLOC_NEAR``), the "size N" field of a failed-allocation line
    (``_FAILED_ALLOC_LINE``), or a hexadecimal size (``_HEX_SIZE``, read in ``raw``, the text before
    ``_decimal_hex_sizes``) in a text that names an allocation; None if none."""
    for m in _ALLOC_NEAR.finditer(text):
        if _INFO_LINE.search(text, text.rfind("\n", 0, m.start()) + 1, m.start()):
            continue  # an allocation an INFO line reports as done, not the failing one
        return _bytes(m.group(1), m.group(2))
    field_size = _field_size(text)
    if field_size is not None:
        return field_size
    if "alloc" in text.lower():
        hexa = _HEX_SIZE.search(raw)
        if hexa:
            return int(hexa.group(1), 16)
    return None


def _size(patterns: list[re.Pattern[str]], text: str) -> int | None:
    found = _first(patterns, text)
    if found is None:
        return None
    m = found[1]
    return _bytes(m.group(1), m.group(2))


def detect_runtime(low: str) -> str | None:
    """The runtime that printed a (lower-cased) text: "ollama", "llamacpp", "onnxruntime", "tensorrt",
    "trtllm", "nccl", "mlx", "jax", "xla", "tensorflow", "pytorch", "comfyui", ... or None."""
    for name, words in _RUNTIMES:
        if any((w in low) if isinstance(w, str) else w.search(low) is not None for w in words):
            return name
    return None


_TPU_WORD = re.compile(r"(?<![a-z])tpu")


def detect_backend(low: str) -> str | None:
    """"tpu", "vulkan", "metal", "rocm", "directml", "cpu" or "cuda" from a lower-cased text; None if unsaid."""
    for name, words in _BACKENDS:
        if any(w in low for w in words) or (name == "tpu" and "tpu" in low and _TPU_WORD.search(low)):
            return name
    return None


def frames_of(text: str) -> list[str]:
    """Python frames as ``path:function`` and C++ ``in function`` names, in order (at most 200)."""
    frames = [f"{m.group(1)}:{m.group(2)}" for m in _PY_FRAME.finditer(text)]
    frames += [m.group(1) for m in _C_FRAME.finditer(text) if "_" in m.group(1) or "::" in m.group(1)]
    low = text.lower()
    if _CAPTURE_FINISHED not in low:
        settings_out = _GRAPH_SETTING.sub(" ", low)
        frames += [marker for marker in _GRAPH_FRAMES if marker in settings_out]
    return frames[:200]


# Twice the memory of the largest single accelerator sold (288 GB of HBM3E on NVIDIA's B300 and AMD's MI355X,
# nvidia.com/en-us/data-center/dgx-b300, amd.com/en/products/accelerators/instinct/mi350/mi355x.html). A device
# figure (capacity, free, in use) above it is not a reading of any device: it is an underflowed or uninitialised
# counter (PaddlePaddle printing "127.994262TB memory has been allocated", about 2**47 bytes, PaddleOCR#6197), and a
# rule that trusted it would reason from garbage. The request is not filtered here: a garbage request is a finding
# of its own (``absurd_size``, :mod:`gpudesk.oom.signatures`).
MAX_PLAUSIBLE_DEVICE_BYTES = 2 * 288 * 10**9


def _plausible(figure: int | None) -> int | None:
    """``figure`` when a device could hold it, else None (see :data:`MAX_PLAUSIBLE_DEVICE_BYTES`)."""
    return figure if figure is None or figure <= MAX_PLAUSIBLE_DEVICE_BYTES else None


# (Sixty-eighth pass) A continuous-batching scheduler's request dropped for its KV-cache blocks. OpenVINO GenAI's
# scheduler marks a request it could not fit in the KV-cache pool out of memory and ends it with
# GenerationStatus::IGNORED ("Status set when generation run into out-of-memory condition and could not be
# continued", src/cpp/include/openvino/genai/generation_handle.hpp; set_out_of_memory() in
# src/cpp/src/continuous_batching/pipeline_impl.cpp when no token could be scheduled; openvinotoolkit/openvino.genai
# at da1db864). The LLM pipeline's adapter then asserts the status was FINISHED, STOP or CANCEL, "Got unfinished
# GenerationStatus" (src/cpp/src/llm/pipeline_continuous_batching_adapter.hpp): the only status left once generate()
# returns is IGNORED. Later releases say it outright ("... was dropped by the scheduler because it did not fit in the
# available cache budget (out of memory)", src/cpp/src/utils.hpp, assert_request_was_scheduled).
SCHEDULER_DROPPED_FOR_KV = re.compile(r"\bGot unfinished GenerationStatus\b|\bGenerationStatus::IGNORED\b|"
                                      r"\bdropped by the scheduler because it did not fit in the available cache budget",
                                      re.IGNORECASE)


def extract(text: str) -> Extraction:
    """Everything the tolerant layer can read from ``text`` (never raises)."""
    raw, text = text, _decimal_hex_sizes(text)
    low = text.lower()
    ex = Extraction(oom_words=any(w in low for w in OOM_WORDS) or _CUT_OOM.search(low) is not None
                    or _SHORTAGE_PHRASE.search(text) is not None or _OOM_ABBREVIATION.search(text) is not None
                    or MEMORY_TAKEN_TWICE.search(text) is not None or names_device_memory_failure(text)
                    or LIBRARY_ALLOC_STATUS.search(text) is not None
                    or CUDA_ALLOC_STATUS.search(text) is not None
                    or CUDA_ALLOC_CALL_FAILED.search(text) is not None
                    or D3D12_ALLOC_CHECK_FAILED.search(text) is not None
                    or RUNTIME_ALLOC_STATUS.search(text) is not None
                    or OPENCL_BUFFER_SIZE_REFUSED.search(text) is not None
                    or LEVEL_ZERO_DEVICE_LOST.search(text) is not None
                    or SYCL_OPAQUE_STATUS.search(text) is not None
                    or ALLOCATION_FRAGMENT.search(text) is not None
                    or SCHEDULER_DROPPED_FOR_KV.search(text) is not None
                    or limit_words.vulkan_memory_result(text),
                    failure_words=any(w in low for w in _FAILURE_WORDS))
    ceiling = (CONFIGURED_CEILING.search(text) or CONFIGURED_CEILING_RUNNING.search(text)
               or CONFIGURED_CEILING_REQUIRED.search(text))
    if ceiling:
        ex.configured_limit_bytes = _bytes(ceiling.group(4), ceiling.group(5))
    req = _first(_REQUEST, text)
    if req is None and ceiling:
        ex.requested_bytes = _bytes(ceiling.group(1), ceiling.group(2))
    elif req is not None and _cut_figure(req[1], text):
        ex.requested_cut = True
    elif req is not None:
        ex.requested_bytes = _bytes(req[1].group(1), req[1].group(2))
        ex.requested_is_lower_bound = "more than" in req[1].group(0).lower()
    elif ex.oom_words or ex.failure_words:
        ex.requested_bytes = _near_request(text, raw)
    ex.total_bytes = _plausible(_size(_TOTAL, text))
    ex.free_bytes = _plausible(_size(_FREE, text))
    _need_and_have(ex, text)
    _compiled_peak(ex, text)
    ex.in_use_bytes = _plausible(_size(_IN_USE, text))
    ex.limit_bytes = _size(_LIMIT, text)
    exceeded = _EXCEEDED.search(text)
    if exceeded:
        ex.exceeded_bytes = _bytes(exceeded.group(1), exceeded.group(2))
    _pool_figures(ex, text)
    start = _START_MEMORY.search(text) or _SETUP_MEMORY.search(text)
    if start:
        ex.start_total_bytes = _bytes(start.group(1), start.group(2))
        ex.start_free_bytes = _bytes(start.group(3), start.group(4))
    elif (start := _AVAILABLE_THEN_TOTAL.search(text)) is not None:
        ex.start_free_bytes = _bytes(start.group(1), start.group(2))
        ex.start_total_bytes = _bytes(start.group(3), start.group(4))
    tactic = _TACTIC_WORKSPACE.search(text)
    if tactic:
        ex.tactic_workspace_bytes = _bytes(tactic.group(1), tactic.group(2))
    device_request = _TACTIC_DEVICE_REQUEST.search(text)
    if device_request:  # the same request with its unit: it wins over the unit-less figure of "requested size of N"
        ex.tactic_workspace_bytes = _bytes(device_request.group(1), "MiB")
    largest = _LARGEST_PROGRAM_ALLOCATION.search(text)
    if largest:
        ex.largest_allocation_bytes = _bytes(largest.group(1), largest.group(2))
        padding = _PADDING.search(text, largest.end())
        if padding:
            ex.largest_allocation_padding_bytes = _bytes(padding.group(1), padding.group(2))
    _tpu_figures(ex, text)
    negative = _NEGATIVE.search(text)
    if negative:
        ex.negative_size = -int(negative.group(1))
    ex.runtime = detect_runtime(low)
    ex.backend = detect_backend(low)
    mig = _MIG.search(text)
    if mig:
        g, gb = (mig.group(1), mig.group(2)) if mig.group(1) else (mig.group(3), mig.group(4))
        ex.mig_profile = f"{g}g.{gb}gb"
    ex.frames = frames_of(text)
    return ex


def _need_and_have(ex: Extraction, text: str) -> None:
    """A need and what there was, side by side in one sentence about memory (:mod:`gpudesk.oom.need_have`): the
    request, and what was free or (for a part of the whole) the total, where no other clause gave them. Memory the
    sentence places in the host or its shared-memory filesystem is not the device's, so it fills no device figure."""
    found = need_have.find(text)
    if found is None:
        return
    ex.need_and_have = found
    if ex.requested_bytes is None:
        ex.requested_bytes = found.need_bytes
    if found.place is not None:
        return
    if found.have_is_total and ex.total_bytes is None:
        ex.total_bytes = _plausible(found.have_bytes)
    elif not found.have_is_total and ex.free_bytes is None:
        ex.free_bytes = _plausible(found.have_bytes)


# The AWS Neuron compiler's check of a compiled graph against a NeuronCore's device memory before it writes the NEFF
# ("[XCG815] Estimated peak HBM usage (19.000523) exceeds 16GB. Neff won't be able to load on chip", neuronx-cc;
# philschmid/huggingface-inferentia2-samples#12): the estimate is in the unit of the limit beside it, and the limit is
# the memory one NeuronCore can use (Inferentia2: 32 GB of HBM per chip, two NeuronCores; AWS Neuron documentation,
# "Inferentia2 architecture"). The graph's whole peak, not one request: read as XLA:TPU's compile-time "Used A of B hbm.
# Exceeded hbm capacity by C" is (in use A, exceeded by A - B, total B), nothing free for it.
_COMPILED_PEAK = re.compile(r"estimated peak hbm usage\s{0,3}\(\s{0,2}(\d{1,6}(?:\.\d{1,9})?)\s{0,2}\)\s{0,3}"
                            r"exceeds\s{1,3}(\d{1,6}(?:\.\d{1,6})?)\s{0,2}([KMGT]i?B)\b", re.IGNORECASE)


def _compiled_peak(ex: Extraction, text: str) -> None:
    """A compiler's estimated peak against the device memory it must fit (``_COMPILED_PEAK``)."""
    m = _COMPILED_PEAK.search(text)
    if m is None:
        return
    peak, limit = _bytes(m.group(1), m.group(3)), _plausible(_bytes(m.group(2), m.group(3)))
    if peak is None or limit is None or peak <= limit:
        return
    ex.oom_words = True
    if ex.in_use_bytes is None:
        ex.in_use_bytes = peak
    if ex.exceeded_bytes is None:
        ex.exceeded_bytes = peak - limit
    if ex.total_bytes is None:
        ex.total_bytes = limit


def _pool_figures(ex: Extraction, text: str) -> None:
    """What the allocator's pool held before the request, and its cap (see ``_POOL_HELD``)."""
    held = _POOL_HELD.search(text)
    if held:
        ex.pool_held_bytes = _bytes(held.group(1), held.group(2))
    elif ex.requested_bytes is not None:
        with_request = _POOL_HELD_WITH_REQUEST.search(text)
        total = _bytes(with_request.group(1), with_request.group(2)) if with_request else None
        if total is not None and total >= ex.requested_bytes:
            ex.pool_held_bytes = total - ex.requested_bytes
    limit = _POOL_LIMIT.search(text)
    if limit:
        ex.pool_limit_bytes = _bytes(limit.group(1), limit.group(2))


def _tpu_figures(ex: Extraction, text: str) -> None:
    """XLA:TPU's own report (``_TPU_HBM_USAGE``, ``_TPU_RESERVE``, ``_TPU_MEMORY_SPACE``): what the step needs, its
    parts, the runtime's refused reservation, and the memory space that ran out."""
    usage = _TPU_HBM_USAGE.search(text)
    if usage:
        ex.oom_words = True
        ex.tpu_hbm_usage_bytes = _bytes(usage.group(1), usage.group(2))
        if ex.in_use_bytes is None:
            ex.in_use_bytes = ex.tpu_hbm_usage_bytes
        block = text[usage.end():usage.end() + 400]
        for m in _TPU_HBM_PART.finditer(block):
            ex.tpu_hbm_parts.setdefault(m.group(1).lower(), _bytes(m.group(2), m.group(3)))
    reserve = _TPU_RESERVE.search(text)
    if reserve:
        ex.oom_words = True
        if ex.requested_bytes is None:
            ex.requested_bytes = _bytes(reserve.group(1), reserve.group(2))
        if reserve.group(3) is not None and ex.free_bytes is None:
            ex.free_bytes = _bytes(reserve.group(3), reserve.group(4))
        reservable = _TPU_RESERVABLE.search(text, reserve.start())
        if reservable:
            ex.tpu_reservable_bytes = _bytes(reservable.group(1), reservable.group(2))
    pieces = _TPU_ALLOCATABLE.search(text)
    if pieces:
        ex.oom_words = True
        if ex.requested_bytes is None:
            ex.requested_bytes = _bytes(pieces.group(1), pieces.group(2))
        if ex.free_bytes is None:
            ex.free_bytes = _bytes(pieces.group(5), pieces.group(6))
        if ex.tpu_reservable_bytes is None:
            ex.tpu_reservable_bytes = _bytes(pieces.group(3), pieces.group(4))
    space = _TPU_MEMORY_SPACE.search(text)
    if space:
        ex.tpu_memory_space = space.group(1).lower()


# A pool's refusal stated as its two figures alone, the request then what is free: "Requested 5696 MB; Free 3958.17 MB".
# CatBoost's GPU memory pool raises TOutOfMemoryError with "Error: Out of memory. Requested R MB; Free F MB"
# (catboost/cuda/cuda_lib/memory_pool/stack_like_memory_pool.h); a user quoting only the figure pair
# (catboost/catboost#1081) still states an allocation larger than what is free.
_REQUEST_FREE_PAIR = re.compile(r"\brequested\s{1,3}" + _SIZE_U + r"\s{0,2}[;,]\s{0,3}free\s{1,3}" + _NUM,
                                re.IGNORECASE)


def recognised(ex: Extraction, text: str = "") -> bool:
    """An out-of-memory text: its words say so, or it names a request next to an allocation failure (any wording
    whose request figure was read and which says the allocation failed: "host allocation of size N failed"), or a
    request and the free memory side by side with the request the larger (``_REQUEST_FREE_PAIR``), or any sentence
    about memory that states a need above what there was (:mod:`gpudesk.oom.need_have`)."""
    return (ex.oom_words or ex.exceeded_bytes is not None or ex.negative_size is not None
            or (ex.configured_limit_bytes is not None and ex.requested_bytes is not None)
            or ((ex.requested_bytes is not None or ex.requested_cut) and ex.failure_words)
            or (ex.requested_bytes is not None and ex.free_bytes is not None and ex.requested_bytes > ex.free_bytes
                and _REQUEST_FREE_PAIR.search(text) is not None)
            or ex.need_and_have is not None)


# A device's total and free memory stated together on one line ("GPU has 79.19 GiB total, 6.68 GiB free").
_TOTAL_FREE_LINE = re.compile(r"\btotal\b[^\n]{0,40}?\bfree\b|\bfree\b[^\n]{0,40}?\btotal\b", re.IGNORECASE)


def _device_figures_missing(report: MemoryReport) -> bool:
    """No figure of the device at all (total, free, allocated, reserved) was read."""
    dev = report.device
    return dev is None or all(v is None for v in (dev.total_bytes, dev.free_bytes, dev.allocated_bytes,
                                                  dev.reserved_bytes))


def _read_nothing(report: MemoryReport) -> bool:
    """A named parser recognised the shape but read no figure at all (a message in that runtime's words whose
    clauses are not there, "CUDA Out of Memory when trying to allocate 16 EiB"): the tolerant layer reads it."""
    dev = report.device
    return report.requested_bytes is None and report.kv_cache_tokens is None and (dev is None or all(
        v is None for v in (dev.total_bytes, dev.free_bytes, dev.allocated_bytes, dev.reserved_bytes)))


def parse(text: str, report: MemoryReport) -> bool:
    """Fill the figures the named parsers left unknown; True when this layer recognised the text.

    Called after the named parsers: it never overwrites a figure they read, so PyTorch's, TensorFlow's and
    MPS's own clauses keep their exact meaning.
    """
    ex = extract(text)
    parsed = report.parsed
    report.runtime = report.runtime or ex.runtime
    report.backend = report.backend or ex.backend
    report.mig_profile = report.mig_profile or ex.mig_profile
    report.graph_capture = report.graph_capture or ex.graph_capture
    for key, value in (("negative_size_bytes", ex.negative_size), ("buffer_limit_bytes", ex.limit_bytes),
                       ("exceeded_by_bytes", ex.exceeded_bytes), ("in_use_bytes", ex.in_use_bytes),
                       ("pool_held_bytes", ex.pool_held_bytes), ("pool_limit_bytes", ex.pool_limit_bytes),
                       ("tactic_workspace_bytes", ex.tactic_workspace_bytes),
                       ("largest_allocation_bytes", ex.largest_allocation_bytes),
                       ("largest_allocation_padding_bytes", ex.largest_allocation_padding_bytes),
                       ("configured_limit_bytes", ex.configured_limit_bytes)):
        if value is not None:
            parsed.setdefault(key, value)
    if ex.tpu_hbm_usage_bytes is not None:
        parsed.setdefault("tpu_hbm_usage_bytes", ex.tpu_hbm_usage_bytes)
        for part, size in ex.tpu_hbm_parts.items():
            if size is not None:
                parsed.setdefault(f"tpu_hbm_{part}_bytes", size)
    if ex.tpu_memory_space is not None:
        parsed.setdefault("tpu_memory_space", ex.tpu_memory_space)
    if ex.tpu_reservable_bytes is not None:
        parsed.setdefault("tpu_reservable_bytes", ex.tpu_reservable_bytes)
    if ex.start_total_bytes is not None and ex.start_free_bytes is not None:
        parsed.setdefault("total_at_start_bytes", ex.start_total_bytes)
        parsed.setdefault("free_at_start_bytes", ex.start_free_bytes)
    if ex.requested_cut and report.requested_bytes is None:
        report.missing.append(N_("the end of the message: the paste stops inside the request's figure, which is not "
                                 "read"))
    already = report.kind != "unknown"
    if not already and not recognised(ex, text):
        if ex.graph_capture and ex.frames:
            # A traceback into CUDA-graph capture pasted into the OOM doctor: the capture is the context.
            report.kind = "traceback_only"
            report.framework = report.framework if report.framework != "unknown" else (ex.runtime or "unknown")
            report.missing.append(N_("the error line (only the traceback was given)"))
            return True
        if _MODEL_LOAD_FAILED.search(text) and not _MODEL_FILE_FAULT.search(text):
            # llama.cpp's model load failing with no reason given: read by the rules as its allocation.
            report.kind = "model_load_failed"
            report.runtime = report.runtime or "llamacpp"
            report.framework = report.framework if report.framework != "unknown" else "llamacpp"
            report.missing.append(N_("the reason the model failed to load (the runtime's log)"))
            return True
        status = pool_status.read(text)
        described = memory_report(text) or ("usage" if status is not None and status.used_bytes is not None else None)
        if described is not None:
            if status is not None:
                _fill_status(report, status)
            # Memory held or growing, described without a failure: the rules read the figures and words.
            report.kind = "memory_report"
            report.parsed["memory_report"] = described
            report.framework = report.framework if report.framework != "unknown" else (ex.runtime or "unknown")
            return True
        if MEMORY_FIGURE.search(text) is None or not (ex.failure_words or _RUN_STOPPED.search(text)):
            return False
        # (Sixty-third pass) A wording no reading knows, with a size of memory in it and a failure said beside it: not
        # "no out-of-memory message" (issue 28's first requirement) but a report whose figures the rules read for what
        # they show. Figures with no failure ("using 11.2 GiB of VRAM", "check passed. Required: 12.5 GB, Available:
        # 15.2 GB", a progress bar's "RAM used") stay a report of nothing wrong (eleventh, forty-second, fifty-fifth
        # passes).
        report.parsed["memory_figures_only"] = 1
        report.missing.append(N_("the error line itself (only memory figures were recognised)"))
    if already and report.kind not in FILL_KINDS and not _read_nothing(report):
        if report.kind == "pytorch_oom" and _device_figures_missing(report) and _TOTAL_FREE_LINE.search(text):
            # PyTorch's clauses retold in a user's words ("GPU has 79.19 GiB total, 6.68 GiB free, 72.48 GiB in use
            # by this process", karpathy/nanochat#443): the named parser read the request and no device figure; the
            # device's total and free stated on one line are the same figures its own clauses would have given.
            dev = report.device or report.ensure_device(report.device_index)
            if ex.total_bytes is not None and ex.free_bytes is not None and ex.free_bytes <= ex.total_bytes:
                dev.total_bytes, dev.free_bytes = ex.total_bytes, ex.free_bytes
                parsed.setdefault("total_capacity_bytes", ex.total_bytes)
                parsed.setdefault("free_bytes", ex.free_bytes)
        return True  # a named parser read this format's own clauses (and dropped garbage ones on purpose)
    dev = report.device or report.ensure_device(report.device_index)
    if report.requested_bytes is None:
        request = ex.requested_bytes
        if request is None and ex.exceeded_bytes is not None and dev.free_bytes is None:
            # XLA:TPU "Used A of B hbm. Exceeded hbm capacity by C": the whole program does not fit, nothing is free
            # for it (the program is not one request, so it is not read as one).
            dev.free_bytes = 0
        if request is not None:
            report.requested_bytes = request
            parsed.setdefault("requested_bytes", request)
    status = pool_status.read(text)
    if status is not None:
        _fill_status(report, status)
    if dev.total_bytes is None and ex.total_bytes is not None:
        dev.total_bytes = ex.total_bytes
        parsed.setdefault("total_capacity_bytes", ex.total_bytes)
    if dev.free_bytes is None and ex.free_bytes is not None:
        dev.free_bytes = ex.free_bytes
        parsed.setdefault("free_bytes", ex.free_bytes)
    pool_free = _mindspore_pool_free(text)
    if dev.free_bytes is None and pool_free is not None:
        dev.free_bytes = pool_free
        parsed.setdefault("free_bytes", pool_free)
    if not already:
        report.kind = "generic_oom"
        if report.framework == "unknown" and ex.runtime:
            report.framework = ex.runtime
    return True


# MindSpore's dynamic memory pool refusing a block (mindspore/ccsrc/backend/common/mem_reuse/mem_dynamic_allocator.cc,
# AddMemBlockAndMemBufByEagerFree: "TotalUsedMemStatistics : U plus TotalUsedByEventMemStatistics : E and plus alloc size
# : R is more than total mem size : T", https://github.com/mindspore-ai/mindspore): U and E are what the pool has handed
# out, T its whole size (the device memory MindSpore took at start), so what the pool had left is T - U - E, and the
# check failed because R is above it.
_MINDSPORE_POOL = re.compile(r"TotalUsedMemStatistics\s{0,3}:\s{0,3}(\d{1,20})\s{1,3}plus\s{1,3}"
                             r"TotalUsedByEventMemStatistics\s{0,3}:\s{0,3}(\d{1,20})\b.{0,80}?"
                             r"is more than total mem size\s{0,3}:\s{0,3}(\d{1,20})", re.IGNORECASE | re.DOTALL)


def _mindspore_pool_free(text: str) -> int | None:
    """What MindSpore's pool had left when it refused a block (``_MINDSPORE_POOL``), or None."""
    m = _MINDSPORE_POOL.search(text)
    if m is None:
        return None
    left = int(m.group(3)) - int(m.group(1)) - int(m.group(2))
    return left if left >= 0 else None


def _fill_status(report: MemoryReport, status: pool_status.PoolStatus) -> None:
    """The figures of a runtime's memory status printout (:mod:`.pool_status`) where nothing else gave them: the
    device's total and free memory, its pool's allocated and reserved memory, and the pool's cap (a per-process limit,
    ``allowed_bytes``)."""
    dev = report.device or report.ensure_device(report.device_index)
    for name, value in (("total_bytes", status.total_bytes), ("free_bytes", status.free_bytes),
                        ("allocated_bytes", status.allocated_bytes), ("reserved_bytes", status.reserved_bytes),
                        ("allowed_bytes", status.cap_bytes)):
        if value is not None and getattr(dev, name) is None:
            setattr(dev, name, value)
    if status.cap_bytes is not None:
        report.parsed.setdefault("allocator_cap_bytes", status.cap_bytes)
