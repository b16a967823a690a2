"""Speed check figures for issue 24: predicting one set of published measured runs from cold process caches (the
development set, a serving-heavy set and a training-heavy set), what the "How accurate is this?" dialog and
``gpudesk estimate accuracy`` wait for.

Measure: ``.venv/bin/python -m pytest tests/benchmarks/test_speed_check_speed.py --benchmark-enable -q``.
CPU seconds on the 2-core development machine (process time; wall time there depends on the other jobs):
before the catalog, scheduler and statistics changes dev 4.13, fresh28 8.62, fresh35 3.82; after them about 1.1,
1.6 and 0.4 (the predictions are byte-identical).
"""

from __future__ import annotations

import pytest

from gpudesk.sizing import serve_lengths, serve_sched
from gpudesk.sizing import speed_validation as sv


def _predict(set_name: str) -> int:
    sv._EVALUATED.clear()
    serve_sched._simulate_kept.cache_clear()
    serve_lengths._sharegpt_lengths.cache_clear()
    rows = sv.evaluate_speed_set(set_name)
    assert rows is not None
    return len(rows)


@pytest.mark.parametrize(("set_name", "runs"), [("dev", 174), ("fresh28", 387), ("fresh35", 226)])
def test_predict_a_set(benchmark, set_name, runs):
    assert benchmark.pedantic(_predict, args=(set_name,), rounds=1, iterations=1) == runs
