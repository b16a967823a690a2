"""A real HTTP server on 127.0.0.1 that misbehaves on purpose, for the fleet client's tests (issue 25).

The first path segment picks the misbehaviour; the rest of the path is what a client would ask a Prometheus server
or an exporter (``/api/v1/...`` or ``/metrics``), so one server answers ``--prometheus http://127.0.0.1:P/<mode>``
and ``--scrape http://127.0.0.1:P/<mode>/metrics``:

* ``slow-headers`` - the status line, then one header byte every ``drip_s``;
* ``slow-body`` - headers at once, then one body byte every ``drip_s``;
* ``redirect-away`` - 302 to ``redirect_target`` (another origin: another port) + the same path;
* ``redirect-here`` - 302 to ``/ok`` + the same path on this server; ``redirect-loop`` - 302 to itself, forever;
* ``huge`` - an endless body (chunks of zeros until the client stops reading); ``huge-declared`` - a
  Content-Length of 10 GiB, then zeros;
* ``gzip-bomb`` - ``Content-Encoding: gzip``, a stream ~1000 times smaller than what it inflates to
  (``bomb_mib``, 1 GiB by default);
* ``wrong-types`` - Prometheus API answers whose fields have the wrong JSON types (``query`` picks which);
* ``nonfinite`` - NaN, +Inf, -Inf and negative counters in both the exposition text and the API answers;
* ``escapes`` - labels, metric answers and error bodies carrying ESC, OSC 52, backspace, NUL and CR;
* ``error-escapes`` - HTTP 500 whose body carries terminal escapes;
* ``ok`` - a well-formed two-GPU answer (the target of same-origin redirects).

Every request's path and ``Authorization`` header is recorded in ``requests``. Every slow or endless answer stops
after ``max_answer_s`` seconds or when the client goes away, and the server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Terminal control a hostile label can carry: clear screen + home, set the window title, write the clipboard
# (OSC 52), backspace over text, NUL, carriage return (overwrite the line), C1 CSI.
ESCAPES = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\b\b\x00\rFAKE\x9b31m"

GPU_LABELS = ('gpu="{g}",UUID="GPU-0000000{g}-aaaa-bbbb-cccc-dddddddddddd",device="nvidia{g}",'
              'modelName="NVIDIA H100 80GB HBM3",Hostname="{host}"')


def exposition(values: dict[str, list[str]], host: str = "node1") -> str:
    """DCGM exporter text: metric name -> one value text per GPU."""
    out = []
    for name, per_gpu in values.items():
        out.append(f"# HELP {name} test\n# TYPE {name} gauge")
        for g, v in enumerate(per_gpu):
            out.append(f"{name}{{{GPU_LABELS.format(g=g, host=host)}}} {v}")
    return "\n".join(out) + "\n"


def _prom_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


_GZIP_BOMBS: dict[int, bytes] = {}


def gzip_bomb(mib: int = 1024) -> bytes:
    """A gzip stream of ``mib`` MiB of zeros (about 1/1000 of that), built once per size."""
    if mib not in _GZIP_BOMBS:
        comp = zlib.compressobj(9, zlib.DEFLATED, 31)
        block = bytes(1 << 20)
        parts = [comp.compress(block) for _ in range(mib)]
        parts.append(comp.flush())
        _GZIP_BOMBS[mib] = b"".join(parts)
    return _GZIP_BOMBS[mib]


def _series(g: int, value: str, host: str = "node1", extra: dict[str, str] | None = None) -> dict[str, object]:
    labels = {"__name__": "DCGM_FI_DEV_GPU_UTIL", "gpu": str(g), "UUID": f"GPU-0000000{g}-aaaa-bbbb-cccc-dddddddddddd",
              "Hostname": host, "modelName": "NVIDIA H100 80GB HBM3"}
    labels.update(extra or {})
    return {"metric": labels, "value": [time.time(), value], "values": [[time.time() - 30, value],
                                                                        [time.time(), value]]}


class HostileServer:
    """``with HostileServer() as srv: srv.url + "/slow-headers"``."""

    def __init__(self, *, drip_s: float = 0.2, max_answer_s: float = 30.0, bomb_mib: int = 1024,
                 tls: tuple[str, str] | None = None) -> None:
        self.drip_s = drip_s
        self.bomb_mib = bomb_mib
        self.max_answer_s = max_answer_s
        self.redirect_target = ""
        self.requests: list[tuple[str, str | None]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
                pass

            def do_GET(self) -> None:
                with server._lock:
                    server.requests.append((self.path, self.headers.get("Authorization")))
                mode, _, rest = self.path.lstrip("/").partition("/")
                try:
                    getattr(self, "mode_" + mode.replace("-", "_"), self.mode_unknown)("/" + rest)
                except (BrokenPipeError, ConnectionResetError, TimeoutError):
                    pass  # the client gave up: what the tests want

            # --- helpers ---------------------------------------------------------------------------------
            def send(self, code: int, body: bytes, ctype: str = "application/json",
                     headers: dict[str, str] | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def answer(self, rest: str, value: str = "42", labels: dict[str, str] | None = None) -> None:
                """A well-formed answer to ``rest`` (API path or /metrics) with every GPU at ``value``."""
                path = urllib.parse.urlsplit(rest).path
                if path.endswith("/metrics") or path == "/":
                    text = exposition({"DCGM_FI_DEV_GPU_UTIL": [value, value],
                                       "DCGM_FI_DEV_POWER_USAGE": ["300", "310"]})
                    if labels:
                        extra = ",".join(f'{k}="{_prom_escape(v)}"' for k, v in labels.items())
                        text = text.replace('Hostname="node1"', f'Hostname="node1",{extra}')
                    self.send(200, text.encode(), "text/plain; version=0.0.4")
                    return
                self.send(200, json.dumps(self.api_doc(path, value, labels)).encode())

            def api_doc(self, path: str, value: str, labels: dict[str, str] | None) -> dict[str, object]:
                if path.endswith("/label/__name__/values"):
                    return {"status": "success", "data": ["DCGM_FI_DEV_GPU_UTIL"]}
                if path.endswith("/query") or path.endswith("/query_range"):
                    kind = "vector" if path.endswith("/query") else "matrix"
                    return {"status": "success", "data": {"resultType": kind, "result": [
                        _series(0, value, extra=labels), _series(1, value, extra=labels)]}}
                return {"status": "success", "data": []}

            def drip(self, data: bytes) -> None:
                end = time.monotonic() + server.max_answer_s
                for i in range(len(data)):
                    if time.monotonic() > end:
                        return
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    time.sleep(server.drip_s)

            def endless(self, limit_bytes: int = 8 << 30) -> None:
                block = bytes(1 << 20)
                end = time.monotonic() + server.max_answer_s
                sent = 0
                while sent < limit_bytes and time.monotonic() < end:
                    self.wfile.write(block)
                    sent += len(block)

            # --- modes -----------------------------------------------------------------------------------
            def mode_ok(self, rest: str) -> None:
                self.answer(rest)

            def mode_unknown(self, rest: str) -> None:
                self.send(404, b"no such mode")

            def mode_slow_headers(self, rest: str) -> None:
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                self.drip(b"Content-Type: application/json\r\n" + b"X-Pad: " + b"a" * 4000 + b"\r\n\r\n{}")

            def mode_slow_body(self, rest: str) -> None:
                body = b'{"status": "success", "data": ' + b" " * 100000 + b"[]}"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.drip(body)

            def mode_redirect_away(self, rest: str) -> None:
                self.send(302, b"", headers={"Location": server.redirect_target + rest})

            def mode_redirect_here(self, rest: str) -> None:
                self.send(302, b"moved", "text/plain", headers={"Location": "/ok" + rest})

            def mode_redirect_loop(self, rest: str) -> None:
                self.send(302, b"", headers={"Location": "/redirect-loop" + rest})

            def mode_huge(self, rest: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Connection", "close")
                self.end_headers()
                self.endless()
                self.close_connection = True

            def mode_huge_declared(self, rest: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(10 << 30))
                self.end_headers()
                self.endless()

            def mode_gzip_bomb(self, rest: str) -> None:
                self.send(200, gzip_bomb(server.bomb_mib), "application/json", headers={"Content-Encoding": "gzip"})

            def mode_wrong_types(self, rest: str) -> None:
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(rest).query)
                path = urllib.parse.urlsplit(rest).path
                if path.endswith("/label/__name__/values"):
                    doc: object = {"status": "success", "data": ["DCGM_FI_DEV_GPU_UTIL"]}
                else:
                    # each range or instant query gets another wrong shape, in turn
                    shapes: list[object] = [
                        {"status": "success", "data": {"result": {"metric": "x"}}},
                        {"status": "success", "data": {"result": [{"metric": "gpu0", "values": "NaN"}]}},
                        {"status": "success", "data": {"result": [{"metric": {"gpu": 0}, "values": [[1, 2, 3]]}]}},
                        {"status": "success", "data": {"result": [{"metric": {"gpu": "0"}, "values": [["t", {}]]}]}},
                        {"status": "success", "data": {"result": [{"metric": {"gpu": "0"}, "value": 7}]}},
                        {"status": "success", "data": "everything"},
                        ["status", "success"],
                        {"status": "success", "data": {"result": [
                            {"metric": {"gpu": "0", "UUID": ["a"]}, "values": [[1e400, "1"]]}]}},
                    ]
                    with server._lock:
                        n = sum(1 for p, _a in server.requests if p.startswith("/wrong-types"))
                    pick = int(query.get("shape", [str(n)])[0]) % len(shapes)
                    doc = shapes[pick]
                self.send(200, json.dumps(doc).encode())

            def mode_nonfinite(self, rest: str) -> None:
                path = urllib.parse.urlsplit(rest).path
                if path.endswith("/metrics"):
                    text = exposition({"DCGM_FI_DEV_GPU_UTIL": ["NaN", "-Inf"],
                                       "DCGM_FI_DEV_POWER_USAGE": ["+Inf", "-5"],
                                       "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": ["-3", "1e999"]})
                    self.send(200, text.encode(), "text/plain; version=0.0.4")
                    return
                if path.endswith("/label/__name__/values"):
                    self.send(200, json.dumps({"status": "success", "data": [
                        "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE"]}).encode())
                    return
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(rest).query).get("query", [""])[0]
                vals = ["-Inf", "+Inf"] if "POWER" in query else ["NaN", "-Inf"]
                kind = "vector" if path.endswith("/query") else "matrix"
                result = []
                for g, v in enumerate(vals):
                    series = _series(g, v)
                    if "POWER" in query:
                        series["metric"]["__name__"] = "DCGM_FI_DEV_POWER_USAGE"  # type: ignore[index]
                    result.append(series)
                self.send(200, json.dumps({"status": "success", "data": {"resultType": kind,
                                                                         "result": result}}).encode())

            def mode_escapes(self, rest: str) -> None:
                self.answer(rest, labels={"Hostname": "node" + ESCAPES, "pod": "job" + ESCAPES,
                                          "namespace": ESCAPES})

            def mode_error_escapes(self, rest: str) -> None:
                body = json.dumps({"status": "error", "error": "bad query " + ESCAPES}).encode()
                self.send(500, body)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self.port = int(self._httpd.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        if tls is not None:  # (certificate, key) files: the same modes over https
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
            self.url = f"https://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def auth_headers(self) -> list[str | None]:
        with self._lock:
            return [a for _p, a in self.requests]

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class SilentServer:
    """Accepts TCP connections on 127.0.0.1 and never sends a byte (for the TLS handshake and the status line)."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(8)
        self.port = int(self._sock.getsockname()[1])
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        for _ in range(64):  # bounded: a test makes a few connections
            try:
                conn, _addr = self._sock.accept()
            except OSError:
                return
            self._held.append(conn)

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._sock.close()
        for conn in self._held:
            conn.close()
