"""Xid and ECC errors as they happen, from NVML's event API.

``nvmlEventSetCreate`` makes an event set; ``nvmlDeviceRegisterEvents(handle, types, set)`` adds each GPU for the
event types it supports (``nvmlDeviceGetSupportedEventTypes``); ``nvmlEventSetWait(set, timeout_ms)`` returns one
``nvmlEventData_t`` (device, eventType, eventData = the Xid code for Xid events, GPU/compute instance ids) or raises
NVML_ERROR_TIMEOUT when nothing happened within the timeout; ``nvmlEventSetFree`` releases the set. Event type bits
(``nvml.h``): single-bit ECC 0x1, double-bit ECC 0x2, Xid critical error 0x8. Registering needs no root for Xid on
most drivers; where it is refused (NoPermission, NotSupported: GeForce on Windows, vGPU guests) the GPU is listed in
``reasons`` and never watched. Source: https://docs.nvidia.com/deploy/nvml-api/group__nvmlEvents.html.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

from gpudesk.i18n import _
from gpudesk.nvml.nvml_session import NvmlSession, error_name

EVENT_SINGLE_BIT_ECC = 0x1
EVENT_DOUBLE_BIT_ECC = 0x2
EVENT_XID = 0x8
WATCHED = EVENT_SINGLE_BIT_ECC | EVENT_DOUBLE_BIT_ECC | EVENT_XID
_NOT_MIG = 0xFFFFFFFF
MAX_DRAIN = 256  # events taken per wait before returning (an Xid storm cannot hold the caller)

KIND_XID = "xid"
KIND_ECC_SBE = "ecc-sbe"
KIND_ECC_DBE = "ecc-dbe"


@dataclass(frozen=True)
class NvmlEvent:
    """One event: the GPU (index in the session, None when it could not be matched), kind, Xid code (0 for ECC),
    and the MIG GPU/compute instance (None when not on MIG)."""

    gpu_index: int | None
    kind: str
    code: int
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None


def _address(handle: Any) -> int | None:
    try:
        return ctypes.cast(handle, ctypes.c_void_p).value
    except (TypeError, ctypes.ArgumentError):
        return None


@dataclass
class EventWatcher:
    """Watches the session's GPUs for Xid and ECC events; ``wait(timeout_ms)`` returns what arrived."""

    session: NvmlSession
    event_types: int = WATCHED
    reasons: dict[int, str] = field(default_factory=dict)
    _set: Any = None

    def open(self) -> EventWatcher:
        nv = self.session.nvml
        assert nv is not None, "open the session first"
        event_set, why = self.session.call(nv.nvmlEventSetCreate)
        if event_set is None:
            for i in range(self.session.device_count):
                self.reasons[i] = _("NVML events are not available: {reason}").format(reason=why)
            return self
        self._set = event_set
        for i in range(self.session.device_count):
            handle = self.session.handle(i)
            if handle is None:
                self.reasons[i] = _("GPU handle unavailable")
                continue
            supported, _why = self.session.call(getattr(nv, "nvmlDeviceGetSupportedEventTypes", lambda h: None), handle)
            types = self.event_types if supported is None else self.event_types & int(supported)
            if not types:
                self.reasons[i] = _("this GPU reports none of the Xid and ECC events")
                continue
            _ok, why = self.session.call(nv.nvmlDeviceRegisterEvents, handle, types, event_set)
            if why is not None:
                self.reasons[i] = _("events could not be registered: {reason}").format(reason=why)
        return self

    @property
    def watching(self) -> list[int]:
        return [i for i in range(self.session.device_count) if i not in self.reasons]

    def _index_of(self, device: Any) -> int | None:
        target = _address(device)
        for i in range(self.session.device_count):
            handle = self.session.handle(i)
            if handle is device or (target is not None and _address(handle) == target):
                return i
        return None

    def wait(self, timeout_ms: int) -> list[NvmlEvent]:
        """Events that arrive within ``timeout_ms`` (the first wait blocks up to it; later ones only drain)."""
        nv = self.session.nvml
        if self._set is None or nv is None or not self.watching:
            return []
        out: list[NvmlEvent] = []
        timeout = int(timeout_ms)
        while len(out) < MAX_DRAIN:
            try:
                data = nv.nvmlEventSetWait(self._set, timeout)
            except nv.NVMLError as exc:
                if error_name(exc) != "Timeout":
                    raise  # a lost GPU or a broken set: the caller reports it, with the NVML error
                break
            timeout = 0
            etype = int(data.eventType)
            kind = KIND_XID if etype & EVENT_XID else KIND_ECC_DBE if etype & EVENT_DOUBLE_BIT_ECC else KIND_ECC_SBE
            gi, ci = int(data.gpuInstanceId), int(data.computeInstanceId)
            out.append(NvmlEvent(self._index_of(data.device), kind, int(data.eventData) if kind == KIND_XID else 0,
                                 None if gi == _NOT_MIG else gi, None if ci == _NOT_MIG else ci))
        return out

    def close(self) -> None:
        nv = self.session.nvml
        if self._set is not None and nv is not None and self.session.is_open:
            self.session.call(nv.nvmlEventSetFree, self._set)
        self._set = None
