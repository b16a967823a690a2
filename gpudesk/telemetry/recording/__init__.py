"""Recording samples into the store and reading them back; CSV export; burn-in reports of a recording."""
