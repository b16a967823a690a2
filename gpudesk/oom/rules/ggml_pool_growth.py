"""``fragmentation`` in ggml's legacy CUDA/HIP buffer pool, the one a device without virtual memory management uses
(sixty-seventh pass).

ggml picks its per-device pool when the backend starts (ggml-org/llama.cpp, ggml/src/ggml-cuda/ggml-cuda.cu,
``ggml_backend_cuda_context::new_pool_for_device``): ``ggml_cuda_pool_vmm`` where the device supports virtual memory
management, one reserved address range grown at its end and given back in order, else ``ggml_cuda_pool_leg``. The
legacy pool keeps up to ``MAX_BUFFERS`` (256) freed buffers and serves a request from the smallest cached buffer that
is large enough; when none is, it allocates a new one of 1.05 × the request and keeps the old ones. A temporary
buffer whose size creeps up step by step (flash attention's temporaries growing with the context on every token)
never finds a cached buffer large enough, so the pool keeps every earlier size and the device fills with cached
buffers no request can use, until an allocation fails (ggml-org/llama.cpp#22107 on two gfx906 cards, "VMM: no",
the fix PRs #22094 "bypass memory pool for flash attention f16 temp buffers": the legacy pool "retains peak-sized
allocations permanently", and #23620). ggml prints "VMM: no" on each device line at start (``ggml_cuda_init``); with
memory said to grow beside it, the growth is the pool's cached buffers, not live tensors (``leak``) or the model's need.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.parsers import generic
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _

# ggml_cuda_init's device line without VMM: "Device 0: AMD Radeon Pro VII, gfx906:... (0x906), VMM: no, ...".
_DEVICE_WITHOUT_VMM = re.compile(r"^\s{0,8}Device \d{1,2}:[^\n]{0,200}?\bVMM:\s{0,2}no\b", re.IGNORECASE | re.MULTILINE)
# Memory said to swell over the run, beside the shared growth words ("VRAM bloating leading to OOM").
_BLOAT = re.compile(r"\b(?:vram|memory|gpu memory|video memory)\s{1,3}bloat(?:s|ed|ing)?\b|\bbloat(?:s|ed|ing)?\s{1,3}"
                    r"(?:of\s{1,3})?(?:the\s{1,3})?(?:vram|memory)\b", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if _DEVICE_WITHOUT_VMM.search(text) is None:
        return None
    if generic.MEMORY_GROWTH.search(text) is None and _BLOAT.search(text) is None:
        return None
    return Cause(
        id="fragmentation",
        title=_("ggml's legacy buffer pool kept growing on a device without VMM"),
        confidence=0.7,
        evidence=evidence(),
        explanation=_("The device lines say VMM: no, so ggml uses its legacy pool: it keeps every freed buffer and "
                      "serves a request only from a cached buffer at least as large. Temporary buffers that grow a "
                      "little on every step never fit an old one, so the pool keeps each earlier size and fills the "
                      "device with cached buffers no request can use."),
        fix=_("Update llama.cpp / ggml to a build that frees or bypasses the pool for growing temporary buffers, and "
              "restart the server to give the pool back"),
        more_fixes=[_("Run with a smaller context (-c) or without flash attention (-fa off): the temporary buffers "
                      "then grow less or not at all."),
                    _("On an NVIDIA card, build without GGML_CUDA_NO_VMM so ggml uses its virtual-memory pool.")],
    )
