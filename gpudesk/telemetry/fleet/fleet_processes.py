"""Per-process GPU use read from an exporter page, rolled up per user: who holds the fleet's GPUs.

Read from the per-process series ``gpudesk monitor serve`` publishes (:mod:`gpudesk.telemetry.sources.metrics_server`:
``gpudesk_process_gpu_memory_used_bytes``, ``gpudesk_process_sm_util_pct``, ``gpudesk_process_mem_util_pct`` with
``gpu``, ``UUID``, ``Hostname``, ``pid``, ``user``, ``command`` labels). The DCGM exporter has no per-process
series; its pages give no rows here (the roll-up is then absent, not empty-with-zeros).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


PROCESS_MEMORY = "gpudesk_process_gpu_memory_used_bytes"
PROCESS_SM = "gpudesk_process_sm_util_pct"
PROCESS_BW = "gpudesk_process_mem_util_pct"


@dataclass
class ProcessRow:
    host: str
    gpu_index: int | None
    uuid: str | None
    pid: int
    user: str
    command: str
    used_memory_bytes: float | None = None
    sm_util_pct: float | None = None
    mem_util_pct: float | None = None


@dataclass
class UserRollup:
    user: str
    processes: int
    gpus: int
    used_memory_bytes: float
    hosts: list[str]


PROCESS_METRICS = (PROCESS_MEMORY, PROCESS_SM, PROCESS_BW)


def process_rows(samples: Iterable[tuple[str, dict[str, str], float]], default_host: str = "") -> list[ProcessRow]:
    """The per-process rows of one exposition text's samples (metric name, labels, value), as the exporter reader
    yields them (none when the text carries no per-process series)."""
    rows: dict[tuple[str, str, int], ProcessRow] = {}
    for name, lb, value in samples:
        if name not in PROCESS_METRICS:
            continue
        try:
            pid = int(lb.get("pid", ""))
        except ValueError:
            continue
        host = lb.get("Hostname") or lb.get("hostname") or default_host
        gpu_text = lb.get("gpu", "")
        row = rows.setdefault((host, gpu_text, pid), ProcessRow(
            host, int(gpu_text) if gpu_text.isdigit() else None, lb.get("UUID") or None, pid,
            lb.get("user", ""), lb.get("command", "")))
        if name == PROCESS_MEMORY:
            row.used_memory_bytes = value
        elif name == PROCESS_SM:
            row.sm_util_pct = value
        else:
            row.mem_util_pct = value
    return list(rows.values())


def rollup_by_user(rows: list[ProcessRow]) -> list[UserRollup]:
    """One line per user: processes, distinct GPUs, memory held; most memory first."""
    users: dict[str, list[ProcessRow]] = {}
    for r in rows:
        users.setdefault(r.user or "?", []).append(r)
    out = [UserRollup(user, len(rs), len({(r.host, r.uuid or r.gpu_index) for r in rs}),
                      sum(r.used_memory_bytes or 0.0 for r in rs if r.used_memory_bytes is not None),
                      sorted({r.host for r in rs})) for user, rs in users.items()]
    return sorted(out, key=lambda u: -u.used_memory_bytes)
