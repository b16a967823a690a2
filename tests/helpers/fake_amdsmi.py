"""A fake of AMD's ``amdsmi`` Python library at its boundary (the documented function names, enums and
exception classes; rocm.docs.amd.com/projects/amdsmi, Python API reference), like fake_pynvml for NVML.

Each GPU is a dict of readings; a reading set to an exception instance is raised by the call that reads it.
"""

from __future__ import annotations

import enum
import types
from typing import Any


class AmdSmiException(Exception):
    pass


class AmdSmiLibraryException(AmdSmiException):
    def __init__(self, err_code: int):
        super().__init__(f"Error code:\n\t{err_code}")
        self.err_code = err_code

    def get_error_code(self) -> int:
        return self.err_code


class AmdSmiRetryException(AmdSmiLibraryException):
    pass


class AmdSmiTemperatureType(enum.IntEnum):
    EDGE = 0
    HOTSPOT = 1
    VRAM = 2


class AmdSmiTemperatureMetric(enum.IntEnum):
    CURRENT = 0


class AmdSmiClkType(enum.IntEnum):
    GFX = 0
    MEM = 4


def make(gpus: list[dict[str, Any]], init_error: AmdSmiException | None = None) -> types.ModuleType:
    """A module with the amdsmi calls gpudesk uses, over ``gpus`` (mutable: tests change readings between polls)."""
    mod = types.ModuleType("amdsmi")
    state = {"init": False, "shut_down": 0}

    def reading(h: int, key: str) -> Any:
        value = gpus[h][key]
        if callable(value):
            value = value()
        if isinstance(value, Exception):
            raise value
        return value

    def amdsmi_init(flags: int = 0) -> None:
        if init_error is not None:
            raise init_error
        state["init"] = True

    def amdsmi_shut_down() -> None:
        state["shut_down"] += 1

    def amdsmi_get_processor_handles() -> list[int]:
        return list(range(len(gpus)))

    mod.amdsmi_init = amdsmi_init
    mod.amdsmi_shut_down = amdsmi_shut_down
    mod.amdsmi_get_processor_handles = amdsmi_get_processor_handles
    mod.amdsmi_get_gpu_asic_info = lambda h: reading(h, "asic")
    mod.amdsmi_get_gpu_device_uuid = lambda h: reading(h, "uuid")
    mod.amdsmi_get_gpu_device_bdf = lambda h: reading(h, "bdf")
    mod.amdsmi_get_gpu_activity = lambda h: reading(h, "activity")
    mod.amdsmi_get_gpu_vram_usage = lambda h: reading(h, "vram")
    mod.amdsmi_get_power_info = lambda h: reading(h, "power")
    mod.amdsmi_get_temp_metric = lambda h, t, metric: reading(h, f"temp_{AmdSmiTemperatureType(t).name.lower()}")
    mod.amdsmi_get_clock_info = lambda h, c: reading(h, f"clk_{AmdSmiClkType(c).name.lower()}")
    mod.AmdSmiException = AmdSmiException
    mod.AmdSmiLibraryException = AmdSmiLibraryException
    mod.AmdSmiRetryException = AmdSmiRetryException
    mod.AmdSmiTemperatureType = AmdSmiTemperatureType
    mod.AmdSmiTemperatureMetric = AmdSmiTemperatureMetric
    mod.AmdSmiClkType = AmdSmiClkType
    mod.state = state
    return mod


def mi300x(index: int = 0, gfx: float = 95.0, power_w: float = 700.0) -> dict[str, Any]:
    """One MI300X as amdsmi 6.x/7.x reports it (no edge sensor: EDGE is NOT_SUPPORTED)."""
    return {
        "asic": {"market_name": "AMD Instinct MI300X", "vendor_id": "0x1002", "device_id": "0x74a1"},
        "uuid": f"b6ff74a1-0000-1000-80b3-00000000000{index}",
        "bdf": f"0000:{0x11 + index:02x}:00.0",
        "activity": {"gfx_activity": gfx, "umc_activity": 40.0, "mm_activity": "N/A"},
        "vram": {"vram_total": 196592, "vram_used": 150000},
        "power": {"current_socket_power": power_w, "average_socket_power": "N/A", "power_limit": 750},
        "temp_edge": AmdSmiLibraryException(2),
        "temp_hotspot": 71.0,
        "temp_vram": 60.0,
        "clk_gfx": {"clk": 2100, "min_clk": 500, "max_clk": 2100},
        "clk_mem": {"clk": 1300, "min_clk": 900, "max_clk": 1300},
    }
