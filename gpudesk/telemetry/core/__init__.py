"""The telemetry base: the sample model and the one time-series shape, its live buffer, time bases, metric catalogues, plausibility checks and statistics."""
