"""Fleet connection settings (plain, versioned) and their secrets (the system keyring, never the settings).

``ConnectionSettings.to_dict()`` holds the URL, auth kind, user name, CA file and timeout; the password or token is
stored with :func:`store_secret` under the service ``gpudesk-fleet`` and the URL as the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import keyring
import keyring.errors

from gpudesk.i18n import _
from gpudesk.telemetry.fleet.fleet_http import DEFAULT_TIMEOUT_S, Auth, FleetError, check_url

SERVICE = "gpudesk-fleet"
SETTINGS_VERSION = 1
AUTH_KINDS = ("none", "basic", "bearer")


@dataclass(frozen=True)
class ConnectionSettings:
    """Where the fleet's Prometheus is and how to talk to it; no secret in here."""

    url: str
    auth_kind: str = "none"
    username: str = ""
    ca_file: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S

    def to_dict(self) -> dict[str, Any]:
        return {"version": SETTINGS_VERSION, "url": self.url, "auth_kind": self.auth_kind,
                "username": self.username, "ca_file": self.ca_file, "timeout_s": self.timeout_s}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConnectionSettings:
        kind = str(data.get("auth_kind", "none"))
        if kind not in AUTH_KINDS:
            kind = "none"
        return cls(url=str(data.get("url", "")), auth_kind=kind, username=str(data.get("username", "")),
                   ca_file=str(data.get("ca_file", "")), timeout_s=float(data.get("timeout_s", DEFAULT_TIMEOUT_S)))


def _keyring_error(exc: Exception) -> FleetError:
    return FleetError(_("The system keyring could not be used."), field="auth", detail=str(exc),
                      remedy=_("Unlock or install a keyring (GNOME Keyring, KWallet, macOS Keychain, Windows "
                               "Credential Manager), or connect without credentials."))


def store_secret(url: str, secret: str) -> None:
    """Keep the password or token for ``url`` in the system keyring."""
    try:
        keyring.set_password(SERVICE, check_url(url), secret)
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(exc) from exc


def load_secret(url: str) -> str:
    """The stored secret for ``url``, or "" when none is stored."""
    try:
        return keyring.get_password(SERVICE, check_url(url)) or ""
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(exc) from exc


def delete_secret(url: str) -> None:
    try:
        keyring.delete_password(SERVICE, check_url(url))
    except keyring.errors.PasswordDeleteError:
        return
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(exc) from exc


def auth_for(settings: ConnectionSettings) -> Auth:
    """The Auth of these settings with its secret read from the keyring."""
    if settings.auth_kind == "none":
        return Auth()
    return Auth(settings.auth_kind, settings.username, load_secret(settings.url))
