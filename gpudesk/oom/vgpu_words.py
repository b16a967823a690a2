"""HAMi-core's own refusal of a container's GPU allocation, read from its words (issue 28, twenty-fifth pass).

HAMi-core (https://github.com/Project-HAMi/HAMi-core, the ``libvgpu.so`` that HAMi preloads into a Kubernetes pod)
intercepts the CUDA driver's allocation calls and checks each against the pod's share of the card
(``nvidia.com/gpumem``): ``oom_check`` in ``src/allocator/allocator.c`` adds the request to what it has counted for the
container and, above the limit, logs ``LOG_ERROR("Device %d OOM %lu / %lu", dev, new_allocated, limit)`` (printed as
"[HAMI-core ERROR (pid:.. thread=.. allocator.c:N)]: Device 0 OOM A / L") and refuses the call with
CUDA_ERROR_OUT_OF_MEMORY, whatever the physical GPU has free.

* ``A`` at or above 2^63 bytes (8 EiB) is no usage: it is the unsigned counter wrapped below zero, a release that
  subtracted more than it had added (Project-HAMi/HAMi#1181: "Device 0 OOM 18446744073707737660 / 24146608128",
  fixed in HAMi v2.6.1). That is a garbage size (``absurd_size``), not the pod's need.
* Otherwise the container asked for more than its configured share: the pod's limit, not the card
  (``per_process_cap``'s mechanism: a cap set for the process refused it).
"""

from __future__ import annotations

import re

_HAMI_OOM = re.compile(r"\bHAMI-core\s{1,3}ERROR\b[^\n]{0,120}?\bDevice\s{1,3}(\d{1,3})\s{1,3}OOM\s{1,3}(\d{1,20})\s{0,3}/"
                       r"\s{0,3}(\d{1,20})", re.IGNORECASE)
# An unsigned 64-bit counter that went below zero reads as 2^64 minus a little: anything from 2^63 up.
WRAPPED_COUNTER_BYTES = 2**63


def hami_oom(text: str) -> tuple[int, int, int] | None:
    """(device, bytes HAMi-core counted for the container with the request, the container's limit) from HAMi-core's
    refusal line, or None when the text has none."""
    m = _HAMI_OOM.search(text)
    if m is None:
        return None
    device, accounted, limit = (int(g) for g in m.groups())
    return device, accounted, limit


def counter_wrapped(text: str) -> bool:
    """HAMi-core's refusal with a counted usage no device has: its counter wrapped below zero (module docstring)."""
    found = hami_oom(text)
    return found is not None and found[1] >= WRAPPED_COUNTER_BYTES


# A GPU-sharing layer named in the text: HAMi (its core library libvgpu.so, its pod resources nvidia.com/gpumem and
# nvidia.com/gpucores) and Alibaba's gpushare scheduler exist to place several pods on one physical GPU, each with a
# share of its memory. A CUDA out-of-memory under such a layer without the layer's own refusal (HAMi-core's "Device N
# OOM" line above) came from the card itself: the pods placed beside this one hold it (Project-HAMi/HAMi-core#170: two
# pods that each asked for a whole 16 GB V100 were scheduled onto the same card; the maintainer: upgrade Kubernetes so
# the scheduler stops doing that).
# (HAMi's name as a word, not a path part: "/home/hami/" is a user's directory.)
_SHARING_LAYER = re.compile(r"(?<![/\w.-])hami(?:-core)?(?![/\w-])|\blibvgpu\.so\b|nvidia\.com/gpu(?:mem|cores)\b|"
                            r"\bgpushare\b", re.IGNORECASE)


def names_sharing_layer(text: str) -> bool:
    """The text names a GPU-sharing layer and holds no refusal of its own (``_SHARING_LAYER``)."""
    return _SHARING_LAYER.search(text) is not None and hami_oom(text) is None
