"""gpudesk.oom.literal_scan: a long log skips only the pattern scans that cannot match (qa51 D5)."""

from __future__ import annotations

import re

import pytest

from gpudesk.oom import diagnose_text, literal_scan
from gpudesk.oom.literal_scan import LiteralScan, required_literals
from tests.benchmarks.test_oom_noise_log_bench import noise

# A real message (PyTorch 2.x's wording, as in tests/benchmarks/test_oom_long_log_bench.py).
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB "
       "of which 1.02 GiB is free. Of the allocated memory 21.80 GiB is allocated by PyTorch, and 312.00 MiB is "
       "reserved by PyTorch but unallocated.")


def _causes(text: str) -> list[tuple[str, float, list[str]]]:
    return [(c.id, c.confidence, list(c.checks)) for c in diagnose_text(text).causes]


def test_message_buried_in_a_200_kb_noise_log_is_found_as_when_every_pattern_scans() -> None:
    half = noise(100_000)
    text = half + "\n" + OOM + "\n" + noise(100_000, seed=6)
    assert len(text) > 200_000
    d = diagnose_text(text)
    assert d.found_oom and d.top is not None and d.top.id == "genuine_shortage"
    saved = literal_scan.MIN_CHARS
    literal_scan.MIN_CHARS = 10**12  # every pattern scans the whole text
    try:
        whole = _causes(text)
        alone = _causes(OOM)
    finally:
        literal_scan.MIN_CHARS = saved
    assert _causes(text) == whole
    assert [c[0] for c in whole][:1] == [c[0] for c in alone][:1]


@pytest.mark.parametrize(("pattern", "hits", "misses"), [
    # a case-insensitive part of a case-sensitive pattern (generic._OOM_ABBREVIATION's "CUDA-ooM")
    (re.compile(r"(?<![A-Za-z0-9])OOM(?![A-Za-z0-9])|(?i:(?<=cuda[-_ ])oom)(?![A-Za-z0-9])"),
     ["CUDA-ooM with large PDFs", "an OOM here"], ["oom alone", "no such word"]),
    # a cased non-ASCII word in a case-insensitive pattern (signatures._SIGKILL's translated "Killed")
    (re.compile(r"^\s{0,8}(?:Убито|Getötet)\s*$", re.IGNORECASE | re.MULTILINE), ["УБИТО", "GETÖTET"], ["killed"]),
    # caseless CJK words in a case-insensitive pattern
    (re.compile(r"显存(?:不足|溢出)|out of memory", re.IGNORECASE), ["显存不足", "OUT OF MEMORY"], ["显存够用"]),
    # the Kelvin sign folds to k: a text with it is scanned, not skipped
    (re.compile(r"killed", re.IGNORECASE), ["\u212aILLED"], ["kiled"]),
])
def test_wrapped_pattern_answers_as_the_pattern(pattern: re.Pattern[str], hits: list[str], misses: list[str]) -> None:
    assert required_literals(pattern) is not None
    scan = LiteralScan(pattern)
    pad = "x " * literal_scan.MIN_CHARS
    for line in hits + misses:
        text = pad + "\n" + line + "\n" + pad
        assert (scan.search(text) is None) == (pattern.search(text) is None), line
        assert scan.findall(text) == pattern.findall(text), line
        assert scan.sub("#", text) == pattern.sub("#", text), line
    for line in hits:
        assert scan.search(pad + "\n" + line + "\n"), line
    assert scan == pattern and hash(scan) == hash(pattern)


def test_pattern_with_a_branch_of_no_literal_is_left_as_it_is() -> None:
    assert required_literals(re.compile(r"\d{3}|free")) is None
