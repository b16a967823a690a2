"""The labelled set for the findings accuracy suite: each case, where an expert would say "look here" (labels
written from the case description before any rule ran on it), and the GPU model the log came from.

A label is (rule, gpu or None for the job, (start_s, end_s) offset into the log or None). A case with no label is
a run an expert would pass without a word: any warning or critical finding on it is a false warning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from helpers import stall_logs as logs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "monitor_rules"

Label = tuple[str, int | None, tuple[float, float] | None]


@dataclass(frozen=True)
class Case:
    name: str
    text: Callable[[], str]
    labels: tuple[Label, ...]
    gpu_model: str | None = "a100-80-pcie"
    interval_s: float = 1.0
    real: bool = False


def _file(name: str) -> Callable[[], str]:
    return lambda: (FIXTURES / name).read_text(encoding="utf-8")


CASES: tuple[Case, ...] = (
    # issue 13, log 1: the 35 s where every GPU sat at 8-20 % while PCIe RX ran at ~20 GB/s
    Case("issue13_4gpu_h2d_stall", _file("issue13_4gpu_h2d_stall.txt"),
         (("low-utilization", None, (300, 334)), ("input-starvation", None, (300, 334)))),
    # issue 13, log 2: 15 minutes of stall in a 30-minute run (no PCIe or CPU evidence of the cause)
    Case("issue13_30min_15min_stall", _file("issue13_30min_15min_stall.txt"),
         (("low-utilization", None, (600, 1499)),)),
    Case("periodic_checkpoint", logs.periodic_checkpoint,
         (("periodic-dips", None, None), ("low-utilization", None, (420, 455)),
          ("low-utilization", None, (1020, 1055)), ("low-utilization", None, (1620, 1655)),
          ("low-utilization", None, (2220, 2255)), ("low-utilization", None, (2820, 2855)))),
    Case("cpu_loader_stalls", logs.cpu_loader_stalls,
         (("periodic-dips", 0, None), ("low-utilization", 0, (200, 239)), ("low-utilization", 0, (500, 539)),
          ("low-utilization", 0, (800, 839)), ("low-utilization", 0, (1100, 1139)))),
    Case("straggler_gpu3", logs.straggler_gpu3,
         (("straggler", 3, None), ("periodic-dips", None, None), ("low-utilization", None, None))),
    Case("memory_leak", logs.memory_leak, (("memory-creep", 0, None),), interval_s=10.0),
    Case("one_gpu_idle_others_busy", logs.one_gpu_idle_others_busy, (("low-utilization", 2, (400, 459)),)),
    Case("clocks_capped", logs.clocks_capped, (("clocks-below-max", 1, None),)),
    # a job that is starved from start to end: no span "in the middle", yet an expert would look here
    Case("starved_whole_run", logs.starved_whole_run,
         (("low-utilization", 0, None), ("low-utilization", 1, None))),
    # healthy: nothing to say
    Case("healthy_8gpu", logs.healthy_8gpu, ()),
    Case("healthy_warmup_teardown", logs.healthy_warmup_teardown, ()),
    Case("healthy_inference_varying", logs.healthy_inference_varying, ()),
    Case("healthy_idle_machine", logs.healthy_idle_machine, ()),
    Case("healthy_memory_sawtooth", logs.healthy_memory_sawtooth, (), interval_s=10.0),
    # real captures (tests/fixtures/monitor_rules/SOURCES.md)
    Case("real_a100_um_healthy", _file("real_a100_um_healthy.txt"), (), real=True),
    Case("real_neural_style_after", _file("real_neural_style_after.txt"), (), real=True),
    # the author saw a problem (a CPU-bound loader, median 67 %) in 8 samples: an expert would look here
    Case("real_neural_style_before", _file("real_neural_style_before.txt"),
         (("cpu-bound-preprocessing", 0, None),), real=True),
    # the author: "barely engages GPU": idle for most of 20 s with a short burst
    Case("real_t4_kaldi_barely_used", _file("real_t4_kaldi_barely_used.txt"),
         (("low-utilization", 0, None),), gpu_model="t4", real=True),
)
