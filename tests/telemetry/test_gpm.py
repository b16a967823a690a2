"""GPM metrics (SM activity, occupancy, pipes, DRAM) through nvidia-ml-py's GPM API, faked at the pynvml boundary
with the bindings' real structures (c_nvmlGpmSupport_t, c_nvmlGpmSample_t, c_nvmlGpmMetricsGet_t) and error
classes; recorded beside the NVML fields and used by the rules as the busy signal."""

from __future__ import annotations

import itertools

import pytest

from gpudesk.nvml import gpm
from gpudesk.nvml.nvml_session import NvmlSession
from gpudesk.telemetry.core.dcgm_fields import FP64_ACTIVE, GR_ENGINE_ACTIVE, SM_ACTIVE, SM_OCCUPANCY, TENSOR_ACTIVE
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from gpudesk.telemetry.rules import run_rules
from tests.helpers.fake_pynvml import FakeDevice, make_fake_pynvml

H100_GPM = {gpm.GRAPHICS_UTIL: 99.0, gpm.SM_UTIL: 12.5, gpm.SM_OCCUPANCY: 4.0, gpm.ANY_TENSOR_UTIL: 0.5,
            gpm.DRAM_BW_UTIL: 3.0, gpm.FP64_UTIL: 0.0, gpm.FP32_UTIL: 6.0, gpm.FP16_UTIL: 1.0}


def _source(devices, **kw):
    t = itertools.count(1_700_000_000)
    return NvmlSource(nvml=make_fake_pynvml(devices, **kw), clock=lambda: float(next(t)))


def test_hopper_gpm_metrics_recorded_beside_nvml_fields():
    src = _source([FakeDevice(0, name="NVIDIA H100 80GB HBM3", util_gpu=100, gpm=dict(H100_GPM))])
    first = src.read().samples[0]
    assert first.values[SM_ACTIVE] is None and "first GPM sample" in first.reasons[SM_ACTIVE]
    second = src.read().samples[0]
    assert second.values[SM_ACTIVE] == 12.5
    assert second.values[GR_ENGINE_ACTIVE] == 99.0
    assert second.values[SM_OCCUPANCY] == 4.0 and second.values[TENSOR_ACTIVE] == 0.5
    assert second.values["gpu_util_pct"] == 100  # NVML's own utilization stays beside it
    src.close()


def test_not_supported_on_this_gpu_is_said_not_zero():
    src = _source([FakeDevice(0, name="NVIDIA A100-SXM4-80GB", gpm=None)])
    for _ in range(2):
        s = src.read().samples[0]
        assert s.get(SM_ACTIVE) is None
        assert "not supported on this GPU" in s.reasons[SM_ACTIVE]
    src.close()


def test_driver_without_gpm_calls_reads_as_not_supported():
    src = _source([FakeDevice(0, gpm=dict(H100_GPM))], missing_functions=("nvmlGpmQueryDeviceSupport",))
    src.read()
    s = src.read().samples[0]
    assert s.get(SM_ACTIVE) is None and "not supported on this GPU" in s.reasons[SM_ACTIVE]
    src.close()


def test_one_metric_not_supported_keeps_the_others():
    src = _source([FakeDevice(0, gpm=dict(H100_GPM), gpm_metric_errors={gpm.FP64_UTIL: "NotSupported"})])
    src.read()
    s = src.read().samples[0]
    assert s.values[FP64_ACTIVE] is None and s.reasons[FP64_ACTIVE].startswith("NotSupported")
    assert s.values[SM_ACTIVE] == 12.5
    src.close()


def test_mig_gpu_instance_sampled_on_its_own():
    fake = make_fake_pynvml([FakeDevice(0, gpm=dict(H100_GPM), mig_mode=1,
                                        gpm_mig={1: {gpm.SM_UTIL: 87.0}, 2: {gpm.SM_UTIL: 0.0}})])
    with NvmlSession(fake) as session:
        reader = gpm.GpmReader(session, (gpm.SM_UTIL,))
        assert "first GPM sample" in (reader.read(0, gpu_instance_id=1).reason or "")
        assert reader.read(0, gpu_instance_id=1).values == {gpm.SM_UTIL: 87.0}
        reader.read(0, gpu_instance_id=2)
        assert reader.read(0, gpu_instance_id=2).values == {gpm.SM_UTIL: 0.0}
        missing = reader.read(0, gpu_instance_id=7)
        assert missing.reason is not None and "NotFound" in missing.reason
        reader.close()


