"""Live samples from NVML: one tick reads every GPU; slow fields are polled less often.

Tiers (after nvitop's TTL caches, monitor.md section 5): every tick - utilization, memory (v2 with v1
fallback), PCIe TX/RX, power, GPU temperature, SM and memory clocks, clock-event reasons, encoder/decoder;
every ``slow_interval_s`` - current PCIe generation and width, power limit, ECC counters, retired pages, PCIe
replay counter, memory temperature (field NVML_FI_DEV_MEMORY_TEMP), NVLink throughput (counter deltas). A call that fails with NotSupported or FunctionNotFound is
not repeated for that GPU (its reason is reused); NoPermission, NotFound, Unknown are retried next time.
A GPU that raises GpuIsLost is marked lost and not called again; the others go on.

PCIe throughput: the 20 ms sample of nvmlDeviceGetPcieThroughput; with ``pcie_counters=True`` and where the driver
supports the cumulative byte counters (NVML_FI_DEV_PCIE_COUNT_TX/RX_BYTES), the counters' delta over the poll
interval instead (an average over the whole second). ``NvmlSource.pcie_methods`` says which, per GPU.

Units: NVML PCIe throughput is documented as "KB/s" (nvml.h, nvmlDeviceGetPcieThroughput; NVIDIA's cuda-python
NVML docs) with no statement that a KB is 1024 bytes; nvitop and jupyterlab-nvdashboard assume KiB, but nothing
from NVIDIA says so. gpudesk takes the documented unit at face value in SI (x 1000), as it takes dmon's rxpci/txpci
"MB/s" (x 10^6), so the digits shown are the digits the driver reported. Power mW -> W; clocks MHz -> Hz; NVLink
counters KiB with microsecond timestamps -> bytes/s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from gpudesk.i18n import _
from gpudesk.nvml.gpm import GpmReader
from gpudesk.nvml.nvml_session import NvmlSession
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.gpm_metrics import put_gpm, put_mig_gpm
from gpudesk.telemetry.core.model import DeviceInfo, Sample, SampleBatch
from gpudesk.telemetry.core.plausibility import check_values, sentinel_reason
from gpudesk.telemetry.core.source import SourceKind

_PERMANENT = ("NotSupported", "FunctionNotFound")
KB = 1000.0  # nvmlDeviceGetPcieThroughput's documented "KB/s", taken in SI (see the module docstring)
# A throughput of 0 is doubted when the cumulative byte counters moved faster than this on average (1 MB/s:
# well above the driver's own register traffic, far below any real transfer).
PCIE_ZERO_DOUBT_BYTES_PER_S = 1e6


class _GpuState:
    __slots__ = (
        "mem_v1",
        "nvlink_links",
        "nvlink_prev",
        "pcie_counters",
        "pcie_prev",
        "skip",
        "slow_reasons",
        "slow_values",
        "zero_check",
        "zero_prev",
    )

    def __init__(self) -> None:
        self.skip: dict[str, str] = {}  # call key -> permanent reason
        self.slow_values: dict[str, float | None] = {}
        self.slow_reasons: dict[str, str] = {}
        self.mem_v1 = False
        self.nvlink_links: int | None = None
        self.nvlink_prev: tuple[float, float, float] | None = None  # (timestamp us, tx KiB, rx KiB)
        self.pcie_counters: bool | None = None  # byte-counter fields usable? None = not tried yet
        self.pcie_prev: tuple[float, float, float] | None = None  # (timestamp us, tx bytes, rx bytes)
        self.zero_check = True  # cross-check a throughput of 0 against the byte counters (until unsupported)
        self.zero_prev: tuple[float, float, float] | None = None  # counters at the previous zero reading


class NvmlSource:
    """A :class:`~gpudesk.telemetry.core.source.SampleSource` over an :class:`NvmlSession`.

    Args:
        session: an open session, or None to open one here (closed by :meth:`close`).
        nvml: module to use when opening the session here (tests inject the fake).
        interval_s: suggested poll interval in seconds (1 s, like dmon).
        slow_interval_s: period of the slow tier in seconds.
        clock: time source returning seconds since the epoch.
        pcie_counters: measure PCIe throughput from the cumulative byte counters where the driver supports them
            (an average over the interval). Off by default until verified on real hardware: a driver that
            returns success with a frozen counter would read as 0 traffic.

    Raises:
        NvmlUnavailableError: when opening the session fails.
    """

    kind = SourceKind.NVML

    def __init__(
        self,
        session: NvmlSession | None = None,
        *,
        nvml: ModuleType | None = None,
        interval_s: float = 1.0,
        slow_interval_s: float = 5.0,
        clock: Callable[[], float] = time.time,
        pcie_counters: bool = False,
    ):
        self._own = session is None
        self.session = session if session is not None else NvmlSession(nvml).open()
        self.nv = self.session.nvml
        self.interval_s = float(interval_s)
        self.slow_interval_s = float(slow_interval_s)
        self._clock = clock
        self._state = [_GpuState() for _ in range(self.session.device_count)]
        if not pcie_counters:
            for st in self._state:
                st.pcie_counters = False
        self._last_slow = -1e300
        self._closed = False
        self._gpm = GpmReader(self.session)  # SM activity, occupancy, pipes (Hopper+; N/A with the reason otherwise)
        # GPUs whose GPM metrics can be read (asked once here, in the thread that opened NVML)
        self.gpm_gpus = [i for i in range(self.session.device_count) if self._gpm.support(i) is None]

    # --- SampleSource -----------------------------------------------------------------------------------------
    def devices(self) -> list[DeviceInfo]:
        return self.session.devices()

    @property
    def finished(self) -> bool:
        return self._closed

    def describe(self) -> str:
        st = self.session.status
        return f"NVML live ({st.message if st else 'not open'})"

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._gpm.close()
            if self._own:
                self.session.close()

    def poll(self) -> list[SampleBatch]:
        return [self.read()]

    # --- one tick ---------------------------------------------------------------------------------------------
    def read(self) -> SampleBatch:
        """Read every GPU once; returns one batch with one :class:`Sample` per GPU."""
        now = self._clock()
        slow = now - self._last_slow >= self.slow_interval_s
        if slow:
            self._last_slow = now
        samples = [self._read_gpu(i, now, slow) for i in range(self.session.device_count)]
        return SampleBatch(now, samples, self.kind)

    def _read_gpu(self, index: int, now: float, slow: bool) -> Sample:
        info = self.session.device_info(index)
        handle = self.session.handle(index)
        values: dict[str, float | None] = {}
        reasons: dict[str, str] = {}
        if handle is None:
            why = info.lost_reason or "GPU handle unavailable"
            for name in _ALL_LIVE_METRICS:
                values[name] = None
                reasons[name] = why
            return Sample(now, index, info.uuid, values, reasons)
        st = self._state[index]
        nv = self.nv
        assert nv is not None, "a GPU handle exists only while the session is open"
        try:
            self._fast(nv, handle, st, values, reasons)
            if slow:
                self._slow(nv, handle, st, now)
        except _Lost as lost:
            self.session.mark_lost(index, lost.reason)
            for name in _ALL_LIVE_METRICS:
                values[name] = None
                reasons[name] = lost.reason
            return Sample(now, index, info.uuid, values, reasons)
        values.update(st.slow_values)
        reasons.update(st.slow_reasons)
        if info.mig_mode == "enabled" and info.mig_devices:
            instances = put_mig_gpm(self._gpm, index, info.mig_devices, values, reasons)
        else:
            instances = []
            put_gpm(self._gpm, index, values, reasons)
        check_values(values, reasons)
        values[m.PCIE_GEN_MAX] = float(info.pcie_gen_max) if info.pcie_gen_max is not None else None
        values[m.PCIE_WIDTH_MAX] = float(info.pcie_width_max_lanes) if info.pcie_width_max_lanes is not None else None
        if info.pcie_gen_max is None:
            reasons[m.PCIE_GEN_MAX] = info.reasons.get("pcie_gen_max", "unknown PCIe generation")
        if info.pcie_width_max_lanes is None:
            reasons[m.PCIE_WIDTH_MAX] = info.reasons.get("pcie_width_max_lanes", "unknown PCIe width")
        return Sample(now, index, info.uuid, values, reasons, instances)

    def _get(self, st: _GpuState, key: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> tuple[Any, str | None]:
        skip = st.skip.get(key)
        if skip is not None:
            return None, skip
        value, why = self.session.call(fn, *args, **kw)
        sentinel = sentinel_reason(value)
        if sentinel is not None:
            return None, sentinel
        if why is not None:
            if why.startswith("GpuIsLost"):
                raise _Lost(why)
            if why.startswith(_PERMANENT):
                st.skip[key] = why
        return value, why

    def _fast(self, nv: ModuleType, h: Any, st: _GpuState, values: dict[str, float | None], reasons: dict[str, str]) -> None:
        def put(name: str, value: float | None, why: str | None) -> None:
            values[name] = value
            if value is None:
                reasons[name] = why or "not read"

        util, why = self._get(st, "util", nv.nvmlDeviceGetUtilizationRates, h)
        put(m.GPU_UTIL, *_field(util, "gpu", why))
        put(m.MEM_UTIL, *_field(util, "memory", why))
        self._memory(nv, h, st, put)
        rates = self._pcie_counter_rates(nv, h, st)
        if rates is not None:
            put(m.PCIE_TX, rates[0], None)
            put(m.PCIE_RX, rates[1], None)
        else:
            tx, why = self._get(st, "pcie_tx", nv.nvmlDeviceGetPcieThroughput, h, nv.NVML_PCIE_UTIL_TX_BYTES)
            put(m.PCIE_TX, float(tx) * KB if tx is not None else None, why)
            rx, why = self._get(st, "pcie_rx", nv.nvmlDeviceGetPcieThroughput, h, nv.NVML_PCIE_UTIL_RX_BYTES)
            put(m.PCIE_RX, float(rx) * KB if rx is not None else None, why)
            self._doubt_zero_throughput(nv, h, st, values, reasons)
        pw, why = self._get(st, "power", nv.nvmlDeviceGetPowerUsage, h)
        put(m.POWER, pw / 1000.0 if pw is not None else None, why)
        temp, why = self._get(st, "temp", nv.nvmlDeviceGetTemperature, h, nv.NVML_TEMPERATURE_GPU)
        put(m.GPU_TEMP, float(temp) if temp is not None else None, why)
        sm, why = self._get(st, "sm_clock", nv.nvmlDeviceGetClockInfo, h, nv.NVML_CLOCK_SM)
        put(m.SM_CLOCK, sm * 1e6 if sm is not None else None, why)
        mc, why = self._get(st, "mem_clock", nv.nvmlDeviceGetClockInfo, h, nv.NVML_CLOCK_MEM)
        put(m.MEM_CLOCK, mc * 1e6 if mc is not None else None, why)
        ev, why = self._get(st, "clock_events", nv.nvmlDeviceGetCurrentClocksEventReasons, h)
        if ev is None and why and why.startswith("FunctionNotFound"):
            ev, why = self._get(st, "clock_throttle", nv.nvmlDeviceGetCurrentClocksThrottleReasons, h)
        put(m.CLOCK_EVENTS, float(ev) if ev is not None else None, why)
        enc, why = self._get(st, "enc", nv.nvmlDeviceGetEncoderUtilization, h)
        put(m.ENC_UTIL, float(enc[0]) if enc is not None else None, why)
        dec, why = self._get(st, "dec", nv.nvmlDeviceGetDecoderUtilization, h)
        put(m.DEC_UTIL, float(dec[0]) if dec is not None else None, why)

    def _pcie_counter_rates(self, nv: ModuleType, h: Any, st: _GpuState) -> tuple[float, float] | None:
        """PCIe TX/RX bytes/s averaged over the whole poll interval from the cumulative byte counters
        (NVML_FI_DEV_PCIE_COUNT_TX/RX_BYTES), instead of nvmlDeviceGetPcieThroughput's 20 ms window, which
        aliases badly for bursty loaders (monitor.md 2.4). Support is detected at run time; None = use the
        20 ms sample (first tick, or counters unsupported)."""
        if st.pcie_counters is False:
            return None
        fields = (getattr(nv, "NVML_FI_DEV_PCIE_COUNT_TX_BYTES", None), getattr(nv, "NVML_FI_DEV_PCIE_COUNT_RX_BYTES", None))
        if None in fields:
            st.pcie_counters = False
            return None
        vals, _why = self._get(st, "pcie_counters", nv.nvmlDeviceGetFieldValues, h, list(fields))
        if vals is None or any(int(v.nvmlReturn) != 0 for v in vals):
            st.pcie_counters = False
            return None
        st.pcie_counters = True
        ts = float(max(int(v.timestamp) for v in vals))
        tx, rx = float(int(vals[0].value.ullVal)), float(int(vals[1].value.ullVal))
        prev, st.pcie_prev = st.pcie_prev, (ts, tx, rx)
        if prev is None or ts <= prev[0] or tx < prev[1] or rx < prev[2]:
            return None
        dt = (ts - prev[0]) / 1e6
        return (tx - prev[1]) / dt, (rx - prev[2]) / dt

    def _doubt_zero_throughput(self, nv: ModuleType, h: Any, st: _GpuState, values: dict[str, float | None],
                               reasons: dict[str, str]) -> None:
        """A 20 ms throughput sample of 0 while the cumulative PCIe byte counters moved (more than 1 MB/s on
        average since the last zero reading) is not a fact: that direction becomes None with the reason. Costs
        one nvmlDeviceGetFieldValues call per tick, only while a throughput reads 0 and the driver has the
        counters."""
        zero = [k for k in (m.PCIE_TX, m.PCIE_RX) if values.get(k) == 0.0]
        fields = (getattr(nv, "NVML_FI_DEV_PCIE_COUNT_TX_BYTES", None), getattr(nv, "NVML_FI_DEV_PCIE_COUNT_RX_BYTES", None))
        if not zero or not st.zero_check or None in fields:
            st.zero_prev = None
            return
        vals, _why = self._get(st, "pcie_counters", nv.nvmlDeviceGetFieldValues, h, list(fields))
        if vals is None or any(int(v.nvmlReturn) != 0 for v in vals):
            st.zero_check = False
            st.zero_prev = None
            return
        ts = float(max(int(v.timestamp) for v in vals))
        now = (ts, float(int(vals[0].value.ullVal)), float(int(vals[1].value.ullVal)))
        prev, st.zero_prev = st.zero_prev, now
        if prev is None or ts <= prev[0]:
            return
        dt = (ts - prev[0]) / 1e6
        for metric, i in ((m.PCIE_TX, 1), (m.PCIE_RX, 2)):
            moved = now[i] - prev[i]
            if metric in zero and moved / dt > PCIE_ZERO_DOUBT_BYTES_PER_S:
                values[metric] = None
                reasons[metric] = _(
                    "nvmlDeviceGetPcieThroughput reads 0 while the PCIe byte counters moved {moved_bytes:.0f} bytes "
                    "in {seconds:.1f} s: the 0 is not trustworthy on this driver (measure with the byte counters)"
                ).format(moved_bytes=moved, seconds=dt)

    @property
    def pcie_methods(self) -> dict[int, str]:
        """GPU index -> how PCIe throughput is measured ("byte counters, averaged over the interval" or
        "20 ms sample (nvmlDeviceGetPcieThroughput)")."""
        return {i: ("byte counters, averaged over the interval" if st.pcie_counters
                    else "20 ms sample (nvmlDeviceGetPcieThroughput)") for i, st in enumerate(self._state)}

    def _memory(self, nv: ModuleType, h: Any, st: _GpuState, put: Callable[[str, Any, Any], None]) -> None:
        mem, why = None, None
        if not st.mem_v1:
            mem, why = self._get(st, "mem_v2", nv.nvmlDeviceGetMemoryInfo, h, version=nv.nvmlMemory_v2)
            if mem is None and why and why.startswith(("FunctionNotFound", "NotSupported")):
                st.mem_v1 = True  # driver older than 510.39: no _v2 symbol (monitor.md 2.3)
        if st.mem_v1:
            mem, why = self._get(st, "mem_v1", nv.nvmlDeviceGetMemoryInfo, h)
        names = (m.MEM_USED, m.MEM_FREE, m.MEM_TOTAL, m.MEM_RESERVED)
        if mem is not None and int(mem.total) == 0:
            mem, why = None, "total memory reported as 0 (unified-memory device: memory is shared with the host)"
        if mem is None:
            for n in names:
                put(n, None, why)
            return
        put(m.MEM_USED, *_field(mem, "used", None))
        put(m.MEM_FREE, *_field(mem, "free", None))
        put(m.MEM_TOTAL, *_field(mem, "total", None))
        put(m.MEM_RESERVED, *_field(mem, "reserved",
                                    "reserved memory needs nvmlDeviceGetMemoryInfo_v2 (driver older than R510)"))

    def _slow(self, nv: ModuleType, h: Any, st: _GpuState, now: float) -> None:
        vals: dict[str, float | None] = {}
        why_map: dict[str, str] = {}

        def put(name: str, value: Any, why: str | None) -> None:
            vals[name] = None if value is None else float(value)
            if value is None:
                why_map[name] = why or "not read"

        gen, why = self._get(st, "gen_cur", nv.nvmlDeviceGetCurrPcieLinkGeneration, h)
        put(m.PCIE_GEN_CUR, gen if gen else None, why or "current PCIe generation reported as 0")
        width, why = self._get(st, "width_cur", nv.nvmlDeviceGetCurrPcieLinkWidth, h)
        put(m.PCIE_WIDTH_CUR, width if width else None, why or "current PCIe width reported as 0")
        lim, why = self._get(st, "power_limit", nv.nvmlDeviceGetEnforcedPowerLimit, h)
        put(m.POWER_LIMIT, lim / 1000.0 if lim is not None else None, why)
        sbe, why = self._get(st, "ecc_sbe", nv.nvmlDeviceGetTotalEccErrors, h,
                             nv.NVML_MEMORY_ERROR_TYPE_CORRECTED, nv.NVML_VOLATILE_ECC)
        put(m.ECC_SBE, sbe, why)
        dbe, why = self._get(st, "ecc_dbe", nv.nvmlDeviceGetTotalEccErrors, h,
                             nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nv.NVML_VOLATILE_ECC)
        put(m.ECC_DBE, dbe, why)
        pages, why = self._get(st, "retired_sbe", nv.nvmlDeviceGetRetiredPages, h,
                               nv.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS)
        put(m.RETIRED_SBE, len(pages) if pages is not None else None, why)
        pages, why = self._get(st, "retired_dbe", nv.nvmlDeviceGetRetiredPages, h,
                               nv.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)
        put(m.RETIRED_DBE, len(pages) if pages is not None else None, why)
        pend, why = self._get(st, "retired_pending", nv.nvmlDeviceGetRetiredPagesPendingStatus, h)
        put(m.RETIRED_PENDING, pend, why)
        replay, why = self._get(st, "pcie_replay", nv.nvmlDeviceGetPcieReplayCounter, h)
        put(m.PCIE_REPLAY, replay, why)
        self._memory_temperature(nv, h, st, put)
        self._nvlink(nv, h, st, put)
        st.slow_values = vals
        st.slow_reasons = why_map

    def _memory_temperature(self, nv: ModuleType, h: Any, st: _GpuState, put: Callable[[str, Any, Any], None]) -> None:
        skip = st.skip.get("mem_temp")
        if skip is not None:
            put(m.MEM_TEMP, None, skip)
            return
        vals, why = self._get(st, "mem_temp_call", nv.nvmlDeviceGetFieldValues, h, [nv.NVML_FI_DEV_MEMORY_TEMP])
        if vals is None:
            put(m.MEM_TEMP, None, why)
            return
        ret = int(vals[0].nvmlReturn)
        if ret != 0:
            why = _field_error(nv, ret)
            if why.startswith(_PERMANENT):
                st.skip["mem_temp"] = why
            put(m.MEM_TEMP, None, why)
            return
        put(m.MEM_TEMP, int(vals[0].value.uiVal), None)

    def _nvlink(self, nv: ModuleType, h: Any, st: _GpuState, put: Callable[[str, Any, Any], None]) -> None:
        if st.nvlink_links is None:
            vals, why = self._get(st, "nvlink_count", nv.nvmlDeviceGetFieldValues, h, [nv.NVML_FI_DEV_NVLINK_LINK_COUNT])
            count = 0
            if vals is not None and int(vals[0].nvmlReturn) == 0:
                count = int(vals[0].value.uiVal)
            st.nvlink_links = count
            if count == 0:
                st.skip["nvlink"] = why or "no NVLink on this GPU (link count 0 or not reported)"
        if st.nvlink_links == 0:
            put(m.NVLINK_TX, None, st.skip.get("nvlink"))
            put(m.NVLINK_RX, None, st.skip.get("nvlink"))
            return
        fields = [(nv.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, i) for i in range(st.nvlink_links)]
        fields += [(nv.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, i) for i in range(st.nvlink_links)]
        vals, why = self._get(st, "nvlink", nv.nvmlDeviceGetFieldValues, h, fields)
        ok = vals is not None and all(int(v.nvmlReturn) == 0 for v in vals)
        if not ok:
            reason = why or "NVLink throughput fields returned an error"
            put(m.NVLINK_TX, None, reason)
            put(m.NVLINK_RX, None, reason)
            return
        n = st.nvlink_links
        raw = [int(v.value.ullVal) for v in vals]
        sentinel = next((why for why in map(sentinel_reason, raw) if why is not None), None)
        if sentinel is not None:  # one link's counter not available: a sum with it would be a huge false rate
            st.nvlink_prev = None
            put(m.NVLINK_TX, None, sentinel)
            put(m.NVLINK_RX, None, sentinel)
            return
        ts = max(int(v.timestamp) for v in vals)
        tx = float(sum(raw[:n]))
        rx = float(sum(raw[n:]))
        prev = st.nvlink_prev
        st.nvlink_prev = (ts, tx, rx)
        why = None
        if prev is None:
            why = "first NVLink counter reading (a rate needs two)"
        elif ts <= prev[0]:
            why = _("the NVLink counters' time stamp did not advance (no interval to divide by)")
        elif tx < prev[1] or rx < prev[2]:  # a negative difference is a reset or a wrap, never traffic
            why = _("the NVLink counters went backwards (reset or wrapped): no rate for this interval")
        if why is not None or prev is None:
            put(m.NVLINK_TX, None, why)
            put(m.NVLINK_RX, None, why)
            return
        dt = (ts - prev[0]) / 1e6
        put(m.NVLINK_TX, (tx - prev[1]) * 1024.0 / dt, None)
        put(m.NVLINK_RX, (rx - prev[2]) * 1024.0 / dt, None)


def _field(struct: Any, name: str, why: str | None) -> tuple[float | None, str | None]:
    """One member of an NVML struct (nvmlMemory_t, nvmlUtilization_t) as a float, or None with the reason
    (the call failed, the member is absent, or it holds NVML's "not available" sentinel)."""
    if struct is None:
        return None, why
    raw = getattr(struct, name, None)
    if raw is None:
        return None, why
    sentinel = sentinel_reason(int(raw))
    if sentinel is not None:
        return None, sentinel
    return float(raw), None


def _field_error(nv: ModuleType, code: int) -> str:
    """Reason text for a per-field nvmlReturn code of nvmlDeviceGetFieldValues."""
    from gpudesk.nvml.nvml_session import reason_text

    try:
        return reason_text(nv.NVMLError(code))
    except (TypeError, ValueError):
        return f"NVML error code {code}"


class _Lost(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


_ALL_LIVE_METRICS = (
    m.GPU_UTIL, m.MEM_UTIL, m.MEM_USED, m.MEM_FREE, m.MEM_TOTAL, m.MEM_RESERVED, m.PCIE_TX, m.PCIE_RX,
    m.POWER, m.GPU_TEMP, m.SM_CLOCK, m.MEM_CLOCK, m.CLOCK_EVENTS, m.ENC_UTIL, m.DEC_UTIL,
    m.PCIE_GEN_CUR, m.PCIE_WIDTH_CUR, m.PCIE_GEN_MAX, m.PCIE_WIDTH_MAX, m.POWER_LIMIT,
)
