"""Benchmark (issue 17): open and analyse memory snapshots of 100k, 1M and 2M trace events.

Time is measured by pytest-benchmark (one round: a cold open, as a user opens a file); peak memory is the
maximum resident set of a fresh Python process that opens and analyses the same file
(``VmHWM`` of /proc/self/status, Linux), reported in ``extra_info``. The web viewer
(pytorch.org/memory_viz) freezes beyond about 600k events (pytorch#158364). For reference the file is also
passed to PyTorch's own ``torch.cuda._memory_viz.trace_plot``, which only embeds the pickle in an HTML page
(the drawing happens later in the browser).

Run on purpose: ``pytest tests/benchmarks/test_oom_snapshot_bench.py --benchmark-enable -s``.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from gpudesk.oom.snapshot.analysis import analyse
from gpudesk.oom.snapshot.reader import load_snapshot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oom"))
import snapshot_builder as sb

PEAK_SCRIPT = """
import json, sys, time
from gpudesk.oom.snapshot.analysis import analyse
from gpudesk.oom.snapshot.reader import load_snapshot
t = time.perf_counter()
a = analyse(load_snapshot(sys.argv[1]))
seconds = time.perf_counter() - t
# VmHWM: this process's peak resident set (ru_maxrss would keep the forking parent's peak across exec)
hwm_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"seconds": seconds, "peak_mb": hwm_kb / 1024, "events": a.snapshot.event_count}))
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("snapshots")
    out = {}
    for n in (100_000, 1_000_000, 2_000_000):
        path = folder / f"{n}.pickle"
        with open(path, "wb") as fh:
            pickle.dump(sb.many_events(n), fh)
        out[n] = path
    return out


@pytest.mark.parametrize("events", [100_000, 1_000_000, 2_000_000])
def test_bench_open_and_analyse(benchmark, files: dict[int, Path], events: int) -> None:  # type: ignore[no-untyped-def]
    path = files[events]
    result = benchmark.pedantic(lambda: analyse(load_snapshot(path)), rounds=1, iterations=1)
    assert result.snapshot.event_count >= events
    proc = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, str(path)], capture_output=True, text=True,
                          check=True, timeout=600)
    fresh = json.loads(proc.stdout)
    benchmark.extra_info.update(file_mb=round(path.stat().st_size / 1e6, 1), peak_mb=round(fresh["peak_mb"]),
                                fresh_process_s=round(fresh["seconds"], 2))
    print(f"\n{events:,} events: file {path.stat().st_size / 1e6:.1f} MB, open+analyse "
          f"{fresh['seconds']:.2f} s, peak RSS {fresh['peak_mb']:.0f} MB")


def test_bench_reference_memory_viz_trace_plot(benchmark, files: dict[int, Path]) -> None:  # type: ignore[no-untyped-def]
    torch_viz = pytest.importorskip("torch.cuda._memory_viz")
    with open(files[1_000_000], "rb") as fh:
        data = pickle.load(fh)
    html = benchmark.pedantic(lambda: torch_viz.trace_plot(data), rounds=1, iterations=1)
    assert "<html>" in html or "<script" in html
