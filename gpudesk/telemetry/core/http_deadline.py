"""HTTP requests with one deadline for the whole request: connecting, the TLS handshake, the headers and the body.

A socket timeout alone restarts with every byte that arrives, so a server that trickles its status line, headers or
body one byte at a time holds a client for as long as it likes. Here every receive and send first sets the socket's
timeout to the time left before the deadline (``time.monotonic()``), and fails at once when none is left; the TLS
handshake is one C call bounded by the same timeout. Plugged into ``urllib`` as its HTTP and HTTPS handlers, so
proxies from the environment keep working (https://docs.python.org/3/library/urllib.request.html). The host name
lookup, which the C resolver does not bound, waits in a worker thread for at most the time left (:func:`resolve`).
"""

from __future__ import annotations

import functools
import http.client
import socket
import ssl
import threading
import time
import urllib.parse
import urllib.request
from typing import Any


class DeadlineSocketMixin:
    """Every receive and send waits at most until ``deadline`` (``time.monotonic()``): the socket timeout is set to
    the time left before each call, so a server that trickles its headers or body one byte at a time cannot hold the
    request past the deadline (a plain socket timeout restarts with every byte that arrives)."""

    deadline: float | None = None

    def _arm(self) -> None:
        if self.deadline is None:
            return
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("deadline passed")
        self.settimeout(left)  # type: ignore[attr-defined]

    def recv_into(self, *args: Any, **kwargs: Any) -> int:
        self._arm()
        return super().recv_into(*args, **kwargs)  # type: ignore[misc, no-any-return]

    def recv(self, *args: Any, **kwargs: Any) -> bytes:
        self._arm()
        return super().recv(*args, **kwargs)  # type: ignore[misc, no-any-return]

    def sendall(self, *args: Any, **kwargs: Any) -> None:
        self._arm()
        super().sendall(*args, **kwargs)  # type: ignore[misc]


class _DeadlineSocket(DeadlineSocketMixin, socket.socket):
    pass


class DeadlineSSLSocket(DeadlineSocketMixin, ssl.SSLSocket):
    pass


class ResolveTimeout(TimeoutError):
    """The host name was not resolved before the request's deadline."""

    def __init__(self, host: str) -> None:
        super().__init__(f"resolving {host!r} did not finish before the deadline")
        self.host = host


def resolve(host: str, port: int, deadline: float) -> list[tuple[Any, ...]]:
    """``socket.getaddrinfo(host, port, type=SOCK_STREAM)`` within ``deadline`` (``time.monotonic()``).

    The C resolver takes no timeout (a hostile or broken DNS server can hold ``getaddrinfo`` for its own retries,
    tens of seconds), so it runs in a daemon worker thread and the caller waits only for the time left; a lookup
    still running at the deadline is abandoned (its thread ends when the resolver gives up) and ``ResolveTimeout``
    is raised. Resolver errors (``socket.gaierror``) are raised as they are.
    """
    left = deadline - time.monotonic()
    if left <= 0:
        raise ResolveTimeout(host)
    outcome: list[Any] = []
    done = threading.Event()

    def work() -> None:
        try:
            outcome.append(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
        except BaseException as exc:  # handed to the waiting caller  # noqa: BLE001
            outcome.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, name="gpudesk-resolve", daemon=True).start()
    if not done.wait(left):
        raise ResolveTimeout(host)
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return list(result)


def _connection_factory(deadline: float) -> Any:
    """``socket.create_connection`` whose name lookup, connect and later receives and sends keep to ``deadline``
    (:func:`resolve` for the lookup; each address is tried with the time left, as create_connection does)."""

    def create(address: tuple[str, int], timeout: Any = None, source_address: Any = None) -> socket.socket:
        host, port = address
        error: OSError | None = None
        for family, kind, proto, _canonical, sockaddr in resolve(host, port, deadline):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("deadline passed")
            sock = _DeadlineSocket(family, kind, proto)
            try:
                sock.settimeout(left)
                if source_address:
                    sock.bind(source_address)
                sock.connect(sockaddr)
            except OSError as exc:
                sock.close()
                if isinstance(exc, TimeoutError):
                    raise
                error = exc
                continue
            sock.deadline = deadline
            sock.settimeout(max(1e-3, deadline - time.monotonic()))
            return sock
        raise error if error is not None else OSError(f"no address found for {host!r}")

    return create


class _HTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, *, deadline: float, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._create_connection = _connection_factory(deadline)


class _HTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, *, deadline: float, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._create_connection = _connection_factory(deadline)
        self._deadline = deadline

    def connect(self) -> None:
        super().connect()  # the TLS handshake is one C call, bounded by the socket timeout (the time left)
        if isinstance(self.sock, DeadlineSocketMixin):
            self.sock.deadline = self._deadline


class DeadlineHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_HTTPConnection, deadline=self.deadline), req)


class DeadlineHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: float, context: ssl.SSLContext) -> None:
        super().__init__(context=context)
        self.deadline = deadline
        self.tls_context = context

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_HTTPSConnection, deadline=self.deadline), req,
                            context=self.tls_context)


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a URL, the port filled in from the scheme: what "the same server" means."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)
