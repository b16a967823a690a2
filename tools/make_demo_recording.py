#!/usr/bin/env python3
"""Write the Monitor tab's demo recording, ``resources/demo/demo-training-dmon.txt`` (deterministic).

The demo is a GENERATED example, not a capture: a 5-minute, 4-GPU data-parallel training run written in the
exact text format of ``nvidia-smi dmon -s pucvmet -o DT -d 1`` (the column layout of the real capture in
Mozilla DeepSpeech issue #178, https://github.com/mozilla/DeepSpeech/issues/178, with the date and time
columns of ``-o DT``). No public minutes-long multi-GPU capture with a licence allowing redistribution was
found (resources/demo/SOURCE.md), so the run is synthesised to show what the Monitor tab does with a real-length
run: curves over time, a job-wide input stall and the findings it raises, periodic evaluation dips and one GPU
running hotter than the others. The app says in its demo sentence that the run is generated.

The shape of the run (all 4 GPUs, 1 s samples, 300 rounds, starting 2026-11-30 14:00:00):

* 0-20 s: start-up; the weights and optimizer states load (memory climbs to about 31 GB), utilization is low;
* 20-300 s: training at 93-99 % SM utilization, about 600 MB/s host-to-device input per GPU, 230-250 W;
  every 15 s a 2 s dip to about 45 % (a gradient all-reduce waiting on the slowest rank);
* 150-185 s: the data loader stalls on every GPU at once (SM 0-3 %, PCIe RX near 0, power near idle): the
  stall the findings report as one job-wide low-utilization span;
* GPU 3 sits in a badly cooled slot: it runs about 25 degrees C hotter, passes 85 degrees C and slows its clock
  (dmon tviol), which the findings report as thermal throttling.

Run: ``python tools/make_demo_recording.py`` (rewrites the file; the same bytes every time).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np

ROUNDS = 300
GPUS = 4
START = dt.datetime(2026, 11, 30, 14, 0, 0)
STALL = (150, 185)
WARMUP_S = 20
DIP_EVERY_S = 15
OUT = Path(__file__).resolve().parent.parent / "resources" / "demo" / "demo-training-dmon.txt"

HEADER = ("#Date       Time        gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk pviol tviol    fb  bar1 sbecc "
          "dbecc   pci rxpci txpci\n"
          "#YYYYMMDD   HH:MM:SS    Idx     W     C     %     %     %     %   MHz   MHz     %  bool    MB    MB  errs "
          " errs  errs  MB/s  MB/s\n")


def sample(t: int, gpu: int, rng: np.random.Generator, temp: list[float]) -> list[int]:
    """One row's numbers for GPU ``gpu`` at second ``t`` (``temp`` carries each GPU's temperature along)."""
    stalled = STALL[0] <= t < STALL[1]
    warming = t < WARMUP_S
    dip = not warming and not stalled and t % DIP_EVERY_S in (0, 1)
    if warming:
        sm = 5 + 20 * t / WARMUP_S + rng.normal(0, 3)
        fb = 500 + (31_000 - 500) * t / WARMUP_S
        rx, tx = 900 + rng.normal(0, 80), 20 + rng.normal(0, 5)  # the weights come over PCIe
    elif stalled:
        sm = rng.uniform(0, 3)
        fb = 31_000 + 40 * gpu
        rx, tx = rng.uniform(0, 6), rng.uniform(0, 3)
    else:
        sm = (45 if dip else 96) + rng.normal(0, 2)
        fb = 31_000 + 40 * gpu + 2 * rng.integers(0, 3)
        rx, tx = 600 + rng.normal(0, 60), 120 + rng.normal(0, 15)
    sm = float(np.clip(sm, 0, 100))
    mem = float(np.clip(sm * 0.45 + rng.normal(0, 2), 0, 100))
    power = 60 + 1.85 * sm + rng.normal(0, 4)  # about 60 W idle, 240 W busy (a 250 W PCIe card)
    # temperature follows power with a time constant of about 20 s; GPU 3 is cooled worse
    target = 32 + power * (0.26 if gpu == 3 else 0.14)
    temp[gpu] += (target - temp[gpu]) / 20
    tviol = 1 if temp[gpu] >= 85 else 0
    pclk = 1410 if sm > 5 else 1410 - int(rng.integers(0, 2)) * 15
    if tviol:
        pclk -= 105  # a thermal slowdown step
    return [round(power), round(temp[gpu]), round(sm), round(mem), 0, 0, 1215, pclk, 0, tviol, round(fb), 4,
            0, 0, 0, max(0, round(rx)), max(0, round(tx))]


def render() -> str:
    rng = np.random.default_rng(20261130)
    temp = [34.0, 33.0, 35.0, 36.0]
    lines = [HEADER]
    for t in range(ROUNDS):
        stamp = START + dt.timedelta(seconds=t)
        for gpu in range(GPUS):
            values = sample(t, gpu, rng, temp)
            power, temp_c, sm, mem, enc, dec, mclk, pclk, pviol, tviol, fb, bar1, sbe, dbe, pci, rx, tx = values
            lines.append(f" {stamp:%Y%m%d}   {stamp:%H:%M:%S}    {gpu:3d} {power:5d} {temp_c:5d} {sm:5d} {mem:5d} "
                         f"{enc:5d} {dec:5d} {mclk:5d} {pclk:5d} {pviol:5d} {tviol:5d} {fb:5d} {bar1:5d} {sbe:5d} "
                         f"{dbe:5d} {pci:5d} {rx:5d} {tx:5d}\n")
    return "".join(lines)


def main() -> None:
    OUT.write_text(render(), encoding="utf-8", newline="\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {GPUS} GPUs x {ROUNDS} s)")


if __name__ == "__main__":
    main()
