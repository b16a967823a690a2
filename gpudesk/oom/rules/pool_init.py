"""``preallocation``: Theano's CNMeM pool refused when the device is opened.

Theano's old CUDA backend (theano.sandbox.cuda) creates its memory pool when it initialises the device: with
``lib.cnmem`` set in .theanorc it calls NVIDIA's CNMeM ``cnmemInit`` for that fraction of the GPU's total memory (a
value of 1 means all of it; above 1, that many MiB), and a failure prints "initCnmem: cnmemInit call failed!
Reason=CNMEM_STATUS_OUT_OF_MEMORY" (theano/sandbox/cuda/cuda_ndarray.cu) and the backend falls back to the CPU
("ERROR: Not using GPU. Initialisation of device gpu failed"). Nothing of the job has run yet: the pool asked for more
than the device had free at that moment (the CUDA context and any other process take their share first), so the
fraction is the fix (Theano/Theano#6692: lib.cnmem=1 refused, 0.8 ran; the Theano maintainer: never ask for exactly
all the free memory). 0.75: above a figureless shortage (0.45) and another process (0.35), which the fix names.
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence

_CNMEM_REFUSED = re.compile(r"cnmemInit call failed!?\s{0,3}Reason\s{0,2}=\s{0,2}CNMEM_STATUS_OUT_OF_MEMORY", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    m = _CNMEM_REFUSED.search(f.report.text or "")
    if m is None:
        return None
    return Cause(
        id="preallocation",
        title=_("Theano's memory pool (lib.cnmem) does not fit the free memory at start"),
        confidence=0.75,
        evidence=evidence(described_as=m.group(0)),
        explanation=_("Theano reserves its CNMeM pool when it opens the GPU, sized by lib.cnmem as a fraction of the "
                      "total memory. The pool was refused before the job ran: the fraction asks for more than was "
                      "free beside the CUDA context and any other process."),
        fix=_("Lower lib.cnmem in .theanorc (e.g. 0.8 instead of 1), or set it to 0 to allocate as needed"),
        more_fixes=[_("Run nvidia-smi first: another process holding memory makes any fraction near 1 fail.")],
    )
