"""The one NVML session shared by the monitor (telemetry) and the OOM doctor (oom).

Below both in the layers: it imports neither. ``nvml_session`` (value-or-reason calls, device facts),
``nvml_processes`` (per-process GPU memory with psutil facts), ``device`` (:class:`DeviceInfo`), ``pcie``
(link capacities), ``errors`` (:class:`NvmlError`).
"""
