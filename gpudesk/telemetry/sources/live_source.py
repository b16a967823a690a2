"""Choose the live sample source for recording: NVML (NVIDIA) or AMD SMI (``amdsmi``, AMD Instinct / Radeon PRO),
by name or automatically (issue 32).

``auto`` opens NVML first; when NVML cannot start here (no NVIDIA driver, no pynvml, no device) it opens AMD SMI;
when neither starts, the error says why each failed, so the user sees what to install. Used by
``gpudesk monitor record --source``.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.telemetry.sources.amdsmi_source import AmdSmiSource, AmdSmiUnavailableError
from gpudesk.telemetry.core.model import TelemetryError
from gpudesk.telemetry.sources.nvml_source import NvmlSource

#: the names ``--source`` accepts
LIVE_SOURCES = ("auto", "nvml", "amdsmi")


class NoLiveSourceError(TelemetryError):
    """No live source could be opened (the message says why, per library)."""


@dataclass
class LiveSource:
    """An opened live source and what the recording stores about it.

    Attributes:
        source: the sample source (:class:`NvmlSource` or :class:`AmdSmiSource`); close it when done.
        kind: "nvml" or "amdsmi" (stored as the session's source).
        driver_version / library_version: NVML's driver and library versions (None for AMD SMI).
    """

    source: NvmlSource | AmdSmiSource
    kind: str
    driver_version: str | None = None
    library_version: str | None = None

    def close(self) -> None:
        self.source.close()


def _open_nvml(interval_s: float) -> LiveSource:
    from gpudesk.nvml.nvml_session import NvmlUnavailableError

    try:
        source = NvmlSource(interval_s=interval_s)  # opens (and on close, closes) its own NVML session
    except NvmlUnavailableError as exc:
        raise NoLiveSourceError(_("NVML unavailable ({state}): {message}").format(
            state=exc.status.state, message=exc.status.message), field="source") from exc
    st = source.session.status
    return LiveSource(source, "nvml", st.driver_version if st else None, st.nvml_version if st else None)


def open_live_source(kind: str = "auto", *, interval_s: float = 1.0) -> LiveSource:
    """Open the live source ``kind`` ("auto", "nvml" or "amdsmi").

    Raises:
        NoLiveSourceError: the named library (or, for "auto", both) cannot start; the message says why.
    """
    if kind not in LIVE_SOURCES:
        raise NoLiveSourceError(_("Unknown live source {kind!r}; use one of: {choices}.").format(
            kind=kind, choices=", ".join(LIVE_SOURCES)), field="source")
    if kind == "nvml":
        return _open_nvml(interval_s)
    if kind == "amdsmi":
        try:
            return LiveSource(AmdSmiSource(interval_s=interval_s), "amdsmi")
        except AmdSmiUnavailableError as exc:
            raise NoLiveSourceError(exc.user_text(), field="source") from exc
    try:
        return _open_nvml(interval_s)
    except NoLiveSourceError as nvml_exc:
        try:
            return LiveSource(AmdSmiSource(interval_s=interval_s), "amdsmi")
        except AmdSmiUnavailableError as amd_exc:
            raise NoLiveSourceError(_("No live GPU source could start. {nvml} AMD SMI: {amd}").format(
                nvml=nvml_exc.user_text(), amd=amd_exc.user_text()), field="source") from amd_exc
