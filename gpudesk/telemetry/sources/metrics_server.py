"""``gpudesk monitor serve``: this machine's GPUs as a Prometheus ``/metrics`` page with the DCGM exporter's names.

Metric names, units and labels follow NVIDIA's dcgm-exporter where they mean the same thing
(``etc/default-counters.csv``, ``etc/dcp-metrics-included.csv`` and ``internal/pkg/rendermetrics`` of
https://github.com/NVIDIA/dcgm-exporter): ``DCGM_FI_DEV_GPU_UTIL`` (%), ``DCGM_FI_DEV_FB_USED`` (MiB),
``DCGM_FI_DEV_POWER_USAGE`` (W), ``DCGM_FI_DEV_SM_CLOCK`` (MHz), ``DCGM_FI_PROF_SM_ACTIVE`` (ratio 0..1) ...; labels
``gpu``, ``UUID``, ``device``, ``modelName``, ``Hostname``, ``pci_bus_id``. The mapping is the one gpudesk reads
exporters with (:mod:`gpudesk.telemetry.core.dcgm_fields`), inverted, so the fleet view reads this page like a DCGM
exporter and gets back the numbers that were served. Per-process GPU memory (which the DCGM exporter does not
have) is ``gpudesk_process_gpu_memory_used_bytes`` with ``pid``, ``user`` and ``command`` labels.

Bound to 127.0.0.1 unless the caller gives another address. An optional bearer token is compared in constant time
(``hmac.compare_digest``); it comes from a file or an environment variable, never from the command line.
Samples are read from the source when a scrape arrives, at most once per ``min_interval_s``, so the GPUs are not
polled when nobody scrapes.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from gpudesk.errors import GpudeskError
from gpudesk.i18n import _
from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core.model import DeviceInfo, SampleBatch

PROCESS_MEMORY = "gpudesk_process_gpu_memory_used_bytes"
PROCESS_SM_SHARE = "gpudesk_process_sm_util_pct"
PROCESS_MEM_SHARE = "gpudesk_process_mem_util_pct"
MAX_LABEL_CHARS = 200


class ServeError(GpudeskError):
    """The metrics endpoint cannot start (address in use, bad address, token file unreadable)."""


def exported_fields() -> list[df.FieldMap]:
    """One DCGM field per gpudesk metric (the first in :data:`dcgm_fields.FIELDS`: the current name)."""
    seen: set[str] = set()
    out = []
    for fm in df.FIELDS:
        if fm.metric not in seen:
            seen.add(fm.metric)
            out.append(fm)
    return out


def _label(text: object) -> str:
    return str(text if text is not None else "")[:MAX_LABEL_CHARS]


class GpuCollector:
    """A prometheus_client collector over a sample source: ``read()`` returns the latest batch (called on a
    scrape); ``devices`` the static facts; ``processes()`` the per-process rows (optional)."""

    def __init__(self, read: Callable[[], SampleBatch], devices: Callable[[], list[DeviceInfo]], host: str, *,
                 processes: Callable[[], list[Any]] | None = None, min_interval_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._read = read
        self._devices = devices
        self._processes = processes
        self.host = host
        self.min_interval_s = min_interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._last: tuple[float, SampleBatch, list[Any]] | None = None
        self.fields = exported_fields()

    def latest(self) -> tuple[SampleBatch, list[Any]]:
        """The batch (and processes) served: read anew when the last read is older than ``min_interval_s``."""
        with self._lock:
            now = self._clock()
            if self._last is None or now - self._last[0] >= self.min_interval_s:
                batch = self._read()
                procs = self._processes() if self._processes is not None else []
                self._last = (now, batch, procs)
            return self._last[1], self._last[2]

    def collect(self) -> Iterator[Metric]:
        batch, procs = self.latest()
        devs = {d.index: d for d in self._devices()}
        labels = ["gpu", "UUID", "device", "modelName", "Hostname", "pci_bus_id", df.MIG_PROFILE_LABEL,
                  df.MIG_INSTANCE_LABEL]
        families = {fm.metric: GaugeMetricFamily(fm.dcgm_name, df.metric_label(fm.metric), labels=labels)
                    for fm in self.fields}
        used: set[str] = set()
        for s in batch.samples:
            d = devs.get(s.gpu_index)
            values = [str(s.gpu_index), _label(s.gpu_uuid or (d.uuid if d else "")), f"nvidia{s.gpu_index}",
                      _label(d.name if d else ""), _label(self.host), _label(d.pci_bus_id if d else "")]
            # a whole GPU: the MIG labels empty (the same series as without them); a MIG GPU instance: the parent
            # GPU's labels plus GPU_I_ID, as the DCGM exporter labels MIG entities (profile unknown here: empty)
            rows = [(values + ["", ""], s.values)]
            rows += [(values + ["", str(inst.gpu_instance_id)], inst.values) for inst in s.instances]
            for row_labels, row_values in rows:
                for fm in self.fields:
                    v = row_values.get(fm.metric)
                    if v is None:
                        continue  # N/A is left out, as the DCGM exporter does with blank values
                    families[fm.metric].add_metric(row_labels, v / fm.scale)
                    used.add(fm.metric)
        for metric, fam in families.items():
            if metric in used:
                yield fam
        if procs:
            yield from self._process_families(procs, devs)

    def _process_families(self, procs: list[Any], devs: dict[int, DeviceInfo]) -> Iterator[Metric]:
        labels = ["gpu", "UUID", "Hostname", "pid", "user", "command"]
        mem = GaugeMetricFamily(PROCESS_MEMORY, "GPU memory used by the process", labels=labels)
        sm = GaugeMetricFamily(PROCESS_SM_SHARE, "SM utilization share of the process (percent of the GPU)",
                               labels=labels)
        bw = GaugeMetricFamily(PROCESS_MEM_SHARE, "Memory-bandwidth utilization share of the process "
                               "(percent of the GPU)", labels=labels)
        for p in procs:
            d = devs.get(p.gpu_index)
            values = [str(p.gpu_index), _label(p.gpu_uuid or (d.uuid if d else "")), _label(self.host), str(p.pid),
                      _label(p.user), _label(p.name)]
            if p.used_memory_bytes is not None:
                mem.add_metric(values, float(p.used_memory_bytes))
            if getattr(p, "sm_util_pct", None) is not None:
                sm.add_metric(values, float(p.sm_util_pct))
            if getattr(p, "mem_util_pct", None) is not None:
                bw.add_metric(values, float(p.mem_util_pct))
        for fam in (mem, sm, bw):
            if fam.samples:
                yield fam


def parse_listen(text: str, default_port: int) -> tuple[str, int]:
    """``HOST:PORT``, ``HOST``, ``:PORT`` or ``[IPv6]:PORT`` -> (host, port); 127.0.0.1 when no host is given.

    Raises:
        ServeError: a port that is not a number from 0 to 65535.
    """
    text = text.strip()
    host, port_text = text, ""
    if text.startswith("["):
        host, _sep, rest = text[1:].partition("]")
        port_text = rest.lstrip(":")
    elif text.count(":") == 1:
        host, _sep, port_text = text.partition(":")
    host = host or "127.0.0.1"
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ServeError(_("--listen {text}: the port must be a number from 0 to 65535.").format(text=text),
                         field="listen")
    return host, int(port_text)


class MetricsServer:
    """The HTTP server of ``/metrics`` (a thread); ``port`` is the bound port (useful with port 0)."""

    def __init__(self, collector: GpuCollector, host: str = "127.0.0.1", port: int = 9401,
                 token: str | None = None) -> None:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(collector)
        expected = f"Bearer {token}".encode() if token else None
        self.scrapes = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path.split("?", 1)[0] not in ("/metrics", "/metrics/"):
                    self.send_error(404)
                    return
                if expected is not None:
                    given = (self.headers.get("Authorization") or "").encode()
                    if not hmac.compare_digest(given, expected):
                        self.send_response(401)
                        self.send_header("WWW-Authenticate", 'Bearer realm="gpudesk"')
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                body = generate_latest(registry)
                server.scrapes += 1
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE_LATEST)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return  # a scrape a second would flood the terminal

        family = ThreadingHTTPServer
        if ":" in host:
            import socket

            class V6(ThreadingHTTPServer):
                address_family = socket.AF_INET6

            family = V6
        try:
            self.httpd = family((host, port), Handler)
        except OSError as exc:
            raise ServeError(_("Cannot listen on {host}:{port}: {reason}.").format(
                host=host, port=port, reason=exc.strerror or exc), field="listen",
                remedy=_("Pick another port with --listen HOST:PORT.")) from exc
        self.host = host
        self.port = int(self.httpd.server_address[1])
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="gpudesk-metrics", daemon=True)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
