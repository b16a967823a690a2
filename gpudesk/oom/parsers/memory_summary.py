"""``torch.cuda.memory_summary()`` tables (oom.md §2.2), whole or excerpted, with or without log prefixes.

Rows: Allocated memory, Active memory, Requested memory, GPU reserved memory, Non-releasable memory,
Allocations, Active allocs, GPU reserved segments, Non-releasable allocs, Oversize allocations, Oversize GPU
segments; each with Cur Usage / Peak Usage / Tot Alloc / Tot Freed and optional "from large/small pool"
sub-rows. Header counters: "CUDA OOMs: N" (``num_ooms``), "cudaMalloc retries: N" (``num_alloc_retries``).

Units: ``KB/MB/GB`` (old, binary despite the label) or ``KiB/MiB/GiB``; counts may carry ``K``/``M``
(base 1000). Text before the first ``|`` on a line (``WARNING | fairseq.trainer |`` style prefixes are
recognised by needing a known row name) is ignored.
"""

from __future__ import annotations

import re

from gpudesk.oom.parsers.units import parse_count, to_bytes
from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_, _

_MEMORY_ROWS = {
    "allocated memory": "allocated",
    "active memory": "active",
    "requested memory": "requested",
    "gpu reserved memory": "reserved",
    "non-releasable memory": "non_releasable",
}
_COUNT_ROWS = {
    "allocations": "allocations",
    "active allocs": "active_allocs",
    "gpu reserved segments": "reserved_segments",
    "non-releasable allocs": "non_releasable_allocs",
    "oversize allocations": "oversize_allocations",
    "oversize gpu segments": "oversize_segments",
}
_COLUMNS = ("cur", "peak", "tot_alloc", "tot_freed")
_ROW = re.compile(r"\|\s*(from large pool|from small pool|[A-Za-z][A-Za-z \-]+?)\s*\|((?:[^|]*\|){4})")
_OOMS = re.compile(r"CUDA OOMs:\s*(\d{1,12})")
_RETRIES = re.compile(r"cudaMalloc retries:\s*(\d{1,12})")
_DEVICE = re.compile(r"memory summary, device ID (\d{1,12})", re.I)
_SIZE_CELL = re.compile(r"^\s*(\d{1,20}(?:\.\d{1,20})?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB|PiB|PB)\s*$")


def matches(text: str) -> bool:
    """True when the text has at least one memory_summary row or header counter."""
    return bool(_OOMS.search(text) or _RETRIES.search(text) or _find_rows(text))


def _find_rows(text: str) -> list[tuple[str, list[str]]]:
    rows = []
    current = None
    for line in text.splitlines():
        if "|" not in line:
            continue
        m = None
        # Log prefixes may contain "|" too ("WARNING | fairseq.trainer |"): try each bar until a known row.
        for pos in (i for i, ch in enumerate(line) if ch == "|"):
            cand = _ROW.match(line, pos)
            if cand and (cand.group(1).strip().lower() in _MEMORY_ROWS or cand.group(1).strip().lower() in _COUNT_ROWS
                         or cand.group(1).strip().lower().startswith("from ")):
                m = cand
                break
        if not m:
            continue
        name = m.group(1).strip().lower()
        cells = [c.strip() for c in m.group(2).split("|")[:4]]
        if name in _MEMORY_ROWS or name in _COUNT_ROWS:
            current = name
            rows.append((name, cells))
        elif name.startswith("from ") and current is not None:
            rows.append((f"{current} {name}", cells))
    return rows


def parse(text: str, report: MemoryReport) -> bool:
    """Fill ``report`` (allocator counters of one device) from a memory_summary table; False if none."""
    rows = _find_rows(text)
    ooms = _OOMS.search(text)
    retries = _RETRIES.search(text)
    if not rows and not ooms and not retries:
        return False
    if report.kind == "unknown":
        report.kind = "memory_summary"
        report.framework = "pytorch"
    dev_m = _DEVICE.search(text)
    index = int(dev_m.group(1)) if dev_m else report.device_index
    if report.device_index is None and index is not None:
        report.device_index = index
    dev = report.ensure_device(index) if (index is not None or not report.devices) else report.device
    assert dev is not None, "a report with devices has a failing (or first) device"
    parsed = report.parsed
    if ooms:
        dev.num_ooms = int(ooms.group(1))
        parsed["summary_num_ooms"] = dev.num_ooms
    if retries:
        dev.num_alloc_retries = int(retries.group(1))
        parsed["summary_num_alloc_retries"] = dev.num_alloc_retries
    unit_styles = set()
    for name, cells in rows:
        base = name.split(" from ")[0]
        key = (_MEMORY_ROWS.get(base) or _COUNT_ROWS[base]) + ("_" + name.split(" from ")[1].replace(" ", "_") if " from " in name else "")
        values: list[int | None] = []
        for cell in cells:
            if base in _MEMORY_ROWS:
                m = _SIZE_CELL.match(cell)
                if m:
                    unit_styles.add("binary (KiB/MiB/GiB)" if "i" in m.group(2) else "KB/MB/GB (binary values)")
                values.append(to_bytes(m.group(1), m.group(2)) if m else None)
            else:
                values.append(parse_count(cell))
        suffix = "_bytes" if base in _MEMORY_ROWS else ""
        for col, value in zip(_COLUMNS, values):
            if value is not None:
                parsed[f"summary_{key}_{col}{suffix}"] = value
        cur, peak = (values + [None, None])[:2]
        if " from " in name:
            continue
        if base == "allocated memory":
            # An OOM message parsed first is the state at the failure; keep it.
            dev.allocated_bytes = cur if dev.allocated_bytes is None else dev.allocated_bytes
            dev.peak_allocated_bytes = peak if dev.peak_allocated_bytes is None else dev.peak_allocated_bytes
        elif base == "gpu reserved memory":
            dev.reserved_bytes = cur if dev.reserved_bytes is None else dev.reserved_bytes
            dev.peak_reserved_bytes = peak if dev.peak_reserved_bytes is None else dev.peak_reserved_bytes
        elif base == "non-releasable memory":
            dev.inactive_split_bytes = cur
        elif base == "oversize allocations":
            dev.oversize_allocations = cur
        elif base == "oversize gpu segments":
            dev.oversize_segments = cur
    if unit_styles:
        parsed["summary_units"] = ", ".join(sorted(unit_styles))
    summary_values = [v for k, v in parsed.items() if k.startswith("summary_") and isinstance(v, int)
                      and not k.startswith(("summary_num_", "summary_units"))]
    if summary_values and not any(summary_values):
        report.notes.append(_(
            "Every figure in the memory_summary table is 0: it was printed for a GPU this process has not used, or "
            "after everything was freed "
            "(memory_summary() without device= reports the current device, often GPU 0). Print it for the GPU "
            "that ran out: torch.cuda.memory_summary(device=N)."
        ))
    if report.kind == "memory_summary":
        if not any(n == "gpu reserved memory" for n, _figure in rows):
            report.missing.append(N_("GPU reserved memory row"))
        if not any(n == "allocated memory" for n, _figure in rows):
            report.missing.append(N_("Allocated memory row"))
    return True
