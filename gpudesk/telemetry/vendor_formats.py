"""Which non-NVIDIA monitor format a capture is, and its reader (issue 32).

One entry per vendor tool whose output gpudesk reads into a :class:`~gpudesk.telemetry.model.SeriesFrame`;
the ``monitor`` log-format detection can take these entries as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gpudesk.telemetry.npu_smi import NpuSmiLog, looks_like_npu_smi, read_npu_smi_file

NPU_SMI_INFO = "npu-smi-info"

#: format id -> (detector over the first part of the text, file reader)
FORMATS: dict[str, tuple[Callable[[str], bool], Callable[[str | Path], NpuSmiLog]]] = {
    NPU_SMI_INFO: (looks_like_npu_smi, read_npu_smi_file),
}


def detect(text: str) -> str | None:
    """The format id of ``text`` (e.g. ``"npu-smi-info"``), or None when no vendor reader knows it."""
    for name, (looks_like, _reader) in FORMATS.items():
        if looks_like(text):
            return name
    return None
