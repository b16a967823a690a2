"""Turn pasted or dropped text into a :class:`MemoryReport`: input checks, clean-up, parser dispatch.

Bad input is refused with :class:`OomInputError` naming the problem (empty, binary, not decodable). Text
that decodes but holds no known OOM shape gives a report of kind "unknown" (diagnosed as ``unparseable``),
so nothing the user pasted is lost: ``report.text`` keeps it.
"""

from __future__ import annotations

import re

from gpudesk.oom.errors import OomInputError
from gpudesk.oom.parsers import cublas, jax, memory_summary, pytorch_oom, tensorflow, vllm
from gpudesk.oom.report import MemoryReport

MAX_TEXT_CHARS = 5_000_000
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")

# Order matters: the first parser that recognises the text sets framework/kind; later ones add figures.
PARSERS = (vllm, pytorch_oom, tensorflow, jax, memory_summary, cublas)


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
    if not matched:
        report.framework = detect_framework(text)
        report.missing.append("an out-of-memory message (no known PyTorch, TensorFlow, JAX, cuBLAS or vLLM shape)")
    return report
