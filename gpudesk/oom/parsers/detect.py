"""Turn pasted or dropped text into a :class:`MemoryReport`: input checks, clean-up, parser dispatch.

Bad input is refused with :class:`OomInputError` naming the problem (empty, binary, not decodable). Text
that decodes but holds no known OOM shape gives a report of kind "unknown" (diagnosed as ``unparseable``),
so nothing the user pasted is lost: ``report.text`` keeps it.
"""

from __future__ import annotations

import re

from gpudesk.oom import literal_scan
from gpudesk.oom.errors import OomInputError
from gpudesk.oom.parsers import (
    allowed_memory,
    cublas,
    condense,
    generic,
    jax,
    llamacpp,
    memory_summary,
    mps,
    pytorch_oom,
    rmm_pool_start,
    sglang,
    startup_free,
    tensorflow,
    terminal_rows,
    tgi,
    trtllm,
    vllm,
)
from gpudesk.oom.report import MemoryReport
from gpudesk.oom.signatures import CALL_SIGNATURES, classify
from gpudesk.oom.user_context import detect_host_os
from gpudesk.i18n import N_, _

MAX_TEXT_CHARS = 5_000_000
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\r]")  # control characters other than \t \n \v \f
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")

# Order matters: the first parser that recognises the text sets framework/kind; later ones add figures.
# Engines first (their start-up errors are the first cause; a PyTorch OOM in the same log adds figures), then
# the platform-specific shapes, then the generic allocator messages.
PARSERS = (startup_free, rmm_pool_start, vllm, sglang, trtllm, tgi, llamacpp, mps, allowed_memory, pytorch_oom, tensorflow, jax, memory_summary,
           cublas)
# Lower-case words every message of a parser contains; the parser's regexes run only when one is present.
_GATES = {
    "startup_free": ("on startup is less than", "< desired utilization", "< desired gpu memory utilization"),
    "rmm_pool_start": ("initial rmm allocation", "initial allocation of", "pool allocation of"),
    "vllm": ("max seq len", "no available memory for the cache blocks", "mamba cache blocks",
             "available kv cache memory: -", "reserved for kv cache is -"),
    "sglang": ("not enough memory", "profiled value", "leave no gpu memory for the kv cache",
               "exceeds the maximum allowed length"),
    "trtllm": ("executor creation failed", "cuda runtime error in", "requested amount of gpu memory",
               "maxtokensinpagedkvcache", "no free blocks left"),
    "tgi": ("prefill tokens",),
    "llamacpp": ("failed to allocate", "malloc failed"),
    "mps": ("mps backend out of memory",),
    "allowed_memory": ("would exceed allowed memory", "free (according to cuda)"),
    "pytorch_oom": ("out of memory", "tried to allocate", "total capacity"),
}

