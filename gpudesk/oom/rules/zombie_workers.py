"""``zombie_workers``: crashed or zombie DataLoader workers, or workers holding a CUDA context.

Evidence: psutil children in state zombie/dead (evidence.py), workers seen on the GPU by NVML (a worker should
hold no CUDA context), or log lines "DataLoader worker (pid N) is killed by signal" / "exited unexpectedly".
The article's "crashed workers leaving tensors" row.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _

_TEXT = re.compile(r"DataLoader worker \(pid(?:\(s\))?\s*([\d, ]+)\)\s*(?:is killed by signal|exited unexpectedly)[^\n]*", re.I)


def check(f: Facts) -> Cause | None:
    r = f.report
    dead = [w for w in r.workers if w.status in ("zombie", "dead")]
    on_gpu = [w for w in r.workers if w.on_gpu]
    text_hits = _TEXT.findall(r.text or "")
    if not dead and not on_gpu and not text_hits:
        return None
    conf = 0.7 if dead else 0.55 if on_gpu else 0.5
    return Cause(
        id="zombie_workers",
        title=_("Crashed or zombie DataLoader workers"),
        confidence=conf,
        evidence=evidence(
            zombie_pids=[w.pid for w in dead] or None,
            workers_on_gpu_pids=[w.pid for w in on_gpu] or None,
            killed_worker_pids=[p.strip() for hit in text_hits for p in hit.split(",") if p.strip()] or None,
        ),
        explanation=_("DataLoader workers died or linger as zombies (often killed for host memory), or hold a CUDA "
                    "context they should not have; their memory is not returned until the parent reaps them."),
        fix=_("Do not touch CUDA in Dataset/collate code (move tensors to the GPU in the main process), and lower "
            "num_workers; restart the job to reap zombies"),
        more_fixes=[_("Check dmesg for the OOM killer ('Killed process') when workers are killed by signal 9."),
                    _("Use multiprocessing_context='spawn' if workers inherit a CUDA context through fork.")],
    )
