"""NVML source over the fake pynvml: every fault from issue 4 and monitor.md section 7."""

from __future__ import annotations

import sys

import pynvml
import pytest

from gpudesk.telemetry.core import model as m
from gpudesk.nvml.nvml_session import NvmlSession, NvmlUnavailableError, probe_nvml, reason_text
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml, nvml_error


def read_one(fake, index=0):
    src = NvmlSource(nvml=fake)
    try:
        return src.read().samples[index]
    finally:
        src.close()


def test_fake_raises_the_real_pynvml_classes():
    fake = make_fake_pynvml([FakeDevice(0, faults={"nvmlDeviceGetPowerUsage": "NotSupported"})])
    fake.nvmlInit()
    h = fake.nvmlDeviceGetHandleByIndex(0)
    with pytest.raises(pynvml.NVMLError_NotSupported):
        fake.nvmlDeviceGetPowerUsage(h)
    assert fake.NVMLError is pynvml.NVMLError


def test_healthy_device_units():
    s = read_one(make_fake_pynvml([FakeDevice(0, pcie_rx_kb=2_000_000, power_mw=250_000, sm_clock_mhz=1410)]))
    assert s.values[m.GPU_UTIL] == 75.0
    assert s.values[m.PCIE_RX] == 2_000_000 * 1000.0  # documented "KB/s", taken in SI -> bytes/s
    assert s.values[m.POWER] == 250.0  # mW -> W
    assert s.values[m.SM_CLOCK] == 1410e6  # MHz -> Hz
    assert s.values[m.MEM_RESERVED] == 512 * 1024**2  # v2 call used
    assert s.gpu_uuid.startswith("GPU-")


@pytest.mark.parametrize("error", ["NotSupported", "NoPermission", "NotFound", "Unknown", "FunctionNotFound"])
def test_field_error_is_none_with_reason_never_zero(error):
    fake = make_fake_pynvml([FakeDevice(0, faults={"nvmlDeviceGetPowerUsage": error,
                                                   "nvmlDeviceGetUtilizationRates": error})])
    s = read_one(fake)
    assert s.values[m.POWER] is None and s.values[m.GPU_UTIL] is None
    assert s.reasons[m.POWER].startswith(error)
    assert s.reasons[m.GPU_UTIL].startswith(error)
    assert s.values[m.MEM_USED] == 10 * 1024**3  # other fields still read


def test_not_supported_is_not_called_again_but_no_permission_is_retried():
    fake = make_fake_pynvml([FakeDevice(0, faults={"nvmlDeviceGetPowerUsage": "NotSupported",
                                                   "nvmlDeviceGetTemperature": "NoPermission"})])
    src = NvmlSource(nvml=fake)
    for _ in range(3):
        src.read()
    assert fake.call_log.count("nvmlDeviceGetPowerUsage") == 1
    assert fake.call_log.count("nvmlDeviceGetTemperature") == 3
    src.close()


def test_gpu_is_lost_marks_that_gpu_and_keeps_the_others():
    fake = make_fake_pynvml(3)
    src = NvmlSource(nvml=fake)
    src.read()
    fake.devices[1].lose()
    batch = src.read()
    assert batch.samples[1].values[m.GPU_UTIL] is None
    assert batch.samples[1].reasons[m.GPU_UTIL].startswith("GpuIsLost")
    assert batch.samples[0].values[m.GPU_UTIL] == 75.0
    assert batch.samples[2].values[m.GPU_UTIL] == 75.0
    calls = fake.devices[1].calls
    src.read()
    src.read()
    assert fake.devices[1].calls == calls  # no NVML calls on a lost handle (nvitop #139 segfault)
    assert src.devices()[1].lost_reason.startswith("GpuIsLost")
    src.close()


@pytest.mark.parametrize("error", ["Unknown", "GpuIsLost"])
def test_handle_failure_at_open_is_per_device(error):
    fake = make_fake_pynvml([FakeDevice(0), FakeDevice(1, faults={"nvmlDeviceGetHandleByIndex": error}), FakeDevice(2)])
    src = NvmlSource(nvml=fake)
    batch = src.read()
    assert [s.values[m.GPU_UTIL] for s in batch.samples] == [75.0, None, 75.0]
    assert error in batch.samples[1].reasons[m.GPU_UTIL]
    src.close()


def test_memory_v2_missing_falls_back_to_v1():
    fake = make_fake_pynvml(1, missing_functions=("nvmlDeviceGetMemoryInfo_v2",))
    s = read_one(fake)
    # v1 counts the reserved memory as used (gpustat #141)
    assert s.values[m.MEM_USED] == 10 * 1024**3 + 512 * 1024**2
    assert s.values[m.MEM_RESERVED] is None
    assert "v2" in s.reasons[m.MEM_RESERVED]


def test_zero_total_memory_is_none_not_zero():
    s = read_one(make_fake_pynvml([FakeDevice(0, memory_total=0, memory_used=0)]))
    for name in (m.MEM_USED, m.MEM_FREE, m.MEM_TOTAL):
        assert s.values[name] is None
        assert "unified" in s.reasons[name]


