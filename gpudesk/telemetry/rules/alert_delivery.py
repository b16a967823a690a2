"""Where an alert goes besides the desktop: a command the user gave, a webhook URL the user gave. Nothing else
touches the network.

* Command: run without a shell (``shlex.split`` of what the user typed), with the alert in environment variables
  ``GPUDESK_ALERT_KIND``, ``GPUDESK_ALERT_RULE`` (the rule that raised it), ``GPUDESK_ALERT_SEVERITY``,
  ``GPUDESK_ALERT_GPU``, ``GPUDESK_ALERT_MESSAGE`` and the whole alert as JSON in ``GPUDESK_ALERT_JSON``; at most
  ``timeout_s``.
* Webhook: an HTTP(S) POST of the alert as JSON (plus ``text``, which Slack and Mattermost incoming webhooks show),
  http(s) URLs only; ``timeout_s`` is one deadline for the whole request - the host name lookup (which the C
  resolver does not bound), connecting, the TLS handshake, the answer's headers and body - through the same
  deadline-bounded HTTP path as the fleet client (:mod:`gpudesk.telemetry.core.http_deadline`).

A failure is returned as text (kept with the alert in the store and shown), never raised: one broken hook must not
stop the monitoring.
"""

from __future__ import annotations

import http.client
import json
import os
import shlex
import ssl
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from gpudesk.i18n import _
from gpudesk.telemetry.rules.alerts import Alert
from gpudesk.telemetry.core.http_deadline import DeadlineHTTPHandler, DeadlineHTTPSHandler, ResolveTimeout

MAX_OUTPUT = 500


@dataclass
class Delivery:
    """What to do with each alert; both optional."""

    command: str | None = None
    webhook_url: str | None = None
    timeout_s: float = 10.0
    host: str = ""

    def check(self) -> None:
        """Refuse a webhook that is not http(s) and a command that cannot be split, before monitoring starts.

        Raises:
            ValueError: with a sentence saying what is wrong.
        """
        if self.webhook_url:
            parts = urllib.parse.urlsplit(self.webhook_url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError(_("{url} is not an http:// or https:// address.").format(url=self.webhook_url))
        if self.command is not None:
            try:
                if not shlex.split(self.command):
                    raise ValueError(_("The alert command is empty."))
            except ValueError as exc:
                raise ValueError(_("The alert command cannot be read: {reason}.").format(reason=exc)) from exc


@dataclass
class DeliveryResult:
    delivered: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _payload(alert: Alert, host: str) -> dict[str, object]:
    return {**alert.to_dict(), "host": host, "text": f"[gpudesk {host}] {alert.message}".strip()}


def deliver(alert: Alert, delivery: Delivery) -> DeliveryResult:
    result = DeliveryResult()
    if delivery.command:
        env = dict(os.environ, GPUDESK_ALERT_KIND=alert.kind.value, GPUDESK_ALERT_RULE=alert.rule,
                   GPUDESK_ALERT_SEVERITY=alert.severity,
                   GPUDESK_ALERT_GPU="" if alert.gpu_index is None else str(alert.gpu_index),
                   GPUDESK_ALERT_MESSAGE=alert.message, GPUDESK_ALERT_JSON=json.dumps(_payload(alert, delivery.host)))
        try:
            done = subprocess.run(shlex.split(delivery.command), env=env, capture_output=True, text=True,
                                  timeout=delivery.timeout_s, check=False)
            if done.returncode == 0:
                result.delivered.append("command")
            else:
                result.errors.append(_("The alert command exited with {code}: {output}").format(
                    code=done.returncode, output=(done.stderr or done.stdout).strip()[:MAX_OUTPUT]))
        except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
            result.errors.append(_("The alert command could not run: {reason}").format(reason=exc))
    if delivery.webhook_url:
        body = json.dumps(_payload(alert, delivery.host)).encode()
        req = urllib.request.Request(delivery.webhook_url, data=body, method="POST",
                                     headers={"Content-Type": "application/json", "User-Agent": "gpudesk"})
        deadline = time.monotonic() + delivery.timeout_s
        opener = urllib.request.build_opener(
            DeadlineHTTPHandler(deadline), DeadlineHTTPSHandler(deadline, ssl.create_default_context()))
        try:
            with opener.open(req, timeout=delivery.timeout_s) as resp:
                resp.read(MAX_OUTPUT)
            result.delivered.append("webhook")
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", None) or exc
            if isinstance(reason, TimeoutError):
                reason = _("no answer within {seconds:g} s").format(seconds=delivery.timeout_s)
                if isinstance(exc, ResolveTimeout) or isinstance(getattr(exc, "reason", None), ResolveTimeout):
                    reason = _("its host name was not resolved within {seconds:g} s").format(
                        seconds=delivery.timeout_s)
            result.errors.append(_("The webhook {url} did not take the alert: {reason}").format(
                url=delivery.webhook_url, reason=reason))
    return result


# The webhook URL of a chat service (Slack, Mattermost, Teams) is itself the credential: it lives in the system
# keyring, never in the plain settings file. The command is not secret and lives in the settings.
KEYRING_SERVICE = "gpudesk-alerts"
KEYRING_WEBHOOK = "webhook-url"


def save_webhook_url(url: str) -> None:
    """Keep (or, with "", forget) the alert webhook URL in the system keyring.

    Raises:
        ValueError: the URL is not http(s), or the keyring cannot be used.
    """
    import keyring
    import keyring.errors

    url = url.strip()
    if url:
        Delivery(webhook_url=url).check()
    try:
        if url:
            keyring.set_password(KEYRING_SERVICE, KEYRING_WEBHOOK, url)
        elif keyring.get_password(KEYRING_SERVICE, KEYRING_WEBHOOK) is not None:
            keyring.delete_password(KEYRING_SERVICE, KEYRING_WEBHOOK)
    except keyring.errors.KeyringError as exc:
        raise ValueError(_("The system keyring could not be used: {reason}").format(reason=exc)) from exc


def load_webhook_url() -> str | None:
    """The alert webhook URL from the system keyring, or None (also when no keyring can be used)."""
    import keyring
    import keyring.errors

    try:
        return keyring.get_password(KEYRING_SERVICE, KEYRING_WEBHOOK) or None
    except keyring.errors.KeyringError:
        return None  # no keyring here: alerts are then delivered without the webhook (the dialog says why)
