"""GPUs across nodes: fleet keys and history, Prometheus and exporter sources, fleet records and secrets."""
