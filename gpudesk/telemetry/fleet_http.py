"""HTTP to the servers the user typed (Prometheus, exporter ``/metrics``): timeouts, TLS, auth, clear errors.

Only the URL given is contacted. Foreign errors (``urllib``, ``ssl``, ``OSError``, JSON) become
:class:`FleetError` subclasses here, each saying what went wrong and what to do.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from gpudesk.errors import GpudeskError
from gpudesk.i18n import _

DEFAULT_TIMEOUT_S = 10.0
MAX_RESPONSE_BYTES = 512 * 1024 * 1024  # a 512-GPU x 24 h range answer is ~100 MB of JSON; refuse more than this


class FleetError(GpudeskError):
    """A fleet source failed (server, network, content)."""


class FleetUnreachable(FleetError):
    """The server could not be reached (refused, DNS, timeout, TLS)."""


class FleetUnauthorized(FleetError):
    """The server answered 401/403."""


class FleetBadResponse(FleetError):
    """The server answered, but not with what the API promises (HTTP error, not JSON, error status)."""


class FleetNoData(FleetError):
    """The server works but holds no GPU metrics gpudesk knows, or labels it cannot map."""


@dataclass(frozen=True)
class Auth:
    """Credentials for one server: ``kind`` is "none", "basic" (username + secret) or "bearer" (secret)."""

    kind: str = "none"
    username: str = ""
    secret: str = ""

    def header(self) -> str | None:
        if self.kind == "basic":
            token = base64.b64encode(f"{self.username}:{self.secret}".encode()).decode("ascii")
            return f"Basic {token}"
        if self.kind == "bearer" and self.secret:
            return f"Bearer {self.secret}"
        return None


def check_url(url: str) -> str:
    """The URL without a trailing slash; FleetError when it is not http(s)://host[:port][/path]."""
    text = (url or "").strip()
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - reading it checks the port ("host:abc" or "host:99999" raises ValueError)
    except ValueError as exc:
        raise FleetError(
            _("{url} is not a valid address ({reason}).").format(url=text, reason=exc), field="url",
            remedy=_("Type the server address, for example http://prometheus.example:9090 or http://[::1]:9090."),
        ) from exc
    if parts.scheme not in ("http", "https") or not parts.netloc or not parts.hostname:
        raise FleetError(
            _("{url} is not an http:// or https:// address.").format(url=text or "''"), field="url",
            remedy=_("Type the server address, for example http://prometheus.example:9090."))
    return text.rstrip("/")


_TAG = re.compile(r"<[^<>]{0,2000}>")  # one tag, bounded: no backtracking over long pasted pages
MAX_DETAIL_CHARS = 200


def plain_text(body: str, limit: int = MAX_DETAIL_CHARS) -> str:
    """A server's error page as one short line: tags removed, entities decoded, spaces collapsed, cut to ``limit``
    characters (a 404 page's HTML is not a message)."""
    text = html.unescape(_TAG.sub(" ", body[:65536]))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


class HttpClient:
    """GET requests to one base URL with a timeout, optional CA file and auth."""

    def __init__(self, base_url: str, *, auth: Auth | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                 ca_file: str | None = None, verify_tls: bool = True) -> None:
        self.base_url = check_url(base_url)
        self.auth = auth or Auth()
        self.timeout_s = float(timeout_s)
        if not (self.timeout_s > 0 and math.isfinite(self.timeout_s)):
            raise FleetError(_("The timeout must be a positive number of seconds, not {timeout}.").format(
                timeout=timeout_s), field="timeout", remedy=_("Give for example 10 (seconds)."))
        if ca_file:
            try:
                self._ssl = ssl.create_default_context(cafile=ca_file)
            except (OSError, ssl.SSLError) as exc:
                raise FleetError(_("The CA file {path} could not be read.").format(path=ca_file), field="ca_file",
                                 detail=str(exc), remedy=_("Give a PEM file with the server's CA certificate.")
                                 ) from exc
        else:
            self._ssl = ssl.create_default_context()  # the system CA store
        if not verify_tls:
            self._ssl.check_hostname = False
            self._ssl.verify_mode = ssl.CERT_NONE

    def get_bytes(self, path: str, params: dict[str, str] | list[tuple[str, str]] | None = None,
                  accept: str = "application/json") -> bytes:
        url = self.base_url + path
        if params:
            url += "?" + urllib.parse.urlencode(params)
        req = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "gpudesk"})
        header = self.auth.header()
        if header:
            req.add_header("Authorization", header)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s, context=self._ssl) as resp:
                body: bytes = resp.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc) from exc
        except urllib.error.URLError as exc:
            raise self._unreachable(str(exc.reason)) from exc
        except TimeoutError as exc:
            raise self._unreachable(_("no answer within {timeout_s:g} s").format(timeout_s=self.timeout_s)) from exc
        except (OSError, ssl.SSLError) as exc:
            raise self._unreachable(str(exc)) from exc
        if len(body) > MAX_RESPONSE_BYTES:
            raise FleetBadResponse(
                _("{url} answered with more than {limit_mib} MiB.").format(url=self.base_url,
                                                                          limit_mib=MAX_RESPONSE_BYTES // 2**20),
                field="url", remedy=_("Choose a shorter window or fewer metrics."))
        return body

    def get_json(self, path: str, params: dict[str, str] | list[tuple[str, str]] | None = None) -> Any:
        body = self.get_bytes(path, params)
        try:
            return json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise FleetBadResponse(
                _("{url} did not answer with JSON.").format(url=self.base_url), field="url", detail=str(exc)[:200],
                remedy=_("Check that the address is the Prometheus server itself (port 9090 by default), not a "
                         "dashboard or a login page.")) from exc

    def _unreachable(self, why: str) -> FleetUnreachable:
        return FleetUnreachable(
            _("Could not reach {url}.").format(url=self.base_url), field="url", detail=why,
            remedy=_("Check the address and port, that the server runs, and that this machine may connect to it."))

    def _http_error(self, exc: urllib.error.HTTPError) -> FleetError:
        try:
            raw = exc.read(4096).decode("utf-8", "replace")
        except OSError:
            raw = ""
        detail = raw
        try:
            detail = str(json.loads(raw).get("error") or raw)
        except (ValueError, AttributeError, RecursionError):
            detail = plain_text(raw)
        if exc.code in (401, 403):
            return FleetUnauthorized(
                _("{url} refused the credentials (HTTP {code}).").format(url=self.base_url, code=exc.code),
                field="auth", detail=plain_text(detail),
                remedy=_("Check the user name and password or the bearer token."))
        return FleetBadResponse(
            _("{url} answered HTTP {code}.").format(url=self.base_url, code=exc.code), field="url",
            detail=plain_text(detail) or None,
            remedy=_("Check the address and the query; the server's message is in the detail."))
