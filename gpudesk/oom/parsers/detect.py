"""Turn pasted or dropped text into a :class:`MemoryReport`: input checks, clean-up, parser dispatch.

Bad input is refused with :class:`OomInputError` naming the problem (empty, binary, not decodable). Text
that decodes but holds no known OOM shape gives a report of kind "unknown" (diagnosed as ``unparseable``),
so nothing the user pasted is lost: ``report.text`` keeps it.
"""

from __future__ import annotations

import re

from gpudesk.oom.errors import OomInputError
from gpudesk.oom.parsers import (
    allowed_memory,
    cublas,
    jax,
    llamacpp,
    memory_summary,
    mps,
    pytorch_oom,
    sglang,
    tensorflow,
    tgi,
    trtllm,
    vllm,
)
from gpudesk.oom.report import MemoryReport

MAX_TEXT_CHARS = 5_000_000
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")

# Order matters: the first parser that recognises the text sets framework/kind; later ones add figures.
# Engines first (their start-up errors are the first cause; a PyTorch OOM in the same log adds figures), then
# the platform-specific shapes, then the generic allocator messages.
PARSERS = (vllm, sglang, trtllm, tgi, llamacpp, mps, allowed_memory, pytorch_oom, tensorflow, jax, memory_summary,
           cublas)
_ENGINE_KINDS = ("vllm_", "sglang_", "trtllm_", "tensorrt_", "tgi_", "ggml_")

# Words that name a serving engine or a platform in a log (each searched once: linear in the text).
_ENGINES = (
    ("vllm", re.compile(r"\bvllm\b|EngineCore|LLMEngine|gpu_memory_utilization", re.I)),
    ("sglang", re.compile(r"\bsglang\b|mem[-_]fraction[-_]static", re.I)),
    ("trtllm", re.compile(r"TensorRT-LLM|TRT-LLM|tensorrt_llm|trtllm", re.I)),
    ("tgi", re.compile(r"text[-_]generation[-_](?:inference|launcher|server|client)|text_generation\b|"
                       r"Unable to warmup model|Method Warmup encountered", re.I)),
    ("ollama", re.compile(r"\bollama\b|llama runner process", re.I)),
    ("llamacpp", re.compile(r"\bggml_|\bllama_(?:model|context|kv|new_context|init)|llama\.cpp|llama-server", re.I)),
)
_PLATFORMS = (
    ("mps", re.compile(r"\bMPS backend\b|PYTORCH_MPS_", re.I)),
    ("rocm", re.compile(r"\bHIP out of memory|PYTORCH_HIP_ALLOC_CONF|HIP Graphs|hipMalloc|\bROCm\d|\brocm\b|amdgpu|hipError", re.I)),
    ("xpu", re.compile(r"\bXPU out of memory|\bxpu\b|Level Zero|\bIntel\(R\) Arc", re.I)),
    ("tpu", re.compile(r"\bTPU\b|\btpu_inference\b|libtpu", re.I)),
    ("cuda", re.compile(r"\bCUDA\b|cudaMalloc|\bNVIDIA\b|nvidia-smi", re.I)),
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
                raise OomInputError(f"The input starts like UTF-16 text but does not decode: {exc}.") from exc
        elif b"\x00" in data[:65536]:
            raise OomInputError("The input is binary data (it contains NUL bytes); paste the error text or a log file.")
        else:
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
    elif isinstance(data, str):
        text = data
    else:
        raise OomInputError(f"Expected text, got {type(data).__name__}.")
    if len(text) > MAX_TEXT_CHARS:
        raise OomInputError(
            f"The input has {len(text)} characters; paste the part around the error (at most {MAX_TEXT_CHARS})."
        )
    text = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise OomInputError("The input is empty; paste the out-of-memory message or a memory_summary() table.")
    sample = text[:65536]
    control = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\n\t\f\v") + sample.count("\ufffd")
    if control > max(8, len(sample) // 10):
        raise OomInputError("The input looks like binary data, not text; paste the error text or a log file.")
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
    """The serving engine a log comes from ("vllm", "sglang", "trtllm", "tgi", "ollama", "llamacpp"), or None."""
    for name, pattern in _ENGINES:
        if pattern.search(text):
            return name
    return None


def detect_platform(text: str) -> str | None:
    """The accelerator platform a text names ("mps", "rocm", "xpu", "tpu", "cuda"), or None when it names none."""
    for name, pattern in _PLATFORMS:
        if pattern.search(text):
            return name
    return None


def parse_text(data: str | bytes) -> MemoryReport:
    """Parse every OOM shape found in ``data`` into one report (source "text").

    Raises:
        OomInputError: see :func:`decode_text`.
    """
    text = decode_text(data)
    report = MemoryReport(source="text", text=text)
    matched = False
    for parser in PARSERS:
        if parser is cublas and matched:
            # A library failure next to an allocator message is a secondary symptom.
            if cublas.matches(text):
                report.parsed["library_error_also_present"] = 1
            continue
        if parser.parse(text, report):
            matched = True
    report.engine = report.engine or detect_engine(text)
    report.platform = report.platform or detect_platform(text)
    if not matched:
        report.framework = detect_framework(text)
        report.missing.append("an out-of-memory message (no known PyTorch, TensorFlow, JAX, cuBLAS or vLLM shape)")
    return report
