"""Errors of the NVML layer."""

from __future__ import annotations

from gpudesk.errors import GpudeskError


class NvmlError(GpudeskError):
    """Base class of the NVML layer's errors; messages say what went wrong and what to do."""
