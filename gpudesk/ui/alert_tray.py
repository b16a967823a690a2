"""Alerts on the desktop: the alert loop (:class:`gpudesk.telemetry.sources.alert_monitor.AlertMonitor`) in its own thread,
a tray icon that keeps it running while the window is closed to the tray, and a notification per alert.

The notification is the tray's balloon (``QSystemTrayIcon.showMessage``, a desktop notification on Linux
through the StatusNotifier/freedesktop services) where the desktop has a tray; elsewhere (no tray host, e.g. a
bare X server) a small always-on-top window in the screen's corner says the same and closes itself. Text from the
alerts is plain text, never rich text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication, QLabel, QMenu, QStyle, QSystemTrayIcon, QVBoxLayout, QWidget

from gpudesk.ui.workers import ThreadWorker, start_worker, stop_worker

TOAST_MS = 12_000


class AlertWorker(ThreadWorker):
    """Runs ``make_monitor()`` (an AlertMonitor; NVML opened in this thread) every ``interval_s`` on its own timer.
    ``alert`` carries (kind, severity, message) to the GUI thread."""

    alert = Signal(str, str, str)
    """An alert fired (sent from the worker thread, delivered queued): kind id, severity, message."""

    def __init__(self, make_monitor: Callable[[Callable[..., None]], Any], interval_s: float = 1.0) -> None:
        super().__init__()
        self._make_monitor = make_monitor
        self.interval_s = interval_s
        self.monitor: Any = None
        self._timer: QTimer | None = None

    def setup(self) -> None:
        self.monitor = self._make_monitor(lambda alert, delivered, errors: self.alert.emit(
            alert.kind.value, alert.severity, alert.message))
        self._timer = QTimer()
        self._timer.setInterval(max(1, int(self.interval_s * 1000)))
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def _tick(self) -> None:
        try:
            self.monitor.tick()
        except Exception as exc:  # noqa: BLE001 - reported to the GUI through `failed`; the loop stops
            if self._timer is not None:
                self._timer.stop()
            self.failed.emit(exc)

    def teardown(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        if self.monitor is not None:
            self.monitor.close()
            source = getattr(self.monitor, "source", None)
            if source is not None and hasattr(source, "close"):
                source.close()


class Toast(QWidget):
    """A notification window in the bottom-right corner of the screen (used where there is no tray)."""

    def __init__(self, title: str, message: str) -> None:
        super().__init__(None, Qt.WindowType.ToolTip | Qt.WindowType.FramelessWindowHint
                         | Qt.WindowType.WindowStaysOnTopHint)
        self.setObjectName("gpudeskAlertToast")
        self.setWindowTitle(title)
        layout = QVBoxLayout(self)
        head = QLabel(title, self)
        head.setTextFormat(Qt.TextFormat.PlainText)
        font = head.font()
        font.setBold(True)
        head.setFont(font)
        body = QLabel(message, self)
        body.setTextFormat(Qt.TextFormat.PlainText)
        body.setWordWrap(True)
        body.setMaximumWidth(420)
        layout.addWidget(head)
        layout.addWidget(body)
        self.setStyleSheet("#gpudeskAlertToast { background: #fff8e1; border: 1px solid #b28704; }")
        self.adjustSize()
        screen = QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            self.move(area.right() - self.width() - 16, area.bottom() - self.height() - 16)
        QTimer.singleShot(TOAST_MS, self.close)


class AlertTray(QObject):
    """The tray icon and the alert worker. ``start()`` begins watching; ``stop()`` ends it. ``showWindow`` and
    ``quitRequested`` come from the tray menu."""

    showWindow = Signal()
    """The tray icon was activated or its Show item chosen: bring the main window up. No arguments."""
    quitRequested = Signal()
    """The tray menu's Quit was chosen. No arguments."""
    failed = Signal(str)
    """The alert worker stopped on an error: the translated sentence saying why."""

    def __init__(self, make_monitor: Callable[[Callable[..., None]], Any], interval_s: float = 1.0,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker = AlertWorker(make_monitor, interval_s)
        self.worker.alert.connect(self.notify)
        self.worker.failed.connect(self._failed)
        self.toasts: list[Toast] = []
        self.shown: list[tuple[str, str]] = []
        style = QApplication.style()
        icon = style.standardIcon(QStyle.StandardPixmap.SP_ComputerIcon) if style is not None else QIcon()
        self.icon = QSystemTrayIcon(icon, self)
        self.icon.setToolTip(self.tr("gpudesk: watching the GPUs for alerts"))
        menu = QMenu()
        show = QAction(self.tr("Show gpudesk"), menu)
        show.triggered.connect(self.showWindow)
        quit_action = QAction(self.tr("Quit gpudesk"), menu)
        quit_action.triggered.connect(self.quitRequested)
        menu.addAction(show)
        menu.addAction(quit_action)
        self._menu = menu
        self.icon.setContextMenu(menu)
        self.icon.activated.connect(lambda _reason: self.showWindow.emit())
        self._running = False

    @property
    def has_tray(self) -> bool:
        return QSystemTrayIcon.isSystemTrayAvailable()

    def start(self) -> None:
        if self._running:
            return
        self._running = True
        if self.has_tray:
            self.icon.show()
        start_worker(self.worker, "gpudesk-alerts")

    def stop(self) -> None:
        if self._running:
            self._running = False
            stop_worker(self.worker)
            self.icon.hide()

    def _title(self, severity: str) -> str:
        if severity == "critical":
            return self.tr("gpudesk: GPU alert (critical)")
        if severity == "warning":
            return self.tr("gpudesk: GPU alert")
        return self.tr("gpudesk")

    def notify(self, kind: str, severity: str, message: str) -> None:
        title = self._title(severity)
        self.shown.append((title, message))
        if self.has_tray and self.icon.isVisible() and self.icon.supportsMessages():
            level = (QSystemTrayIcon.MessageIcon.Critical if severity == "critical"
                     else QSystemTrayIcon.MessageIcon.Warning if severity == "warning"
                     else QSystemTrayIcon.MessageIcon.Information)
            self.icon.showMessage(title, message, level, TOAST_MS)
            return
        toast = Toast(title, message)
        self.toasts = [t for t in self.toasts if t.isVisible()] + [toast]
        toast.show()

    def _failed(self, exc: BaseException) -> None:
        from gpudesk.ui.workers import failure_text

        self.failed.emit(self.tr("Alerts stopped: {0}").format(failure_text(exc)))
