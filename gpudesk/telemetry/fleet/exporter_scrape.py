"""A direct scrape of one or more exporter ``/metrics`` endpoints (DCGM exporter, all-smi), for a few nodes
without a Prometheus server. The exposition text is read in one pass here (``iter_samples``), only the lines of
metrics gpudesk maps have their labels parsed, so a 5,000-GPU page is read in well under a second; the tests check
it against ``prometheus_client``'s parser on generated pages."""

from __future__ import annotations

import re
import time
import urllib.parse
from typing import TypeVar
from collections.abc import Callable, Iterable, Iterator

from gpudesk.i18n import _
from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.fleet.fleet import FleetSnapshot, KeyIndex, key_from_labels
from gpudesk.telemetry.fleet.fleet_processes import PROCESS_METRICS, ProcessRow, process_rows
from gpudesk.telemetry.fleet.fleet_http import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_TIMEOUT_S,
    Auth,
    FleetBadResponse,
    FleetNoData,
    HttpClient,
)
from gpudesk.telemetry.fleet.fleet_values import reading
from gpudesk.telemetry.core.model import Sample, SampleBatch
from gpudesk.telemetry.fleet.prometheus_source import DEFAULT_MAX_SERIES, too_many_series

# One sample line of the text format (https://prometheus.io/docs/instrumenting/exposition_formats/):
# ``name{label="value",...} value [timestamp]``. Label values may hold ``}``, so the braces take everything up to
# the last ``}`` before the value; the labels are then read one by one, each anchored where the last one ended.
_W = TypeVar("_W")  # what a caller maps a wanted metric name to (a DCGM field map, or the name itself)
PROCESS_METRIC_PREFIX = "gpudesk_process_"
_SAMPLE = re.compile(r"([A-Za-z_:][A-Za-z0-9_:]*)[ \t]*(?:\{(.*)\})?[ \t]*([^ \t{}]+)(?:[ \t]+(-?[0-9]+))?[ \t]*")
_LABEL = re.compile(r'[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*"((?:[^"\\]|\\.)*)"[ \t]*(?:,|$)', re.DOTALL)
_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _unescape(value: str) -> str:
    return _UNESCAPE.sub(lambda mo: "\n" if mo.group(1) == "n" else mo.group(1), value) if "\\" in value else value


def parse_labels(text: str) -> dict[str, str] | None:
    """``a="1",b="x\"y"`` -> {"a": "1", "b": 'x"y'}; None when the text is not a label set."""
    labels: dict[str, str] = {}
    pos, end = 0, len(text)
    while pos < end:
        mo = _LABEL.match(text, pos)
        if mo is None:
            if text[pos:].strip(" \t,") == "":  # a trailing comma is allowed
                break
            return None
        labels[mo.group(1)] = _unescape(mo.group(2))
        pos = mo.end()
    return labels


def iter_samples(text: str, wanted: Callable[[str], _W | None], source: str, max_series: int
                 ) -> Iterator[tuple[_W, dict[str, str], float]]:
    """(field, labels, value) of every sample line whose metric ``wanted`` maps, in one pass over the text: work
    linear in its lines, and only the wanted lines' labels are read. FleetTooLarge past ``max_series`` sample
    lines; FleetBadResponse at the first line that is not the text format."""
    lines = text.split("\n")
    n_series = sum(1 for line in lines if line and line[0] != "#" and not line.isspace())
    if n_series > max_series:
        raise too_many_series(source, n_series, max_series)
    for number, line in enumerate(lines, 1):
        if not line or line[0] == "#" or line.isspace():
            continue
        mo = _SAMPLE.fullmatch(line.strip(" \t\r"))
        if mo is None:
            raise _not_text_format(source, number, line)
        fm = wanted(mo.group(1))
        if fm is None:
            continue
        labels = parse_labels(mo.group(2)) if mo.group(2) else {}
        try:
            value = float(mo.group(3))
        except ValueError:
            labels = None
        if labels is None:
            raise _not_text_format(source, number, line)
        yield fm, labels, value


