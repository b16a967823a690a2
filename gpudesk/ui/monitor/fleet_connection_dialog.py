"""Connect to a fleet's Prometheus: URL, optional basic auth or bearer token, CA file, timeout, and a
"Test connection" that runs in the background (the window never freezes). The secret goes to the system keyring
on OK; :meth:`FleetConnectionDialog.settings` holds no secret."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gpudesk.errors import GpudeskError
from gpudesk.telemetry.fleet.fleet_http import Auth
from gpudesk.telemetry.fleet.fleet_secrets import (
    ConnectionSettings,
    load_secret,
    store_secret,
)
from gpudesk.telemetry.fleet.prometheus_source import PrometheusSource
from gpudesk.ui.workers import run_task
from gpudesk.ui.error_text import error_text


def probe(url: str, auth: Auth, timeout_s: float, ca_file: str) -> str:
    """Connect and list the DCGM metrics found (runs on a worker thread)."""
    src = PrometheusSource(url, auth=auth, timeout_s=timeout_s, ca_file=ca_file or None)
    found = src.discover()
    snap = src.snapshot(found[:3])
    return f"{len(snap.keys)} GPUs, {len(found)} GPU metrics"


class FleetConnectionDialog(QDialog):
    def __init__(self, settings: ConnectionSettings | None = None, parent: QWidget | None = None,
                 probe_fn: Callable[[str, Auth, float, str], str] = probe) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Connect to a GPU fleet (Prometheus)"))
        self._probe = probe_fn
        s = settings or ConnectionSettings("")
        self.url = QLineEdit(s.url)
        self.url.setPlaceholderText(self.tr("http://prometheus.example:9090"))
        self.auth_kind = QComboBox()
        for kind, label in (("none", self.tr("None")), ("basic", self.tr("User and password")),
                            ("bearer", self.tr("Bearer token"))):
            self.auth_kind.addItem(label, kind)
        self.auth_kind.setCurrentIndex(max(0, self.auth_kind.findData(s.auth_kind)))
        self.user = QLineEdit(s.username)
        self.secret = QLineEdit(load_secret(s.url) if s.url and s.auth_kind != "none" else "")
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.ca_file = QLineEdit(s.ca_file)
        self.ca_file.setPlaceholderText(self.tr("system CA store"))
        browse = QPushButton(self.tr("&Browse…"))
        browse.clicked.connect(self._browse)
        ca_row = QHBoxLayout()
        ca_row.addWidget(self.ca_file, 1)
        ca_row.addWidget(browse)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1.0, 300.0)
        self.timeout.setSuffix(" s")
        self.timeout.setValue(s.timeout_s)
        form = QFormLayout()
        form.addRow(self.tr("Server &URL:"), self.url)
        form.addRow(self.tr("&Authentication:"), self.auth_kind)
        form.addRow(self.tr("U&ser:"), self.user)
        form.addRow(self.tr("&Password or token (kept in the system keyring):"), self.secret)
        ca_label = QLabel(self.tr("&CA file:"))
        ca_label.setBuddy(self.ca_file)
        form.addRow(ca_label, ca_row)
        form.addRow(self.tr("&Timeout:"), self.timeout)
        self.test_button = QPushButton(self.tr("&Test connection"))
        self.test_button.clicked.connect(self.test_connection)
        self.status = QLabel(self.tr("Only the address above is contacted."))
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        row = QHBoxLayout()
        row.addWidget(self.test_button)
        row.addWidget(self.status, 1)
        layout.addLayout(row)
        layout.addWidget(buttons)
        self.auth_kind.currentIndexChanged.connect(self._auth_changed)
        self._auth_changed()

    def _auth_changed(self) -> None:
        kind = self.auth_kind.currentData()
        self.user.setEnabled(kind == "basic")
        self.secret.setEnabled(kind != "none")

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("CA certificate"), "", self.tr("PEM files (*.pem *.crt)"))
        if path:
            self.ca_file.setText(path)

    def auth(self) -> Auth:
        return Auth(str(self.auth_kind.currentData()), self.user.text(), self.secret.text())

    def settings(self) -> ConnectionSettings:
        return ConnectionSettings(self.url.text().strip(), str(self.auth_kind.currentData()), self.user.text(),
                                  self.ca_file.text().strip(), self.timeout.value())

    def test_connection(self) -> None:
        self.test_button.setEnabled(False)
        self.status.setText(self.tr("Connecting…"))
        run_task(self._probe, self.url.text().strip(), self.auth(), self.timeout.value(), self.ca_file.text().strip(),
                 on_result=self._tested, on_error=self._failed)

    def _tested(self, text: object) -> None:
        self.test_button.setEnabled(True)
        self.status.setText(self.tr("Connected: {what}.").replace("{what}", str(text)))

    def _failed(self, exc: BaseException) -> None:
        self.test_button.setEnabled(True)
        message = error_text(exc)
        self.status.setText(self.tr("Failed: {why}").replace("{why}", message))

    def accept(self) -> None:
        s = self.settings()
        if s.auth_kind != "none" and s.url:
            try:
                store_secret(s.url, self.secret.text())
            except GpudeskError as exc:
                self.status.setText(exc.user_text())
                return
        super().accept()
