"""The Monitor tab's fleet source: the Prometheus connection settings (kept in the app's settings file, the
secret in the system keyring), the background refresh of the fleet window, and one GPU's history for the plots.

A QObject without widgets, owned by the :class:`~gpudesk.ui.monitor.controller.MonitorController`; the tab's
:class:`~gpudesk.ui.monitor.fleet_view.FleetView` subscribes to :attr:`FleetControl.updated`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QCoreApplication, QObject, QSettings, Signal

from gpudesk.errors import GpudeskError
from gpudesk.telemetry.fleet.fleet import FleetFinding, FleetHistory
from gpudesk.telemetry.fleet.fleet_secrets import ConnectionSettings, auth_for
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.telemetry.core.model import DeviceInfo
from gpudesk.telemetry.fleet.prometheus_source import PrometheusSource
from gpudesk.ui.monitor.fleet_refresh import FleetRefresher
from gpudesk.ui.monitor.sources import Loaded, frame_history_metrics
from gpudesk.ui.settings_file import open_settings
from gpudesk.telemetry.core.source import SourceKind

SETTINGS_KEY = "monitor/fleet_connection"
FLEET_WINDOW_S = 3600.0  # the grid shows the last hour, refreshed every REFRESH_S
REFRESH_S = 15.0


class FleetSource(Protocol):
    """What the refresh needs from a fleet source (``PrometheusSource``)."""

    def history(self, window_s: float) -> FleetHistory: ...

    def window_means(self, window_s: float) -> FleetHistory: ...


def prometheus_source(settings: ConnectionSettings) -> FleetSource:
    """A Prometheus source for ``settings`` (the secret is read from the keyring here, on the GUI thread)."""
    return PrometheusSource(settings.url, auth=auth_for(settings), timeout_s=settings.timeout_s,
                            ca_file=settings.ca_file or None)


def app_settings() -> QSettings:
    """The app's settings file (the main window keeps geometry and the last tab in the same file)."""
    return open_settings()[0]  # an unusable data folder was reported at start-up; nothing is saved then


class FleetControl(QObject):
    """Connects, refreshes and answers. ``source_factory`` builds the source from the settings (tests inject).

    Signals: started(str): the fleet's title; updated(FleetHistory, list): a refresh arrived (findings may be
    empty for the quick first picture); failed(str): a refresh failed (plain text; the refresh goes on).
    """

    started = Signal(str)
    """A fleet connection started: the fleet's title."""
    updated = Signal(object, object)
    """A refresh finished: the FleetHistory of the window and its list of Finding."""
    failed = Signal(str)
    """A refresh failed: the message (also emitted for each repeat of the same failure)."""

    def __init__(self, notify: Callable[[str, str], None],
                 source_factory: Callable[[ConnectionSettings], FleetSource] = prometheus_source,
                 settings: Callable[[], QSettings] = app_settings) -> None:
        super().__init__()
        self._notify = notify
        self.source_factory = source_factory
        self._settings = settings
        self.refresher: FleetRefresher | None = None
        self.history: FleetHistory | None = None
        self.findings: list[FleetFinding] = []
        self.title = ""
        self._failure: str | None = None  # the failure already told the user, until a refresh succeeds

    def saved_settings(self) -> ConnectionSettings | None:
        """The connection last used (no secret), or None."""
        raw = self._settings().value(SETTINGS_KEY, "")
        try:
            data = json.loads(str(raw)) if raw else None
        except ValueError:
            return None
        return ConnectionSettings.from_dict(data) if isinstance(data, dict) else None

    def save_settings(self, settings: ConnectionSettings) -> None:
        store = self._settings()
        store.setValue(SETTINGS_KEY, json.dumps(settings.to_dict()))
        store.sync()

    def start(self, settings: ConnectionSettings) -> bool:
        """Keep ``settings`` and refresh the fleet's last hour in the background; False when it cannot start."""
        self.stop()
        self.save_settings(settings)
        try:
            source = self.source_factory(settings)
        except GpudeskError as exc:
            self._notify(exc.user_text(), "error")
            return False
        self.history, self.findings, self._failure = None, [], None
        self.title = QCoreApplication.translate("Monitor", "Fleet (Prometheus) {url}, last {h:g} h").format(
            url=settings.url, h=FLEET_WINDOW_S / 3600)
        self.refresher = FleetRefresher(lambda: source.history(FLEET_WINDOW_S), interval_s=REFRESH_S,
                                        first=lambda: source.window_means(FLEET_WINDOW_S), parent=self)
        self.refresher.updated.connect(self._updated)
        self.refresher.failed.connect(self._failed)
        self.started.emit(self.title)
        self.refresher.start()
        return True

    def stop(self) -> None:
        if self.refresher is not None:
            self.refresher.stop()
            self.refresher.deleteLater()
            self.refresher = None

    @property
    def running(self) -> bool:
        return self.refresher is not None

    def _updated(self, history: Any, findings: Any) -> None:
        if self.sender() is not self.refresher:
            return  # a refresh of a fleet since replaced
        self.history, self.findings, self._failure = history, list(findings), None
        self.updated.emit(history, self.findings)

    def _failed(self, message: str) -> None:
        if self.sender() is not self.refresher:
            return
        if message != self._failure:  # one notice per failure streak: a refresh every 15 s repeats nothing
            self._failure = message
            self._notify(QCoreApplication.translate("Monitor", "Fleet refresh failed: {m}").format(m=message),
                         "error")
        self.failed.emit(message)

    def gpu_history(self, position: int) -> Loaded | None:
        """The window of the GPU at ``position`` in the last refresh, ready for the plots; None when unknown."""
        history = self.history
        if history is None or not 0 <= position < len(history.keys):
            return None
        key = history.keys[position]
        frame = history.sub([position])
        device = DeviceInfo(index=0, uuid=key.uuid, name=key.model_name)
        buffer = HistoryBuffer.of(frame, frame_history_metrics(frame), gpus=[0])
        title = QCoreApplication.translate("Monitor", "{gpu} from {fleet}").format(gpu=key.label, fleet=self.title)
        return Loaded(buffer, [device], title, kind=SourceKind.FLEET_GPU)