def _not_text_format(source: str, number: int, line: str) -> FleetBadResponse:
    return FleetBadResponse(
        _("{source} is not Prometheus text format.").format(source=source), field="url",
        detail=_("line {number}: {line}").format(number=number, line=line[:200]),
        remedy=_("Give the exporter's /metrics address (port 9400 for the DCGM exporter)."))


def _process_metric(name: str) -> str | None:
    return name if name in PROCESS_METRICS else None


def _field_of(name: str) -> df.FieldMap | None:
    # some deployments lower-case the DCGM names (dcgm_fi_dev_gpu_util)
    return df.BY_DCGM_NAME.get(name.upper()) or df.BY_ALL_SMI_NAME.get(name) or df.BY_NVITOP_NAME.get(name)


def parse_exposition(text: str, index: KeyIndex, samples: dict[int, Sample], t: float, default_host: str,
                     source: str, max_series: int = DEFAULT_MAX_SERIES) -> int:
    """Add the GPU metrics of one exposition text to ``samples`` (position -> Sample); returns how many series
    were skipped (no GPU labels). FleetBadResponse when the text is not Prometheus text format, FleetTooLarge when
    it holds more than ``max_series`` series. NaN, infinite, DCGM blank and impossible negative values become None
    with the reason (fleet_values.reading)."""
    skipped = 0
    field_cache: dict[str, df.FieldMap | None] = {}

    def wanted(name: str) -> df.FieldMap | None:
        if name not in field_cache:
            field_cache[name] = _field_of(name)
        return field_cache[name]

    for fm, labels, raw in iter_samples(text, wanted, source, max_series):
        labels["__name__"] = fm.dcgm_name
        if not any(labels.get(k) for k in df.HOST_LABELS):
            labels["instance"] = default_host
        key = key_from_labels(labels)
        if key is None:
            skipped += 1
            continue
        pos = index.position(key)
        sample = samples.setdefault(pos, Sample(t, pos, key.uuid, {}))
        value, why = reading(raw, fm.metric, fm.scale)
        if why is None:
            sample.values[fm.metric] = value
        elif sample.values.get(fm.metric) is None:
            sample.values[fm.metric] = None
            sample.reasons[fm.metric] = why
    return skipped


def scrape(urls: Iterable[str], *, auth: Auth | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
           ca_file: str | None = None, max_series: int = DEFAULT_MAX_SERIES,
           max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> FleetSnapshot:
    """Every GPU of these exporters now. A host without a Hostname label is named by the URL's host:port."""
    index = KeyIndex()
    samples: dict[int, Sample] = {}
    t = time.time()
    skipped = 0
    url_list = list(urls)
    processes: list[ProcessRow] = []
    for url in url_list:
        client = HttpClient(url, auth=auth, timeout_s=timeout_s, ca_file=ca_file, max_body_bytes=max_body_bytes)
        text = client.get_bytes("", accept="text/plain;version=0.0.4").decode("utf-8", "replace")
        host = urllib.parse.urlsplit(client.base_url).netloc
        skipped += parse_exposition(text, index, samples, t, host, client.base_url, max_series)
        if PROCESS_METRIC_PREFIX in text:  # gpudesk monitor serve's per-process series, read by the same reader
            processes.extend(process_rows(iter_samples(text, _process_metric, client.base_url, max_series), host))
    if not samples:
        raise FleetNoData(_("No GPU metrics found at {urls}.").format(urls=", ".join(url_list)), field="url",
                          remedy=_("Check that each address is a DCGM exporter's /metrics endpoint."))
    notes = [_("{n} series without GPU labels were skipped.").format(n=skipped)] if skipped else []
    return FleetSnapshot(index.keys, SampleBatch(t, [samples[p] for p in sorted(samples)], source="scrape"), notes,
                         processes)
