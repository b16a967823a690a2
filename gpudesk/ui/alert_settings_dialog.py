"""Where alerts go besides the desktop: a command to run and a webhook URL, both optional (no network unless a
URL is given). The command is kept in the settings; the webhook URL, which is the credential of chat webhooks, in
the system keyring (:mod:`gpudesk.telemetry.rules.alert_delivery`)."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from gpudesk.telemetry.rules.alert_delivery import Delivery, load_webhook_url, save_webhook_url
from gpudesk.ui.error_text import error_text

COMMAND_KEY = "alerts/command"


def saved_delivery(settings: QSettings, host: str = "") -> Delivery:
    """The delivery the user set up (command from the settings, webhook from the keyring)."""
    command = str(settings.value(COMMAND_KEY, "") or "").strip() or None
    return Delivery(command, load_webhook_url(), host=host)


class AlertDeliveryDialog(QDialog):
    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle(self.tr("Alert delivery"))
        intro = QLabel(self.tr("Alerts always appear on the desktop. They can also run a command (no shell; the alert "
                               "is in GPUDESK_ALERT_* variables) and be posted as JSON to a webhook URL. Nothing is "
                               "sent over the network unless you enter a URL."), self)
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.PlainText)
        self.command = QLineEdit(str(settings.value(COMMAND_KEY, "") or ""), self)
        self.command.setPlaceholderText(self.tr("e.g. notify-send gpudesk"))
        self.webhook = QLineEdit(load_webhook_url() or "", self)
        self.webhook.setEchoMode(QLineEdit.EchoMode.PasswordEchoOnEdit)
        self.webhook.setPlaceholderText(self.tr("https://hooks.example.com/…"))
        self.error = QLabel(self)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b00020")
        form = QFormLayout()
        form.addRow(self.tr("&Command:"), self.command)
        form.addRow(self.tr("&Webhook URL:"), self.webhook)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel,
                                   self)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def save(self) -> bool:
        """Check and keep both; on a problem say it and stay open."""
        command = self.command.text().strip()
        try:
            Delivery(command or None).check()
            save_webhook_url(self.webhook.text())
        except ValueError as exc:
            self.error.setText(error_text(exc))
            return False
        self.settings.setValue(COMMAND_KEY, command)
        self.accept()
        return True
