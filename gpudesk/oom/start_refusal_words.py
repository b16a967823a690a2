"""Start-up refusals worded as a memory shortage (issue 28, sixty-fourth pass), read by
:func:`gpudesk.oom.signatures.classify`.

Each reading needs the runtime's own wording of the failure AND a point of failure that is the runtime's or the
session's initialisation, with no allocation figure of the program's in the text: a capacity shortage names (or
follows) an allocation of the job's data; these fail before any is made.

* **ROCm's kernel driver or HSA runtime refusing to start.** ``rocminfo`` and every HIP program open ``/dev/kfd``
  first (ROCT-Thunk-Interface ``hsaKmtOpenKFD``, src/openclose.c: ``open(kfd_device_name, O_RDWR | O_CLOEXEC)``;
  rocminfo prints "Unable to open /dev/kfd read-write: %s" with ``strerror(errno)``). "Cannot allocate memory" there
  is ENOMEM from the amdgpu/kfd driver's ``kfd_open`` (its per-process structures), before the program owns any GPU
  memory. ``HSA_STATUS_ERROR_OUT_OF_RESOURCES`` is documented by the HSA runtime as "The runtime failed to allocate
  the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create
  internal OS-specific events" (ROCR-Runtime ``hsa.h``, ``hsa_status_t``): at ``hsa_init`` / agent enumeration
  (rocminfo) or on every kernel launch it marks a runtime or driver that cannot serve this GPU (an unsupported gfx
  target, a queue the driver will not create), not a full device (ROCm/legacy-rocm-build#1663, rocm-arch#901,
  ROCm/TheRock#7472: an RDNA1 gfx1012 card). The deciding check is the kernel log and rocminfo: ``dmesg | grep -i
  amdgpu`` shows the driver's refusal, ``rocminfo`` whether the agent is listed at all.
* **NVENC refusing to open an encode session.** ``nvEncOpenEncodeSessionEx`` returning ``NV_ENC_ERR_OUT_OF_MEMORY``
  (value 10 in ``nvEncodeAPI.h``, the NVIDIA Video Codec SDK; FFmpeg's ``nvenc.c`` prints it as "OpenEncodeSessionEx
  failed: out of memory (10)") is the session's creation, before any frame buffer: the driver returns it when the
  GPU's concurrent-session limit is reached (GeForce cards are limited; "Video Encode and Decode GPU Support Matrix",
  "Max # of concurrent sessions") or when the driver cannot create the encoder at all (a driver fault or a card with
  no NVENC), while the VRAM is free. The deciding check is the encoder's session count and the free memory:
  ``nvidia-smi -q | grep -i -A3 encoder`` (Active Sessions) beside ``nvidia-smi --query-gpu=memory.used,memory.total``.
"""

from __future__ import annotations

import re

# An allocation figure of the program's own ("Tried to allocate 2.00 GiB", "of size 1048576 bytes", "12 MB"): where
# one is given, the failure is an allocation and is left to the capacity readings.
_ANY_FIGURE = re.compile(r"\d\s{0,2}(?:[KMGT]i?B|bytes?)\b", re.IGNORECASE)

_KFD_OPEN_REFUSED = re.compile(r"/dev/kfd\b[^\n]{0,80}?(?:cannot allocate memory|out of memory|enomem|errno\s{0,2}=?\s{0,2}12\b)",
                               re.IGNORECASE)
_HSA_OUT_OF_RESOURCES = re.compile(r"\bHSA_STATUS_ERROR_OUT_OF_RESOURCES\b", re.IGNORECASE)

# The session call with status 10 (NV_ENC_ERR_OUT_OF_MEMORY): "nvEncOpenEncodeSessionEx(...) returned error 10",
# "OpenEncodeSessionEx failed: out of memory (10)", or the status by name.
_NVENC_SESSION_REFUSED = re.compile(
    r"\b(?:nvEnc)?OpenEncodeSession(?:Ex)?\b[^\n]{0,200}?(?:\berror\s{0,2}:?\s{0,2}10\b|out of memory\s{0,2}\(10\)|"
    r"NV_ENC_ERR_OUT_OF_MEMORY)|\bNV_ENC_ERR_OUT_OF_MEMORY\b[^\n]{0,120}?\bOpenEncodeSession", re.IGNORECASE)


def rocm_runtime_start(text: str) -> bool:
    """ROCm's driver (/dev/kfd) or HSA runtime refusing to start, with no allocation figure in ``text``."""
    if _ANY_FIGURE.search(text):
        return False
    return _KFD_OPEN_REFUSED.search(text) is not None or _HSA_OUT_OF_RESOURCES.search(text) is not None


def nvenc_session_refused(text: str) -> bool:
    """NVENC's encode session refused with status 10 (NV_ENC_ERR_OUT_OF_MEMORY), no allocation figure in ``text``."""
    return _NVENC_SESSION_REFUSED.search(text) is not None and not _ANY_FIGURE.search(text)
