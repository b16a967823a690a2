"""A direct scrape of one or more exporter ``/metrics`` endpoints (DCGM exporter, all-smi), for a few nodes
without a Prometheus server. The exposition text is parsed with ``prometheus_client``'s parser."""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Iterable

from prometheus_client.parser import text_string_to_metric_families

from gpudesk.i18n import _
from gpudesk.telemetry import dcgm_fields as df
from gpudesk.telemetry.fleet import FleetSnapshot, KeyIndex, key_from_labels
from gpudesk.telemetry.fleet_processes import ProcessRow, process_rows
from gpudesk.telemetry.fleet_http import (
    DEFAULT_TIMEOUT_S,
    Auth,
    FleetBadResponse,
    FleetNoData,
    HttpClient,
)
from gpudesk.telemetry.model import Sample, SampleBatch

MAX_TEXT_BYTES = 64 * 1024 * 1024


def parse_exposition(text: str, index: KeyIndex, samples: dict[int, Sample], t: float, default_host: str,
                     source: str) -> int:
    """Add the GPU metrics of one exposition text to ``samples`` (position -> Sample); returns how many series
    were skipped (no GPU labels). FleetBadResponse when the text is not Prometheus text format."""
    skipped = 0
    try:
        families = list(text_string_to_metric_families(text))
    except (ValueError, TypeError, IndexError) as exc:
        raise FleetBadResponse(_("{source} is not Prometheus text format.").format(source=source), field="url",
                               detail=str(exc)[:300],
                               remedy=_("Give the exporter's /metrics address (port 9400 for the DCGM exporter)."))\
            from exc
    for family in families:
        for s in family.samples:
            # some deployments lower-case the DCGM names (dcgm_fi_dev_gpu_util)
            fm = (df.BY_DCGM_NAME.get(s.name.upper()) or df.BY_ALL_SMI_NAME.get(s.name)
                  or df.BY_NVITOP_NAME.get(s.name))
            if fm is None:
                continue
            labels = dict(s.labels)
            labels["__name__"] = s.name
            if not any(labels.get(k) for k in df.HOST_LABELS):
                labels["instance"] = default_host
            key = key_from_labels(labels)
            if key is None:
                skipped += 1
                continue
            pos = index.position(key)
            sample = samples.setdefault(pos, Sample(t, pos, key.uuid, {}))
            why = df.blank_reason(float(s.value))
            if why is None:
                sample.values[fm.metric] = float(s.value) * fm.scale
            elif sample.values.get(fm.metric) is None:
                sample.values[fm.metric] = None
                sample.reasons[fm.metric] = why
    return skipped


def scrape(urls: Iterable[str], *, auth: Auth | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
           ca_file: str | None = None) -> FleetSnapshot:
    """Every GPU of these exporters now. A host without a Hostname label is named by the URL's host:port."""
    index = KeyIndex()
    samples: dict[int, Sample] = {}
    t = time.time()
    skipped = 0
    url_list = list(urls)
    processes: list[ProcessRow] = []
    for url in url_list:
        client = HttpClient(url, auth=auth, timeout_s=timeout_s, ca_file=ca_file)
        body = client.get_bytes("", accept="text/plain;version=0.0.4")
        if len(body) > MAX_TEXT_BYTES:
            raise FleetBadResponse(_("{url} answered with more than 64 MiB.").format(url=url), field="url")
        text = body.decode("utf-8", "replace")
        host = urllib.parse.urlsplit(client.base_url).netloc
        skipped += parse_exposition(text, index, samples, t, host, client.base_url)
        processes.extend(process_rows(text, host))
    if not samples:
        raise FleetNoData(_("No GPU metrics found at {urls}.").format(urls=", ".join(url_list)), field="url",
                          remedy=_("Check that each address is a DCGM exporter's /metrics endpoint."))
    notes = [_("{n} series without GPU labels were skipped.").format(n=skipped)] if skipped else []
    return FleetSnapshot(index.keys, SampleBatch(t, [samples[p] for p in sorted(samples)], source="scrape"), notes,
                         processes)
