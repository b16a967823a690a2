"""The OOM page shows the names of the ids in the evidence (kind of failure, deciding check), from the table the CLI
uses (gpudesk.oom.labels); the history's cause names come from the same table."""

from __future__ import annotations

from gpudesk.oom.labels import cause_name
from gpudesk.ui.oom.history_view import cause_names
from gpudesk.ui.oom.results_view import format_value


def test_evidence_ids_read_as_names():
    assert format_value("not_capacity_kind", "host_ram") == "Host RAM (system memory)"
    assert format_value("deciding_check", "other_process") == "Processes on the GPU"
    assert format_value("check_command", "free -h") == "free -h"  # other strings as they are


def test_history_names_come_from_the_core_table():
    names = cause_names()
    assert names["not_capacity"] == cause_name("not_capacity") == "Not a memory capacity problem"
    assert names["fragmentation"] == "Fragmented allocator cache"
