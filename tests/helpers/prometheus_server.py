"""A real Prometheus (Debian's ``prometheus`` package) for tests: own port, own config and TSDB folder.

* :class:`Exporter` - a local HTTP server on 127.0.0.1 serving DCGM exporter exposition text per node path
  (``/node/<host>/metrics``) whose label sets come from real captures (tests/fixtures/fleet/*.prom) and whose
  values the test varies over time.
* :func:`backfill` - writes OpenMetrics history and turns it into TSDB blocks with ``promtool tsdb
  create-blocks-from openmetrics`` (so a multi-hour window exists without waiting hours).
* :class:`PrometheusServer` - starts ``prometheus`` with ``--web.listen-address=127.0.0.1:<free port>`` and waits
  until every scrape target is up. The Debian service is never used (no systemd in CI; our own port and paths).
"""

from __future__ import annotations

import base64
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
SKIP_REASON = ("the prometheus binary is not installed (Debian: apt-get install -y prometheus; .ci/run installs it)")

# bcrypt (cost 4) of "gpudesk-test-secret", for Prometheus' --web.config.file basic_auth_users.
TEST_USER = "gpudesk"
TEST_PASSWORD = "gpudesk-test-secret"
TEST_PASSWORD_BCRYPT = "$2b$04$LBEqFTRN4NkV3UPS5sng..mDl7/NHRWKdyYBunK5z8veonDlQTrNi"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Exporter:
    """Serves ``render(host) -> exposition text`` at /node/<host>/metrics on 127.0.0.1."""

    def __init__(self, render: Callable[[str], str]) -> None:
        self.render = render
        self.scrapes = 0
        exporter = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = self.path.strip("/").split("/")
                if len(parts) != 3 or parts[0] != "node" or parts[2] != "metrics":
                    self.send_error(404)
                    return
                body = exporter.render(parts[1]).encode()
                exporter.scrapes += 1
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, host: str) -> str:
        return f"http://127.0.0.1:{self.port}/node/{host}/metrics"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def self_signed_cert(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (``openssl req -x509``), usable as its own CA file."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def backfill(openmetrics_text: str, data_dir: Path) -> None:
    """Turn OpenMetrics text (with time stamps, ending in ``# EOF``) into TSDB blocks under ``data_dir``."""
    assert PROMTOOL, SKIP_REASON
    src = data_dir.parent / "backfill.om"
    src.write_text(openmetrics_text)
    data_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run([PROMTOOL, "tsdb", "create-blocks-from", "openmetrics", str(src), str(data_dir)],
                   check=True, capture_output=True, timeout=600)
    src.unlink()


class PrometheusServer:
    """One Prometheus process on 127.0.0.1 scraping the given targets (job per host)."""

    def __init__(self, workdir: Path, targets: dict[str, str], *, scrape_interval_s: int = 1,
                 basic_auth: bool = False, data_dir: Path | None = None,
                 tls: tuple[Path, Path] | None = None) -> None:
        assert PROMETHEUS, SKIP_REASON
        self.port = free_port()
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self._ssl = ssl.create_default_context(cafile=str(tls[0])) if tls else None
        self.data_dir = data_dir or workdir / "tsdb"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        jobs = []
        for host, url in targets.items():
            rest = url.split("//", 1)[1]
            hostport, path = rest.split("/", 1)
            jobs.append(f"  - job_name: '{host}'\n    metrics_path: '/{path}'\n"
                        f"    static_configs:\n      - targets: ['{hostport}']\n")
        config = workdir / "prometheus.yml"
        config.write_text(f"global:\n  scrape_interval: {scrape_interval_s}s\n  evaluation_interval: 60s\n"
                          "scrape_configs:\n" + "".join(jobs))
        args = [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={self.data_dir}",
                f"--web.listen-address=127.0.0.1:{self.port}", "--storage.tsdb.retention.time=30d",
                "--log.level=warn"]
        self.basic_auth = basic_auth
        web_config = ""
        if basic_auth:
            web_config += f"basic_auth_users:\n  {TEST_USER}: '{TEST_PASSWORD_BCRYPT}'\n"
        if tls:
            web_config += f"tls_server_config:\n  cert_file: '{tls[0]}'\n  key_file: '{tls[1]}'\n"
        if web_config:
            web = workdir / "web.yml"
            web.write_text(web_config)
            args.append(f"--web.config.file={web}")
        self.log = (workdir / "prometheus.log").open("w")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, cwd=workdir)
        self.n_targets = len(targets)

    def _get(self, path: str) -> dict:
        req = urllib.request.Request(self.url + path)
        if self.basic_auth:
            token = base64.b64encode(f"{TEST_USER}:{TEST_PASSWORD}".encode()).decode()
            req.add_header("Authorization", f"Basic {token}")
        with urllib.request.urlopen(req, timeout=5, context=self._ssl) as resp:
            return json.loads(resp.read())

    def wait_ready(self, timeout_s: float = 60.0, targets_up: bool = True) -> None:
        """Until /-/ready answers and (optionally) every target has been scraped and is up."""
        deadline = time.monotonic() + timeout_s
        last = ""
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited: {self.log_text()}")
            try:
                if not targets_up:
                    self._get("/api/v1/status/buildinfo")
                    return
                doc = self._get("/api/v1/targets")
                active = doc["data"]["activeTargets"]
                last = str([(t["labels"].get("job"), t["health"], t.get("lastError")) for t in active])
                if len(active) == self.n_targets and all(t["health"] == "up" for t in active):
                    return
            except OSError as exc:
                last = str(exc)
            time.sleep(0.25)
        raise RuntimeError(f"prometheus targets not up within {timeout_s} s: {last}")

    def log_text(self) -> str:
        path = Path(self.log.name)
        return path.read_text()[-2000:] if path.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()