def test_name_not_utf8_keeps_device():
    fake = make_fake_pynvml([FakeDevice(0, name=b"NVIDIA \xff\xfe GPU")])
    with NvmlSession(fake) as session:
        info = session.device_info(0)
        assert info.name is None
        assert "UTF-8" in info.reasons["name"]
        assert info.lost_reason is None
    assert read_one(fake).values[m.GPU_UTIL] == 75.0


def test_unknown_pcie_generation_and_max_not_supported():
    fake = make_fake_pynvml([FakeDevice(0, pcie_gen_max=7), FakeDevice(1, faults={
        "nvmlDeviceGetMaxPcieLinkGeneration": "NotSupported"})])
    with NvmlSession(fake) as session:
        d0, d1 = session.devices()
        assert d0.pcie_gen_max == 7 and d0.pcie_link_bytes_per_s is None  # no KeyError (nvdashboard)
        assert d1.pcie_gen_max is None and d1.pcie_link_bytes_per_s is None  # no TypeError
        assert d1.reasons["pcie_gen_max"].startswith("NotSupported")


def test_idle_link_gen1_keeps_share_against_max():
    from gpudesk.nvml.pcie import pcie_share

    s = read_one(make_fake_pynvml([FakeDevice(0, pcie_gen_cur=1, pcie_width_cur=16, pcie_gen_max=4,
                                              pcie_rx_kb=1_000)]))
    assert s.values[m.PCIE_GEN_CUR] == 1 and s.values[m.PCIE_GEN_MAX] == 4
    share = pcie_share(s.values[m.PCIE_RX], s.values[m.PCIE_GEN_MAX], s.values[m.PCIE_WIDTH_MAX])
    assert share == pytest.approx(1_000_000 / (1969e6 * 16))


@pytest.mark.parametrize(
    ("error", "state", "words"),
    [
        ("LibraryNotFound", "library-not-found", "no NVIDIA driver is installed"),
        ("DriverNotLoaded", "driver-not-loaded", "not loaded"),
        ("LibRmVersionMismatch", "version-mismatch", "Reboot"),
    ],
)
def test_init_failures_give_a_clear_status(error, state, words):
    fake = make_fake_pynvml(init_error=error)
    status = probe_nvml(fake)
    assert not status.available
    assert status.state == state
    assert words in status.message
    with pytest.raises(NvmlUnavailableError) as info:
        NvmlSource(nvml=fake)
    assert info.value.status.state == state


def test_module_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    status = probe_nvml()
    assert status.state == "module-missing"
    assert "nvidia-ml-py" in status.message


def test_sys_modules_monkeypatch_is_honoured(monkeypatch):
    fake = make_fake_pynvml(2)
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    status = probe_nvml()
    assert status.available and status.device_count == 2 and status.driver_version == "550.54.15"


@pytest.mark.parametrize("count", [1, 8, 16, 64])
def test_many_gpus(count):
    fake = make_fake_pynvml(count)
    src = NvmlSource(nvml=fake)
    batch = src.read()
    assert len(batch) == count
    assert [s.gpu_index for s in batch] == list(range(count))
    assert len({s.gpu_uuid for s in batch}) == count
    src.close()


def test_no_devices_status():
    assert probe_nvml(make_fake_pynvml([])).state == "no-devices"


def test_slow_tier_polled_less_often():
    now = [1000.0]
    fake = make_fake_pynvml(1)
    src = NvmlSource(nvml=fake, slow_interval_s=5.0, clock=lambda: now[0])
    for _ in range(5):
        src.read()
        now[0] += 1.0
    assert fake.call_log.count("nvmlDeviceGetCurrPcieLinkGeneration") == 1
    assert fake.call_log.count("nvmlDeviceGetUtilizationRates") == 5
    now[0] += 1.0
    batch = src.read()
    assert fake.call_log.count("nvmlDeviceGetCurrPcieLinkGeneration") == 2
    assert batch.samples[0].values[m.POWER_LIMIT] == 400.0
    src.close()


def test_nvlink_rate_from_counter_deltas():
    now = [0.0]
    fake = make_fake_pynvml([FakeDevice(0, nvlink_links=2, nvlink_kib_per_s=1000)], clock=lambda: now[0])
    src = NvmlSource(nvml=fake, slow_interval_s=0.0, clock=lambda: now[0])
    first = src.read().samples[0]
    assert first.values[m.NVLINK_TX] is None and "first" in first.reasons[m.NVLINK_TX]
    now[0] += 2.0
    second = src.read().samples[0]
    assert second.values[m.NVLINK_TX] == pytest.approx(2 * 1000 * 1024)  # 2 links x 1000 KiB/s
    src.close()


def test_no_nvlink_reason():
    s = read_one(make_fake_pynvml(1))
    assert s.values[m.NVLINK_RX] is None and "NVLink" in s.reasons[m.NVLINK_RX]


