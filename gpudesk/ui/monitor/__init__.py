"""The Monitor tab: live NVML plots, dmon import and streams, recordings, heat map, statistics, findings."""
