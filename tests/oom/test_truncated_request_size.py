"""PyTorch OOM messages read with what they lost or how their platform words them. A message cut inside its request
size ("Tried to allocate 1.5" and nothing after) lost the unit: the size is unknown, never "2 B" (before the fix
the tolerant layer read the bare 1.5 as bytes while listing the request as missing). A ROCm message ("HIP out of
memory") names its exception as a CUDA one does (before, the exception row was left out)."""

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


def test_rocm_message_names_its_exception():
    # PyTorch on ROCm (RX 7900 XTX, gfx1100) prints the hipified allocator sentence; the exception is read as on CUDA.
    text = ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of "
            "23.98 GiB of which 2.10 GiB is free. Of the allocated memory 19.50 GiB is allocated by PyTorch, and "
            "1.80 GiB is reserved by PyTorch but unallocated.")
    report = parse_text(text)
    assert report.parsed["exception_class"] == "torch.OutOfMemoryError"
    assert report.platform == "rocm"