# Words that name a serving engine or a platform in a log: lower-case substrings found with ``in`` on the
# lower-cased text, plus case-sensitive word patterns with a literal start (both linear and fast: no
# case-insensitive alternation is run over a long log).
# A pattern runs only when its gate word (lower case) is in the text.
_Table = tuple[tuple[str, tuple[str, ...], tuple[str, re.Pattern[str]] | None], ...]
_ENGINES: _Table = (
    ("vllm", ("vllm", "enginecore", "llmengine", "gpu_memory_utilization"), None),
    # SGLang's scheduler log lines (python/sglang/srt/managers/scheduler.py: "Prefill batch. #new-seq: N, #new-token:
    # N, #cached-token: N, ...", "Decode batch. #running-req: N, #token: N, token usage: ...").
    ("sglang", ("sglang", "mem_fraction_static", "mem-fraction-static", "prefill batch. #new-seq", "#new-token:",
                "decode batch. #running-req"), None),
    # LightLLM (its package, and its token-budget flag, lightllm/server/api_cli.py; https://github.com/ModelTC/lightllm).
    ("lightllm", ("lightllm", "max_total_token_num"), None),
    ("trtllm", ("tensorrt-llm", "trt-llm", "tensorrt_llm", "trtllm"), None),
    ("tgi", ("text-generation-inference", "text_generation_launcher", "text_generation_server",
             "text_generation_client", "text_generation.", "unable to warmup model", "method warmup encountered",
             # TGI's token budget: the launcher's flag and the router's log after warm-up ("Setting max batch total
             # tokens to N", router/src/main.rs) in its own words.
             "max-batch-total-tokens", "max_batch_total_tokens", "max batch total"), None),
    ("ollama", ("ollama", "llama runner process"), None),
    ("llamacpp", ("ggml_", "llama_model", "llama_context", "llama_kv", "llama_new_context", "llama.cpp",
                  "llama-server"), None),
)
_PLATFORMS: _Table = (
    ("mps", ("mps backend", "pytorch_mps_"), None),
    # Intel's Level Zero named as the backend comes before the HIP words: a HIP program run on an Intel GPU through
    # chipStar (HIP over Level Zero or OpenCL, https://github.com/CHIP-SPV/chipStar) calls hipMalloc, but the device and
    # its limits are Intel's (CHIP-SPV/chipStar#1186: "Intel Arc A770", "Level Zero backend").
    # (Fifty-ninth pass) oneAPI's own status names: Level Zero's ze_result_t (ZE_RESULT_ERROR_*, ze_api.h), the SYCL
    # plug-in interface's PI_ERROR_* and SYCL's "Native API failed" (intel/llvm, enqueue_kernel.cpp).
    ("xpu", ("level zero", "levelzero", "intel arc", "intel(r) arc", "ze_result_error", "pi_error_",
             "native api failed"), None),
    # (AMD's GPU target names, gfx90a / gfx942 / gfx1030 / gfx1100 / gfx1151 / gfx1201: LLVM's AMDGPU processors, the
    # names ROCm builds and reports for each chip, https://llvm.org/docs/AMDGPUUsage.html.)
    ("rocm", ("hip out of memory", "pytorch_hip_alloc_conf", "hip graphs", "hipmalloc", "amdgpu", "hiperror",
              "hipmem", "gfx90", "gfx94", "gfx95", "gfx103", "gfx110", "gfx115", "gfx120"),
     ("rocm", re.compile(r"ROCm\d|\bROCm\b|\brocm\b"))),
    ("xpu", ("xpu out of memory", "level zero", "intel(r) arc"), ("xpu", re.compile(r"\bxpu\b|\bXPU\b"))),
    ("npu", ("npu out of memory", "torch_npu", "el0004", "aclrt", "ascend"), None),
    # Intel Gaudi (Habana) HPUs: the PyTorch bridge's device-memory module ("MODULE:PT_DEVMEM"), SynapseAI's graph
    # helper ("MODULE:SYNHELPER workspace Allocation of size ::N failed!", HabanaAI/Model-References#10) and status
    # type (synStatus), the card's tools (hl-smi, HABANA_VISIBLE_MODULES / HABANA_VISIBLE_DEVICES) and PyTorch's
    # "hpu" device type (habana_frameworks.torch registers torch.hpu).
    ("hpu", ("pt_devmem", "habana", "synstatus", "synhelper", "synapseai", "hl-smi", "torch.hpu", "hpu out of memory",
             "intel gaudi"), ("hpu", re.compile(r"\bhpu(?::\d{1,2})?\b|\bHPU\b"))),
    ("tpu", ("tpu_inference", "libtpu"), ("tpu", re.compile(r"\bTPU\b"))),
    ("cuda", ("cuda", "nvidia"), None),
)

