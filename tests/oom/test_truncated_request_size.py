"""A message cut inside its request size ("Tried to allocate 1.5" and nothing after) lost the unit: the size is
unknown, never "2 B". Before the fix the tolerant layer read the bare 1.5 as bytes and the diagnosis said PyTorch
"could not get 2 B" while listing the request as missing."""

from __future__ import annotations

from gpudesk.oom.diagnose import diagnose_text
from gpudesk.oom.parsers import parse_text

CUT = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.5"


def test_cut_request_size_is_unknown():
    report = parse_text(CUT)
    assert report.requested_bytes is None
    assert "requested size ('Tried to allocate ...')" in report.missing
    diagnosis = diagnose_text(CUT)
    assert diagnosis.causes[0].id == "unparseable"
    assert "2 B" not in diagnosis.causes[0].explanation


def test_whole_numbers_without_unit_stay_bytes():
    # CUDA's own wording prints a bare byte count ("Tried to allocate 2097152"); that is still read.
    assert parse_text("RuntimeError: CUDA out of memory. Tried to allocate 2097152").requested_bytes == 2097152