def test_mig_enabled_lists_instances_and_utilization_is_na():
    mig = [{"uuid": "MIG-1111", "gi": 1, "ci": 0, "memory_total": 10 * 1024**3, "memory_used": 1024**3}]
    fake = make_fake_pynvml([FakeDevice(0, mig_mode=1, mig_devices=mig), FakeDevice(1, mig_mode=0)])
    with NvmlSession(fake) as session:
        d0, d1 = session.devices()
        assert d0.mig_mode == "enabled" and d0.mig_devices[0]["uuid"] == "MIG-1111"
        assert d0.mig_devices[0]["gpu_instance_id"] == 1
        assert d1.mig_mode == "disabled" and d1.mig_devices == []
        batch = NvmlSource(session).read()
    assert batch.samples[0].values[m.GPU_UTIL] is None  # NotSupported on MIG, not 0
    assert batch.samples[1].values[m.GPU_UTIL] == 75.0


def test_reason_text_for_unicode_error():
    exc = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    assert "UTF-8" in reason_text(exc)
    assert reason_text(nvml_error("GpuIsLost")).startswith("GpuIsLost")


def test_memory_temperature_field_and_not_supported():
    fake = make_fake_pynvml([FakeDevice(0, memory_temperature_c=71), FakeDevice(1)])
    batch = NvmlSource(nvml=fake).read()
    assert batch.samples[0].values[m.MEM_TEMP] == 71.0
    assert batch.samples[1].values[m.MEM_TEMP] is None
    assert batch.samples[1].reasons[m.MEM_TEMP].startswith("NotSupported")


def test_known_bad_driver_range_is_warned():
    assert probe_nvml(make_fake_pynvml(1, driver_version="535.54.03")).warnings
    assert not probe_nvml(make_fake_pynvml(1, driver_version="550.54.15")).warnings


def test_device_info_static_facts():
    fake = make_fake_pynvml([FakeDevice(0), FakeDevice(1, memory_total=0, memory_used=0)])
    with NvmlSession(fake) as session:
        d0, d1 = session.devices()
    assert d0.memory_total_bytes == 80 * 1024**3 and d0.power_limit_w == 400.0
    assert d0.pci_bus_id == "00000000:10:00.0" and d0.pcie_link_bytes_per_s == 1969e6 * 16
    assert d1.memory_total_bytes is None and "unified" in d1.reasons["memory_total_bytes"]


def test_pcie_byte_counters_average_over_the_interval_when_supported():
    now = [0.0]
    fake = make_fake_pynvml([FakeDevice(0, pcie_counters=True, pcie_tx_kb=500, pcie_rx_kb=1000),
                             FakeDevice(1, pcie_tx_kb=500)], clock=lambda: now[0])
    assert NvmlSource(nvml=fake).pcie_methods[0].startswith("20 ms")  # opt-in only
    src = NvmlSource(nvml=fake, clock=lambda: now[0], pcie_counters=True)
    first = src.read()
    assert first.samples[0].values[m.PCIE_RX] == 1000 * 1000.0  # first tick: the 20 ms sample
    now[0] += 2.0
    second = src.read()
    assert second.samples[0].values[m.PCIE_RX] == pytest.approx(1000 * 1000.0)  # counter delta / 2 s
    assert second.samples[0].values[m.PCIE_TX] == pytest.approx(500 * 1000.0)
    assert second.samples[1].values[m.PCIE_TX] == 500 * 1000.0  # unsupported: 20 ms sample
    assert src.pcie_methods == {0: "byte counters, averaged over the interval",
                                1: "20 ms sample (nvmlDeviceGetPcieThroughput)"}
    calls = fake.call_log.count("nvmlDeviceGetFieldValues")
    src.read()
    assert fake.call_log.count("nvmlDeviceGetFieldValues") - calls == 1  # GPU 1 is not asked again


def test_nvlink_counters_that_go_backwards_or_hold_the_sentinel_are_na_with_the_reason():
    now = [2.0]  # the fake's counters are rate x time: 2,000 KiB per link now
    device = FakeDevice(0, nvlink_links=2, nvlink_kib_per_s=1000)
    fake = make_fake_pynvml([device], clock=lambda: now[0])
    src = NvmlSource(nvml=fake, slow_interval_s=0.0, clock=lambda: now[0])
    src.read()
    now[0] += 2.0
    device.nvlink_kib_per_s = 10  # 40 KiB per link: lower than before, a reset, not negative traffic
    back = src.read().samples[0]
    assert back.values[m.NVLINK_TX] is None and "went backwards" in back.reasons[m.NVLINK_TX]
    real = fake.nvmlDeviceGetFieldValues

    def one_link_not_available(h, fields):
        out = real(h, fields)
        if len(out) > 1:
            out[1].value.ullVal = 2**64 - 1  # NVML_VALUE_NOT_AVAILABLE_ulonglong
        return out

    fake.nvmlDeviceGetFieldValues = one_link_not_available
    now[0] += 2.0
    na = src.read().samples[0]
    assert na.values[m.NVLINK_RX] is None and "not available" in na.reasons[m.NVLINK_RX]
    src.close()
