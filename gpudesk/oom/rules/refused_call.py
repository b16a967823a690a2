"""``not_capacity`` from the error code of the allocation call: the driver refused the call, not for want of memory.

The CUDA runtime reports a device allocation that found no room as ``cudaErrorMemoryAllocation`` ("out of memory",
error 2; the driver API's ``CUDA_ERROR_OUT_OF_MEMORY``). The same ``cudaMalloc`` answered with
``cudaErrorNotSupported`` (801, "operation not supported", the driver API's ``CUDA_ERROR_NOT_SUPPORTED``) did not run
out of anything: the driver or the platform refuses the operation on this device or system (CUDA Runtime API,
"Error Handling", enum cudaError: cudaErrorNotSupported "This error indicates the attempted operation is not
supported on the current system or device"). A wrapper that prints its own "allocation failed" around that code
(Kokkos' ``Kokkos::Impl::CudaRawMemoryAllocationFailure``, "The allocation mechanism was cudaMalloc(). The Cuda
allocation returned the error code ...", kokkos core/src/Cuda/Kokkos_CudaSpace.cpp) therefore reports a refusal whose
fix is the platform (a MIG slice or vGPU handed to a virtual machine without the driver pieces it needs, an
unsupported driver/OS pairing), not a smaller job; kokkos#6865: 64.12 K refused on an idle A100 MIG slice in a VM.

The deciding check is the device's free memory against the request (``free_exceeds_request``): room that covers the
request settles that capacity was not the reason. 0.75: above a plain shortage read from the request alone (0.55),
below a refusal the device's own free figure proves (:mod:`gpudesk.oom.rules.not_capacity`, 0.92).
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import CHECKS, check_command, check_line
from gpudesk import i18n
from gpudesk.i18n import _

# A device allocation call named with a "not supported" error code in the same message (a few lines apart at most).
_ALLOCATION_CALL = r"(?:cudaMalloc\w{0,12}|cuMemAlloc\w{0,12}|cuMemCreate)"
_NOT_SUPPORTED = r"(?:cudaErrorNotSupported|CUDA_ERROR_NOT_SUPPORTED)"
_REFUSED = re.compile(_ALLOCATION_CALL + r"[\s\S]{0,300}?" + _NOT_SUPPORTED + "|" + _NOT_SUPPORTED + r"[\s\S]{0,300}?"
                      + _ALLOCATION_CALL)


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if _REFUSED.search(text) is None:
        return None
    command = check_command("free_exceeds_request", f.report.platform)
    return Cause(
        id="not_capacity",
        title=_("The driver refused the allocation call: the operation is not supported here"),
        confidence=0.75,
        evidence=evidence(requested_bytes=f.requested, not_capacity_kind="call_not_supported",
                          deciding_check="free_exceeds_request", check_command=command),
        explanation=_("The allocation call failed with 'not supported' (cudaErrorNotSupported), not with 'out of "
                      "memory' (cudaErrorMemoryAllocation): the driver or the platform refused the operation on this "
                      "device, so freeing memory or shrinking the job will not fix it."),
        fix=_("Check the platform, not the memory: on a MIG slice or a vGPU passed to a virtual machine, make sure "
              "the host and guest drivers support CUDA on it (the same driver branch on both, a vGPU profile that "
              "allows compute); run a small CUDA sample (deviceQuery, a cudaMalloc test) on the same device"),
        more_fixes=[_("Try the job on a whole GPU or on the host, outside the virtual machine, to confirm that the "
                      "slice or the VM is what refuses the call.")],
        checks=[check_line(command=command,
                                                 meaning=i18n._(CHECKS["free_exceeds_request"].meaning))],
    )
