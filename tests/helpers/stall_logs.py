"""Synthetic ``nvidia-smi dmon -s pucm -o DT`` logs that isolate one pattern each (seeded, so reproducible).

Each builder returns the dmon text; the labels (where an expert would say "look here") are written next to each
case in tests/telemetry/test_rules_accuracy.py before any rule runs on it. Values follow what real A100/H100
PCIe boards print: SM 85-100 % with 1-sample dips when busy, PCIe RX 0.3-2 GB/s for a fed training job,
fb in MiB, clocks in MHz (dmon units).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import numpy as np

HEADER = ("#Date       Time        gpu   pwr gtemp    sm   mem   enc   dec  mclk  pclk    fb rxpci txpci\n"
          "#YYYYMMDD   HH:MM:SS    Idx     W     C     %     %     %     %   MHz   MHz    MB  MB/s  MB/s\n")
START = dt.datetime(2026, 11, 30, 9, 0, 0)

# per (second, gpu) -> overrides of the busy defaults
Shape = Callable[[int, int], dict[str, float]]


def render(seconds: int, gpus: int, shape: Shape, seed: int, interval_s: int = 1,
           fb_mib: float = 61_000.0) -> str:
    rng = np.random.default_rng(seed)
    lines = [HEADER]
    for s in range(0, seconds, interval_s):
        stamp = (START + dt.timedelta(seconds=s)).strftime("%Y%m%d   %H:%M:%S")
        for g in range(gpus):
            sm = float(np.clip(rng.normal(94, 4), 70, 100))
            if rng.random() < 0.02:
                sm = float(rng.uniform(45, 70))  # a step boundary caught by the sample
            row = {"sm": sm, "rx": max(0.0, rng.normal(900, 250)), "tx": max(0.0, rng.normal(150, 50)),
                   "fb": fb_mib, "pclk": 1410.0}
            row.update(shape(s, g))
            sm = row["sm"]
            pwr = 60 + 2.3 * sm + rng.normal(0, 5)
            mem = sm * 0.45 + rng.normal(0, 3)
            temp = 45 + 0.2 * sm + rng.normal(0, 1)
            lines.append(f" {stamp}    {g:3d} {pwr:5.0f} {temp:5.0f} {sm:5.0f} {max(mem, 0):5.0f}     0     0 "
                         f" 1512 {row['pclk']:5.0f} {row['fb']:5.0f} {row['rx']:5.0f} {row['tx']:5.0f}\n")
        if s and s % 600 == 0:
            lines.append(HEADER)  # dmon repeats its header
    return "".join(lines)


def issue_4gpu_h2d_stall(seed: int = 1) -> str:
    """Issue 13's first log: 4 GPUs, 10 min; from 300 s to 334 s (35 s) every GPU at 8-20 % SM while PCIe RX runs
    at about 20 GB/s per GPU."""
    rng = np.random.default_rng(seed + 100)

    def shape(s: int, g: int) -> dict[str, float]:
        if 300 <= s <= 334:
            return {"sm": float(rng.uniform(8, 20)), "rx": float(rng.normal(20_000, 900))}
        return {}
    return render(600, 4, shape, seed)


def issue_30min_15min_stall(seed: int = 2) -> str:
    """Issue 13's second log: 2 GPUs, 30 min; a 15-minute stall from 600 s to 1499 s (SM 0-4 %, PCIe quiet)."""
    rng = np.random.default_rng(seed + 100)

    def shape(s: int, g: int) -> dict[str, float]:
        if 600 <= s < 1500:
            return {"sm": float(rng.integers(0, 5)), "rx": float(rng.uniform(0, 5)), "tx": float(rng.uniform(0, 5))}
        return {}
    return render(1800, 2, shape, seed)


def periodic_checkpoint(seed: int = 3) -> str:
    """4 GPUs, 60 min; every 600 s from 420 s the job saves a checkpoint: 25-35 s at 0-10 % SM, PCIe TX up."""
    rng = np.random.default_rng(seed + 100)
    lengths = {k: int(rng.integers(25, 36)) for k in range(6)}

    def shape(s: int, g: int) -> dict[str, float]:
        k, pos = divmod(s - 420, 600)
        if s >= 420 and pos < lengths.get(k, 30):
            return {"sm": float(rng.uniform(0, 10)), "rx": float(rng.uniform(0, 50)), "tx": float(rng.normal(3000, 300))}
        return {}
    return render(3600, 4, shape, seed)


def cpu_loader_stalls(seed: int = 4) -> str:
    """1 GPU, 40 min; every 5 min (from 200 s) 40 s at 5-25 % SM with little PCIe traffic (a CPU-bound loader
    refilling; the dmon log cannot show the CPU)."""
    rng = np.random.default_rng(seed + 100)

    def shape(s: int, g: int) -> dict[str, float]:
        if s >= 200 and (s - 200) % 300 < 40:
            return {"sm": float(rng.uniform(5, 25)), "rx": float(rng.uniform(50, 200))}
        return {}
    return render(2400, 1, shape, seed)