def decode_text(data: str | bytes) -> str:
    """Decoded, cleaned text (ANSI colours removed, CRLF -> LF).

    Raises:
        OomInputError: empty input, binary data (NUL bytes or mostly control characters), too large.
    """
    if isinstance(data, bytes):
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            # UTF-16 with a byte-order mark (e.g. PowerShell's `>` redirection on Windows).
            try:
                text = data.decode("utf-16")
            except UnicodeDecodeError as exc:
                raise OomInputError(_('The input starts like UTF-16 text but does not decode: {exc}.').format(exc=exc)) from exc
        elif b"\x00" in data[:65536]:
            raise OomInputError(_("The input is binary data (it contains NUL bytes); paste the error text or a log file."))
        else:
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
    elif isinstance(data, str):
        text = data
    else:
        raise OomInputError(_('Expected text, got {type}.').format(type=type(data).__name__))
    if len(text) > MAX_TEXT_CHARS:
        raise OomInputError(
            _("The input has {n} characters; paste the part around the error (at most {limit}).").format(
                n=len(text), limit=MAX_TEXT_CHARS)
        )
    text = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise OomInputError(_("The input is empty; paste the out-of-memory message or a memory_summary() table."))
    sample = text[:65536]
    control = len(_CONTROL.findall(sample)) + sample.count("\ufffd")
    if control > max(8, len(sample) // 10):
        raise OomInputError(_("The input looks like binary data, not text; paste the error text or a log file."))
    return text


def detect_framework(text: str) -> str:
    """"pytorch", "tensorflow", "jax", "vllm" or "unknown", from the shapes and words in ``text``."""
    for parser, name in ((vllm, "vllm"), (pytorch_oom, "pytorch"), (tensorflow, "tensorflow"), (jax, "jax"),
                         (memory_summary, "pytorch")):
        if parser.matches(text):
            return name
    low = text.lower()
    for word, name in (("vllm", "vllm"), ("tensorflow", "tensorflow"), ("jax", "jax"), ("torch", "pytorch")):
        if word in low:
            return name
    return "unknown"


def detect_engine(text: str) -> str | None:
    """The serving engine a log comes from ("vllm", "sglang", "lightllm", "trtllm", "tgi", "ollama", "llamacpp"), or
    None."""
    return _first(text.lower(), text, _ENGINES)


def detect_platform(text: str) -> str | None:
    """The accelerator platform a text names ("mps", "rocm", "xpu", "tpu", "cuda"), or None when it names none."""
    return _first(text.lower(), text, _PLATFORMS)


def _first(low: str, text: str, table: _Table) -> str | None:
    for name, words, gated in table:
        if any(w in low for w in words):
            return name
        if gated is not None and gated[0] in low and gated[1].search(text):
            return name
    return None


# Pastes wrapped at a terminal's or a form's width break the phrases every parser matches ("No available memory for
# the cache\nblocks", "Tried to allocate 20.00\nMiB"). Such a paste is read a second time with its whitespace runs
# made single spaces, and that reading is kept when it recognises more; only short pastes (what a person wraps), so a
# log keeps one linear pass.
UNWRAP_MAX_CHARS = 20_000


def parse_text(data: str | bytes) -> MemoryReport:
    """Parse every OOM shape found in ``data`` into one report (source "text"); a wrapped paste whose line breaks
    hide its phrases is read unwrapped (``UNWRAP_MAX_CHARS``).

    Raises:
        OomInputError: see :func:`decode_text`.
    """
    literal_scan.install()  # a long log skips the patterns whose words it lacks (gpudesk.oom.literal_scan)
    text = decode_text(data)
    read = condense.repeated_lines(text)  # a long log's patterns scan it without the middle of its repeated lines
    report = _parse(read)
    if read is not text:
        report.text = text  # the whole input is kept
        return report
    if len(text) > UNWRAP_MAX_CHARS or not (report.kind in ("unknown", "generic_oom") or report.missing):
        return report
    # Terminal rows padded with spaces first (their cut words rejoin exactly), then every whitespace run folded.
    for rejoined in (terminal_rows.unwrap(text), " ".join(text.split()) if "\n" in text.strip() else None):
        better = _better_reading(rejoined, text, report) if rejoined is not None else None
        if better is not None:
            return better
    return report


def _better_reading(rejoined: str, text: str, report: MemoryReport) -> MemoryReport | None:
    """The report of ``rejoined`` (``text`` with its line breaks undone) where it recognises a shape ``report`` did
    not, or lacks fewer figures; it keeps ``text`` as pasted. None otherwise."""
    again = _parse(rejoined)
    # A named format found once the line breaks are undone beats the tolerant layer's reading of the cut phrase (its
    # words, such as "no available memory", are read wrapped or not; the format's own clauses only unwrapped).
    named = report.kind == "generic_oom" and again.kind not in ("unknown", "generic_oom")
    if again.kind == "unknown" or (report.kind != "unknown" and not named
                                   and len(again.missing) >= len(report.missing)):
        return None
    again.text = text
    again.parsed["read_unwrapped"] = 1
    return again


def _parse(text: str) -> MemoryReport:
    report = MemoryReport(source="text", text=text)
    matched = False
    low = text.lower()
    for parser in PARSERS:
        gate = _GATES.get(parser.__name__.rsplit(".", 1)[-1])
        if gate is not None and not any(word in low for word in gate):
            continue  # none of the words this parser's messages always contain (a fast pre-check on long logs)
        if parser is cublas and matched:
            # A library failure next to an allocator message is a secondary symptom.
            if cublas.matches(text):
                report.parsed["library_error_also_present"] = 1
            continue
        if parser.parse(text, report):
            matched = True
    if generic.parse(text, report):
        matched = True
    report.engine = report.engine or detect_engine(text)
    report.host_os = detect_host_os(text)
    report.platform = report.platform or detect_platform(text) or _BACKEND_PLATFORM.get(report.backend or "")
    _slice_capacity(report)
    negative = report.parsed.get("negative_size_bytes")
    card = report.device.total_bytes if report.device is not None else None
    report.signature = classify(text, report.requested_bytes, negative if isinstance(negative, int) else None,
                                report.backend, card)
    if report.signature in CALL_SIGNATURES and report.kind not in _CALL_LEVEL_KINDS:
        # A named format with its own figures (PyTorch's allocator message, TF/XLA, MPS, an engine's) says which
        # call failed; words such as pin_memory=True or cuDNN elsewhere in a traceback do not override it.
        report.signature = None
    if report.signature is not None and not matched:
        matched = True
        report.kind = "signature"
        report.framework = report.runtime or detect_framework(text)
    if not matched:
        report.framework = detect_framework(text)
        report.missing.append(N_("an out-of-memory message (no known PyTorch, TensorFlow, JAX, cuBLAS or vLLM shape)"))
    return report


# Shapes that name no allocator figures: there the failing call's own words decide (gpudesk.oom.signatures).
_CALL_LEVEL_KINDS = frozenset({"unknown", "generic_oom", "cuda_error_oom", "cublas_alloc_failed", "cudnn_alloc_failed",
                               "nccl_oom", "pin_memory_thread"})


# The backend the extraction layer names -> the report's platform, where the text names no platform itself.
_BACKEND_PLATFORM = {"tpu": "tpu", "rocm": "rocm", "metal": "metal", "vulkan": "vulkan", "directml": "directml",
                     "opencl": "opencl", "cpu": "cpu"}


def _slice_capacity(report: MemoryReport) -> None:
    """A MIG slice's capacity from its profile name when the text gives none: ``3g.20gb`` holds at most 20 GiB.

    The number in a MIG profile name is the slice's memory rounded up to whole GB, and every profile NVIDIA lists
    holds less than that many GiB (A100-40GB: 1g.5gb 4.75 GiB ... 7g.40gb 39.5 GiB; H100 NVL: 1g.12gb 10.75 GiB,
    3g.47gb 46.38 GiB; nvidia-smi mig -lgip in NVIDIA/mig-parted#101 and NVIDIA/gpu-operator#900), so
    ``N GiB`` is an upper bound: a request above it can never fit the slice.
    """
    profile = report.mig_profile
    if profile is None:
        return
    dev = report.device or report.ensure_device(report.device_index)
    if dev.total_bytes is None:
        gib = int(profile.split(".")[1].removesuffix("gb"))
        dev.total_bytes = gib * 1024**3
        report.parsed.setdefault("mig_slice_capacity_bytes", dev.total_bytes)
