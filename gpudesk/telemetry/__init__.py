"""Telemetry: GPU samples from NVML, ``nvidia-smi dmon`` text (files and live streams) and recordings; the
recorder; statistics, heat maps and bottleneck rules. Qt-free; every slow call runs in the caller's thread
(the UI wraps sources and the recorder in a ThreadWorker).

API summary (stable; names are importable from the modules given):

Model (``gpudesk.telemetry.core.model``)
    Metric-name constants with units in the name: GPU_UTIL "gpu_util_pct", MEM_UTIL, MEM_USED
    "mem_used_bytes", MEM_FREE, MEM_TOTAL, MEM_RESERVED, PCIE_RX/PCIE_TX "pcie_rx_bytes_per_s", PCIE_GEN_CUR,
    PCIE_GEN_MAX, PCIE_WIDTH_CUR, PCIE_WIDTH_MAX, POWER "power_w", POWER_LIMIT, GPU_TEMP "gpu_temp_c", MEM_TEMP,
    SM_CLOCK "sm_clock_hz", MEM_CLOCK, CLOCK_EVENTS (bit mask), ENC_UTIL, DEC_UTIL, ECC_SBE, ECC_DBE, RETIRED_*,
    NVLINK_RX/TX, and dmon-only ones (POWER_VIOLATION, THERMAL_VIOLATION, BAR1_USED, PCIE_REPLAY ...).
    ``METRICS[name] -> MetricInfo(name, unit, label, nvml, dmon)``.
    ``Sample(t, gpu_index, gpu_uuid, values: {metric: float|None}, reasons: {metric: str})``: one GPU, one time.
    ``SampleBatch(t, samples, source)``: one tick, one Sample per GPU.
    ``History(times, gpus, columns: {metric: (rounds, GPUs) array, NaN = N/A}, reasons: {(gpu, metric): str},
    notes)``: the one shape of GPU time series (live, replay, logs, recordings, fleet), built from log or store rows
    by ``History.from_rows(t, gpu, metrics)`` and from live batches by ``History.from_batches(batches)``; with
    ``.select(t0, t1, gpus)``, ``.column(gpu, metric)``, ``.series(gpu, metric) -> (times, v)``,
    ``.reason(gpu, metric)``, ``.span``, ``.nbytes``, ``.rows()`` (one row per round and GPU, for writers),
    ``.to_batches()``, ``.copy()``; ``concat_histories(histories)``. ``HistoryBuffer`` (``ring_buffer``) holds the
    same layout preallocated for the Monitor tab and hands out views with ``.history(t0, t1)``.
    Column dtypes: ``column_dtype(metric)`` - float32 for %, W, C, PCIe gen/width, flags; float64 for bytes,
    bytes/s, Hz, counters, bit masks, unknown units (72 h x 8 GPUs: 8.3 MB vs 16.6 MB per column).
    ``widen(values) -> float64`` gives float32 values in their shortest decimal form (for CSV / JSON).
    ``DeviceInfo(index, uuid, name, pci_bus_id, memory_total_bytes, pcie_gen_max, pcie_width_max_lanes,
    pcie_link_source ("nvml" | "catalog:<id>" | None), power_limit_w, mig_mode, mig_devices, lost_reason,
    reasons)`` with ``.pcie_link_bytes_per_s``. ``TelemetryError``: base of this layer's errors.

PCIe (``gpudesk.nvml.pcie``)
    ``link_bytes_per_s(gen, width)`` (per direction, None when unknown), ``pcie_share(bytes_per_s, gen, width)``
    -> fraction or None, ``describe_link(gen, width, source)`` -> "Gen4 x16 (31.5 GB/s per direction, from ...)".

Source interface (``gpudesk.telemetry.core.source.SampleSource``)
    ``kind``, ``interval_s``, ``devices() -> [DeviceInfo]``, ``poll() -> [SampleBatch]`` (non-blocking),
    ``finished``, ``describe()``, ``close()``. Implementations: ``NvmlSource``, ``DmonStreamSource``,
    ``ReplaySource`` (a dmon file is parsed, then replayed: ``ReplaySource(read_dmon_file(p).frame)``).

NVML (``gpudesk.nvml.nvml_session``, ``nvml_source``, ``nvml_processes``)
    ``probe_nvml(nvml=None) -> NvmlStatus(state, message, error, driver_version, nvml_version, device_count)``;
    ``.available``; states "ok", "module-missing", "library-not-found", "driver-not-loaded", "version-mismatch",
    "no-permission", "no-devices", "error" - ``message`` is the sentence to show.
    ``NvmlSession(nvml=None).open()`` (raises ``NvmlUnavailableError`` with ``.status``), ``.devices()``,
    ``.close()``; ``shared_session()``.
    ``NvmlSource(session=None, nvml=None, interval_s=1.0, slow_interval_s=5.0, pcie_counters=False)``;
    ``.read() -> SampleBatch``;
    ``.pcie_methods`` (GPU -> "byte counters, averaged over the interval" | "20 ms sample ...").
    ``NvmlStatus.warnings``: known driver problems (e.g. the 535.43-535.86 process-struct mismatch).
    ``list_gpu_processes(session=None, nvml=None) -> ProcessListing`` (iterable of ``GpuProcess(pid, gpu_index,
    gpu_uuid, type "compute"|"graphics"|"compute+graphics", used_memory_bytes|None, memory_reason, user, name,
    cmdline, visible, host_reason, gpu_instance_id, compute_instance_id)``; ``.warnings``, ``.errors`` by GPU).

dmon (``gpudesk.telemetry.formats.dmon``, ``dmon_format``, ``dmon_lines``, ``dmon_stream``)
    ``parse_dmon(text_or_lines, *, interval_s=1.0, start_time=None) -> DmonLog(frame, columns, notes,
    unsupported, errors, has_time)``; ``read_dmon_file(path)``; ``DmonLineParser(clock)`` with ``.feed(line)
    -> [SampleBatch]``, ``.flush()``, ``.unsupported``, ``.errors`` for live lines (all importable from dmon);
    ``DmonStreamSource(command, interval_s=1.0)`` runs e.g. ``ssh node nvidia-smi dmon -s umt -o DT``
    (``DmonStreamError`` when it cannot start); ``.last_output()`` is the command's last non-dmon lines (its
    error messages). ``DmonError`` for unreadable input; ``decode_log_bytes(data, name)`` reads UTF-8 and
    UTF-16 / UTF-8 with a BOM (logs saved by PowerShell) and rejects empty and binary files.
    ``gpudesk.telemetry.formats.dmon_import``: ``resolve_gpu_model(query) -> catalog GPU``, ``devices_for_model(gpus,
    gpu) -> [DeviceInfo]`` (PCIe link + memory from the catalog, ``pcie_link_source="catalog:<id>"``),
    ``link_assumption_text(gpu)``, ``import_dmon_log(path, db=None, gpu_model=None, name=None, notes="",
    progress=None) -> ImportResult(session_id, log, devices, rows)``, ``frame_and_devices_from_file(path, gpu)``,
    ``demo_path()``, ``load_demo() -> (frame, devices, log)`` (real public capture, resources/demo/SOURCE.md).

Replay (``gpudesk.telemetry.sources.replay``)
    ``ReplaySource(frame, devices=None, speed=1.0)``; ``speed`` may be changed live; ``seek(t)``.

Recorder and store (``gpudesk.telemetry.recording.recorder``, ``gpudesk.store.recordings``)
    ``Recorder(db=None, flush_interval_s=1.0)``: ``start(devices, *, source, interval_s, notes, host,
    driver_version, nvml_version) -> session_id``; ``write(batch)``; ``write_frame(frame)``; ``flush()``;
    ``stop()``. Open it in the thread that writes (it opens its own connection when ``db`` is None).
    ``gpudesk.store.recordings``: ``list_sessions(db) -> [RecordingSession]``, ``get_session(db, id)``,
    ``rename_session``, ``set_notes``, ``delete_session`` (StoreError for unknown ids / empty names);
    ``gpudesk.telemetry.recording.recorder.load_frame(db, id, t0=None, t1=None, gpus=None, metrics=None) -> History``
    (load only the metrics you plot: a 72 h x 8 GPU NVML recording holds ~30 metrics, 16.6 MB each) and
    ``session_devices(db, id) -> [DeviceInfo]``.

Analysis (``gpudesk.telemetry.core.stats``, ``heatmap``, ``rules``, ``analysis``, ``export``)
    ``span_stats(frame, t0=None, t1=None) -> {gpu: {metric: SpanStats(median, p5, p95, n, missing)}}``;
    ``heatmap(frame, metric=GPU_UTIL, bins=..., t0, t1) -> Heatmap(values[gpu, bin], edges, gpus)``;
    ``rules.run_rules(frame, devices) -> [Finding]`` where ``Finding(rule, gpu, severity "info"|"warning"|
    "critical"|"not-judged", summary, evidence {name_with_unit: number}, span (t0, t1), advice, judged)``;
    ``analysis.analyze(frame, devices) -> Analysis`` with ``.to_json()``; ``export.export_csv(frame, out,
    devices=None)`` (formula-safe text cells).
"""
