"""The memory column of an ``nvidia-smi`` table pasted next to an error (issue 28).

``nvidia-smi`` prints one row per GPU whose middle cell is "Memory-Usage", ``<used>MiB / <total>MiB`` (NVIDIA System
Management Interface documentation, "nvidia-smi" output; the same in every driver release since the table format of
2013): ``| N/A 54C P0 246W / 300W |  15514MiB / 16130MiB |    100%      Default |``. Users paste it to show what held
the GPU when the job failed (yangjianxin1/GPT2-chitchat#19). Only rows inside the table's ``|`` cells are read, so a
size elsewhere in a log is not taken for a GPU.
"""

from __future__ import annotations

import re

from gpudesk.units import MIB

# "|  15514MiB / 16130MiB |": a cell of its own (a pipe before it, spaces, the two figures, spaces, a pipe after).
_MEMORY_CELL = re.compile(r"\|\s{0,12}(\d{1,9})\s?MiB\s{0,3}/\s{0,3}(\d{1,9})\s?MiB\s{0,12}\|")
MAX_ROWS = 64


def gpu_memory(text: str) -> list[tuple[int, int]]:
    """(used bytes, total bytes) of each GPU row of the table, in order; empty when the text holds no table."""
    rows: list[tuple[int, int]] = []
    for m in _MEMORY_CELL.finditer(text):
        used, total = int(m.group(1)) * MIB, int(m.group(2)) * MIB
        if total > 0 and used <= total:
            rows.append((used, total))
        if len(rows) >= MAX_ROWS:
            break
    return rows
