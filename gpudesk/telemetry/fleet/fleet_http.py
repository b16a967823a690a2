"""HTTP to the servers the user typed (Prometheus, exporter ``/metrics``): limits, TLS, auth, clear errors.

Only the URL given is contacted: a redirect is followed only to the same scheme, host and port (at most
MAX_REDIRECTS), never elsewhere, so credentials never reach a server the user did not name
(:class:`FleetRedirected` says where it pointed). Each request has one deadline covering connecting, the headers and
the body (http_deadline), and an answer larger than ``max_body_bytes`` - counted after gzip decompression, so a gzip
bomb is refused by what it would inflate to - is refused with both sizes in the message (:class:`FleetTooLarge`).
Foreign errors (``urllib``, ``ssl``, ``http.client``, ``OSError``, JSON) become :class:`FleetError` subclasses here,
each saying what went wrong and what to do.
"""

from __future__ import annotations

import base64
import html
import http.client
import json
import math
import re
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass
from typing import Any

from gpudesk.errors import GpudeskError
from gpudesk.i18n import _
from gpudesk.telemetry.core.http_deadline import (
    DeadlineHTTPHandler,
    DeadlineHTTPSHandler,
    DeadlineSSLSocket,
    ResolveTimeout,
    origin,
)

DEFAULT_TIMEOUT_S = 10.0  # per request, from connecting to the last byte of the body
# A 512-GPU x 24 h range answer of one metric at 720 points is ~9 MB of JSON, 5,000 GPUs ~90 MB; the decoded
# answer takes about three times its size in memory, so more than this is refused before decoding.
DEFAULT_MAX_BODY_BYTES = 128 * 1024 * 1024
MAX_RESPONSE_BYTES = DEFAULT_MAX_BODY_BYTES


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


class FleetTooLarge(FleetBadResponse):
    """The answer is larger than the limit (bytes, after decompression, or series); the message states both."""


class FleetRedirected(FleetError):
    """The server redirected to another origin (scheme, host or port); not followed. ``location`` is where."""

    location: str = ""

    @classmethod
    def to(cls, base_url: str, location: str, with_credentials: bool) -> FleetRedirected:
        where = location if len(location) <= 300 else location[:299] + "…"  # a URL: no HTML unescaping
        if with_credentials:
            message = _("{url} redirected to {location}, a different server (scheme, host or port): not followed, "
                        "and your credentials were not sent there.").format(url=base_url, location=where)
        else:
            message = _("{url} redirected to {location}, a different server (scheme, host or port): not "
                        "followed.").format(url=base_url, location=where)
        exc = cls(message, field="url", remedy=_("If you trust that server, give its address instead."))
        exc.location = where
        return exc


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


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the same scheme, host and port as the address the user typed, at most
    MAX_REDIRECTS times; any other target stops the request with :class:`FleetRedirected` (so a bearer token or a
    password never goes to a server the user did not name). The redirect's own body is never read."""

    max_redirections = 3  # distinct addresses (MAX_REDIRECTS)
    max_repeats = 3  # visits to one address (a loop)

    def __init__(self, base_url: str, has_credentials: bool) -> None:
        super().__init__()
        self.base_url = base_url
        self.has_credentials = has_credentials

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        fp.close()  # the standard handler would read the whole redirect body first
        if origin(newurl) != origin(self.base_url):
            raise FleetRedirected.to(self.base_url, newurl, self.has_credentials)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


MAX_REDIRECTS = _SameOriginRedirects.max_redirections
_READ_CHUNK_BYTES = 256 * 1024
_INFLATE_STEP_BYTES = 4 * 1024 * 1024


