"""Busy vs productive in the per-GPU table: SM active and tensor active from NVML GPM (fake pynvml with the
bindings' real GPM structures), N/A with "not supported on this GPU" where the GPU has no GPM, never 0."""

from __future__ import annotations

import itertools

from helpers.fake_pynvml import FakeDevice, make_fake_pynvml
from PySide6.QtCore import Qt

from gpudesk.nvml import gpm
from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from gpudesk.ui.monitor.gpu_table import COLUMNS, GpuTableModel


def test_sm_active_beside_utilization_and_not_supported_said(qtbot):
    devs = [FakeDevice(0, name="NVIDIA H100 80GB HBM3", util_gpu=100,
                       gpm={gpm.SM_UTIL: 23.0, gpm.ANY_TENSOR_UTIL: 7.0}),
            FakeDevice(1, name="NVIDIA A100-SXM4-80GB", util_gpu=100, gpm=None)]
    t = itertools.count(1_750_000_000)
    src = NvmlSource(nvml=make_fake_pynvml(devs), clock=lambda: float(next(t)))
    src.read()
    batch = src.read()
    devices = src.devices()
    src.close()
    model = GpuTableModel()
    model.set_devices(devices, {})
    model.set_latest({s.gpu_index: s.values for s in batch.samples},
                     {(s.gpu_index, k): v for s in batch.samples for k, v in s.reasons.items()})
    keys = [k for k, _h in COLUMNS]
    util, sm, tensor = keys.index("gpu_util_pct"), keys.index(df.SM_ACTIVE), keys.index(df.TENSOR_ACTIVE)
    display, tip = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole
    assert model.data(model.index(0, util), display) == "100"
    assert model.data(model.index(0, sm), display) == "23"  # busy 100 %, SMs active 23 %
    assert model.data(model.index(0, tensor), display) == "7"
    assert model.data(model.index(1, sm), display) == "N/A"
    assert "not supported on this GPU" in model.data(model.index(1, sm), tip)
