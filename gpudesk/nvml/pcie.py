"""PCIe link capacity and throughput share, per direction.

Per-lane, per-direction payload bandwidth after line coding (PCI-SIG base specifications; figures as
collected in /work/shared/reference/monitor.md section 2.4): Gen1 250 MB/s (8b/10b at 2.5 GT/s), Gen2 500 MB/s
(8b/10b at 5 GT/s), Gen3 984.6 MB/s (128b/130b at 8 GT/s), Gen4 1969 MB/s, Gen5 3938 MB/s, Gen6 about 7563 MB/s
(64 GT/s PAM4 with FLIT mode, 242/256 efficiency). A x16 link per direction: 15.75 / 31.5 / 63 GB/s for
Gen3/4/5. Decimal megabytes.

The share uses the link's *maximum* generation and width (NVML's nvmlDeviceGetMaxPcieLinkGeneration/Width),
never the current one: an idle link drops to Gen1, and a share against Gen1 would jump to 100 % the moment the
GPU wakes up. A link whose current generation or width under load is below the maximum is flagged separately
(rule ``pcie-link-degraded``).
"""

from __future__ import annotations

from gpudesk.i18n import _

PER_LANE_BYTES_PER_S: dict[int, float] = {
    1: 250e6,
    2: 500e6,
    3: 984.6e6,
    4: 1969e6,
    5: 3938e6,
    6: 7563e6,
}


def link_bytes_per_s(generation: int | float | None, width_lanes: int | float | None) -> float | None:
    """Payload capacity of a PCIe link in bytes/s per direction.

    Returns None (never 0) when the generation or width is unknown, not positive, or a generation this table
    does not know (e.g. Gen7): the share cannot be computed then.
    """
    if generation is None or width_lanes is None:
        return None
    try:
        gen = int(generation)
        width = int(width_lanes)
    except (TypeError, ValueError):
        return None
    per_lane = PER_LANE_BYTES_PER_S.get(gen)
    if per_lane is None or width <= 0:
        return None
    return per_lane * width


def link_unknown_reason(generation: int | float | None, width_lanes: int | float | None) -> str | None:
    """Why :func:`link_bytes_per_s` is None for these inputs, or None when it is known."""
    if generation is None:
        return _("PCIe max generation unknown")
    if width_lanes is None:
        return _("PCIe max link width unknown")
    if int(generation) not in PER_LANE_BYTES_PER_S:
        return _("unknown PCIe generation {generation} (no per-lane bandwidth known)").format(generation=generation)
    if int(width_lanes) <= 0:
        return _("invalid PCIe link width {width}").format(width=width_lanes)
    return None


def pcie_share(bytes_per_s: float | None, generation: int | None, width_lanes: int | None) -> float | None:
    """Throughput as a fraction (0..1+) of the link's per-direction capacity; None when either is unknown."""
    cap = link_bytes_per_s(generation, width_lanes)
    if cap is None or bytes_per_s is None:
        return None
    return float(bytes_per_s) / cap


def describe_link(generation: int | None, width_lanes: int | None, source: str | None) -> str:
    """Short text such as "Gen4 x16 (31.5 GB/s per direction, from catalog:a100-80gb-pcie)"."""
    cap = link_bytes_per_s(generation, width_lanes)
    if cap is None:
        return _("PCIe link unknown ({reason})").format(reason=link_unknown_reason(generation, width_lanes))
    if source:
        return _("Gen{generation} x{width} ({gbps:.1f} GB/s per direction, from {source})").format(
            generation=generation, width=width_lanes, gbps=cap / 1e9, source=source)
    return _("Gen{generation} x{width} ({gbps:.1f} GB/s per direction)").format(
        generation=generation, width=width_lanes, gbps=cap / 1e9)
