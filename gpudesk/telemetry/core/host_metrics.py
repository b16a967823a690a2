"""Host metric names carried on GPU samples (the Sample model's ``values`` is open: a source that can read the
host adds these to every GPU's sample of a round; rules take the highest reading per round).

``host_cpu_util_pct`` is psutil.cpu_percent() over all cores (0-100) for a local NVML source, or the host
metric a fleet source scrapes (node_exporter's node_cpu_seconds_total rate, 1 - idle share).
"""

from __future__ import annotations

HOST_CPU_UTIL = "host_cpu_util_pct"
SM_CLOCK_APP = "sm_clock_app_hz"  # nvmlDeviceGetApplicationsClock(SM) MHz -> Hz
SM_CLOCK_MAX = "sm_clock_max_hz"  # nvmlDeviceGetMaxClockInfo(SM) MHz -> Hz
