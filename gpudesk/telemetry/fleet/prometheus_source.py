"""Fleet telemetry read from a Prometheus server that scrapes NVIDIA's DCGM exporter (or all-smi).

Uses the Prometheus HTTP API (https://prometheus.io/docs/prometheus/latest/querying/api/): ``/api/v1/query``,
``/api/v1/query_range``, ``/api/v1/series``, ``/api/v1/labels`` and ``/api/v1/label/__name__/values``.
One instant query reads the whole fleet now; history is one range query per metric (never per GPU), with a step
that fits the window (:func:`choose_step`) and ``avg_over_time`` over each step so short bursts are averaged in,
not skipped. Values become gpudesk units (dcgm_fields); DCGM blank sentinels and NaN become None with a reason.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from gpudesk.i18n import N_, _, marked
from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.fleet import (
    FleetHistory,
    FleetSnapshot,
    KeyIndex,
    frame_from_matrix,
    key_from_labels,
)
from gpudesk.telemetry.fleet.fleet_http import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_TIMEOUT_S,
    Auth,
    FleetBadResponse,
    FleetError,
    FleetNoData,
    FleetTooLarge,
    HttpClient,
    plain_text,
)
from gpudesk.telemetry.fleet.fleet_values import reading, readings
from gpudesk.telemetry.fleet.prometheus_matrix import decode_range_answer
from gpudesk.telemetry.core.model import Sample, SampleBatch

# Prometheus refuses range answers above 11,000 points per series; a heat-map column per pixel needs far fewer.
MAX_POINTS = 720
NICE_STEPS_S = (15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400)
# Range queries in flight at once (one per metric). The work is the server's: with Prometheus on its own machine
# they overlap; on a small shared machine running both, 1 can be faster (see tests/benchmarks/test_fleet_figures.py).
MAX_PARALLEL_QUERIES = 4
DEFAULT_SCRAPE_INTERVAL_S = 15.0  # dcgm-exporter's -c default is 30000 ms; Prometheus' default scrape is 15 s
# Series in one answer (or one exporter page) before it is refused: a 5,000-GPU fleet's instant query of the 19
# default metrics is ~95,000 series, a DCGM exporter page ~40 series per GPU.
DEFAULT_MAX_SERIES = 250_000

# Units whose values are rates or levels (averaged over a step); the others (bit masks, codes, counters) are read
# as the last value in each step.
_AVERAGED_UNITS = frozenset({"%", "W", "C", "bytes", "bytes/s", "Hz"})

DEFAULT_FLEET_METRICS = (
    m.GPU_UTIL, df.GR_ENGINE_ACTIVE, df.SM_ACTIVE, df.TENSOR_ACTIVE, df.DRAM_ACTIVE, m.MEM_USED, m.MEM_FREE,
    m.MEM_UTIL, m.POWER, m.POWER_LIMIT, m.GPU_TEMP, m.MEM_TEMP, m.SM_CLOCK, m.CLOCK_EVENTS, m.PCIE_RX, m.PCIE_TX, m.NVLINK_RX, m.NVLINK_TX, df.XID_LAST,
)

_NAME_RE = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]{0,200}")


def choose_step(window_s: float, scrape_interval_s: float = DEFAULT_SCRAPE_INTERVAL_S,
                max_points: int = MAX_POINTS) -> float:
    """The smallest "nice" step (s) giving at most ``max_points`` points over the window, and never finer than
    the scrape interval (a week at 15 s would be 40,320 points per GPU)."""
    need = max(float(scrape_interval_s), float(window_s) / max(1, max_points))
    for step in NICE_STEPS_S:
        if step >= need:
            return float(step)
    return float(math.ceil(need))


class MetricNames:
    """gpudesk metric -> the Prometheus metric names that carry it (DCGM exporter, then all-smi), with overrides
    for deployments that renamed metrics (``{"gpu_util_pct": "my_gpu_util"}``; the unit factor stays)."""

    def __init__(self, overrides: Mapping[str, str] | None = None) -> None:
        self.by_metric: dict[str, list[df.FieldMap]] = {}
        for fm in (*df.FIELDS, *df.ALL_SMI_FIELDS, *df.NVITOP_FIELDS):
            self.by_metric.setdefault(fm.metric, []).append(fm)
        unknown = sorted(set(overrides or {}) - set(self.by_metric))
        if unknown:
            raise FleetError(
                _("{names}: not a gpudesk metric that can be renamed.").format(names=", ".join(unknown)),
                field="metric_names",
                remedy=_("Use one of: {known}.").format(known=", ".join(sorted(self.by_metric))))
        self.overrides = dict(overrides or {})
        for metric, name in (overrides or {}).items():
            if not _NAME_RE.fullmatch(name):
                raise FleetError(_("{name} is not a valid Prometheus metric name.").format(name=name),
                                 field="metric_names")
            base = self.by_metric.get(metric, [df.FieldMap(name, None, metric)])[0]
            self.by_metric[metric] = [df.FieldMap(name, None, metric, base.scale)]
        self.by_name: dict[str, df.FieldMap] = {fm.dcgm_name: fm for fms in self.by_metric.values() for fm in fms}
        for metric in overrides or {}:  # a renamed metric wins over a default that uses the same name
            fm = self.by_metric[metric][0]
            self.by_name[fm.dcgm_name] = fm

    def names(self, metrics: Iterable[str] | None = None) -> list[str]:
        wanted = list(metrics) if metrics is not None else list(self.by_metric)
        return [fm.dcgm_name for metric in wanted for fm in self.by_metric.get(metric, [])]


def _value(raw: Any, metric: str, scale: float) -> tuple[float | None, str | None]:
    if not isinstance(raw, (str, int, float)) or isinstance(raw, bool):
        return None, "not a number"
    try:
        v = float(raw)
    except ValueError:
        return None, "not a number"
    return reading(v, metric, scale)


def _type_name(value: Any) -> str:
    name = {dict: N_("an object"), list: N_("a list"), str: N_("a string"), bool: N_("true/false"),
            type(None): "null", int: N_("a number"), float: N_("a number"), np.ndarray: N_("a list")}.get(type(value))
    return marked(name) if name is not None else type(value).__name__


class _Shape:
    """Checks that an API answer has the types https://prometheus.io/docs/prometheus/latest/querying/api/ gives;
    a wrong one is a FleetBadResponse naming where (``data.result[3].metric.gpu``) and what was found."""

    def __init__(self, url: str) -> None:
        self.url = url

    def error(self, where: str, expected: str, got: Any) -> FleetBadResponse:
        return FleetBadResponse(
            _("The answer from {url} is not a Prometheus API answer: {where} is {got}, not {expected}.").format(
                url=self.url, where=where, got=_type_name(got), expected=expected), field="url",
            remedy=_("Check that the address is a Prometheus server (or compatible)."))

    def result(self, data: Any, max_series: int) -> list[Any]:
        if not isinstance(data, dict):
            raise self.error(where="data", expected=_("an object"), got=data)
        result = data.get("result")
        if result is None:
            return []
        if not isinstance(result, list):
            raise self.error(where="data.result", expected=_("a list"), got=result)
        if len(result) > max_series:
            raise too_many_series(self.url, len(result), max_series)
        return result

    def labels(self, series: Any, i: int) -> dict[str, str]:
        if not isinstance(series, dict):
            raise self.error(where=f"data.result[{i}]", expected=_("an object"), got=series)
        labels = series.get("metric")
        if labels is None:
            return {}
        if not isinstance(labels, dict):
            raise self.error(where=f"data.result[{i}].metric", expected=_("an object"), got=labels)
        for k, v in labels.items():
            if not isinstance(v, str):
                raise self.error(where=f"data.result[{i}].metric.{plain_name(k)}", expected=_("a string"), got=v)
        return labels

    def point(self, series: dict[str, Any], i: int) -> tuple[float, Any] | None:
        point = series.get("value")
        if point is None:
            return None
        if not (isinstance(point, list) and len(point) == 2 and isinstance(point[0], (int, float))
                and not isinstance(point[0], bool)):
            # Translators: Prometheus's JSON pair of a sample, keep it as written
            raise self.error(where=f"data.result[{i}].value", expected=_("[time, \"value\"]"), got=point)
        return float(point[0]), point[1]

    def matrix(self, series: dict[str, Any], i: int) -> np.ndarray:
        values = series.get("values")
        if values is None:
            return np.empty((0, 2))
        # Translators: [time, "value"] is Prometheus's JSON pair, keep it as written
        wrong = self.error(where=f"data.result[{i}].values",
                           expected=_("a list of [time, \"value\"] with finite times"), got=values)
        if isinstance(values, np.ndarray):  # already read by prometheus_matrix
            arr = values
        elif isinstance(values, list):
            try:
                arr = np.array(values, dtype=np.float64)  # [[t, "value"], ...]; numpy parses the strings
            except (TypeError, ValueError):
                raise wrong from None
        else:
            raise self.error(where=f"data.result[{i}].values", expected=_("a list"), got=values)
        if arr.size and (arr.ndim != 2 or arr.shape[1] != 2 or not np.isfinite(arr[:, 0]).all()):
            raise wrong
        return arr.reshape(-1, 2)


def plain_name(key: Any) -> str:
    """A label name from an answer, cut short, for a message."""
    return str(key)[:60]


def too_many_series(url: str, n: int, limit: int) -> FleetTooLarge:
    return FleetTooLarge(
        _("The answer from {url} is too large: {n} series, limit {limit} (raise with --max-series).").format(
            url=url, n=n, limit=limit), field="max_series",
        remedy=_("Narrow the selector to fewer hosts or GPUs, or raise the limit."))


class PrometheusSource:
    """Reads DCGM exporter metrics of many nodes from one Prometheus server."""

    def __init__(self, url: str, *, auth: Auth | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                 ca_file: str | None = None, selector: str = "", metric_names: Mapping[str, str] | None = None,
                 scrape_interval_s: float = DEFAULT_SCRAPE_INTERVAL_S,
                 parallel_queries: int = MAX_PARALLEL_QUERIES, max_series: int = DEFAULT_MAX_SERIES,
                 max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.parallel_queries = max(1, int(parallel_queries))
        self.http = HttpClient(url, auth=auth, timeout_s=timeout_s, ca_file=ca_file, max_body_bytes=max_body_bytes)
        if not (isinstance(max_series, int) and max_series > 0):
            raise FleetError(_("The series limit must be a positive whole number, not {limit}.").format(
                limit=max_series), field="max_series")
        self.max_series = max_series
        self.shape = _Shape(self.http.base_url)
        self.selector = selector.strip()
        self.names = MetricNames(metric_names)
        self.scrape_interval_s = scrape_interval_s
        self.queries = 0  # HTTP API calls made, for tests and the status line
        self._present: set[str] | None = None
        self._count_lock = threading.Lock()

    # --- the HTTP API ------------------------------------------------------------------------------------
    def _api(self, path: str, params: dict[str, str] | list[tuple[str, str]] | None = None, *,
             matrix: bool = False) -> Any:
        with self._count_lock:
            self.queries += 1
        if matrix:  # a range answer: the values arrays go straight into numpy (prometheus_matrix)
            body = self.http.get_bytes(path, params)
            doc = decode_range_answer(body)
            if doc is None:
                doc = self.http.decode_json(body)
        else:
            doc = self.http.get_json(path, params)
        if not isinstance(doc, dict) or doc.get("status") != "success":
            err = doc.get("error") if isinstance(doc, dict) else None
            detail = plain_text(err[:2000], 300) if isinstance(err, str) else (
                f"status {plain_text(str(doc.get('status'))[:100], 60)}" if isinstance(doc, dict)
                else f"{_type_name(doc)} at the top level")
            raise FleetBadResponse(_("{url} did not return a Prometheus API answer.").format(url=self.http.base_url),
                                   field="url", detail=detail,
                                   remedy=_("Check that the address is a Prometheus server (or compatible)."))
        return doc.get("data")

    def query(self, expr: str, at: float | None = None) -> list[dict[str, Any]]:
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        return self.shape.result(self._api("/api/v1/query", params), self.max_series)

    def query_range(self, expr: str, start: float, end: float, step_s: float) -> list[dict[str, Any]]:
        data = self._api("/api/v1/query_range", {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}",
                                                 "step": f"{step_s:g}"}, matrix=True)
        return self.shape.result(data, self.max_series)

    def series(self, match: Sequence[str], start: float | None = None, end: float | None = None
               ) -> list[dict[str, str]]:
        params: list[tuple[str, str]] = [("match[]", x) for x in match]
        if start is not None:
            params.append(("start", f"{start:.3f}"))
        if end is not None:
            params.append(("end", f"{end:.3f}"))
        data = self._api("/api/v1/series", params)
        if not isinstance(data, list):
            raise self.shape.error(where="data", expected=_("a list"), got=data)
        if len(data) > self.max_series:
            raise too_many_series(self.http.base_url, len(data), self.max_series)
        return [self.shape.labels({"metric": x}, i) for i, x in enumerate(data)]

    def _names(self, path: str) -> list[str]:
        data = self._api(path)
        if not isinstance(data, list):
            raise self.shape.error(where="data", expected=_("a list"), got=data)
        for i, x in enumerate(data):
            if not isinstance(x, str):
                raise self.shape.error(where=f"data[{i}]", expected=_("a string"), got=x)
        return data

    def labels(self) -> list[str]:
        return self._names("/api/v1/labels")

    def metric_names_present(self) -> list[str]:
        return self._names("/api/v1/label/__name__/values")

    # --- fleet reads ----------------------------------------------------------------------------------------
    def _selector(self, name: str) -> str:
        return f"{name}{{{self.selector}}}" if self.selector else name

    def present_names(self, refresh: bool = False) -> set[str]:
        """The metric names the server holds (read once, then cached; ``refresh`` reads them again)."""
        if self._present is None or refresh:
            self._present = set(self.metric_names_present())
        return self._present

    def resolve(self, fm: df.FieldMap) -> str | None:
        """The name the server uses for this field: exact, or the same name in other letter case (some deployments
        lower-case DCGM names); None when absent."""
        present = self.present_names()
        if fm.dcgm_name in present:
            return fm.dcgm_name
        lower = fm.dcgm_name.lower()
        return next((p for p in present if p.lower() == lower), None)

    def discover(self) -> list[str]:
        """The gpudesk metrics this server holds; FleetNoData when it holds no DCGM (or all-smi) metric."""
        present = self.present_names(refresh=True)
        lowered = {p.lower() for p in present}
        found = [metric for metric, fms in self.names.by_metric.items()
                 if any(f.dcgm_name.lower() in lowered for f in fms)]
        if not found:
            raise FleetNoData(
                _("{url} holds no DCGM exporter metrics.").format(url=self.http.base_url), field="url",
                remedy=_("Check that Prometheus scrapes the DCGM exporter (port 9400) and that the metric names are "
                         "not renamed; renamed metrics can be mapped in the fleet settings."))
        return found

    def snapshot(self, metrics: Iterable[str] | None = None, at: float | None = None) -> FleetSnapshot:
        """Every GPU's latest values in one instant query."""
        names = self.names.names(metrics if metrics is not None else DEFAULT_FLEET_METRICS)
        expr = "{__name__=~\"(?i)" + "|".join(names) + "\"" + (f",{self.selector}" if self.selector else "") + "}"
        t = time.time() if at is None else at
        result = self.query(expr, at=t)
        index = KeyIndex()
        per_pos: dict[int, Sample] = {}
        skipped = 0
        for i, series in enumerate(result):
            labels = self.shape.labels(series, i)
            name = labels.get("__name__", "")
            fm = self.names.by_name.get(name) or self.names.by_name.get(name.upper())
            key = key_from_labels(labels)
            if fm is None or key is None:
                skipped += 1
                continue
            pos = index.position(key)
            ts, raw = self.shape.point(series, i) or (t, "NaN")
            sample = per_pos.setdefault(pos, Sample(ts, pos, key.uuid, {}))
            val, why = _value(raw, fm.metric, fm.scale)
            if val is None and sample.values.get(fm.metric) is not None:
                continue
            sample.values[fm.metric] = val
            if why:
                sample.reasons[fm.metric] = why
        if result and not per_pos:
            raise FleetNoData(_("The GPU metrics at {url} carry no gpu, UUID or index label.").format(
                url=self.http.base_url), field="labels",
                remedy=_("gpudesk maps the DCGM exporter's labels (gpu, UUID, Hostname, GPU_I_ID); check relabelling "
                         "rules that drop them."))
        batch = SampleBatch(t, [per_pos[p] for p in sorted(per_pos)], source="prometheus")
        notes = [_("{n} series without GPU labels were skipped.").format(n=skipped)] if skipped else []
        return FleetSnapshot(index.keys, batch, notes)

    def range_expr(self, fm: df.FieldMap, step_s: float) -> str:
        sel = self._selector(fm.dcgm_name)
        if df.metric_unit(fm.metric) in _AVERAGED_UNITS:
            # every sample of the step is averaged in; the range is never shorter than one scrape interval
            rng = math.ceil(max(step_s, self.scrape_interval_s))
            return f"avg_over_time({sel}[{rng}s])"
        return f"last_over_time({sel}[{math.ceil(max(step_s, self.scrape_interval_s))}s])"

    def window_means(self, window_s: float, *, end: float | None = None,
                     metrics: Iterable[str] | None = None) -> FleetHistory:
        """Each GPU's mean over the window, one instant query per metric (``avg_over_time(m[window])``): the heat
        map's first picture, a few kilobytes instead of the whole range. One row per GPU at ``end``; ``step_s`` is
        the window."""
        end_t = time.time() if end is None else float(end)
        index = KeyIndex()
        values: dict[str, dict[int, float]] = {}
        bad_reasons: dict[tuple[int, str], str] = {}
        wanted = list(metrics) if metrics is not None else [m.GPU_UTIL]
        rng = math.ceil(max(window_s, self.scrape_interval_s))
        for metric in wanted:
            for fm in self.names.by_metric.get(metric, []):
                name = self.resolve(fm)
                if name is None:
                    continue
                for i, series in enumerate(self.query(f"avg_over_time({self._selector(name)}[{rng}s])", at=end_t)):
                    key = key_from_labels(self.shape.labels(series, i))
                    if key is None:
                        continue
                    pos = index.position(key)
                    val, why = _value((self.shape.point(series, i) or (end_t, "NaN"))[1], metric, fm.scale)
                    if val is not None:
                        values.setdefault(metric, {})[pos] = val
                    elif why:
                        bad_reasons[(pos, metric)] = why
        n_gpu = len(index.keys)
        columns = {metric: np.array([[per.get(p, np.nan) for p in range(n_gpu)]]) for metric, per in values.items()}
        reasons = {(p, metric): bad_reasons.get((p, metric), "not exported") for metric in wanted
                   for p in range(n_gpu) if p not in values.get(metric, {})}
        frame = frame_from_matrix(np.array([end_t]), columns, reasons)
        return FleetHistory(index.keys, frame, float(window_s), [])

    def history(self, window_s: float, *, end: float | None = None, metrics: Iterable[str] | None = None,
                step_s: float | None = None) -> FleetHistory:
        """The fleet over ``window_s`` seconds up to ``end`` (now): one range query per Prometheus metric name."""
        end_t = time.time() if end is None else float(end)
        if not (math.isfinite(window_s) and window_s > 0):
            raise FleetError(_("The window must be a positive number of seconds, not {window}.").format(
                window=window_s), field="window")
        if step_s is not None and not (math.isfinite(step_s) and step_s > 0):
            raise FleetError(_("The step must be a positive number of seconds, not {step}.").format(step=step_s),
                             field="step", remedy=_("Leave it out to fit the window, or give e.g. 15."))
        step = float(step_s) if step_s is not None else choose_step(window_s, self.scrape_interval_s)
        # aligned steps (the same cells on every refresh); the last cell is the one holding "now"
        end_t = math.ceil(end_t / step) * step
        n_t = math.ceil(float(window_s) / step) + 1
        start_t = end_t - (n_t - 1) * step
        grid = start_t + step * np.arange(n_t, dtype=np.float64)
        index = KeyIndex()
        parts: dict[str, list[tuple[int, np.ndarray, np.ndarray]]] = {}
        reasons: dict[tuple[int, str], str] = {}
        wanted = list(metrics) if metrics is not None else list(DEFAULT_FLEET_METRICS)
        jobs: list[tuple[str, df.FieldMap, str]] = []
        for metric in wanted:
            for fm in self.names.by_metric.get(metric, []):
                name = self.resolve(fm)
                if name is not None:
                    expr = self.range_expr(df.FieldMap(name, fm.dmon_tag, fm.metric, fm.scale), step)
                    jobs.append((metric, fm, expr))
        notes = [_("The metric {name} given for {metric} is not on {url}: {metric} is N/A and the findings that "
                   "need it are not judged.").format(name=self.names.overrides[metric], metric=metric,
                                                     url=self.http.base_url)
                 for metric in wanted if metric in self.names.overrides
                 and not any(job[0] == metric for job in jobs)]
        # the range queries run side by side (Prometheus evaluates them in parallel); results are placed in
        # query order, so positions do not depend on which answer came first
        with ThreadPoolExecutor(max_workers=max(1, min(self.parallel_queries, len(jobs)))) as pool:
            answers = list(pool.map(lambda job: self.query_range(job[2], start_t, end_t, step), jobs))
        for (metric, fm, _expr), result in zip(jobs, answers):
            for i, series in enumerate(result):
                key = key_from_labels(self.shape.labels(series, i))
                arr = self.shape.matrix(series, i)
                if key is None or not arr.size:
                    continue
                pos = index.position(key)
                # a timestamp far outside the window (or not finite) is dropped before the cast to int64
                offset = np.rint((arr[:, 0] - start_t) / step)
                vals, why = readings(arr[:, 1], metric, fm.scale)
                if why is not None:
                    reasons.setdefault((pos, metric), why)
                keep = np.isfinite(offset) & (offset >= 0) & (offset < n_t)
                parts.setdefault(metric, []).append((pos, offset[keep].astype(np.int64), vals[keep]))
        n_gpu = len(index.keys)
        columns: dict[str, np.ndarray] = {}
        for metric, chunks in parts.items():
            mat = np.full((n_t, n_gpu), np.nan)
            for pos, idx, vals in chunks:
                mat[idx, pos] = vals
            columns[metric] = mat
        for metric in wanted:
            if metric not in columns and self.names.by_metric.get(metric):
                for pos in range(n_gpu):
                    reasons.setdefault((pos, metric), "not exported")
        if n_gpu == 0:
            return FleetHistory([], frame_from_matrix(grid[:0], {}), step, notes)
        frame = frame_from_matrix(grid, columns, reasons)
        return FleetHistory(index.keys, frame, step, notes)