def straggler_gpu3(seed: int = 5) -> str:
    """4 GPUs, 20 min; phases of 45 s busy then 15 s low (a evaluation loop on every rank); GPU 3's phases run 6 s
    behind the others'."""
    def shape(s: int, g: int) -> dict[str, float]:
        local = s - (6 if g == 3 else 0)
        if local >= 0 and local % 60 >= 45:
            return {"sm": 12.0 + (s % 5)}
        return {}
    return render(1200, 4, shape, seed)


def memory_leak(seed: int = 6) -> str:
    """1 GPU, 4 h sampled every 10 s (dmon -d 10); busy; memory used climbs from 20 GB to 60 GB of an 80 GB card."""
    def shape(s: int, g: int) -> dict[str, float]:
        return {"fb": 20_000 + 40_000 * s / (4 * 3600) + (s % 70) * 3}
    return render(4 * 3600, 1, shape, seed, interval_s=10)


def one_gpu_idle_others_busy(seed: int = 7) -> str:
    """4 GPUs, 15 min; GPU 2 stalls alone from 400 s to 459 s (0-5 %) while the others keep working."""
    rng = np.random.default_rng(seed + 100)

    def shape(s: int, g: int) -> dict[str, float]:
        if g == 2 and 400 <= s < 460:
            return {"sm": float(rng.uniform(0, 5)), "rx": 10.0}
        return {}
    return render(900, 4, shape, seed)


def clocks_capped(seed: int = 8) -> str:
    """2 GPUs, 20 min, busy; GPU 1's SM clock falls from 1410 MHz to about 1000 MHz after the first 2 minutes
    (a power cap)."""
    rng = np.random.default_rng(seed + 100)

    def shape(s: int, g: int) -> dict[str, float]:
        if g == 1 and s >= 120:
            return {"pclk": float(rng.normal(1000, 15))}
        return {}
    return render(1200, 2, shape, seed)


def starved_whole_run(seed: int = 9) -> str:
    """2 GPUs, 30 min; the job runs starved the whole time: SM 8-22 %, 30 GB of memory held, never busy."""
    rng = np.random.default_rng(seed + 100)

    def shape(s: int, g: int) -> dict[str, float]:
        return {"sm": float(rng.uniform(8, 22)), "fb": 30_000.0, "rx": float(rng.uniform(100, 400))}
    return render(1800, 2, shape, seed)


# --- healthy runs: an expert would say nothing ---------------------------------------------------------------

def healthy_8gpu(seed: int = 11) -> str:
    """8 GPUs, 30 min of steady data-parallel training (SM 85-100 %, 1-sample dips at step boundaries)."""
    return render(1800, 8, lambda s, g: {}, seed)


def healthy_warmup_teardown(seed: int = 12) -> str:
    """1 GPU, 20 min: 90 s of model loading at 0-5 % at the start, 40 s of teardown at the end, busy between."""
    rng = np.random.default_rng(seed + 100)

    def shape(s: int, g: int) -> dict[str, float]:
        if s < 90 or s >= 1160:
            return {"sm": float(rng.uniform(0, 5)), "rx": float(rng.uniform(0, 3000))}
        return {}
    return render(1200, 1, shape, seed)


def healthy_inference_varying(seed: int = 13) -> str:
    """2 GPUs, 30 min of online inference: load follows traffic, SM 40-85 % in slow waves, never stalls."""
    rng = np.random.default_rng(seed + 100)

    def shape(s: int, g: int) -> dict[str, float]:
        base = 62 + 20 * np.sin(2 * np.pi * s / 900.0)
        return {"sm": float(np.clip(base + rng.normal(0, 6), 35, 100)), "rx": float(rng.uniform(20, 200))}
    return render(1800, 2, shape, seed)


def healthy_idle_machine(seed: int = 14) -> str:
    """2 GPUs, 10 min, no job at all (0 % SM, 0.4 GB of memory): nothing to warn about."""
    return render(600, 2, lambda s, g: {"sm": 0.0, "rx": 0.0, "tx": 0.0, "fb": 420.0, "pclk": 210.0}, seed)


def healthy_memory_sawtooth(seed: int = 15) -> str:
    """1 GPU, 3 h every 10 s: memory rises and falls with each evaluation (no trend), busy."""
    def shape(s: int, g: int) -> dict[str, float]:
        return {"fb": 50_000 + 8_000 * ((s % 1800) / 1800.0)}
    return render(3 * 3600, 1, shape, seed, interval_s=10)
