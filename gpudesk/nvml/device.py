"""Static facts about one GPU (:class:`DeviceInfo`), read once per NVML session or taken from the catalog."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpudesk.nvml.pcie import link_bytes_per_s


@dataclass
class DeviceInfo:
    """Static facts about one GPU, read once per session (or taken from the catalog for dmon logs).

    ``pcie_link_source`` says where ``pcie_gen_max``/``pcie_width_max_lanes`` came from: "nvml", or
    "catalog:<gpu id>" (an assumption the user picked; show it next to every PCIe share), or None (unknown).
    ``lost_reason`` is set when the GPU fell off the bus / its handle failed; its samples are then all None.
    """

    index: int
    uuid: str | None = None
    name: str | None = None
    pci_bus_id: str | None = None
    memory_total_bytes: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_max_lanes: int | None = None
    pcie_link_source: str | None = None
    power_limit_w: float | None = None
    mig_mode: str | None = None  # "enabled", "disabled", or None (N/A: not MIG-capable / unreadable)
    mig_devices: list[dict[str, Any]] = field(default_factory=list)
    lost_reason: str | None = None
    reasons: dict[str, str] = field(default_factory=dict)

    @property
    def pcie_link_bytes_per_s(self) -> float | None:
        """Per-direction link capacity from the max generation and width, or None when unknown."""
        return link_bytes_per_s(self.pcie_gen_max, self.pcie_width_max_lanes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "uuid": self.uuid,
            "name": self.name,
            "pci_bus_id": self.pci_bus_id,
            "memory_total_bytes": self.memory_total_bytes,
            "pcie_gen_max": self.pcie_gen_max,
            "pcie_width_max_lanes": self.pcie_width_max_lanes,
            "pcie_link_source": self.pcie_link_source,
            "pcie_link_bytes_per_s": self.pcie_link_bytes_per_s,
            "power_limit_w": self.power_limit_w,
            "mig_mode": self.mig_mode,
            "mig_devices": list(self.mig_devices),
            "lost_reason": self.lost_reason,
            "reasons": dict(self.reasons),
        }
