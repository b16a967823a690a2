"""What a user can tell the doctor that a pasted message may not say: the host OS and the memory other processes hold.

A one-line ``CUDA error: out of memory`` reads the same on Linux, native Windows and WSL2, yet the mechanisms differ:

* **WSL2**: the GPU is paravirtualised through the Windows host's WDDM driver (``/dev/dxg``), and page-locked host
  memory is limited there ("Pinned system memory (e.g. system memory that an application makes resident for GPU
  accesses) availability for applications is limited", NVIDIA CUDA on WSL User Guide, "Known Limitations for Linux
  CUDA Applications", https://docs.nvidia.com/cuda/wsl-user-guide/index.html); ``pin_memory=False`` is the fix in
  microsoft/WSL#8447.
* **Native Windows (WDDM)**: device memory is managed by the Windows video memory manager, which can evict device
  allocations to system memory and so charges them against the system commit limit (RAM + page file); with a small
  page file the driver refuses allocations while VRAM is free (ollama/ollama#8825: raising a 2 GB page file to 16 GB
  let the model load; deeplearning4j/nd4j#775: "CUDA may decline new memory allocations" under WDDM). Drivers from
  536.40 also spill to shared system memory instead of failing (the Sysmem Fallback Policy, gpudesk.oom.rules
  .sysmem_fallback).
* **Other processes' memory** (nvidia-smi's process list, which a text paste lacks): memory the job never held.

These inputs are applied to the parsed report (:func:`apply`); the rules read ``report.host_os`` and the device's
``other_processes``. The parser sets ``host_os`` from the text's own words (:func:`detect_host_os`); a user's input
overrides it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.oom.errors import OomInputError
from gpudesk.oom.report import MemoryReport, ProcessMemory

HOST_OSES = ("linux", "windows", "wsl", "macos")
# An upper bound on any device's memory (bytes): a figure above it is a typo, not a measurement.
MAX_DEVICE_BYTES = 2**50

# What a WSL2 log carries of its platform: the word, its kernel's release string ("5.15.90.1-microsoft-standard-WSL2"),
# the Windows drives mounted under /mnt/<letter>, and the GPU paravirtualisation of WSL2 (/dev/dxg, libdxcore.so,
# the driver libraries in /usr/lib/wsl/lib; NVIDIA CUDA on WSL User Guide, "Getting Started").
WSL_WORDS = re.compile(r"\bwsl|microsoft-standard|/mnt/[c-h]/|/dev/dxg|\bdxg\b|libdxcore|/usr/lib/wsl", re.IGNORECASE)
# Native Windows: a drive-letter path with backslashes ("C:\Users\", "D:\Anaconda3\lib"), a Windows system error
# ("[WinError 1455]") or a DLL being loaded.
WINDOWS_WORDS = re.compile(r"(?<![A-Za-z])[A-Za-z]:\\\\?[A-Za-z_$]|\bWinError\b|\.dll\b", re.IGNORECASE)


@dataclass(frozen=True)
class UserContext:
    """Facts the user gives beside the text (None = not given).

    Attributes:
        host_os: one of :data:`HOST_OSES`.
        other_processes_bytes: device memory that other processes hold (nvidia-smi's list), bytes.
        device_total_bytes: the GPU's memory, bytes, when the message does not print it.
    """

    host_os: str | None = None
    other_processes_bytes: int | None = None
    device_total_bytes: int | None = None

    def __post_init__(self) -> None:
        if self.host_os is not None and self.host_os not in HOST_OSES:
            raise OomInputError(_("Unknown operating system {value!r}; expected one of: {choices}.").format(
                value=self.host_os, choices=", ".join(HOST_OSES)))
        for name, value in (("other_processes_bytes", self.other_processes_bytes),
                            ("device_total_bytes", self.device_total_bytes)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or not 0 <= value <= MAX_DEVICE_BYTES):
                raise OomInputError(_("{name} must be a whole number of bytes between 0 and {limit}, got "
                                      "{value!r}.").format(name=name, limit=MAX_DEVICE_BYTES, value=value))


def detect_host_os(text: str) -> str | None:
    """The host OS the text's own words show ("wsl" before "windows": WSL logs hold /mnt/c paths), None if unsaid."""
    if WSL_WORDS.search(text):
        return "wsl"
    if WINDOWS_WORDS.search(text):
        return "windows"
    return None


def apply(report: MemoryReport, context: UserContext | None) -> MemoryReport:
    """Set what the user gave on ``report`` (in place; returned for chaining). The text's figures are kept: a
    capacity the message prints is not replaced by the one given."""
    if context is None:
        return report
    if context.host_os is not None:
        report.host_os = context.host_os
        report.host_os_given = True
    if context.device_total_bytes is not None:
        dev = report.device or report.ensure_device(report.device_index)
        if dev.total_bytes is None:
            dev.total_bytes = context.device_total_bytes
    if context.other_processes_bytes is not None:
        dev = report.device or report.ensure_device(report.device_index)
        dev.other_processes.append(ProcessMemory(pid=0, used_bytes=context.other_processes_bytes,
                                                 gpu_index=dev.index, name=_("other processes (given)"),
                                                 given=True))
    return report
