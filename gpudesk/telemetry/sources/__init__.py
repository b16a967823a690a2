"""Live sample sources (NVML, amdsmi, host CPU, dmon and dcgmi streams, replay), the Prometheus metrics server and the alert monitor."""
