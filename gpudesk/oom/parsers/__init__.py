"""Parsers for OOM texts: one module per source shape, dispatched by :mod:`.detect`.

Each parser module has ``matches(text) -> bool`` and ``parse(text, report) -> bool`` that fills a
:class:`gpudesk.oom.report.MemoryReport` with what it finds, records absent clauses in ``report.missing``
and never raises on odd text.
"""

from gpudesk.oom.parsers.detect import decode_text, detect_framework, parse_text

__all__ = ["decode_text", "detect_framework", "parse_text"]
