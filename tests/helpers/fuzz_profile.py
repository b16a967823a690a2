"""Hypothesis settings shared by the fuzz tests (tests/<package>/test_fuzz_<module>.py).

CI runs ``GPUDESK_FUZZ_EXAMPLES`` examples per entry point (default 200, a few seconds each on 2 cores);
run ``GPUDESK_FUZZ_EXAMPLES=3000 pytest tests -k fuzz`` locally for the adversarial depth of issue 14.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

FUZZ_EXAMPLES = int(os.environ.get("GPUDESK_FUZZ_EXAMPLES", "200"))

fuzz = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,  # a slow example is caught by the scaling tests in tests/benchmarks, not by a flaky deadline
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    database=None,  # no .hypothesis folder written by CI runs
    derandomize=os.environ.get("GPUDESK_FUZZ_RANDOM") is None,  # reproducible in CI; random when asked
)
