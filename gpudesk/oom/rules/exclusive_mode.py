"""A runtime that shares its GPU among its own parallel jobs, and says so (issue 28, twenty-fifth pass), for
:mod:`gpudesk.oom.rules.other_process`.

Kaldi's nnet3 and chain training scripts start several training jobs at once (``--num-jobs-initial`` /
``--num-jobs-final``), each one a process that takes a GPU; on a GPU in the default compute mode several of them land
on the same card. Kaldi's allocator (``src/cudamatrix/cu-allocator.cc``, ``CuMemoryAllocator::AllocateNewRegion``,
https://github.com/kaldi-asr/kaldi) reports a failed ``cudaMalloc`` of a new region as "Failed to allocate a memory
region of N bytes.  Possibly this is due to sharing the GPU.  Try switching the GPUs to exclusive mode (nvidia-smi -c 3)
and using the option --use-gpu=wait ..." whenever the device is not in compute-exclusive mode, and its start-up warns
"Not in compute-exclusive mode" (kaldi-asr/kaldi#4374: several chain2 jobs on one 8 GB RTX 2070, fixed by
``nvidia-smi -c 3`` and ``use_gpu=wait``). The other processes are the job's own siblings: ``other_process``.

Kaldi's allocator before its 2018 rewrite (``CuMemoryAllocator::MallocPitchInternal`` in ``cu-allocator.cc`` at the
parent of kaldi-asr/kaldi 8c0e3e311, "Refactor CUDA allocator code based on large cached regions") words the same
failure "Allocation of R x C region failed: freeing some memory and trying again." (a WARNING, twice) and then
"Cannot allocate the requested memory (R x C = N bytes)" (fifty-ninth pass): the same jobs, the same reading
(kaldi-asr/kaldi#1882, #2583: a process holding ~566 MB refused a ~68 MB pitched region; the maintainers pointed to
exclusive mode both times).

0.75 with Kaldi's own sentence about sharing; 0.6 when only its allocator's words and a Kaldi program are named (a
title), above a figureless shortage (0.45-0.55).
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import CHECKS, check_command, check_line

_REGION_FAILED = re.compile(r"\bfailed to allocate a memory region\b|"
                            r"\bcannot allocate the requested memory\s{0,2}\(\s{0,2}\d{1,12} x \d{1,12} = \d{1,20} bytes\)|"
                            r"\ballocation of \d{1,12} x \d{1,12} region failed: freeing some memory\b", re.IGNORECASE)
_SHARING_SAID = re.compile(r"possibly this is due to sharing the gpu|not in compute-exclusive mode", re.IGNORECASE)
_KALDI_MARKS = re.compile(r"\bkaldi\b|\bnnet3-|\bnnet2-|\bcu-allocator\.cc\b|\bchain2?-train|\bsteps/nnet3/",
                          re.IGNORECASE)


def shared_by_own_jobs(f: Facts) -> Cause | None:
    """Kaldi's allocator failing on a GPU its parallel training jobs share (module docstring), or None."""
    text = f.report.text or ""
    if _REGION_FAILED.search(text) is None:
        return None
    said = _SHARING_SAID.search(text) is not None
    if not said and _KALDI_MARKS.search(text) is None:
        return None
    command = check_command("other_process", f.report.platform)
    return Cause(
        id="other_process",
        title=_("The training's own parallel jobs share this GPU"),
        confidence=0.75 if said else 0.6,
        evidence=evidence(requested_bytes=f.requested, deciding_check="other_process", check_command=command),
        explanation=_("Kaldi's training scripts run several jobs at once, each a process that takes a GPU; with the "
                      "GPU in its default (shared) compute mode several of them land on the same card, and the region "
                      "one of them asked for no longer fits. Kaldi's allocator says so itself when the GPU is not in "
                      "compute-exclusive mode."),
        fix=_("Put the GPUs in compute-exclusive mode (sudo nvidia-smi -c 3) and pass --use-gpu=wait to the training "
              "script so the jobs queue for a free GPU; or run fewer jobs at once (--num-jobs-initial / "
              "--num-jobs-final)"),
        checks=[check_line(command=command, meaning=i18n._(CHECKS["other_process"].meaning))],
    )
