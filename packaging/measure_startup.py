"""Time from process start to the main window's first paint: the PyInstaller bundle against the pip install.

Usage:
    python packaging/measure_startup.py [--runs N] [--bundle dist/gpudesk/gpudesk] [--pip .venv/bin/gpudesk]

Each program is started with ``GPUDESK_EXIT_AFTER_PAINT=1`` (see gpudesk/ui/first_paint.py), which makes it
print ``gpudesk: first paint at <unix time>`` right after the first paint and quit. The figure is that time
minus the time just before the process was spawned, in seconds. Both programs share one throw-away user data
folder, and one untimed warm-up run each creates the user database first (so the timed runs are not first
runs) and fills the OS file cache. Runs alternate between the two programs. Prints the median and the range
for each program and the ratio of the medians (bundle / pip). Offscreen Qt unless QT_QPA_PLATFORM is set.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MARK = "gpudesk: first paint at "


class MeasureError(Exception):
    """A program did not start, did not paint, or did not exit cleanly."""


def time_to_paint(exe: str, env: dict[str, str], timeout_s: float = 120.0) -> float:
    """Seconds from spawning ``exe`` to its first paint. Raises MeasureError."""
    started = time.time()
    result = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=timeout_s, check=False)
    stamps = [line for line in result.stderr.splitlines() if line.startswith(MARK)]
    if result.returncode != 0 or not stamps:
        raise MeasureError(f"{exe} exited {result.returncode} without a first-paint line:\n{result.stderr[-2000:]}")
    return float(stamps[0][len(MARK):]) - started


def measure(programs: dict[str, str], runs: int) -> dict[str, list[float]]:
    """Alternate the programs ``runs`` times after one warm-up each; returns seconds per program."""
    with tempfile.TemporaryDirectory(prefix="gpudesk-startup-") as data:
        env = dict(os.environ, GPUDESK_EXIT_AFTER_PAINT="1", GPUDESK_DATA_DIR=data)
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        for exe in programs.values():
            time_to_paint(exe, env)
        times: dict[str, list[float]] = {name: [] for name in programs}
        for _ in range(runs):
            for name, exe in programs.items():
                times[name].append(time_to_paint(exe, env))
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per program (default 5)")
    parser.add_argument("--bundle", default=str(REPO / "dist" / "gpudesk" / "gpudesk"), help="bundle executable")
    parser.add_argument("--pip", default=str(REPO / ".venv" / "bin" / "gpudesk"), help="pip-installed gpudesk")
    args = parser.parse_args(argv)
    programs = {"bundle": args.bundle, "pip": args.pip}
    for name, exe in programs.items():
        if not Path(exe).is_file():
            print(f"measure_startup: {name} program {exe} not found", file=sys.stderr)
            return 2
    try:
        times = measure(programs, args.runs)
    except MeasureError as exc:
        print(f"measure_startup: {exc}", file=sys.stderr)
        return 1
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        print(f"{name:6s} {programs[name]}: median {medians[name]:.3f} s "
              f"(min {min(values):.3f}, max {max(values):.3f}, {len(values)} runs)")
    print(f"ratio bundle/pip: {medians['bundle'] / medians['pip']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