class HttpClient:
    """GET requests to one base URL with an overall deadline per request (connecting, headers and body), a
    maximum answer size (after decompression), optional CA file and auth, and same-origin redirects only."""

    def __init__(self, base_url: str, *, auth: Auth | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                 ca_file: str | None = None, verify_tls: bool = True,
                 max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.base_url = check_url(base_url)
        self.auth = auth or Auth()
        self.timeout_s = float(timeout_s)
        if not (self.timeout_s > 0 and math.isfinite(self.timeout_s)):
            raise FleetError(_("The timeout must be a positive number of seconds, not {timeout}.").format(
                timeout=timeout_s), field="timeout", remedy=_("Give for example 10 (seconds)."))
        if not (isinstance(max_body_bytes, int) and max_body_bytes > 0):
            raise FleetError(_("The answer size limit must be a positive number of bytes, not {limit}.").format(
                limit=max_body_bytes), field="max_body_bytes")
        self.max_body_bytes = max_body_bytes
        if ca_file:
            try:
                self._ssl = ssl.create_default_context(cafile=ca_file)
            except (OSError, ssl.SSLError) as exc:
                raise FleetError(_("The CA file {path} could not be read.").format(path=ca_file), field="ca_file",
                                 detail=str(exc), remedy=_("Give a PEM file with the server's CA certificate.")
                                 ) from exc
        else:
            self._ssl = ssl.create_default_context()  # the system CA store
        self._ssl.sslsocket_class = DeadlineSSLSocket
        if not verify_tls:
            self._ssl.check_hostname = False
            self._ssl.verify_mode = ssl.CERT_NONE

    def get_bytes(self, path: str, params: dict[str, str] | list[tuple[str, str]] | None = None,
                  accept: str = "application/json") -> bytes:
        """The answer's body (decompressed), read within ``timeout_s`` from the start of the request."""
        url = self.base_url + path
        if params:
            url += "?" + urllib.parse.urlencode(params)
        # No Accept-Encoding: on a LAN, Prometheus' gzip of a 7 MB range answer costs more than it saves (0.35-0.47 s
        # against 0.21-0.27 s per query measured on loopback); an answer gzipped anyway (a proxy, a server that
        # compresses unasked) is still read, its size limit counted after decompression.
        req = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "gpudesk"})
        header = self.auth.header()
        if header:
            req.add_header("Authorization", header)
        deadline = time.monotonic() + self.timeout_s
        opener = urllib.request.build_opener(
            DeadlineHTTPHandler(deadline), DeadlineHTTPSHandler(deadline, self._ssl),
            _SameOriginRedirects(self.base_url, header is not None))
        try:
            with opener.open(req, timeout=self.timeout_s) as resp:
                return self._read_body(resp, deadline)
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc) from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, ResolveTimeout):
                raise self._resolve_timeout(exc.reason.host) from exc
            if isinstance(exc.reason, TimeoutError):
                raise self._deadline_passed() from exc
            raise self._unreachable(str(exc.reason)) from exc
        except ResolveTimeout as exc:
            raise self._resolve_timeout(exc.host) from exc
        except TimeoutError as exc:
            raise self._deadline_passed() from exc
        except http.client.HTTPException as exc:
            raise FleetBadResponse(
                _("{url} did not answer with valid HTTP.").format(url=self.base_url), field="url",
                detail=plain_text(f"{type(exc).__name__}: {exc}"),
                remedy=_("Check that the address is the server itself, not a proxy or another service.")) from exc
        except (OSError, ssl.SSLError) as exc:
            raise self._unreachable(str(exc)) from exc

    def _read_body(self, resp: Any, deadline: float) -> bytes:
        limit = self.max_body_bytes
        encoding = (resp.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding not in ("identity", "gzip", "x-gzip", "deflate"):
            raise FleetBadResponse(
                _("{url} answered in an encoding gpudesk cannot read ({encoding}).").format(
                    url=self.base_url, encoding=plain_text(encoding, 40)), field="url",
                remedy=_("Check that the address is the server itself, not a proxy or another service."))
        declared = resp.headers.get("Content-Length")
        if encoding == "identity" and declared and declared.strip().isdigit() and int(declared) > limit:
            raise self._too_large(int(declared), compressed_bytes=None)
        # gzip and zlib (deflate) streams, told apart by their header; output bounded by ``limit``
        decompressor = zlib.decompressobj(47) if encoding != "identity" else None
        out = bytearray()
        received = 0
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError("deadline passed")
            chunk = resp.read(_READ_CHUNK_BYTES)
            if not chunk:
                break
            received += len(chunk)
            if decompressor is None:
                out += chunk
                if len(out) > limit:
                    raise self._too_large(None, compressed_bytes=None)
                continue
            data = chunk
            while data:  # inflated a few MiB at a time: a gzip bomb never holds more than the limit
                try:
                    out += decompressor.decompress(data, min(_INFLATE_STEP_BYTES, limit + 1 - len(out)))
                except zlib.error as exc:
                    raise FleetBadResponse(
                        _("{url} sent a damaged {encoding} answer.").format(url=self.base_url, encoding=encoding),
                        field="url", detail=str(exc)) from exc
                if len(out) > limit:
                    raise self._too_large(None, compressed_bytes=received)
                data = decompressor.unconsumed_tail
        if decompressor is not None:
            try:
                out += decompressor.flush()
            except zlib.error as exc:
                raise FleetBadResponse(
                    _("{url} sent a damaged {encoding} answer.").format(url=self.base_url, encoding=encoding),
                    field="url", detail=str(exc)) from exc
            if len(out) > limit:
                raise self._too_large(None, compressed_bytes=received)
        return bytes(out)

    def get_json(self, path: str, params: dict[str, str] | list[tuple[str, str]] | None = None) -> Any:
        return self.decode_json(self.get_bytes(path, params))

    def decode_json(self, body: bytes) -> Any:
        """The JSON value of a body this client read; FleetBadResponse when it is not JSON."""
        try:
            return json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise FleetBadResponse(
                _("{url} did not answer with JSON.").format(url=self.base_url), field="url", detail=str(exc)[:200],
                remedy=_("Check that the address is the Prometheus server itself (port 9090 by default), not a "
                         "dashboard or a login page.")) from exc

    def _too_large(self, size_bytes: int | None, compressed_bytes: int | None) -> FleetTooLarge:
        limit_mib = self.max_body_bytes / 2**20
        if compressed_bytes is not None:
            message = _("The answer from {url} is too large: more than {limit_mib:g} MiB once decompressed (from "
                        "{compressed_mib:.1f} MiB sent), limit {limit_mib:g} MiB.").format(
                url=self.base_url, limit_mib=limit_mib, compressed_mib=compressed_bytes / 2**20)
        elif size_bytes is not None:
            message = _("The answer from {url} is too large: {size_mib:.1f} MiB, limit {limit_mib:g} MiB.").format(
                url=self.base_url, size_mib=size_bytes / 2**20, limit_mib=limit_mib)
        else:
            message = _("The answer from {url} is too large: more than {limit_mib:g} MiB, limit {limit_mib:g} "
                        "MiB.").format(url=self.base_url, limit_mib=limit_mib)
        return FleetTooLarge(message, field="max_body_bytes",
                             remedy=_("Choose a shorter window, a narrower selector or fewer metrics, or raise the "
                                      "limit (--max-body-mib)."))

    def _deadline_passed(self) -> FleetUnreachable:
        return FleetUnreachable(
            _("{url} did not answer completely within {timeout_s:g} s (the limit covers connecting, the headers and "
              "the body).").format(url=self.base_url, timeout_s=self.timeout_s), field="timeout",
            remedy=_("Check the server's load and the network, or raise the limit (--timeout)."))

    def _resolve_timeout(self, host: str) -> FleetUnreachable:
        return FleetUnreachable(
            _("The host name {host} was not resolved within {timeout_s:g} s, the limit for the whole request.").format(
                host=plain_text(host, 120), timeout_s=self.timeout_s), field="url",
            remedy=_("Check the DNS server and the host name, give the server's IP address, or raise the limit "
                     "(--timeout)."))

    def _unreachable(self, why: str) -> FleetUnreachable:
        return FleetUnreachable(
            _("Could not reach {url}.").format(url=self.base_url), field="url", detail=why,
            remedy=_("Check the address and port, that the server runs, and that this machine may connect to it."))

    def _http_error(self, exc: urllib.error.HTTPError) -> FleetError:
        try:
            raw = exc.read(4096).decode("utf-8", "replace")
        except (OSError, http.client.HTTPException):
            raw = ""
        detail = raw
        try:
            detail = str(json.loads(raw).get("error") or raw)
        except (ValueError, AttributeError, RecursionError):
            detail = plain_text(raw)
        if 300 <= exc.code < 400:
            return FleetBadResponse(
                _("{url} redirected more than {limit} times, or to an address that is not http(s) (HTTP {code})."
                  ).format(url=self.base_url, limit=MAX_REDIRECTS, code=exc.code), field="url",
                remedy=_("Give the address the server finally answers at."))
        if exc.code in (401, 403):
            return FleetUnauthorized(
                _("{url} refused the credentials (HTTP {code}).").format(url=self.base_url, code=exc.code),
                field="auth", detail=plain_text(detail),
                remedy=_("Check the user name and password or the bearer token."))
        return FleetBadResponse(
            _("{url} answered HTTP {code}.").format(url=self.base_url, code=exc.code), field="url",
            detail=plain_text(detail) or None,
            remedy=_("Check the address and the query; the server's message is in the detail."))
