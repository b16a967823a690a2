"""``other_process``: other processes hold a large part of this GPU (oom.md §3.5 rule 3).

Fires when the other processes' memory is >= 10 % of the capacity; confidence 0.5 + that share (max 0.9).
Sub-cases: several near-equal entries of 0.3-1.5 GiB are the same job's sibling ranks creating contexts on
this GPU (returnn#1469: 15 × 1.19 GiB; pytorch#135279, #49481); a holder whose PID is not alive is a zombie
(VisEdit#5). Host-PID caveat: inside a container NVML shows host PIDs (handled by the parser/evidence, which
mark the target's own entry).
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, clamp, evidence
from gpudesk.units import GIB as GiB
from gpudesk.i18n import _, ngettext


def check(f: Facts) -> Cause | None:
    if f.mps:
        return None  # Apple MPS: see mps_limit
    dev = f.dev
    if dev is None:
        return None
    others = [p for p in dev.other_processes if not p.is_target and p.used_bytes is not None]
    dead = [p for p in dev.other_processes if p.alive is False and not p.is_target]
    share = f.share(f.other)
    if not dead and (share is None or share < 0.10):
        return None
    sizes = sorted(p.used_bytes for p in others if p.used_bytes is not None)
    siblings = (
        len(sizes) >= 2
        and 0.3 * GiB <= sizes[0]
        and sizes[-1] <= 1.5 * GiB
        and (sizes[-1] - sizes[0]) <= 0.05 * sizes[-1]
    )
    conf = 0.5 + min(0.4, share or 0)
    if dead:
        conf = max(conf, 0.7)
    if siblings:
        fix = (_("Bind every rank to its own GPU before any CUDA call: torch.cuda.set_device(local_rank) at the top of "
               "the script (or CUDA_VISIBLE_DEVICES per rank), and pass device_ids=[local_rank] to DDP"))
        why = ngettext("{n} process holds about {each_gib:.2f} GiB on this GPU: the same job's other ranks created "
                       "CUDA contexts here.",
                       "{n} processes hold about {each_gib:.2f} GiB each on this GPU: the same job's other ranks "
                       "created CUDA contexts here.", len(sizes)).format(n=len(sizes), each_gib=sizes[-1] / GiB)
    elif dead:
        fix = _("Free the memory held by PID(s) {pids}: they are not running here (zombie or another PID "
                "namespace); find holders with `fuser -v /dev/nvidia*` and end them").format(
                    pids=", ".join(str(p.pid) for p in dead))
        why = _("A process that no longer runs (or is not visible) still holds GPU memory.")
    else:
        fix = _("Stop or move the other processes on this GPU (nvidia-smi shows them), or pick a free GPU with CUDA_VISIBLE_DEVICES")
        why = _('Other processes use {share:.0%} of this GPU.').format(share=share)
    return Cause(
        id="other_process",
        title=_("Other processes use this GPU"),
        confidence=clamp(conf),
        evidence=evidence(
            other_processes_bytes=f.other,
            other_processes_ratio=round(share, 3) if share is not None else None,
            other_processes_count=len(others) or None,
            other_pids=[p.pid for p in others] or None,
            dead_pids=[p.pid for p in dead] or None,
            same_job_siblings=siblings or None,
        ),
        explanation=why,
        fix=fix,
        more_fixes=[_("In a container, NVML lists host PIDs: map them with /proc/<pid>/status NSpid before blaming "
                    "another process.")],
    )
