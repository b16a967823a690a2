"""cuSPARSE's legacy CSR-to-CSC conversion refusing its own scratch memory: the library version decides.

``cusparse<t>csr2csc`` (deprecated in CUDA 10.1, removed in 11.0: CUSPARSE Library 10.1, §13.11) allocates the extra
storage it needs, proportional to the number of nonzeros, inside the call, and fails with
``CUSPARSE_STATUS_ALLOC_FAILED`` (status 2) on large matrices. Its replacement, ``cusparseCsr2cscEx2``, takes that
workspace from the caller (``cusparseCsr2cscEx2_bufferSize``; docs.nvidia.com/cuda/cusparse, "cusparseCsr2cscEx2":
"The routine requires extra storage proportional to the number of nonzero values nnz ... User needs to allocate a
buffer of this size"). So the same conversion that fails under CUDA 10.0 passes on 10.1+ builds (dmlc/dgl#2548: DGL's
CSR transpose of the Reddit graph, "a known issue of CUDA 10.0", fixed by CUDA 10.1+ and the matching DGL build).

Read when the text holds a cuSPARSE allocation failure (by name, or its status number:
:data:`gpudesk.oom.parsers.generic.LIBRARY_ALLOC_STATUS`) beside the conversion's name (``csr2csc`` without ``Ex2``, or
a CSR transpose, which libraries implement with it): ``not_capacity`` with the ``driver_version`` check (0.7, above a
figureless shortage's 0.45); the matrix's own size stays second.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.parsers.generic import LIBRARY_ALLOC_STATUS
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _

_SPARSE_ALLOC = re.compile(r"cusparse_status_alloc_failed", re.IGNORECASE)
_LEGACY_CONVERSION = re.compile(r"csr_?2_?csc(?!_?ex2)|\bcsr_?transpose", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    sparse = _SPARSE_ALLOC.search(text) or (LIBRARY_ALLOC_STATUS.search(text) and "cusparse" in text.lower())
    if not sparse or _LEGACY_CONVERSION.search(text) is None:
        return None
    return Cause(
        id="not_capacity",
        title=_("Likely the CUDA version: cuSPARSE's old CSR-to-CSC conversion could not allocate its own scratch"),
        confidence=0.7,
        evidence=evidence(not_capacity_kind="legacy_sparse_conversion", deciding_check="driver_version",
                          requested_bytes=f.requested),
        explanation=_("cuSPARSE refused an allocation (status 2, ALLOC_FAILED) in a CSR-to-CSC conversion or "
                      "transpose. Before CUDA 10.1 that conversion allocated its scratch inside the library, in "
                      "proportion to the nonzeros, and failed on large matrices; CUDA 10.1's cusparseCsr2cscEx2 takes "
                      "the scratch from the caller."),
        fix=_("Use a CUDA 10.1 or later toolkit and a build of the library for it (one that calls "
              "cusparseCsr2cscEx2); if it still fails there, the matrix itself does not fit"),
        checks=[_("python -c \"import torch; print(torch.version.cuda)\" (or the library's own build string): 10.0 or "
                  "older has only the legacy conversion.")],
    )