def test_live_source_reads_gpm_per_mig_gpu_instance():
    # two GPU instances (one with two compute instances) on a MIG-enabled H100: each instance's SM activity is its
    # own; the GPU's own GPM is N/A with the reason (the driver refuses a whole-GPU sample while MIG is on)
    migs = [{"uuid": "MIG-aaaa", "gi": 1, "ci": 0, "memory_total": 40 * 2**30},
            {"uuid": "MIG-aaab", "gi": 1, "ci": 1, "memory_total": 40 * 2**30},
            {"uuid": "MIG-bbbb", "gi": 2, "ci": 0, "memory_total": 20 * 2**30}]
    src = _source([FakeDevice(0, name="NVIDIA H100 80GB HBM3", gpm=dict(H100_GPM), mig_mode=1, mig_devices=migs,
                              gpm_mig={1: {**H100_GPM, gpm.SM_UTIL: 87.0, gpm.ANY_TENSOR_UTIL: 61.0},
                                       2: {**H100_GPM, gpm.SM_UTIL: 0.0, gpm.ANY_TENSOR_UTIL: 0.0}})])
    first = src.read().samples[0]
    assert [i.gpu_instance_id for i in first.instances] == [1, 2]
    assert all("first GPM sample" in i.reasons[SM_ACTIVE] for i in first.instances)
    s = src.read().samples[0]
    src.close()
    by_gi = {i.gpu_instance_id: i for i in s.instances}
    assert by_gi[1].uuid == "MIG-aaaa" and by_gi[1].values[SM_ACTIVE] == 87.0
    assert by_gi[1].values[TENSOR_ACTIVE] == 61.0
    assert by_gi[2].values[SM_ACTIVE] == 0.0  # an idle instance reads 0, not N/A
    assert s.values[SM_ACTIVE] is None and "per GPU instance" in s.reasons[SM_ACTIVE]


def test_a_gpu_without_mig_has_no_instances():
    src = _source([FakeDevice(0, gpm=dict(H100_GPM), mig_mode=0)])
    src.read()
    s = src.read().samples[0]
    src.close()
    assert s.instances == [] and s.values[SM_ACTIVE] == 12.5


def test_rules_judge_a_gpm_recording_on_sm_activity():
    # NVML says 100 % busy for two minutes, SM activity 12.5 %: the low-utilization rule sees the waste
    src = _source([FakeDevice(0, util_gpu=100, gpm=dict(H100_GPM))])
    frame = History.from_batches([src.read() for _ in range(121)])
    src.close()
    low = [f for f in run_rules(frame) if f.rule == "low-utilization"]
    assert any(f.evidence.get("busy_share_pct") == 0.0 for f in low)
    assert all(SM_ACTIVE in str(f.evidence.get("busy_signal_by_gpu", f.evidence.get("busy_signal"))) for f in low)


@pytest.mark.gpu
def test_real_gpm_reads_percentages_or_says_not_supported():
    from gpudesk.nvml.nvml_session import probe_nvml

    if not probe_nvml().available:
        pytest.skip("no NVIDIA GPU / NVML here")
    import time

    with NvmlSession() as session:
        reader = gpm.GpmReader(session)
        for index in range(session.device_count):
            reader.read(index)
            time.sleep(0.2)
            reading = reader.read(index)
            if reader.support(index) is not None:
                assert "not supported" in (reading.reason or "")
                continue
            assert reading.reason is None, reading.reason
            for metric_id, value in reading.values.items():
                assert value is None or 0.0 <= value <= 100.0, (metric_id, value)
        reader.close()


def test_a_sample_the_driver_refuses_is_not_retried_every_tick():
    src = _source([FakeDevice(0, gpm=dict(H100_GPM), faults={"nvmlGpmSampleGet": "NotSupported"})])
    fake = src.nv
    for _ in range(3):
        s = src.read().samples[0]
        assert s.get(SM_ACTIVE) is None and "GPM sample failed: NotSupported" in s.reasons[SM_ACTIVE]
    assert fake.call_log.count("nvmlGpmSampleGet") == 1
    src.close()
