"""A serving engine's start-up check of free memory against its budget, before it allocates anything.

vLLM (V1, ``vllm/v1/worker/gpu_worker.py`` ``init_device``; the worker snapshots the device's free memory before
loading the model and compares it with ``gpu_memory_utilization × total``)::

    ValueError: Free memory on device (10.5/79.2 GiB) on startup is less than desired GPU memory utilization
    (0.9, 71.3 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.

Newer releases name the device ("Free memory on device cuda:1 (19.77/22.05 GiB) on startup is less than ...",
pytorch/pytorch#175666). At that moment the engine holds nothing but its CUDA context, so ``total - free`` is held by others: another
process (a second engine, a notebook, a leftover run) or, when small, the driver and the context itself. The figures
are recorded as the device's state at start (``free_at_start_bytes`` / ``total_at_start_bytes``, the terms of
:mod:`gpudesk.oom.rules.other_process`) and the budget asked for as ``engine_budget_bytes``.
"""

from __future__ import annotations

import re

from gpudesk.oom.parsers.units import SIZE, to_bytes
from gpudesk.oom.report import MemoryReport

_NUM = r"(\d{1,9}(?:\.\d{1,6})?)"
# (Fifty-eighth pass: the same check as users quote it in short, "Free memory on cuda:0 (38.74/121.63 GiB) < desired
# utilization (0.35, 42.57 GiB)" (rwlove/home-ops#13221): the device with or without "device", "on startup" left out,
# "<" for "is less than" and "utilization" without "GPU memory". The shorthand "Free memory < desired utilization" is
# how many deployment scripts and notes name this vLLM refusal; the figures keep the order and meaning of
# vllm/v1/worker/utils.py ``request_memory``: free / total, then the share and the budget it asks for.)
_VLLM = re.compile(r"Free memory on\s+(?:device(?:\s+[\w:]{1,16})?|[a-z]{2,8}:\d{1,3})\s*\(\s*" + _NUM + r"\s*/\s*" + SIZE
                   + r"\s*\)\s*(?:on startup\s*)?(?:is less than|<)\s*"
                   r"desired (?:GPU memory )?utilization\s*\(\s*(0?\.\d{1,4}|1(?:\.0{1,4})?)\s*,\s*" + SIZE + r"\s*\)",
                   re.IGNORECASE)

# The same check quoted without its figures (a caller's log or an issue title: verl's "vLLMAsyncRollout _loop_forever
# error: Free memory on device on startup is less than desired GPU memory utilization (0.8)"): only the share asked for.
# Free below ``U × total`` with nothing loaded means more than ``(1 − U) × total`` was already held, recorded as
# ``held_share_above``.
_VLLM_SHARE_ONLY = re.compile(r"Free memory on device(?:\s+[\w:]{1,16})?\s*on startup is less than desired GPU memory "
                              r"utilization\s*\(\s*(0?\.\d{1,4}|1(?:\.0{1,4})?)\s*\)", re.IGNORECASE)


def matches(text: str) -> bool:
    return bool(_VLLM.search(text) or _VLLM_SHARE_ONLY.search(text))


def parse(text: str, report: MemoryReport) -> bool:
    flat = re.sub(r"\s+", " ", text)
    m = _VLLM.search(flat)
    if m is None:
        return _share_only(flat, report)
    unit = m.group(3)
    free, total = to_bytes(m.group(1), unit), to_bytes(m.group(2), unit)
    budget = to_bytes(m.group(5), m.group(6))
    report.framework = "vllm"
    report.engine = "vllm"
    report.kind = "engine_startup_free"
    dev = report.ensure_device(report.device_index)
    dev.total_bytes, dev.free_bytes = total, free
    report.parsed.update({"free_at_start_bytes": free, "total_at_start_bytes": total, "engine_budget_bytes": budget,
                          "gpu_memory_utilization": float(m.group(4))})
    return True


def _share_only(flat: str, report: MemoryReport) -> bool:
    m = _VLLM_SHARE_ONLY.search(flat)
    if m is None:
        return False
    share = float(m.group(1))
    report.framework = "vllm"
    report.engine = "vllm"
    report.kind = "engine_startup_free"
    report.parsed.update({"gpu_memory_utilization": share, "held_share_above": round(1 - share, 4)})
    return True
