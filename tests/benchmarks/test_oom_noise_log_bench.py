"""Benchmark (qa51 D5): a log of log-like words just under the 5 MB input limit, with no out-of-memory message, is
diagnosed in a few seconds of CPU (about 40 s before gpudesk.oom.literal_scan: several hundred patterns each scanning
the whole log, about 8 s of CPU per MB), and the same words around a real message give the causes of the message.

CPU time of this process (``time.process_time``); the log is random words, so the condensing of repeated lines
(gpudesk.oom.parsers.condense) does not shorten it. ``python -m pytest tests/benchmarks/test_oom_noise_log_bench.py
-q -s`` prints the figures.
"""

from __future__ import annotations

import random
import time

from gpudesk.oom import diagnose_text, literal_scan

WORDS = ('loss', 'step', 'epoch', 'lr', 'grad', 'norm', 'tokens', 'sec', 'iter', 'batch', 'rank', 'info', 'warning',
         'debug', 'model', 'layer', 'attention', 'saving', 'checkpoint', 'throughput', 'eval', 'accuracy', '0.123',
         '1e-4', '[INFO]', '[rank0]:', 'torch', 'cuda', 'device', 'memory', 'allocated', 'tensor')
# The CLI refuses a log above 5 MB (gpudesk.cli.oom); this is just under it.
CHARS = 4_990_000
LIMIT_S = 8.0


def noise(chars: int, seed: int = 5) -> str:
    """``chars`` characters of lines of random log words."""
    rng = random.Random(seed)
    lines, n = [], 0
    while n < chars:
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 15)))
        lines.append(line)
        n += len(line) + 1
    return "\n".join(lines)[:chars]


def test_five_megabyte_noise_log_is_read_in_seconds() -> None:
    text = noise(CHARS)
    t0 = time.process_time()
    d = diagnose_text(text)
    seconds = time.process_time() - t0
    saved = literal_scan.MIN_CHARS
    literal_scan.MIN_CHARS = 10**12  # every pattern scans the whole log, as before
    try:
        t0 = time.process_time()
        whole = diagnose_text(text[:1_000_000])
        whole_s = time.process_time() - t0
    finally:
        literal_scan.MIN_CHARS = saved
    fast = diagnose_text(text[:1_000_000])
    print(f"\n5 MB noise log: {seconds:.2f} s CPU; 1 MB read by every pattern: {whole_s:.2f} s")
    assert not d.found_oom
    assert [(c.id, c.confidence) for c in fast.causes] == [(c.id, c.confidence) for c in whole.causes]
    assert seconds < LIMIT_S
