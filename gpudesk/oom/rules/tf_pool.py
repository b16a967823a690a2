"""TensorFlow's pool reservation refused by the CUDA driver, and what its figures say about it (issue 28), read by
:mod:`gpudesk.oom.rules.other_process`, :mod:`gpudesk.oom.rules.preallocation` and
:mod:`gpudesk.oom.rules.genuine_shortage`:

* one refusal of a reservation sized from the free memory just measured: another process took that memory
  (other_process's reading);
* a reservation of 95 % of the card or more: a memory fraction near 1 (``tf_fraction_reservation``, preallocation);
* the same size refused again and again: the pool's growth for the job's own tensors (``tf_pool_growth_refused``,
  genuine_shortage).
"""

from __future__ import annotations

import re

from gpudesk.oom import named_gpu
from gpudesk.oom.rules.base import Facts


def tf_reservation_refused_on_cuda(f: Facts) -> bool:
    """TensorFlow's BFC reservation refused by the CUDA driver, no library failure beside it (module docstring)."""
    r = f.report
    return (r.framework == "tensorflow" and r.kind == "cuda_driver_oom" and not r.parsed.get("cublas_handle_failed")
            and r.signature is None and "rocm" not in (r.backend or "", r.platform or ""))


# TensorFlow sizes its pool, without a memory fraction, as the free memory less a reserve for the system
# (gpu_device.cc, MinSystemMemory: 225 MiB below 2 GiB free, else max(300 MiB, 5 % of free)), so such a reservation
# stays under 95 % of the card; with per_process_gpu_memory_fraction set it asks total × fraction instead. A refused
# reservation of 95 % of the card or more is therefore a fraction near 1 asking for memory that was never free
# (the driver's context and the display hold some): TensorFlow's own preallocation setting, not another process
# (davidsandberg/facenet#402: 5.93 GiB asked on a 6 GB GTX 1060 with --gpu_memory_fraction 1.0; 0.8 fixed it).
WHOLE_CARD_SHARE = 0.95


# TensorFlow's BFC allocator grows its pool region by region (BFCAllocator::Extend, tensorflow/core/common_runtime/
# bfc_allocator.cc, and tsl's since 2.9): each region asks min(the next region size, what is left of its limit), and on
# a refusal it backpedals to 90 % sizes only once in its life (``started_backpedal_``). A refusal of the same size
# logged again and again is therefore the pool asking for its next region each time the job's tensors need more, after
# the first reservation went through: the job's own working set filling the card (nixingyang/AdaptiveL2Regularization#14:
# five refusals of 2.08G at batch 64 on a 4 GB card; the maintainer: the GPU's memory is too small), not memory that
# another process took between TensorFlow's measurement and its reservation (one refusal, then the smaller retries).
_TF_REFUSED_SIZE = re.compile(r"failed to allocate [\d.]{1,12}[KMGT]?i?B? \((\d{1,20}) bytes\) from device")
REPEATED_REFUSALS = 3


def tf_pool_growth_refused(f: Facts) -> bool:
    """TensorFlow's pool refused the same region size ``REPEATED_REFUSALS`` times or more (see ``_TF_REFUSED_SIZE``)."""
    if not tf_reservation_refused_on_cuda(f):
        return False
    sizes = _TF_REFUSED_SIZE.findall(f.report.text or "")
    return any(sizes.count(size) >= REPEATED_REFUSALS for size in set(sizes))


def tf_fraction_reservation(f: Facts) -> bool:
    """TensorFlow's refused reservation is 95 % of the card or more (``WHOLE_CARD_SHARE``): a fraction near 1."""
    if not tf_reservation_refused_on_cuda(f) or f.requested is None:
        return False
    total = f.report.parsed.get("total_at_start_bytes")
    capacity = total if isinstance(total, int) else (f.total or named_gpu.device_name_bytes(f.report.text or ""))
    return capacity is not None and f.requested >= WHOLE_CARD_SHARE * capacity
