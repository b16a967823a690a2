"""The memory account widget: recognised engine/platform, one bar and term table per GPU, flags as text."""

from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtWidgets import QLabel

from gpudesk.oom import diagnose_text
from gpudesk.ui.oom.account_view import AccountBar, AccountView
from gpudesk.ui.oom.results_view import ResultsView

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "oom"
CASES = {json.loads(line)["url"]: json.loads(line)
         for line in (FIXTURES / "engine_cases.jsonl").read_text(encoding="utf-8").splitlines() if line}
STRIX = CASES["https://github.com/kyuz0/amd-strix-halo-image-video-toolboxes/issues/3"]["message"]
MPS = CASES["https://github.com/pytorch/pytorch/issues/96814"]["message"]


def _texts(widget) -> list[str]:
    return [label.text() for label in widget.findChildren(QLabel)]


def test_account_shows_outside_allocator_term_and_platform(qtbot):
    view = AccountView()
    qtbot.addWidget(view)
    view.set_diagnosis(diagnose_text(STRIX))
    texts = _texts(view)
    assert "Recognised: platform AMD ROCm (HIP)" in texts
    assert any(t.startswith("Outside this process's allocator: 69.46 GiB (54.3 %), derived") for t in texts)
    assert any(t.startswith("Memory account of GPU 0: total capacity 128.00 GiB") for t in texts)
    assert len(view.findChildren(AccountBar)) == 1


def test_mps_account_uses_the_watermark_limit(qtbot):
    view = AccountView()
    qtbot.addWidget(view)
    view.set_diagnosis(diagnose_text(MPS))
    texts = _texts(view)
    assert any("MPS high-watermark limit 32.00 GiB" in t for t in texts)
    assert any(t.startswith("This process outside PyTorch: 24.46 GiB") for t in texts)  # MPS "other allocations"


def test_sentinel_total_is_flagged_not_drawn(qtbot):
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
            "17179869184.00 GiB of which 2.35 GiB is free. Of the allocated memory 1.20 GiB is allocated by PyTorch, "
            "and 20.00 MiB is reserved by PyTorch but unallocated.")
    d = diagnose_text(text)
    assert d.report.devices[0].total_bytes is None
    assert any("not available" in n for n in d.report.notes)
    view = AccountView()
    qtbot.addWidget(view)
    view.set_diagnosis(d)
    assert any("total capacity N/A (unknown)" in t for t in _texts(view))


def test_results_view_shows_the_account_and_engine_cause(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    view.resize(900, 900)
    case = CASES["https://github.com/vllm-project/vllm/issues/34076"]
    view.show_diagnosis(diagnose_text(case["message"]))
    assert view.cause_ids()[0] == "kv_cache_budget"
    assert view.account.recognised.text() == "Recognised: engine vLLM"
    view.show_diagnosis(diagnose_text(STRIX))
    assert view.account.accounts and view.account.accounts[0].value("outside_allocator") is not None
    out = os.environ.get("GPUDESK_SCREENSHOTS")
    if out:
        view.show()
        qtbot.waitExposed(view)
        qtbot.wait(100)
        view.grab().save(str(Path(out) / "oom_account_rocm.png"))
        view.show_diagnosis(diagnose_text(MPS))
        qtbot.wait(100)
        view.grab().save(str(Path(out) / "oom_account_mps.png"))
    view.resize(400, 700)  # a narrow pane: the account wraps instead of widening the body
    qtbot.wait(20)
    assert view.account.minimumSizeHint().width() <= 360


# CUDA.jl's OutOfGPUMemoryError with its status printout (src/pool.jl memory_status), written for this test (qa17).
CUDA_JL = ("ERROR: LoadError: Out of GPU memory trying to allocate 8.016 MiB\n"
           "Effective GPU memory usage: 91.54% (14.446 GiB/15.782 GiB)\n"
           "Memory pool usage: 13.984 GiB (14.000 GiB reserved)\n")


def test_cuda_jl_account_and_header_use_its_name_not_pytorch_or_its_id(qtbot):
    view = AccountView()
    qtbot.addWidget(view)
    diagnosis = diagnose_text(CUDA_JL)
    view.set_diagnosis(diagnosis)
    texts = " ".join(_texts(view))
    assert "Recognised: runtime CUDA.jl" in texts
    assert "PyTorch" not in texts and "cudajl" not in texts
    assert view.term_names(diagnosis.report.framework)["non_pytorch"] == "Outside CUDA.jl's pool (process − reserved)"
    assert view.term_names("tensorflow")["non_pytorch"] == "Outside the framework's allocator (process − reserved)"
    assert view.term_names("pytorch")["non_pytorch"] == "This process outside PyTorch"
    results = ResultsView()
    qtbot.addWidget(results)
    results.show_diagnosis(diagnosis)
    assert "Framework: CUDA.jl" in results.header.text()


def test_copied_report_names_the_runtime_not_its_id():
    from gpudesk.ui.oom.results_view import diagnosis_as_text

    first = diagnosis_as_text(diagnose_text(CUDA_JL)).splitlines()[0]
    assert "CUDA.jl" in first and "cudajl" not in first
