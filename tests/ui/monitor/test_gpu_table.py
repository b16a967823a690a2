"""The per-GPU table repaints only the cells whose text changed (issue 15: a 1 Hz tick with steady readings
costs no table repaint), and still shows every new value."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import DeviceInfo
from gpudesk.ui.monitor.gpu_table import COLUMNS, GpuTableModel

DISPLAY = Qt.ItemDataRole.DisplayRole


def _readings(util: float, power: float) -> dict[str, float | None]:
    return {m.GPU_UTIL: util, m.POWER: power, m.MEM_USED: 10 * 2**30, m.MEM_TOTAL: 80 * 2**30, m.GPU_TEMP: 60.0}


def _changes(model: GpuTableModel) -> list[tuple[int, int, int, int, list]]:
    seen: list[tuple[int, int, int, int, list]] = []
    model.dataChanged.connect(lambda a, b, roles: seen.append((a.row(), a.column(), b.row(), b.column(), list(roles))))
    return seen


def test_only_changed_cells_are_repainted(qtbot):
    model = GpuTableModel()
    model.set_devices([DeviceInfo(0, name="NVIDIA A100"), DeviceInfo(1, name="NVIDIA A100")], {})
    model.set_latest({0: _readings(75, 250), 1: _readings(75, 250)}, {})
    seen = _changes(model)
    model.set_latest({0: _readings(75, 250), 1: _readings(75, 250)}, {})
    assert seen == []  # steady readings: nothing to repaint
    model.set_latest({0: _readings(75, 250), 1: _readings(80, 251)}, {})
    util, power = [k for k, _h in COLUMNS].index(m.GPU_UTIL), [k for k, _h in COLUMNS].index(m.POWER)
    assert seen == [(1, util, 1, power, [DISPLAY])]  # one row, from the first to the last changed column
    assert model.data(model.index(1, util), DISPLAY) == "80"
    assert model.data(model.index(1, power), DISPLAY) == "251"
    # a value that can no longer be read turns to N/A, and that cell is repainted
    seen.clear()
    gone = _readings(75, 250)
    gone[m.GPU_UTIL] = None
    model.set_latest({0: gone, 1: _readings(80, 251)}, {(0, m.GPU_UTIL): "not supported"})
    assert seen == [(0, util, 0, util, [DISPLAY])]
    assert model.data(model.index(0, util), DISPLAY) == "N/A"


def test_devices_changing_repaints_every_cell(qtbot):
    model = GpuTableModel()
    model.set_devices([DeviceInfo(0, name="NVIDIA A100")], {})
    model.set_latest({0: _readings(75, 250)}, {})
    seen = _changes(model)
    model.update_devices([DeviceInfo(0, name="NVIDIA A100", lost_reason="GPU is lost (NVML_ERROR_GPU_IS_LOST)")])
    assert seen and seen[0][:4] == (0, 0, 0, len(COLUMNS) - 1)
    assert model.data(model.index(0, len(COLUMNS) - 1), DISPLAY) == "lost"
