"""The fleet view's own words follow the user's language: the group of GPUs no job holds and the clause list of
the busy-signal note (Chinese joins clauses with a full-width semicolon)."""

from __future__ import annotations


from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.dcgm_fields import SM_ACTIVE
from gpudesk.telemetry.fleet.fleet import GROUP_BY_JOB, GpuKey, group_keys
from gpudesk.telemetry.rules.busy_signal import signal_note

KEYS = [GpuKey("node-a", 0, job=(("namespace", "research"), ("pod", "train-0"))), GpuKey("node-a", 1)]
USED = {0: SM_ACTIVE, 1: m.GPU_UTIL}


def test_no_job_group_in_english() -> None:
    assert list(group_keys(KEYS, GROUP_BY_JOB)) == ["research/train-0", "(no job)"]


def test_no_job_group_in_chinese(zh_cn) -> None:
    assert list(group_keys(KEYS, GROUP_BY_JOB)) == ["research/train-0", "（无作业）"]


def test_signal_note_joins_clauses_as_the_language_does(zh_cn) -> None:
    note = signal_note(USED)
    assert note is not None and "；" in note and "; " not in note


def test_signal_note_in_english() -> None:
    note = signal_note(USED)
    assert note is not None and "; " in note
