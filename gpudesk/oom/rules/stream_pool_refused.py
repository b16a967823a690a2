"""``not_capacity``: the stream-ordered allocator refused what a plain allocation in the same run served (fifty-fifth
pass).

CUDA and HIP have two device allocation paths: the plain one (``cudaMalloc`` / ``hipMalloc``) and the stream-ordered
one, which serves allocations from a memory pool (``cudaMallocAsync`` / ``hipMallocAsync``, and
``cudaMallocFromPoolAsync`` / ``hipMallocFromPoolAsync`` for an explicit pool; CUDA Runtime API, "Stream Ordered Memory
Allocator"; HIP Runtime API, "Stream Ordered Memory Allocator"). Both take their memory from the same device. A text
that shows the plain call succeeding and the pool calls answering "out of memory" in the same run (a reproducer that
tries each in turn) therefore shows memory that was there: the pool path itself is refused, a fault of the runtime or
driver installation, or of the pool's configuration, not the program's size (JuliaGPU/AMDGPU.jl#938: hipMalloc OK,
hipMallocAsync and hipMallocFromPoolAsync out of memory on a 128 GiB MI300A; the maintainer: the same call works on his
MI300A, the ROCm installation is at fault). The deciding check is the runtime and driver versions (``driver_version``).
0.8: the text itself shows the memory was there.
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import CHECKS, check_command

CONFIDENCE = 0.8
# The plain allocation call said to succeed, on its own line ("[hipMalloc]             OK", "cudaMalloc: success").
_PLAIN_OK = re.compile(r"(?m)^[^\n]{0,20}?\b(?:cuda|hip)Malloc\b(?!Async|FromPool|Managed|Host|Pitch|3D|Array)[\]:)]?"
                       r"[ \t]{0,40}[:=-]?[ \t]{0,4}(?:OK|okay|succeeded|success(?:ful)?|passed|works)\b", re.IGNORECASE)
# A stream-ordered allocation call answered "out of memory" on its line.
_POOL_OOM = re.compile(r"\b(?:cuda|hip)Malloc(?:FromPool)?Async\b[^\n]{0,60}?\bout of memory\b", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if _POOL_OOM.search(text) is None or _PLAIN_OK.search(text) is None:
        return None
    command = check_command("driver_version", f.report.platform)
    return Cause(
        id="not_capacity",
        title=_("Not a capacity problem: the stream-ordered allocator refused memory that plain allocation served"),
        confidence=CONFIDENCE,
        evidence=evidence(not_capacity_kind="stream_pool_refused", deciding_check="driver_version",
                          check_command=command),
        explanation=_("In the same run the plain allocation call succeeded while the stream-ordered calls "
                      "(MallocAsync, MallocFromPoolAsync) answered out of memory. Both take memory from the same "
                      "device, so the memory was there: the pool path itself is refused, by the runtime or driver "
                      "installation or the pool's configuration, not by the program's size."),
        fix=_("Check the runtime and driver installation (versions that match, the stream-ordered allocator supported "
              "on this device and system); until it is fixed, use the plain allocator (turn off the framework's "
              "stream-ordered or async allocator)"),
        checks=[_("{command}: {meaning}").format(command=command, meaning=i18n._(CHECKS["driver_version"].meaning))],
    )
